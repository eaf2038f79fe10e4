"""Tensor-parallel layers under mpirun against the unsharded graph.

  tensor-parallel.py "MPIRUN" RLX_OPT RLX_RUN RANKS

Each case is an rlx graph with a mesh and per-argument splits
(rlx.mesh, rlx.split). rlx-opt --rlx-shard-partition makes the per-rank
program; every rank reads its shards of the weights (sliced here from the
whole ones, as the splits say) and the whole input, and its outputs must
equal those of one process running the unsharded graph on the whole
weights within f32 rounding (the partial sums of a row-split matmul are
added in another order), and NumPy's in f64 within a looser bound.
"""

import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np

mpirun = shlex.split(sys.argv[1])
rlx_opt, rlx_run = sys.argv[2], sys.argv[3]
N = int(sys.argv[4])
seed = int(os.environ.get("RLX_TEST_SEED",
                          np.random.SeedSequence().entropy % 2**32))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)
tmp = tempfile.mkdtemp(prefix="rlx-tensor-parallel-")


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if res.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{res.stdout}\n{res.stderr}")
    return res


def shard(a, split, mesh, rank):
    """Rank's block of a: dim d split over the mesh axes split[d]."""
    coords = np.unravel_index(rank, mesh)
    for d, axes in enumerate(split):
        if not axes:
            continue
        parts = int(np.prod([mesh[x] for x in axes]))
        index = int(np.ravel_multi_index([coords[x] for x in axes],
                                         [mesh[x] for x in axes]))
        a = np.split(a, parts, axis=d)[index]
    return a


def gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def check(name, graph, args, reference, mesh):
    """args: [(name, array, split or None)]; reference(dict) -> array."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    path = os.path.join(d, "graph.mlir")
    with open(path, "w") as f:
        f.write(graph)
    arrays = {n: a for n, a, _ in args}
    np.savez(os.path.join(d, "whole.npz"), **arrays)
    for r in range(int(np.prod(mesh))):
        np.savez(os.path.join(d, f"w.{r}.npz"),
                 **{n: shard(a, s or [], mesh, r) for n, a, s in args})
    run([rlx_run, path, "--input", os.path.join(d, "whole.npz"),
         "--output", os.path.join(d, "ref")])
    part = os.path.join(d, "part.mlir")
    run([rlx_opt, path, "--rlx-shard-partition", "-o", part])
    run(mpirun + ["-np", str(int(np.prod(mesh))), rlx_run, part,
                  "--input", os.path.join(d, "w.{rank}.npz"),
                  "--output", os.path.join(d, "out.{rank}")])
    ref = np.load(os.path.join(d, "ref", "output_0.npy"))
    exact = reference({n: a.astype(np.float64) for n, a in arrays.items()})
    assert ref.std() > 0.1, "the outputs should vary"
    assert np.allclose(ref, exact, rtol=1e-4, atol=1e-4), \
        f"{name}: unsharded graph vs NumPy: {np.abs(ref - exact).max()}"
    worst = 0.0
    for r in range(int(np.prod(mesh))):
        out = np.load(os.path.join(d, f"out.{r}", "output_0.npy"))
        assert out.shape == ref.shape, (out.shape, ref.shape)
        err = np.abs(out - ref) / (1e-5 * np.abs(ref) + 2e-6 * np.abs(ref).max())
        worst = max(worst, float(err.max()))
        assert err.max() <= 1, \
            f"{name}: rank {r} vs unsharded: {np.abs(out - ref).max()}"
    collectives = re.findall(r"rlx\.(all_\w+|reduce_scatter)", open(part).read())
    print(f"ok: {name} on {int(np.prod(mesh))} ranks equals the unsharded "
          f"graph, collectives: {' '.join(collectives)}")


# The MLP of a transformer layer as in Megatron-LM: w1 column-split (each
# rank a slice of the hidden units, and of their bias), w2 row-split (the
# same slice of its rows), so the hidden activations stay local and one
# all_reduce sums the ranks' partial products.
B, D, H = 8, 32, 64 * N
mlp = f"""
func.func @mlp(%x: tensor<{B}x{D}xf32> {{rlx.input = "x"}},
               %w1: tensor<{D}x{H}xf32> {{rlx.param = "w1", rlx.split = [[], [0]]}},
               %b1: tensor<{H}xf32> {{rlx.param = "b1", rlx.split = [[0]]}},
               %w2: tensor<{H}x{D}xf32> {{rlx.param = "w2", rlx.split = [[0]]}},
               %b2: tensor<{D}xf32> {{rlx.param = "b2"}}) -> tensor<{B}x{D}xf32>
    attributes {{rlx.mesh = [{N}]}} {{
  %0 = rlx.matmul %x, %w1 : tensor<{B}x{D}xf32>, tensor<{D}x{H}xf32>
  %1 = rlx.binary add %0, %b1 : tensor<{B}x{H}xf32>, tensor<{H}xf32>
  %2 = rlx.activation gelu %1 : tensor<{B}x{H}xf32>
  %3 = rlx.matmul %2, %w2 : tensor<{B}x{H}xf32>, tensor<{H}x{D}xf32>
  %4 = rlx.binary add %3, %b2 : tensor<{B}x{D}xf32>, tensor<{D}xf32>
  return %4 : tensor<{B}x{D}xf32>
}}
"""
f32 = np.float32
check("mlp", mlp, [
    ("x", rng.standard_normal((B, D)).astype(f32), None),
    ("w1", (rng.standard_normal((D, H)) / np.sqrt(D)).astype(f32), [[], [0]]),
    ("b1", rng.standard_normal(H).astype(f32), [[0]]),
    ("w2", (rng.standard_normal((H, D)) / np.sqrt(H)).astype(f32), [[0]]),
    ("b2", rng.standard_normal(D).astype(f32), None),
], lambda a: gelu(a["x"] @ a["w1"] + a["b1"]) @ a["w2"] + a["b2"], (N,))

# Self-attention with its heads split over the ranks, as in Megatron-LM:
# the q, k and v projections column-split (a rank holds the weights of its
# heads), the attention of each head local, the output projection
# row-split (its rows for the rank's heads) with one all_reduce; then the
# residual and a layer norm, replicated. Per-head weights are 3-d
# ([heads, D, dh]) so that the heads are a dim the mesh splits.
S, D, dh = 8, 32, 8
Hh = 2 * N
scale = 1 / np.sqrt(dh)
t = lambda *dims: "tensor<" + "x".join(map(str, dims)) + "xf32>"
attention = f"""
func.func @attention(%x: {t(S, D)} {{rlx.input = "x"}},
    %wq: {t(Hh, D, dh)} {{rlx.param = "wq", rlx.split = [[0]]}},
    %wk: {t(Hh, D, dh)} {{rlx.param = "wk", rlx.split = [[0]]}},
    %wv: {t(Hh, D, dh)} {{rlx.param = "wv", rlx.split = [[0]]}},
    %wo: {t(Hh, dh, D)} {{rlx.param = "wo", rlx.split = [[0]]}},
    %bo: {t(D)} {{rlx.param = "bo"}}, %g: {t(D)} {{rlx.param = "g"}},
    %b: {t(D)} {{rlx.param = "b"}}) -> {t(S, D)}
    attributes {{rlx.mesh = [{N}]}} {{
  %q = rlx.matmul %x, %wq : {t(S, D)}, {t(Hh, D, dh)}
  %k = rlx.matmul %x, %wk : {t(S, D)}, {t(Hh, D, dh)}
  %v = rlx.matmul %x, %wv : {t(S, D)}, {t(Hh, D, dh)}
  %kt = rlx.transpose %k perm = [0, 2, 1] : {t(Hh, S, dh)}
  %s = rlx.matmul %q, %kt : {t(Hh, S, dh)}, {t(Hh, dh, S)}
  %c = rlx.constant dense<{scale}> : tensor<f32>
  %ss = rlx.binary mul %s, %c : {t(Hh, S, S)}, tensor<f32>
  %p = rlx.softmax %ss {{axis = 2 : i64}} : {t(Hh, S, S)}
  %o = rlx.matmul %p, %v : {t(Hh, S, S)}, {t(Hh, S, dh)}
  %y = rlx.matmul %o, %wo : {t(Hh, S, dh)}, {t(Hh, dh, D)}
  %r = rlx.reduce sum %y axes = [0] : {t(Hh, S, D)}
  %rb = rlx.binary add %r, %bo : {t(S, D)}, {t(D)}
  %res = rlx.binary add %rb, %x : {t(S, D)}, {t(S, D)}
  %n = rlx.layer_norm %res, %g, %b {{axis = -1 : i64, eps = 1.0e-05 : f32}}
      : {t(S, D)}, {t(D)}, {t(D)}
  return %n : {t(S, D)}
}}
"""


def attention_ref(a):
    x = a["x"]
    q, k, v = (np.einsum("sd,hde->hse", x, a[w]) for w in ("wq", "wk", "wv"))
    p = softmax(q @ k.transpose(0, 2, 1) * scale)
    res = np.einsum("hse,hed->sd", p @ v, a["wo"]) + a["bo"] + x
    mu = res.mean(-1, keepdims=True)
    var = ((res - mu) ** 2).mean(-1, keepdims=True)
    return (res - mu) / np.sqrt(var + 1e-5) * a["g"] + a["b"]


w = lambda *dims: (rng.standard_normal(dims) / np.sqrt(dims[-2])).astype(f32)
check("attention", attention, [
    ("x", rng.standard_normal((S, D)).astype(f32), None),
    ("wq", w(Hh, D, dh), [[0]]), ("wk", w(Hh, D, dh), [[0]]),
    ("wv", w(Hh, D, dh), [[0]]), ("wo", w(Hh, dh, D), [[0]]),
    ("bo", rng.standard_normal(D).astype(f32), None),
    ("g", (1 + 0.1 * rng.standard_normal(D)).astype(f32), None),
    ("b", rng.standard_normal(D).astype(f32), None),
], attention_ref, (N,))
