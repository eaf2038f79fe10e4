# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The checks the Python API tests share. Each check prints `ok` or `FAIL`
with what it checked; finish() ends the test, with exit status 1 when any
check failed."""

import os
import sys

failures = []


def test_seed():
    """The run's random seed: RLX_TEST_SEED when set, else a fresh one,
    printed so that a failing run can be replayed."""
    seed = int(os.environ.get("RLX_TEST_SEED", "0")) or int.from_bytes(
        os.urandom(4), "little")
    print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
    return seed


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
