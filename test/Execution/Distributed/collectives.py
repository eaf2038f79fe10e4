"""Every collective under mpirun against NumPy.

  collectives.py "MPIRUN" RLX_RUN RANKS

Each rank reads its own random inputs (x.<rank>.npy, drawn with a scale
and offset that depend on the rank, so every reduction sees different
values) and writes its own outputs (--output out.{rank}/); NumPy computes
what each rank should receive from all ranks' inputs. With 4 ranks the
graph also runs collectives over the subgroups of a 2 x 2 mesh. Then a
single process (no launcher) runs a graph over a group of one rank, where
collectives are identities, and one over 2 ranks, which is an error that
says how to launch it.
"""

import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np

# --emit-cuda OUTDIR RLX_RUN N: compile the graph for the cuda target and
# write it with its inputs, the expected outputs and OUTDIR/run.sh, which
# runs it on a machine with N GPUs (scripts/gpu-distributed-check.sh).
emit_cuda = sys.argv[1] == "--emit-cuda"
if emit_cuda:
    emit_dir = sys.argv[2]
    mpirun = None
else:
    mpirun = shlex.split(sys.argv[1])
rlx_run = sys.argv[2 + emit_cuda]
N = int(sys.argv[3 + emit_cuda])
seed = int(os.environ.get("RLX_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)

B, D = 2 * N, 6
xs = [(rng.standard_normal((B, D)) * (r + 1) + r).astype(np.float32)
      for r in range(N)]
iis = [rng.integers(-50, 50, (N, 3)).astype(np.int32) for r in range(N)]
f32 = f"tensor<{B}x{D}xf32>"
i32 = f"tensor<{N}x3xi32>"
W = f"mesh [{N}]"

# (result type, op text, expected(rank) -> array)
cases = []


def case(result, text, expected):
    cases.append((result, text, expected))


def group(r, mesh, axes):
    """The world ranks of rank r's group, in group order, and r's index."""
    coords = np.unravel_index(r, mesh)
    members = []
    for other in range(int(np.prod(mesh))):
        oc = np.unravel_index(other, mesh)
        if all(oc[d] == coords[d] for d in range(len(mesh)) if d not in axes):
            members.append(other)
    members.sort(key=lambda o: np.ravel_multi_index(
        [np.unravel_index(o, mesh)[a] for a in axes], [mesh[a] for a in axes]))
    return members, members.index(r)


def world(r):
    return group(r, (N,), (0,))


def chunks(a, n, axis):
    return np.split(a, n, axis=axis)


case(f32, f"rlx.all_reduce sum %x {W} : {f32}",
     lambda r: sum(xs))
case(f32, f"rlx.all_reduce mean %x {W} : {f32}",
     lambda r: sum(xs) / N)
case(f32, f"rlx.all_reduce max %x {W} : {f32}",
     lambda r: np.max(xs, axis=0))
case(i32, f"rlx.all_reduce min %i {W} : {i32}",
     lambda r: np.min(iis, axis=0))
case(f"tensor<{B * N}x{D}xf32>", f"rlx.all_gather %x dim = 0 {W} : {f32}",
     lambda r: np.concatenate(xs, axis=0))
case(f"tensor<{B}x{D * N}xf32>", f"rlx.all_gather %x dim = 1 {W} : {f32}",
     lambda r: np.concatenate(xs, axis=1))
case(f"tensor<{B // N}x{D}xf32>",
     f"rlx.reduce_scatter sum %x dim = 0 {W} : {f32}",
     lambda r: chunks(sum(xs), N, 0)[r])
case(f"tensor<{B // N}x{D}xf32>",
     f"rlx.reduce_scatter mean %x dim = 0 {W} : {f32}",
     lambda r: chunks(sum(xs) / N, N, 0)[r])
case(f"tensor<1x3xi32>", f"rlx.reduce_scatter max %i dim = 0 {W} : {i32}",
     lambda r: chunks(np.max(iis, axis=0), N, 0)[r])
case(f"tensor<{B // N}x{D * N}xf32>",
     f"rlx.all_to_all %x split_dim = 0 concat_dim = 1 {W} : {f32}",
     lambda r: np.concatenate([chunks(xs[s], N, 0)[r] for s in range(N)], 1))
case(f32, f"rlx.all_to_all %x split_dim = 0 concat_dim = 0 {W} : {f32}",
     lambda r: np.concatenate([chunks(xs[s], N, 0)[r] for s in range(N)], 0))
case(f"tensor<{B * N}x{D // 2}xf32>" if D % N else
     f"tensor<{B * N}x{D // N}xf32>",
     f"rlx.all_to_all %x split_dim = 1 concat_dim = 0 mesh [2] : {f32}"
     if D % N else
     f"rlx.all_to_all %x split_dim = 1 concat_dim = 0 {W} : {f32}",
     None)  # filled in below
case(f32, f"rlx.broadcast %x root = {N - 1} {W} : {f32}",
     lambda r: xs[N - 1])
case(f32, f"rlx.reduce_to_root sum %x root = 1 {W} : {f32}",
     lambda r: sum(xs) if r == 1 else np.zeros_like(xs[0]))
case(i32, f"rlx.reduce_to_root max %i root = 0 {W} : {i32}",
     lambda r: np.max(iis, axis=0) if r == 0 else np.zeros_like(iis[0]))
# The all_to_all over dim 1: the whole world when D splits into N pieces,
# else (N = 4, D = 6) over a mesh [2] would not match the run's 4 ranks, so
# use the 2 x 2 mesh's groups along axis 1.
if D % N:
    text = f"rlx.all_to_all %x split_dim = 1 concat_dim = 0 mesh [2, 2] axes [1] : {f32}"
    cases[11] = (f"tensor<{B * 2}x{D // 2}xf32>", text, lambda r: np.concatenate(
        [chunks(xs[s], 2, 1)[group(r, (2, 2), (1,))[1]]
         for s in group(r, (2, 2), (1,))[0]], 0))
else:
    cases[11] = (cases[11][0], cases[11][1], lambda r: np.concatenate(
        [chunks(xs[s], N, 1)[r] for s in range(N)], 0))

if N == 4:
    # Subgroups of a 2 x 2 mesh: along axis 1 ranks {0, 1} and {2, 3}, along
    # axis 0 ranks {0, 2} and {1, 3}.
    def sub(axes):
        return lambda r: group(r, (2, 2), axes)

    case(f32, f"rlx.all_reduce sum %x mesh [2, 2] axes [1] : {f32}",
         lambda r: sum(xs[s] for s in sub((1,))(r)[0]))
    case(f"tensor<{B * 2}x{D}xf32>",
         f"rlx.all_gather %x dim = 0 mesh [2, 2] axes [0] : {f32}",
         lambda r: np.concatenate([xs[s] for s in sub((0,))(r)[0]], 0))
    case(f"tensor<{B // 2}x{D}xf32>",
         f"rlx.reduce_scatter sum %x dim = 0 mesh [2, 2] axes [0] : {f32}",
         lambda r: chunks(sum(xs[s] for s in sub((0,))(r)[0]), 2, 0)[
             sub((0,))(r)[1]])
    case(f32, f"rlx.broadcast %x root = 1 mesh [2, 2] axes [1] : {f32}",
         lambda r: xs[sub((1,))(r)[0][1]])

lines = [f"func.func @collectives(%x: {f32} {{rlx.input = \"x\"}}, "
         f"%i: {i32} {{rlx.input = \"i\"}}) -> ("
         + ", ".join(c[0] for c in cases) + ") {"]
for k, (_, text, _) in enumerate(cases):
    lines.append(f"  %r{k} = {text}")
lines.append("  return " + ", ".join(f"%r{k}" for k in range(len(cases)))
             + " : " + ", ".join(c[0] for c in cases))
lines.append("}")
graph = "\n".join(lines) + "\n"

if emit_cuda:
    os.makedirs(emit_dir, exist_ok=True)
    path = os.path.join(emit_dir, "graph.mlir")
    with open(path, "w") as f:
        f.write(graph)
    subprocess.run([rlx_run, path, "--target", "cuda", "--no-cache",
                    "--emit-shared-lib", os.path.join(emit_dir, "graph.so")],
                   check=True)
    checks = []
    for r in range(N):
        np.save(os.path.join(emit_dir, f"x.{r}.npy"), xs[r])
        np.save(os.path.join(emit_dir, f"i.{r}.npy"), iis[r])
        os.makedirs(os.path.join(emit_dir, f"expected.{r}"), exist_ok=True)
        for k, (_, _, expected) in enumerate(cases):
            np.save(os.path.join(emit_dir, f"expected.{r}", f"output_{k}.npy"),
                    np.asarray(expected(r)))
    checks = " ".join(f"--check {k}=expected.{{rank}}/output_{k}.npy"
                      for k in range(len(cases)))
    with open(os.path.join(emit_dir, "run.sh"), "w") as f:
        f.write(f"""#!/usr/bin/env bash
# {len(cases)} collectives on {N} GPUs, one process each (seed {seed}).
set -euo pipefail
cd "$(dirname "$0")"
"$1" --ranks {N} --load graph.so --input x=x.{{rank}}.npy \
  --input i=i.{{rank}}.npy {checks} --rtol 1e-5 --atol 1e-5
echo "ok: {len(cases)} collectives on each of {N} GPUs"
""")
    print(f"wrote {emit_dir}: {len(cases)} collectives for {N} GPUs")
    sys.exit(0)

tmp = tempfile.mkdtemp(prefix="rlx-collectives-")
path = os.path.join(tmp, "graph.mlir")
with open(path, "w") as f:
    f.write(graph)
for r in range(N):
    np.save(os.path.join(tmp, f"x.{r}.npy"), xs[r])
    np.save(os.path.join(tmp, f"i.{r}.npy"), iis[r])

command = mpirun + ["-np", str(N), rlx_run, path, "--no-cache",
                    "--input", os.path.join(tmp, "x.{rank}.npy"),
                    "--input", os.path.join(tmp, "i.{rank}.npy"),
                    "--output", os.path.join(tmp, "out.{rank}")]
# --input NAME=FILE: the names.
command[command.index(os.path.join(tmp, "x.{rank}.npy"))] = \
    "x=" + os.path.join(tmp, "x.{rank}.npy")
command[command.index(os.path.join(tmp, "i.{rank}.npy"))] = \
    "i=" + os.path.join(tmp, "i.{rank}.npy")
run = subprocess.run(command, capture_output=True, text=True, timeout=300)
if run.returncode != 0:
    sys.exit(f"mpirun failed ({run.returncode}):\n{run.stdout}\n{run.stderr}"
             f"\ngraph:\n{graph}")

failures = 0
for r in range(N):
    for k, (_, text, expected) in enumerate(cases):
        got = np.load(os.path.join(tmp, f"out.{r}", f"output_{k}.npy"))
        want = np.asarray(expected(r))
        if got.shape != want.shape or got.dtype != want.dtype:
            print(f"FAIL rank {r} {text}: {got.dtype}{got.shape} != "
                  f"{want.dtype}{want.shape}")
            failures += 1
        elif not np.allclose(got, want, rtol=1e-5, atol=1e-5):
            print(f"FAIL rank {r} {text}: max error "
                  f"{np.max(np.abs(got.astype(np.float64) - want))}")
            failures += 1
if failures:
    sys.exit(f"{failures} mismatches (seed {seed})")
print(f"ok: {len(cases)} collectives on each of {N} ranks")

if N == 2:
    # Not started by a launcher: a world of one rank.
    alone = os.path.join(tmp, "alone.mlir")
    with open(alone, "w") as f:
        f.write(f"""func.func @alone(%x: {f32} {{rlx.input = "x"}})
    -> ({f32}, tensor<{B}x{D}xf32>, {f32}) {{
  %0 = rlx.all_reduce mean %x mesh [1] : {f32}
  %1 = rlx.all_gather %x dim = 0 mesh [1] : {f32}
  %2 = rlx.reduce_to_root sum %x root = 0 mesh [1, 1] axes [1] : {f32}
  return %0, %1, %2 : {f32}, tensor<{B}x{D}xf32>, {f32}
}}
""")
    run = subprocess.run([rlx_run, alone, "--no-cache", "--input",
                          "x=" + os.path.join(tmp, "x.1.npy"), "--output",
                          os.path.join(tmp, "alone")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    for k in range(3):
        got = np.load(os.path.join(tmp, "alone", f"output_{k}.npy"))
        assert np.array_equal(got, xs[1]), f"identity {k}"
    two = os.path.join(tmp, "two.mlir")
    with open(two, "w") as f:
        f.write(f"""func.func @two(%x: {f32} {{rlx.input = "x"}}) -> {f32} {{
  %0 = rlx.all_reduce sum %x mesh [2] : {f32}
  return %0 : {f32}
}}
""")
    run = subprocess.run([rlx_run, two, "--no-cache", "--input",
                          "x=" + os.path.join(tmp, "x.0.npy")],
                         capture_output=True, text=True, timeout=120)
    want = ("error: @two: rlx.all_reduce (collective #0 of the graph) runs "
            "over mesh [2] of 2 ranks, but this run has 1 rank (not started "
            "by an MPI launcher): launch it with mpirun -np 2")
    assert run.returncode != 0 and want in run.stderr, run.stderr
    print("ok: one process is a world of one rank")
