"""Runs a Python test script in an interpreter with the shared ASan runtime
preloaded, for a build with the sanitizers (test/Python/lit.local.cfg).

    sanitized_python.py ASAN_RUNTIME SCRIPT [ARGS...]

The instrumented libRLXCAPI.so that the test loads needs the runtime, which
the system's python3 does not have: this script starts the interpreter
again with LD_PRELOAD set and leak detection off for it (CPython keeps
objects alive until exit by design), then runs SCRIPT. The processes the
test starts (rlx-run, with the runtime linked in) get the environment of
the test itself: no preload, and the ASAN_OPTIONS the suite runs with.
"""

import os
import runpy
import sys

RESTORE = "RLX_SANITIZED_PYTHON_ASAN_OPTIONS"

if RESTORE not in os.environ:
    runtime = sys.argv[1]
    env = dict(os.environ)
    env[RESTORE] = env.get("ASAN_OPTIONS", "")
    env["ASAN_OPTIONS"] = ":".join(
        filter(None, [env[RESTORE], "detect_leaks=0"]))
    env["LD_PRELOAD"] = runtime
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

# The interpreter's own runtime options were read at its start; its
# children get the suite's.
os.environ["ASAN_OPTIONS"] = os.environ.pop(RESTORE)
os.environ.pop("LD_PRELOAD", None)
script = sys.argv[2]
sys.argv = sys.argv[2:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
