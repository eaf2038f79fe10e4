"""Checks that ctest's rlx-lit-* tests run every lit test exactly once.

test/CMakeLists.txt gives each top-level test folder a ctest test, and each
test file of test/Execution one of its own; a test run by no ctest test, or
by two, would be missed or run twice by scripts/test.sh.

Usage: check_ctest_split.py CMAKE OBJ_ROOT
"""

import json
import os
import subprocess
import sys


def main():
    cmake, obj_root = sys.argv[1], os.path.realpath(sys.argv[2])
    ctest = os.path.join(os.path.dirname(cmake), "ctest")
    listing = json.loads(subprocess.run(
        [ctest, "--show-only=json-v1"], cwd=obj_root, check=True,
        capture_output=True, text=True).stdout)
    test_root = os.path.join(obj_root, "test")
    lit = None
    covers = {}
    for test in listing["tests"]:
        if not test["name"].startswith("rlx-lit-"):
            continue
        command = test["command"]
        lit = command[0]
        covers[test["name"]] = os.path.relpath(os.path.realpath(command[-1]),
                                               test_root)
    if not covers:
        sys.exit("no rlx-lit-* ctest test")
    shown = subprocess.run([lit, "--show-tests", test_root], check=True,
                           capture_output=True, text=True).stdout
    lit_tests = [line.split(" :: ", 1)[1].strip()
                 for line in shown.splitlines() if " :: " in line]
    errors = []
    used = set()
    for path in lit_tests:
        runners = [name for name, root in covers.items()
                   if path == root or path.startswith(root + "/")]
        if len(runners) != 1:
            errors.append("%s runs in %d ctest tests (%s)"
                          % (path, len(runners), ", ".join(runners)))
        used.update(runners)
    for name in sorted(set(covers) - used):
        errors.append("%s runs no lit test" % name)
    if errors:
        sys.exit("\n".join(errors))
    print("ctest split: %d lit tests in %d ctest tests, each once"
          % (len(lit_tests), len(covers)))


if __name__ == "__main__":
    main()
