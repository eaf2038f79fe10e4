# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Checks the rlx Python package: api.py SCRATCH_DIR RLX_RUN LIBS_DIR."""

import os
import struct
import subprocess
import sys

import numpy as np

import rlx
from pychecks import check, expect_error, finish

scratch, rlx_run, libs_dir = sys.argv[1], sys.argv[2], sys.argv[3]


MLP = """
func.func @mlp(%x: tensor<4x8xf32> {rlx.input = "x"},
               %w1: tensor<8x16xf32> {rlx.param = "w1"},
               %b1: tensor<16xf32> {rlx.param = "b1"},
               %w2: tensor<16x3xf32> {rlx.param = "w2"}) -> tensor<4x3xf32> {
  %0 = rlx.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32>
  %1 = rlx.binary add %0, %b1 : tensor<4x16xf32>, tensor<16xf32>
  %2 = rlx.activation tanh %1 : tensor<4x16xf32>
  %3 = rlx.matmul %2, %w2 : tensor<4x16xf32>, tensor<16x3xf32>
  return %3 : tensor<4x3xf32>
}
"""

rng = np.random.default_rng(1)
params = {"w1": rng.standard_normal((8, 16), np.float32),
          "b1": rng.standard_normal(16, np.float32),
          "w2": rng.standard_normal((16, 3), np.float32)}
x = rng.standard_normal((4, 8), np.float32)


def reference(x):
    h = np.tanh(x.astype(np.float64) @ params["w1"] + params["b1"])
    return h @ params["w2"]


check(rlx.api_version() == 2, "api_version")
check("cpu" in rlx.targets(), "targets has cpu")

graph = rlx.compile(MLP, params=params)
check(graph.name == "mlp", "name")
check([(t.name, t.dtype, t.shape) for t in graph.inputs]
      == [("x", "f32", (4, 8))], f"inputs {graph.inputs}")
check([t.name for t in graph.params] == ["w1", "b1", "w2"], "params")
check([(t.name, t.shape) for t in graph.outputs] == [("output_0", (4, 3))],
      "outputs")
y = graph(x=x)
check(isinstance(y, np.ndarray) and y.shape == (4, 3), "one output: array")
error = np.max(np.abs(y - reference(x)) / (1e-6 + np.abs(reference(x))))
check(np.allclose(y, reference(x), rtol=1e-5, atol=1e-5),
      f"mlp matches NumPy (max rel err {error:.2e})")
check(np.array_equal(graph(x), y), "positional input")
y64 = graph(x=x.astype(np.float64))
check(np.array_equal(y64, y), "f64 array converts to the f32 input")

# Parameters from a .safetensors file, the graph from a path.
params_path = os.path.join(scratch, "mlp.safetensors")
rlx.write_safetensors(params_path, params)
mlir_path = os.path.join(scratch, "mlp.mlir")
with open(mlir_path, "w") as f:
    f.write(MLP)
from_file = rlx.compile(mlir_path, params=params_path, use_blas=False)
check(np.allclose(from_file(x=x), y, rtol=1e-5, atol=1e-6),
      "path + .safetensors params")

# Parameters from .npz archives, stored or compressed (NumPy reads them);
# arrays naming no argument are ignored; a damaged archive raises RLXError.
for save in (np.savez, np.savez_compressed):
    npz_path = os.path.join(scratch, f"mlp-{save.__name__}.npz")
    save(npz_path, unused=np.zeros(2), **params)
    check(np.array_equal(rlx.compile(mlir_path, params=npz_path)(x=x),
                         rlx.compile(mlir_path, params=params)(x=x)),
          f".npz params ({save.__name__})")
with open(npz_path, "rb") as f:
    damaged = f.read()[:-30]
with open(os.path.join(scratch, "damaged.npz"), "wb") as f:
    f.write(damaged)
expect_error(lambda: rlx.compile(mlir_path, params=os.path.join(
    scratch, "damaged.npz")), "damaged.npz' as a .npz archive",
    "a truncated .npz")
# Parameters from a GGUF file: GGUF lists dims innermost first, so a
# [8, 16] weight is written with dims (16, 8). Written here from the
# published GGUF v3 layout (magic, version, counts, tensor infos, aligned
# data).
gguf_path = os.path.join(scratch, "mlp.gguf")
infos, data = b"", b""
for name, value in params.items():
    infos += struct.pack("<Q", len(name)) + name.encode()
    infos += struct.pack("<I", value.ndim)
    infos += b"".join(struct.pack("<Q", d) for d in value.shape[::-1])
    infos += struct.pack("<IQ", 0, len(data))  # f32, offset
    data += value.tobytes() + b"\0" * (-value.nbytes % 32)
header = b"GGUF" + struct.pack("<IQQ", 3, len(params), 0) + infos
with open(gguf_path, "wb") as f:
    f.write(header + b"\0" * (-len(header) % 32) + data)
from_gguf = rlx.compile(MLP, params=gguf_path)
check(np.array_equal(from_gguf(x=x), y), "GGUF params bind like arrays")
expect_error(lambda: rlx.compile(MLP).bind(gguf_path[:-5] + "-none.gguf"),
             "-none.gguf", "missing GGUF file")

# A custom op plugin (examples/custom-op): z = x * sigmoid(beta x) + y.
plugin = os.path.join(libs_dir, "libswish_add_plugin.so")
rlx.load_plugin(plugin)
SWISH = """
func.func @s(%x: tensor<2x3xf32> {rlx.input = "x"},
             %y: tensor<3xf32> {rlx.input = "y"}) -> tensor<2x3xf32> {
  %z = rlx.custom "example.swish_add"(%x, %y) pure attrs {beta = 2.0 : f32}
      : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}
"""
sx = rng.standard_normal((2, 3), np.float32)
sy = rng.standard_normal(3, np.float32)
want = sx / (1 + np.exp(-2.0 * sx.astype(np.float64))) + sy
check(np.allclose(rlx.compile(SWISH)(x=sx, y=sy), want, rtol=1e-5,
                  atol=1e-6), "custom op from a plugin")
expect_error(lambda: rlx.load_plugin(plugin), "is already registered",
             "a plugin loaded twice")
expect_error(lambda: rlx.load_plugin(os.path.join(scratch, "none.so")),
             "none.so", "missing plugin")
expect_error(lambda: rlx.compile(SWISH.replace("tensor<3xf32>",
                                               "tensor<2xf32>")),
             "the registered shape function rejects the operands",
             "shape function rejection")

# Bit for bit equal to rlx-run on the same data.
np.save(os.path.join(scratch, "x.npy"), x)
out_dir = os.path.join(scratch, "out")
subprocess.run([rlx_run, mlir_path, "--input",
                "x=" + os.path.join(scratch, "x.npy"), "--params",
                params_path, "--output", out_dir], check=True)
check(np.array_equal(np.load(os.path.join(out_dir, "output_0.npy")),
                     rlx.compile(mlir_path, params=params_path)(x=x)),
      "equal to rlx-run bit for bit")

# Several outputs: a tuple.
TWO = """
func.func @two(%a: tensor<3xf32> {rlx.input = "a"},
               %b: tensor<3xf32> {rlx.input = "b"})
    -> (tensor<3xf32>, tensor<3xf32>) {
  %0 = rlx.binary add %a, %b : tensor<3xf32>, tensor<3xf32>
  %1 = rlx.binary mul %a, %b : tensor<3xf32>, tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}
"""
two = rlx.compile(TWO)
a = np.array([1, 2, 3], np.float32)
b = np.array([4, 5, -6], np.float32)
s, p = two(a=a, b=b)
check(np.array_equal(s, a + b) and np.array_equal(p, a * b),
      "two outputs: a tuple in result order")

# Ahead of time.
library = graph.save(os.path.join(scratch, "mlp.so"))
loaded = rlx.load(library, params=params)
check(np.array_equal(loaded(x=x), y), "save/load: same outputs")
check(loaded.inputs == graph.inputs, "loaded signature")
loaded.save(os.path.join(scratch, "copy.so"))
check(np.array_equal(rlx.load(os.path.join(scratch, "copy.so"),
                              params=params_path)(x=x), y),
      "a loaded graph saves a copy")

emitted = rlx.emit_shared_library(mlir_path, os.path.join(scratch, "e.so"))
check(np.array_equal(rlx.load(emitted, params=params)(x=x), y),
      "emit_shared_library without compiling first")
if "cuda" in rlx.targets():
    # The CUDA target's library is written without a GPU (it runs where
    # one is); an error here must be the toolkit's absence, not a crash.
    try:
        rlx.emit_shared_library(MLP, os.path.join(scratch, "cuda.so"),
                                target="cuda")
        check(os.path.getsize(os.path.join(scratch, "cuda.so")) > 0,
              "a cuda library written without a GPU")
    except rlx.RLXError as error:
        print(f"note: no cuda library here: {error}")

bench = graph.bench(5)
check(bench.runs == 5 and 0 <= bench.min_ms <= bench.median_ms,
      f"bench {bench}")
check(rlx.compile(MLP).bench(3).runs == 3, "bench fills unbound arguments")

# Errors as exceptions carrying the diagnostic.
expect_error(lambda: rlx.compile("func.func @f() {\n  rlx.bogus\n}\n"),
             "<string>:2:", "parse error with its location")
expect_error(lambda: rlx.compile(MLP, target="tpu"), "unknown target 'tpu'",
             "unknown target")
expect_error(lambda: rlx.compile(MLP, no_such_option=3),
             "invalid options 'no-such-option=3'", "pipeline options")
expect_error(lambda: rlx.compile("/nonexistent/model.mlir"),
             "cannot read '/nonexistent/model.mlir'", "missing file")
expect_error(lambda: graph(x=x[:2]),
             "input 'x' of @mlp is [4, 8] f32, got an array of shape [2, 8]",
             "wrong shape")
expect_error(lambda: graph(x=x.astype(np.complex64)),
             "does not convert", "wrong dtype")
expect_error(lambda: graph(z=x), "'z' is not an argument of @mlp",
             "unknown name")
expect_error(lambda: rlx.compile(MLP)(x=x), "no data for param 'w1'",
             "unbound parameter")
expect_error(lambda: rlx.load("/nonexistent.so"), "no such file",
             "load missing")
expect_error(lambda: rlx.compile(MLP, params={"w9": x}),
             "'w9' is not an argument", "unknown parameter")
expect_error(lambda: rlx.transform(MLP, "no-such-pass"),
             "invalid pass pipeline", "bad pass pipeline")

# safetensors: every NumPy dtype round-trips; bf16 rounds to nearest even.
tensors = {"f32": rng.standard_normal((2, 3)).astype(np.float32),
           "f64": rng.standard_normal(4),
           "f16": rng.standard_normal(5).astype(np.float16),
           "i64": np.arange(6, dtype=np.int64).reshape(2, 3),
           "i8": np.array([-3, 4], np.int8), "u8": np.array([250], np.uint8),
           "bool": np.array([True, False]),
           "c64": np.array([1 + 2j], np.complex64),
           "scalar": np.array(3.5, np.float32)}
path = os.path.join(scratch, "all.safetensors")
rlx.write_safetensors(path, tensors)
back = rlx.read_safetensors(path)
check(set(back) == set(tensors) and all(
    back[k].dtype == v.dtype and np.array_equal(back[k], v)
    for k, v in tensors.items()), "safetensors round trip")
values = np.array([1.0, 1.00390625, 1.01171875, -2.5e-3, 3e30], np.float32)
rlx.write_safetensors(path, {"h": values}, bf16=["h"])
halved = rlx.read_safetensors(path)["h"]
import torch  # noqa: E402  (the oracle of bf16 rounding)
expected = torch.from_numpy(values).to(torch.bfloat16).float().numpy()
check(halved.dtype == np.float32 and np.array_equal(halved, expected)
      and np.array_equal(expected[:3], [1.0, 1.0, 1.015625]),
      f"bf16 rounds to nearest even as torch does: {halved}")
# And a bf16 graph input takes float32 arrays, rounded the same way.
BF16 = """
func.func @h(%a: tensor<5xbf16> {rlx.input = "a"}) -> tensor<5xbf16> {
  %0 = rlx.binary add %a, %a : tensor<5xbf16>, tensor<5xbf16>
  return %0 : tensor<5xbf16>
}
"""
doubled = rlx.compile(BF16)(a=values)
check(doubled.dtype == np.float32 and np.array_equal(doubled, 2 * halved),
      "bf16 in and out as float32")

finish()
