# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.compile through the persistent compile cache: a new process loads
what an earlier one stored, with equal results; cache=False bypasses it;
timing=True prints the pass timing report. Run as
`compile_cache.py CACHE_DIR STEP`; STEP 'store', 'load' or 'bypass'."""

import os
import sys

import numpy as np
import rlx

cache_dir, step = sys.argv[1], sys.argv[2]
os.environ["RLX_CACHE_DIR"] = cache_dir

TEXT = """
func.func @affine(%x: tensor<2x3xf32> {rlx.input = "x"},
                  %w: tensor<3x4xf32> {rlx.param = "w"}) -> tensor<2x4xf32> {
  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>
  return %0 : tensor<2x4xf32>
}
"""

x = np.arange(6, dtype=np.float32).reshape(2, 3)
w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def entries():
    return sorted(name for name in os.listdir(cache_dir)
                  if name.endswith(".so"))


if step == "store":
    graph = rlx.compile(TEXT, params={"w": w}, timing=True)
    np.save(os.path.join(cache_dir, "..", "stored.npy"), graph(x=x))
    assert len(entries()) == 1, entries()
elif step == "load":
    graph = rlx.compile(TEXT, params={"w": w})
    stored = np.load(os.path.join(cache_dir, "..", "stored.npy"))
    assert np.array_equal(graph(x=x), stored)
    assert np.allclose(stored, x @ w, rtol=1e-6)
    assert graph.name == "affine"
    assert len(entries()) == 1, entries()
elif step == "bypass":
    before = entries()
    graph = rlx.compile(TEXT, params={"w": w}, cache=False,
                        pipeline_options="use-blas=false")
    assert np.allclose(graph(x=x), x @ w, rtol=1e-6)
    assert entries() == before, (entries(), before)
print(f"{step}: ok")
