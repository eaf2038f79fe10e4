# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""edit_bytes.py IN OUT OLD NEW: writes IN to OUT with the one occurrence
of OLD replaced by NEW, as someone editing a file by hand would (OLD and
NEW are Python string literals' contents, `\\0` for a NUL, of one length).
Fails unless OLD occurs exactly once."""

import sys

source, target, old, new = sys.argv[1:]
old = old.encode().decode("unicode_escape").encode("latin-1")
new = new.encode().decode("unicode_escape").encode("latin-1")
assert len(old) == len(new), "OLD and NEW must have one length"
data = open(source, "rb").read()
count = data.count(old)
if count != 1:
    sys.exit(f"edit_bytes.py: {old!r} occurs {count} times in {source}")
open(target, "wb").write(data.replace(old, new))
