#!/usr/bin/env python3
"""Copies the lookup tables of ggml's IQ and FP4 quantization formats out of
ggml's `ggml-common.h` into lib/Conversion/RLXToLinalg/GgmlTables.inc.

The tables are data of the published formats (the codebooks the quantizer
chose), so they are copied, not retyped: each `GGML_TABLE_BEGIN(type, name,
size) ... GGML_TABLE_END()` block named below is kept verbatim, under ggml's
MIT license notice. The C++ lowering includes the file with its own
definitions of the two macros; the tests parse the same text independently.

Usage: scripts/import-ggml-tables.py PATH/TO/ggml-common.h COMMIT
(`ggml-common.h` is `src/ggml-common.h` of github.com/ggml-org/ggml or
`ggml/src/ggml-common.h` of github.com/ggml-org/llama.cpp; COMMIT names the
upstream revision it was read from, recorded in the output.)
"""

import os
import re
import sys

# The tables the dequantizers read, in the order they are written.
TABLES = ["ksigns_iq2xs", "iq2xxs_grid", "iq2xs_grid", "iq2s_grid",
          "iq3xxs_grid", "iq3s_grid", "iq1s_grid", "kvalues_iq4nl",
          "kvalues_fp4"]

LICENSE_NOTICE = """\
MIT License

Copyright (c) 2023-2026 The ggml authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE."""

BLOCK = re.compile(r"^GGML_TABLE_BEGIN\((\w+), (\w+), (\w+)\)\n"
                   r"(.*?)^GGML_TABLE_END\(\)\n", re.S | re.M)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, commit = sys.argv[1], sys.argv[2]
    text = open(source).read()
    blocks = {m.group(2): m.group(0) for m in BLOCK.finditer(text)}
    missing = [name for name in TABLES if name not in blocks]
    if missing:
        sys.exit(f"{source}: no table {', '.join(missing)}")
    # NGRID_IQ1S sizes iq1s_grid; keep its definition with the table.
    ngrid = re.search(r"^#define NGRID_IQ1S (\d+)$", text, re.M)
    if not ngrid:
        sys.exit(f"{source}: no NGRID_IQ1S")
    notice = "\n".join(("// " + line).rstrip()
                       for line in LICENSE_NOTICE.splitlines())
    out = [
        "// Lookup tables of ggml's IQ and FP4 quantization formats, copied",
        "// verbatim from ggml's src/ggml-common.h (github.com/ggml-org/ggml,",
        f"// commit {commit}) by scripts/import-ggml-tables.py; do not edit.",
        "// Includers define GGML_TABLE_BEGIN(type, name, size) and",
        "// GGML_TABLE_END(). docs/quantization.md says which format reads",
        "// which table. The tables are ggml's, under its license:",
        "//",
        notice,
        "",
        f"#define NGRID_IQ1S {ngrid.group(1)}",
        "",
    ]
    for name in TABLES:
        out.append(blocks[name])
    out.append("#undef NGRID_IQ1S")
    dest = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "lib", "Conversion", "RLXToLinalg", "GgmlTables.inc")
    with open(dest, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {os.path.normpath(dest)}")


if __name__ == "__main__":
    main()
