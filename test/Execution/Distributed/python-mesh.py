# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.compile(..., mesh=...) under mpirun (docs/distributed.md, "From
Python"): python-mesh.py two|four|errors SCRATCH_DIR.

two: Megatron-LM's MLP on the mesh [2] (w1 split by columns, b1 with it,
w2 by rows); four: the same MLP on the mesh [2, 2], the batch split over
axis 0 and the layers over axis 1. Every rank compiles the annotated graph
with mesh=, binds the whole weights (a mapping, then a .safetensors file)
and runs it on the whole input; its output must equal NumPy's in f64
within F32_RELATIVE of the largest output. errors: one process, the
refusals. Seeded by RLX_TEST_SEED (the launcher's job id when unset;
printed)."""

import os
import sys

import numpy as np

import rlx
from rlx._mesh import world

F32_RELATIVE = 1e-5

GRAPH = """
func.func @mlp(%x: tensor<8x64xf32> {rlx.input = "x"XSPLIT},
               %w1: tensor<64x256xf32> {rlx.param = "w1", rlx.split = [[], [AXIS]]},
               %b1: tensor<256xf32> {rlx.param = "b1", rlx.split = [[AXIS]]},
               %w2: tensor<256x10xf32> {rlx.param = "w2", rlx.split = [[AXIS]]},
               %b2: tensor<10xf32> {rlx.param = "b2"}) -> tensor<8x10xf32>
    attributes {rlx.mesh = MESH} {
  %0 = rlx.matmul %x, %w1 : tensor<8x64xf32>, tensor<64x256xf32>
  %1 = rlx.binary add %0, %b1 : tensor<8x256xf32>, tensor<256xf32>
  %2 = rlx.activation tanh %1 : tensor<8x256xf32>
  %3 = rlx.matmul %2, %w2 : tensor<8x256xf32>, tensor<256x10xf32>
  %4 = rlx.binary add %3, %b2 : tensor<8x10xf32>, tensor<10xf32>
  return %4 : tensor<8x10xf32>
}
"""


def graph(mesh):
    text = GRAPH.replace("MESH", str(mesh))
    if len(mesh) == 1:
        return text.replace("AXIS", "0").replace("XSPLIT", "")
    return text.replace("AXIS", "1").replace(
        "XSPLIT", ", rlx.split = [[0]]")


mode, scratch = sys.argv[1], sys.argv[2]
# The ranks draw the same whole tensors: unless RLX_TEST_SEED is set, the
# seed is the launcher's job id, the same on every rank.
job = os.environ.get("PMIX_NAMESPACE") or \
    os.environ.get("OMPI_MCA_ess_base_jobid")
seed = int(os.environ.get("RLX_TEST_SEED", int(job) % 2**32 if job and
                          job.isdigit() else
                          np.random.SeedSequence().entropy % 2**32))
rank, size = world()
if rank == 0:
    print(f"seed {seed} (replay with RLX_TEST_SEED={seed})", flush=True)
rng = np.random.default_rng(seed)
weights = {"w1": rng.standard_normal((64, 256)) / 8,
           "b1": rng.standard_normal(256),
           "w2": rng.standard_normal((256, 10)) / 16,
           "b2": rng.standard_normal(10)}
weights = {k: v.astype(np.float32) for k, v in weights.items()}
x = rng.standard_normal((8, 64)).astype(np.float32)
w = {k: v.astype(np.float64) for k, v in weights.items()}
want = np.tanh(x.astype(np.float64) @ w["w1"] + w["b1"]) @ w["w2"] + w["b2"]


def check(label, got):
    error = float(np.abs(got - want).max() / np.abs(want).max())
    verdict = "ok" if error <= F32_RELATIVE else "FAIL"
    print(f"{verdict} rank {rank} of {size}: {label} within {error:.2g} of "
          f"NumPy's f64 output (allowed {F32_RELATIVE:g})", flush=True)
    if verdict != "ok":
        sys.exit(1)


if mode in ("two", "four"):
    mesh = [2] if mode == "two" else [2, 2]
    g = rlx.compile(graph(mesh), params=weights, mesh=mesh, cache=False)
    shapes = {a.name: list(a.shape) for a in g.arguments}
    print(f"rank {rank}: local shapes {shapes}", flush=True)
    check("whole weights bound from a mapping", g(x=x))
    path = os.path.join(scratch, f"weights.{rank}.safetensors")
    rlx.write_safetensors(path, weights)
    g2 = rlx.compile(graph(mesh), mesh=mesh, cache=False)
    g2.bind(path)
    check("whole weights bound from a .safetensors file", g2(x=x))
elif mode == "errors":
    def expect(call, needle, label):
        try:
            call()
        except rlx.RLXError as error:
            ok = needle in str(error)
            print(f"{'ok' if ok else 'FAIL'} {label}: {error}")
            return
        print(f"FAIL {label}: no error")
    expect(lambda: rlx.compile(graph([2]), mesh=[2], cache=False),
           "launch it with mpirun -np 2", "one process for two ranks")
    expect(lambda: rlx.compile(graph([2]), mesh=[4], cache=False),
           "is annotated for the mesh [2]", "another mesh")
    plain = graph([2]).replace("attributes {rlx.mesh = [2]} ", "")
    expect(lambda: rlx.compile(plain, mesh=[2], cache=False),
           "has no rlx.mesh attribute", "no mesh annotation")
