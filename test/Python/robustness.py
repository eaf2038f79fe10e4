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
_umask = os.umask(0o022)
os.umask(_umask)

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
# Many calls in a row: a thread per call made the OpenMP runtime
# assert when a thread's teardown overlapped the next call (or exit).
for _ in range(20):
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

# Files are written atomically. Under a file size limit of 8 KiB (a full
# disk fails the same way) a write fails with RLXError naming the file, an
# earlier file of that name stays whole, and no temporary file is left.
big = os.path.join(scratch, "big.safetensors")
rlx.write_safetensors(big, {"a": np.ones(4, np.float32)})
library = os.path.join(scratch, "t.so")
child = f"""
import resource, signal
import numpy as np
import rlx
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
try:
    rlx.write_safetensors({big!r}, {{"a": np.ones(65536, np.float32)}})
    print("safetensors written")
except rlx.RLXError as error:
    print(error)
try:
    rlx.compile({TANH!r}).save({library!r})
    print("library written")
except rlx.RLXError as error:
    print(error)
"""
done = subprocess.run([sys.executable, "-c", child], capture_output=True,
                      text=True, timeout=300)
output = done.stdout + done.stderr
print(output.strip())
check(f"cannot write '{big}': File too large" in output,
      "write_safetensors: the error names the file")
check(rlx.read_safetensors(big)["a"].shape == (4,),
      "the earlier .safetensors file is whole")
check(f"linking '{library}' failed" in output, "save: the link fails")
check(sorted(os.listdir(scratch)) == ["big.safetensors"],
      f"no partial or temporary file: {sorted(os.listdir(scratch))}")
graph.save(library)
loaded = rlx.load(library)
check(np.allclose(loaded(x=x), np.tanh(x)), "a library saved afterwards runs")
copy = os.path.join(scratch, "copy.so")
loaded.save(copy)
check(os.path.getsize(copy) == os.path.getsize(library) and
      oct(os.stat(copy).st_mode & 0o777) == oct(0o666 & ~_umask),
      "Graph.save of a loaded library copies it with a new file's mode")

# Fault injection: RLX_TEST_FAIL_WRITE_AFTER=N fails the package's N-th
# write (.safetensors files, a library's copy), each in turn: an RLXError
# naming the file, no file of that name and no temporary file, the other
# writes whole.
writes = os.path.join(scratch, "writes")
os.makedirs(writes)
targets = [os.path.join(writes, name)
           for name in ("a.safetensors", "copy.so", "b.safetensors")]
child = f"""
import numpy as np
import rlx
for path in {targets!r}:
    try:
        if path.endswith(".so"):
            rlx.load({library!r}).save(path)
        else:
            rlx.write_safetensors(path, {{"a": np.ones(4, np.float32)}})
    except rlx.RLXError as error:
        print(error)
"""
for n in range(len(targets) + 1):
    for name in os.listdir(writes):
        os.unlink(os.path.join(writes, name))
    done = subprocess.run([sys.executable, "-c", child], capture_output=True,
                          text=True, timeout=300,
                          env=dict(os.environ,
                                   RLX_TEST_FAIL_WRITE_AFTER=str(n)))
    failed = targets[n] if n < len(targets) else None
    want = (f"cannot write '{failed}': No space left on device (injected "
            "by the test hook RLX_TEST_FAIL_WRITE_AFTER)\n"
            if failed else "")
    check(done.returncode == 0 and done.stdout == want,
          f"write {n} fails alone: {done.stdout!r} {done.stderr!r}")
    check(sorted(os.listdir(writes)) ==
          sorted(os.path.basename(t) for t in targets if t != failed),
          f"write {n}: no partial or temporary file: "
          f"{sorted(os.listdir(writes))}")
    for path in targets:
        if path != failed and path.endswith(".safetensors"):
            check(rlx.read_safetensors(path)["a"].shape == (4,),
                  f"write {n}: {os.path.basename(path)} is whole")

finish()
