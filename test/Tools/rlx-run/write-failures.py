# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Fault injection on writes: write-failures.py RLX_RUN SCRATCH_DIR.

For each kind of output of an rlx-run run (.npy files in a folder, an .npz,
a .safetensors, an ahead-of-time library, compile cache entries) it fails
the N-th write (the test hook RLX_TEST_FAIL_WRITE_AFTER=N) for every N in
turn, until a run makes no more writes than N. An output write that fails
is one error line naming the file, exit status 1, no temporary file and no
file of that name; the files written before it are whole. A cache entry
that cannot be written is a warning, and the graph runs without the
cache."""

import os
import shutil
import subprocess
import sys

import numpy as np

rlx_run, scratch = sys.argv[1], sys.argv[2]
INJECTED = ("No space left on device (injected by the test hook "
            "RLX_TEST_FAIL_WRITE_AFTER)")
GRAPH = os.path.join(scratch, "two.mlir")
with open(GRAPH, "w") as f:
    f.write("""func.func @two(%x: tensor<4x4xf32> {rlx.input = "x"})
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = rlx.activation tanh %x : tensor<4x4xf32>
  %1 = rlx.activation relu %x : tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}
""")
failures = []


def fail(what):
    print("FAIL " + what)
    failures.append(what)


def leftovers(folder):
    """Temporary files anywhere under `folder`."""
    return [os.path.join(d, name) for d, _, names in os.walk(folder)
            for name in names if ".tmp-" in name]


def whole(path):
    """Whether `path` is a complete output (or library) file."""
    if path.endswith(".so"):
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    if path.endswith(".safetensors"):
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            return os.path.getsize(path) == 8 + size + 2 * 64
    try:
        np.load(path)
        return True
    except Exception:
        return False


def iterate(name, arguments, expected_sites):
    """Fails each write of `rlx-run GRAPH ARGUMENTS` in turn; the writes
    the runs met, in order, must be `expected_sites` ("cache" or the
    output's path)."""
    sites = []
    for n in range(20):
        folder = os.path.join(scratch, f"{name}-{n}")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        env = dict(os.environ, RLX_TEST_FAIL_WRITE_AFTER=str(n),
                   RLX_CACHE_DIR=os.path.join(folder, "cache"))
        run = subprocess.run([rlx_run, GRAPH, "--random-inputs"] + arguments,
                             cwd=folder, env=env, capture_output=True,
                             text=True, timeout=300)
        what = f"{name}, write {n}"
        left = leftovers(folder)
        if left:
            fail(f"{what}: temporary files left: {left}")
        if INJECTED not in run.stderr:
            # No write failed: the run made n writes.
            if run.returncode != 0:
                fail(f"{what}: the run failed: {run.stderr}")
            break
        if "compile cache: cannot use" in run.stderr:
            sites.append("cache")
            if run.returncode != 0:
                fail(f"{what}: a cache entry that cannot be written failed "
                     f"the run: {run.stderr}")
            entries = os.listdir(os.path.join(folder, "cache"))
            if entries:
                fail(f"{what}: the cache holds {entries}")
            continue
        lines = run.stderr.strip().splitlines()
        prefix = "rlx-run: error: cannot write '"
        if run.returncode != 1 or len(lines) != 1 or \
                not lines[0].startswith(prefix):
            fail(f"{what}: status {run.returncode}, stderr {run.stderr!r}")
            continue
        path = lines[0][len(prefix):].split("'")[0]
        sites.append(path)
        if os.path.exists(os.path.join(folder, path)):
            fail(f"{what}: '{path}' exists after its write failed")
        for d, _, names in os.walk(folder):
            for file in names:
                full = os.path.join(d, file)
                if "cache" not in full and not whole(full):
                    fail(f"{what}: '{full}' is not whole")
    else:
        fail(f"{name}: still failing after 20 writes")
    if sites != expected_sites:
        fail(f"{name}: writes {sites}, expected {expected_sites}")
    print(f"ok: {name}: {len(sites)} writes, each failed in turn")


iterate("npy", ["--output", "out"],
        ["cache", "cache", "out/output_0.npy", "out/output_1.npy"])
iterate("npz", ["--no-cache", "--output", "all.npz"], ["all.npz"])
iterate("safetensors", ["--no-cache", "--output", "all.safetensors"],
        ["all.safetensors"])
iterate("library", ["--emit-shared-lib", "two.so"], ["two.so"])
if failures:
    sys.exit(f"{len(failures)} checks failed")
