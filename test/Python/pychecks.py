# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The checks the Python API tests share. Each check prints `ok` or `FAIL`
with what it checked; finish() ends the test, with exit status 1 when any
check failed."""

import sys

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def expect_error(function, needle, what):
    """Checks that function() raises rlx.RLXError with `needle` in it."""
    import rlx
    try:
        function()
    except rlx.RLXError as error:
        check(needle in str(error), f"{what}: '{needle}' in: {error}")
        return
    check(False, f"{what}: no RLXError raised")


def finish(note=""):
    if failures:
        print(f"{len(failures)} checks failed{note}")
        sys.exit(1)
    print("all checks passed")
