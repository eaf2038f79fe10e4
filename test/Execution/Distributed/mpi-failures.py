# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""A collective that fails is the run's error, never the end of the host
process: mpi-failures.py MPIRUN (the mpirun command line) or mpi-failures.py
--rank (one rank, under mpirun)."""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import rlx

X = "tensor<2x3xf32>"


def graph(mesh):
    return rlx.compile(f"""
func.func @g(%x: {X} {{rlx.input = "x"}}) -> {X} {{
  %0 = rlx.all_reduce sum %x mesh [{mesh}] : {X}
  return %0 : {X}
}}
""")


def expect_failure(g, x, needle, what):
    try:
        g(x=x)
    except rlx.RLXError as error:
        if needle not in str(error):
            sys.exit(f"FAIL {what}: {error}")
        return
    sys.exit(f"FAIL {what}: the run succeeded")


def rank_main():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    size = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    x = np.full((2, 3), rank + 1, np.float32)
    if os.environ.get("RLX_MPI_LIBRARY"):
        # MPI cannot be set up: every collective fails with the reason, the
        # process goes on.
        g = graph(size)
        for attempt in range(2):
            expect_failure(g, x, "cannot open RLX_MPI_LIBRARY="
                           f"'{os.environ['RLX_MPI_LIBRARY']}'",
                           f"no MPI library, run {attempt}")
        print(f"ok: rank {rank} goes on without MPI")
        return
    # A mesh of other ranks than the run's: the run fails (this had ended
    # every rank with MPI_Abort), then a graph of the right mesh runs.
    expect_failure(graph(2 * size), x,
                   f"runs over mesh [{2 * size}] of {2 * size} ranks, but "
                   f"this run has {size} ranks", "a mesh of other ranks")
    out = graph(size)(x=x)
    want = sum(range(1, size + 1))
    if not np.array_equal(out, np.full((2, 3), want, np.float32)):
        sys.exit(f"FAIL rank {rank}: all_reduce after a failure gave {out}")
    print(f"ok: rank {rank} runs after a failed collective")


if sys.argv[1] == "--rank":
    rank_main()
    sys.exit(0)

# One process, not started by a launcher: a collective over 2 ranks had
# printed its error and exited with 1.
x = np.ones((2, 3), np.float32)
two = graph(2)
for attempt in range(2):
    expect_failure(two, x, "rlx.all_reduce (collective #0 of the graph) runs "
                   "over mesh [2] of 2 ranks, but this run has 1 rank (not "
                   "started by an MPI launcher): launch it with mpirun -np 2",
                   f"one process, run {attempt}")
out = graph(1)(x=x)
assert np.array_equal(out, x), out
print("ok: one process goes on after a failed collective")

mpirun = shlex.split(sys.argv[1])
for env, lines in [({}, "runs after a failed collective"),
                   ({"RLX_MPI_LIBRARY": "/nonexistent/libmpi.so"},
                    "goes on without MPI")]:
    # Each rank's stdout from its own file: mpirun interleaves the ranks'
    # output on its stdout in pieces that need not be whole lines.
    logs = tempfile.mkdtemp()
    command = mpirun + ["-np", "2", "--output-filename", logs]
    for name, value in env.items():
        command += ["-x", f"{name}={value}"]
    run = subprocess.run(command + [sys.executable, __file__, "--rank"],
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, **env))
    if run.returncode != 0:
        sys.exit(f"mpirun failed ({run.returncode}):\n{run.stdout}\n"
                 f"{run.stderr}")
    for rank in range(2):
        with open(os.path.join(logs, "1", f"rank.{rank}", "stdout")) as file:
            output = file.read()
        if f"ok: rank {rank} {lines}" not in output.splitlines():
            sys.exit(f"FAIL rank {rank}:\n{output}\n{run.stderr}")
    shutil.rmtree(logs)
    print(f"ok: 2 ranks: {lines}")
