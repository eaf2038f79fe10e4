"""The VJP and JVP rules of the collectives under mpirun, against PyTorch.

  autodiff.py "MPIRUN" RLX_OPT RLX_RUN RANKS

Each rank computes a loss from its own x and w through every collective
(max, mean, sum, gather, scatter, all-to-all, broadcast, reduce to root).
Reverse mode seeds every rank's loss with 1, so rank r's gradient is that
of the total loss, sum over ranks, with respect to r's inputs; forward mode
gives each rank the tangent of its own loss from every rank's tangents.
PyTorch computes both on all ranks' data at once, simulating the
collectives with cat, sum, amax and chunk. rlx-run checks its outputs
against those references on every rank (--check with {rank} in the path)
and writes --output once, from rank 0.
"""

import os
import shlex
import subprocess
import sys
import tempfile

import numpy as np
import torch

mpirun = shlex.split(sys.argv[1])
rlx_opt, rlx_run = sys.argv[2], sys.argv[3]
N = int(sys.argv[4])
seed = int(os.environ.get("RLX_TEST_SEED", np.random.SeedSequence().entropy % 2**32))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)
B, D, K = 2 * N, 3, 4
torch.set_default_dtype(torch.float64)

xs = [(rng.standard_normal((B, D)) * (r + 1) + 0.5 * r).astype(np.float32)
      for r in range(N)]
ws = [rng.standard_normal((D, K)).astype(np.float32) for r in range(N)]
txs = [rng.standard_normal((B, D)).astype(np.float32) for r in range(N)]
tws = [rng.standard_normal((D, K)).astype(np.float32) for r in range(N)]

M = f"mesh [{N}]"
graph = f"""
func.func @f(%x: tensor<{B}x{D}xf32> {{rlx.input = "x"}},
             %w: tensor<{D}x{K}xf32> {{rlx.param = "w"}}) -> tensor<f32> {{
  %h = rlx.all_gather %x dim = 0 {M} : tensor<{B}x{D}xf32>
  %y = rlx.matmul %h, %w : tensor<{N * B}x{D}xf32>, tensor<{D}x{K}xf32>
  %z = rlx.reduce_scatter sum %y dim = 0 {M} : tensor<{N * B}x{K}xf32>
  %a = rlx.all_reduce max %z {M} : tensor<{B}x{K}xf32>
  %m = rlx.reduce_to_root mean %z root = 0 {M} : tensor<{B}x{K}xf32>
  %b = rlx.broadcast %z root = 1 {M} : tensor<{B}x{K}xf32>
  %t = rlx.all_to_all %z split_dim = 0 concat_dim = 1 {M} : tensor<{B}x{K}xf32>
  %tm = rlx.all_reduce mean %t {M} : tensor<{B // N}x{K * N}xf32>
  %p0 = rlx.binary mul %z, %a : tensor<{B}x{K}xf32>, tensor<{B}x{K}xf32>
  %p1 = rlx.binary mul %m, %m : tensor<{B}x{K}xf32>, tensor<{B}x{K}xf32>
  %p2 = rlx.binary mul %b, %z : tensor<{B}x{K}xf32>, tensor<{B}x{K}xf32>
  %p3 = rlx.binary mul %tm, %t : tensor<{B // N}x{K * N}xf32>, tensor<{B // N}x{K * N}xf32>
  %s0 = rlx.reduce sum %p0 axes = [0, 1] : tensor<{B}x{K}xf32>
  %s1 = rlx.reduce sum %p1 axes = [0, 1] : tensor<{B}x{K}xf32>
  %s2 = rlx.reduce sum %p2 axes = [0, 1] : tensor<{B}x{K}xf32>
  %s3 = rlx.reduce sum %p3 axes = [0, 1] : tensor<{B // N}x{K * N}xf32>
  %l0 = rlx.binary add %s0, %s1 : tensor<f32>, tensor<f32>
  %l1 = rlx.binary add %l0, %s2 : tensor<f32>, tensor<f32>
  %l2 = rlx.binary add %l1, %s3 : tensor<f32>, tensor<f32>
  return %l2 : tensor<f32>
}}
"""


def losses(x, w):
    """Every rank's loss from every rank's x and w (lists), in PyTorch."""
    h = torch.cat(x, 0)
    y = [h @ w[r] for r in range(N)]
    z = list(torch.chunk(sum(y), N, 0))
    a = torch.stack(z).amax(0)
    mean = sum(z) / N
    m = [mean if r == 0 else torch.zeros_like(mean) for r in range(N)]
    b = z[1]
    t = [torch.cat([torch.chunk(z[s], N, 0)[r] for s in range(N)], 1)
         for r in range(N)]
    tm = sum(t) / N
    return torch.stack([(z[r] * a).sum() + (m[r] * m[r]).sum() +
                        (b * z[r]).sum() + (tm * t[r]).sum()
                        for r in range(N)])


tx = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in xs]
tw = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in ws]
loss = losses(tx, tw)
loss.sum().backward()
_, tangent = torch.autograd.functional.jvp(
    lambda *a: losses(list(a[:N]), list(a[N:])),
    tuple(torch.tensor(v, dtype=torch.float64) for v in xs + ws),
    tuple(torch.tensor(v, dtype=torch.float64) for v in txs + tws))

tmp = tempfile.mkdtemp(prefix="rlx-collective-ad-")
for r in range(N):
    save = lambda name, v: np.save(os.path.join(tmp, f"{name}.{r}.npy"),
                                   np.asarray(v, np.float32))
    save("x", xs[r])
    save("w", ws[r])
    save("tx", txs[r])
    save("tw", tws[r])
    save("loss", loss[r].detach().numpy())
    save("dx", tx[r].grad.numpy())
    save("dw", tw[r].grad.numpy())
    save("tangent", tangent[r].numpy())
source = os.path.join(tmp, "f.mlir")
with open(source, "w") as f:
    f.write(graph)
derived = os.path.join(tmp, "derived.mlir")
subprocess.run([rlx_opt, source, "--rlx-autodiff=func=f wrt=x,w",
                "--rlx-jvp=func=f wrt=x,w", "-o", derived], check=True)


def per_rank(name):
    return os.path.join(tmp, name + ".{rank}.npy")


def launch(entry, inputs, checks, extra=()):
    """Each rank's stdout lines, by rank. mpirun interleaves the ranks'
    output on its own stdout in pieces that need not be whole lines, so
    each rank's is read from the file --output-filename writes."""
    logs = os.path.join(tmp, "logs-" + entry)
    command = mpirun + ["-np", str(N), "--output-filename", logs, rlx_run,
                        derived, "--no-cache", "--entry", entry, "--rtol",
                        "1e-4", "--atol", "1e-3"]
    for name, file in inputs:
        command += ["--input", f"{name}={per_rank(file)}"]
    for index, file in checks:
        command += ["--check", f"{index}={per_rank(file)}"]
    command += list(extra)
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        sys.exit(f"{entry} under mpirun failed ({run.returncode}), seed "
                 f"{seed}:\n{run.stdout}\n{run.stderr}")
    lines = []
    for rank in range(N):
        with open(os.path.join(logs, "1", f"rank.{rank}", "stdout")) as file:
            lines.append(file.read().splitlines())
    return lines


out = os.path.join(tmp, "grad-out")
lines = launch("f_grad", [("x", "x"), ("w", "w")],
               [(0, "loss"), (1, "dx"), (2, "dw")],
               ["--output", out, "--print"])
checks = [line for rank in lines for line in rank
          if ": check output_" in line]
assert len(checks) == 3 * N and all(line.endswith("OK") for line in checks), \
    lines
# --print and --output: rank 0 only.
assert [sum(line.startswith("output_0: ") for line in rank)
        for rank in lines] == [1] + [0] * (N - 1), lines
assert sorted(os.listdir(out)) == ["output_0.npy", "output_1.npy",
                                   "output_2.npy"], os.listdir(out)
assert np.allclose(np.load(os.path.join(out, "output_1.npy")),
                   tx[0].grad.numpy(), rtol=1e-4, atol=1e-3)
print(f"ok: VJP of the collectives on {N} ranks ({len(checks)} checks)")

lines = launch("f_jvp", [("x", "x"), ("w", "w"), ("t_x", "tx"), ("t_w", "tw")],
               [(0, "loss"), (1, "tangent")])
checks = [line for rank in lines for line in rank
          if ": check output_" in line]
assert len(checks) == 2 * N and all(line.endswith("OK") for line in checks), \
    lines
print(f"ok: JVP of the collectives on {N} ranks ({len(checks)} checks)")
