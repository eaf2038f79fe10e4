#!/usr/bin/env python3
"""Writes the seed corpus of the IR fuzz targets from the lit tests.

    make_ir_corpus.py RLX_OPT TEST_DIR OUT_DIR

Every .mlir file under TEST_DIR is split where lit's --split-input-file
would split it (a `// -----` line); the comment lines (RUN and CHECK lines,
expected diagnostics) are dropped, and each chunk that RLX_OPT parses and
verifies is written to OUT_DIR, named by its hash. Chunks that do not verify
(the tests of diagnostics) are left out: the pipeline targets would reject
them, and the mutator reaches such inputs from valid ones.

Only chunks in the graph language are kept: rlx ops in func.func, with
arith and tensor ops around them. The lit tests of the lowerings also hold
linalg, scf, memref and other upstream IR, whose parsers and verifiers are
MLIR's, not the project's (the fuzzers found a crash in linalg.transpose's
parser there), and which no pipeline of the project takes as input.
"""

import concurrent.futures
import hashlib
import os
import pathlib
import re
import subprocess
import sys

SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)


def chunks(test_dir):
    for path in sorted(pathlib.Path(test_dir).rglob("*.mlir")):
        text = path.read_text(errors="replace")
        for chunk in SPLIT.split(text):
            lines = [l for l in chunk.splitlines() if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip()
            if body:
                yield body + "\n"


# Dialects of the lowerings' IR, not of graphs: a chunk with one of their
# ops (or attributes) is left out.
UPSTREAM_IR = re.compile(
    r"\b(linalg|scf|memref|affine|cf|bufferization|math|gpu|nvvm|llvm|"
    r"vector|omp|complex|index|ub|nvgpu|transform|async|spirv)\.[a-z_]")


def graph_language(text):
    return not UPSTREAM_IR.search(text)


def verifies(rlx_opt, text):
    result = subprocess.run([rlx_opt, "-", "-o", os.devnull], input=text.encode(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return result.returncode == 0


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rlx_opt, test_dir, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    candidates = {hashlib.sha1(c.encode()).hexdigest(): c
                  for c in chunks(test_dir) if graph_language(c)}
    workers = int(os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        ok = pool.map(lambda c: verifies(rlx_opt, c), candidates.values())
        written = 0
        for (name, text), good in zip(candidates.items(), ok):
            if good:
                pathlib.Path(out_dir, name).write_text(text)
                written += 1
    print(f"make_ir_corpus: {written} of {len(candidates)} graph-language "
          f"chunks verify ({out_dir})")


if __name__ == "__main__":
    main()
