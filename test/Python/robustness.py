# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Checks that the rlx package behaves inside a host process:
robustness.py SCRATCH_DIR."""

import os
import subprocess
import sys
import time

import numpy as np

import rlx
from pychecks import check, expect_error, finish

scratch = sys.argv[1]

TANH = """
func.func @t(%x: tensor<4xf32> {rlx.input = "x"}) -> tensor<4xf32> {
  %0 = rlx.activation tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

graph = rlx.compile(TANH)
x = np.arange(4, dtype=np.float32)

# Counts: a negative one became 2^32 - 1 runs through the C unsigned.
for kwargs, needle in [({"n": -1}, "n must be an integer from 1"),
                       ({"n": 0}, "n must be an integer from 1"),
                       ({"n": 2**32}, "got 4294967296"),
                       ({"n": 1.5}, "got 1.5"),
                       ({"n": True}, "got True"),
                       ({"warmup": -5}, "warmup must be an integer from 0")]:
    start = time.monotonic()
    expect_error(lambda: graph.bench(x=x, **kwargs), needle,
                 f"bench({kwargs})")
    check(time.monotonic() - start < 10, f"bench({kwargs}) fails at once")
check(graph.bench(n=3, warmup=0, x=x).runs == 3, "bench(n=3, warmup=0)")
check(graph.bench(n=np.int64(2), x=x).runs == 2, "a NumPy integer count")

# Ctrl-C during a bench of 2^32 - 1 runs (hours): SIGINT to the process
# after a second must end it with KeyboardInterrupt, and the graph must
# bench again afterwards (the interrupt does not stick).
child = f"""
import os, signal, sys, threading, time
import numpy as np
import rlx
# lit starts tests with SIGINT ignored, which Python then leaves ignored.
signal.signal(signal.SIGINT, signal.default_int_handler)
graph = rlx.compile({TANH!r})
x = np.arange(4, dtype=np.float32)
graph.bench(n=2, x=x)
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
start = time.monotonic()
try:
    graph.bench(n=2**32 - 1, x=x)
    print("bench ended without an interrupt")
except KeyboardInterrupt:
    print(f"interrupted after {{time.monotonic() - start:.1f}} s")
print("runs after:", graph.bench(n=3, x=x).runs)
"""
try:
    done = subprocess.run([sys.executable, "-c", child], capture_output=True,
                          text=True, timeout=120)
    output = done.stdout + done.stderr
    check(done.returncode == 0 and "Assertion" not in output,
          "the interrupted process ends cleanly")
except subprocess.TimeoutExpired:
    output = "timed out: Ctrl-C did not stop the bench"
print(output.strip())
check("interrupted after" in output, "KeyboardInterrupt stops a long bench")
check("runs after: 3" in output, "the graph benches again after it")

finish()
