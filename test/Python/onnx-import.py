# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.onnx.import_model on models built with onnx.helper: initializers as
bound parameters, `?` dims from dim_param (and their shape arithmetic),
dims= giving them sizes, constants= giving inputs, external data files, the opset rules, the
command line, and each error naming what it refuses. Values against
NumPy (f32, within 1e-5 relative); fresh random data each run, the seed
printed (RLX_TEST_SEED=<seed> replays it).

Usage: onnx-import.py WORKDIR"""

import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import rlx
import rlx.onnx
from pychecks import check, expect_error, finish, test_seed

workdir = sys.argv[1]
seed = test_seed()
rng = np.random.default_rng(seed)


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              list(initializers))
    return helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", opset)])


def f32(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def close(got, want, what):
    error = float(np.max(np.abs(got - want))) if got.shape == want.shape \
        else float("inf")
    check(got.shape == want.shape and
          np.allclose(got, want, rtol=1e-5, atol=1e-6),
          f"{what}: max abs error {error:.2e}")


# A linear layer over a `?` batch, whose weight and bias are initializers.
w = rng.standard_normal((4, 3)).astype(np.float32)
b = rng.standard_normal(3).astype(np.float32)
linear = model(
    [helper.make_node("MatMul", ["x", "w"], ["xw"], name="mm"),
     helper.make_node("Add", ["xw", "b"], ["y"], name="bias"),
     helper.make_node("Relu", ["y"], ["out"])],
    [f32("x", ["N", 4])], [f32("out", ["N", 3])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
mlir, params = rlx.onnx.import_model(linear)
check(sorted(params) == ["b", "w"] and np.array_equal(params["w"], w),
      "initializers are the params, by name")
check('tensor<4x3xf32> {rlx.param = "w"}' in mlir and
      'tensor<?x4xf32> {rlx.input = "x"}' in mlir,
      "w is an rlx.param argument, x has a `?` batch")
graph = rlx.compile(mlir, params=params)
for n in (1, 3, 7):
    x = rng.standard_normal((n, 4)).astype(np.float32)
    close(graph(x=x), np.maximum(x @ w + b, 0), f"linear at batch {n}")
mlir5, _ = rlx.onnx.import_model(linear, dims={"N": 5})
check("tensor<5x4xf32>" in mlir5 and "?" not in mlir5,
      "dims={'N': 5} makes the batch static")

# Shape arithmetic on a `?` dim: x [B, S, 8] viewed as [B, S, 2, 4]
# through Shape, Gather, Unsqueeze, Concat, then flattened back with a -1.
shape_ops = [
    helper.make_node("Shape", ["x"], ["shape"]),
    helper.make_node("Constant", [], ["i0"], value=numpy_helper.from_array(
        np.array(0, np.int64))),
    helper.make_node("Gather", ["shape", "i0"], ["batch"]),
    helper.make_node("Constant", [], ["axes"],
                     value=numpy_helper.from_array(np.array([0], np.int64))),
    helper.make_node("Unsqueeze", ["batch", "axes"], ["batch1"]),
    helper.make_node("Constant", [], ["rest"], value=numpy_helper.from_array(
        np.array([5, 2, 4], np.int64))),
    helper.make_node("Concat", ["batch1", "rest"], ["target"], axis=0),
    helper.make_node("Reshape", ["x", "target"], ["split"]),
    helper.make_node("Transpose", ["split"], ["t"], perm=[0, 2, 1, 3]),
    helper.make_node("Constant", [], ["flat"], value=numpy_helper.from_array(
        np.array([0, -1], np.int64))),
    helper.make_node("Reshape", ["t", "flat"], ["out"]),
]
reshaping = model(shape_ops, [f32("x", ["B", 5, 8])], [f32("out", ["B", 40])])
mlir, params = rlx.onnx.import_model(reshaping)
graph = rlx.compile(mlir, params=params)
for n in (2, 6):
    x = rng.standard_normal((n, 5, 8)).astype(np.float32)
    close(graph(x=x), x.reshape(n, 5, 2, 4).transpose(0, 2, 1, 3)
          .reshape(n, 40), f"shape arithmetic over `?` at batch {n}")

# A constant of a `?` shape: ceil_mode's partial windows read appended
# rows of -inf, as wide as the batch.
pool = model([helper.make_node("MaxPool", ["x"], ["out"], kernel_shape=[2, 2],
                               strides=[2, 2], ceil_mode=1)],
             [f32("x", ["N", 2, 5, 5])], [f32("out", ["N", 2, 3, 3])])
graph = rlx.compile(rlx.onnx.import_model(pool)[0])
for n in (1, 4):
    x = rng.standard_normal((n, 2, 5, 5)).astype(np.float32)
    padded = np.pad(x, [(0, 0), (0, 0), (0, 1), (0, 1)],
                    constant_values=-np.inf)
    close(graph(x=x), padded.reshape(n, 2, 3, 2, 3, 2).max(axis=(3, 5)),
          f"ceil_mode max pooling at batch {n}")

# Constants over a product of a `?` dim (what swin's attention and
# nn.MultiheadAttention's padding mask export): x [B, 4, 6] viewed as
# [B*4, 6]; Dropout's mask over it (all true) and a ConstantOfShape of its
# symbolic shape (twos) are splats over the `B*4` dim, which no input has.
const = numpy_helper.from_array
product = model(
    [helper.make_node("Shape", ["x"], ["shape"]),
     helper.make_node("Constant", [], ["i0"], value=const(
         np.array([0], np.int64))),
     helper.make_node("Gather", ["shape", "i0"], ["batch"]),
     helper.make_node("Constant", [], ["four"], value=const(
         np.array([4], np.int64))),
     helper.make_node("Mul", ["batch", "four"], ["rows"]),
     helper.make_node("Constant", [], ["six"], value=const(
         np.array([6], np.int64))),
     helper.make_node("Concat", ["rows", "six"], ["target"], axis=0),
     helper.make_node("Reshape", ["x", "target"], ["flat"]),
     helper.make_node("Dropout", ["flat"], ["kept", "mask"]),
     helper.make_node("Cast", ["mask"], ["ones"], to=TensorProto.FLOAT),
     helper.make_node("Shape", ["kept"], ["flat_shape"]),
     helper.make_node("ConstantOfShape", ["flat_shape"], ["twos"],
                      value=const(np.array([2], np.float32))),
     helper.make_node("Mul", ["kept", "twos"], ["doubled"]),
     helper.make_node("Mul", ["doubled", "ones"], ["out"])],
    [f32("x", ["B", 4, 6])], [f32("out", ["B*4", 6])])
mlir, params = rlx.onnx.import_model(product)
check("tensor<?x4x6xf32>" in mlir and "-> tensor<?x6xf32>" in mlir,
      "constants over `B*4`: the batch stays symbolic")
graph = rlx.compile(mlir, params=params)
for n in (1, 3):
    x = rng.standard_normal((n, 4, 6)).astype(np.float32)
    close(graph(x=x), 2 * x.reshape(n * 4, 6),
          f"Dropout's mask and ConstantOfShape over `B*4` at batch {n}")

# ScatterND of import-time values is computed at import time (swin's
# shifted-window mask writes a constant slice by slice): rows of a 70x70
# zero matrix replaced (negative indices from the end), then others
# increased with reduction add (a row repeated: both updates add). The
# result has 4900 distinct elements, more than an rlx.constant holds: it
# becomes a parameter named after its ONNX value.
rows = rng.permutation(70)[:8]
first = rng.standard_normal((8, 70)).astype(np.float32)
added_rows = np.array([3, -5, 3], np.int64)
added = rng.standard_normal((3, 70)).astype(np.float32)
want_mask = np.zeros((70, 70), np.float32)
want_mask[rows] = first
for row, update in zip(added_rows, added):
    want_mask[row] += update
scatter = model(
    [helper.make_node("Constant", [], ["shape"], value=const(
        np.array([70, 70], np.int64))),
     helper.make_node("ConstantOfShape", ["shape"], ["zeros"],
                      value=const(np.array([0], np.float32))),
     helper.make_node("Constant", [], ["rows"], value=const(
         (rows - 70 * (rows % 2)).reshape(8, 1).astype(np.int64))),
     helper.make_node("Constant", [], ["first"], value=const(first)),
     helper.make_node("ScatterND", ["zeros", "rows", "first"], ["set"]),
     helper.make_node("Constant", [], ["added_rows"], value=const(
         added_rows.reshape(3, 1))),
     helper.make_node("Constant", [], ["added"], value=const(added)),
     helper.make_node("ScatterND", ["set", "added_rows", "added"],
                      ["mask"], reduction="add"),
     helper.make_node("Add", ["x", "mask"], ["out"])],
    [f32("x", ["B", 70, 70])], [f32("out", ["B", 70, 70])])
mlir, params = rlx.onnx.import_model(scatter)
check(sorted(params) == ["mask"] and
      np.array_equal(params["mask"], want_mask) and
      'tensor<70x70xf32> {rlx.param = "mask"}' in mlir,
      "a folded ScatterND too large to inline is the parameter 'mask'")
graph = rlx.compile(mlir, params=params)
for n in (1, 2):
    x = rng.standard_normal((n, 70, 70)).astype(np.float32)
    close(graph(x=x), x + want_mask, f"x + the folded mask at batch {n}")

# Resize over a `?` batch: sizes from Shape of the input (what
# torch.onnx.export makes of F.interpolate(x, size=...)), and scales of 1
# on the batch; the batch and channels stay, 4x4 becomes 8x8 (nearest,
# asymmetric, floor: each pixel repeated).
resize_ops = [
    helper.make_node("Shape", ["x"], ["shape"]),
    helper.make_node("Constant", [], ["lead"], value=const(
        np.array([0], np.int64))),
    helper.make_node("Constant", [], ["two"], value=const(
        np.array([2], np.int64))),
    helper.make_node("Slice", ["shape", "lead", "two"], ["kept"]),
    helper.make_node("Constant", [], ["spatial"], value=const(
        np.array([8, 8], np.int64))),
    helper.make_node("Concat", ["kept", "spatial"], ["sizes"], axis=0),
    helper.make_node("Resize", ["x", "", "", "sizes"], ["by_sizes"],
                     mode="nearest", nearest_mode="floor",
                     coordinate_transformation_mode="asymmetric"),
    helper.make_node("Constant", [], ["scales"], value=const(
        np.array([1, 1, 2, 2], np.float32))),
    helper.make_node("Resize", ["x", "", "scales"], ["by_scales"],
                     mode="nearest", nearest_mode="floor",
                     coordinate_transformation_mode="asymmetric"),
    helper.make_node("Add", ["by_sizes", "by_scales"], ["out"])]
resizing = model(resize_ops, [f32("x", ["N", 2, 4, 4])],
                 [f32("out", ["N", 2, 8, 8])])
graph = rlx.compile(rlx.onnx.import_model(resizing)[0])
for n in (1, 3):
    x = rng.standard_normal((n, 2, 4, 4)).astype(np.float32)
    close(graph(x=x), 2 * x.repeat(2, axis=2).repeat(2, axis=3),
          f"Resize by sizes and by scales over `?` at batch {n}")

# constants=: a graph input given at import time (a Reshape's shape).
given = model([helper.make_node("Reshape", ["x", "shape"], ["out"])],
              [f32("x", [2, 6]), helper.make_tensor_value_info(
                  "shape", TensorProto.INT64, [2])], [f32("out", [3, 4])])
expect_error(lambda: rlx.onnx.import_model(given),
             "Reshape's shape computed by the graph",
             "a Reshape's shape given at run time")
mlir, _ = rlx.onnx.import_model(
    given, constants={"shape": np.array([3, 4], np.int64)})
check('rlx.input = "shape"' not in mlir, "a constant is no graph input")
x = rng.standard_normal((2, 6)).astype(np.float32)
close(rlx.compile(mlir)(x=x), x.reshape(3, 4), "Reshape by a given shape")
expect_error(lambda: rlx.onnx.import_model(given, constants={"y": 1}),
             "constants name no graph input: ['y']", "an unknown constant")

# External data: the initializers in a file beside the model.
path = os.path.join(workdir, "linear.onnx")
external = onnx.ModelProto()
external.CopyFrom(linear)  # save_model moves the data out of its proto
onnx.save_model(external, path, save_as_external_data=True,
                all_tensors_to_one_file=True, location="linear.data",
                size_threshold=0)
check(os.path.exists(os.path.join(workdir, "linear.data")),
      "the initializers are saved in linear.data")
mlir, params = rlx.onnx.import_model(path)
check(np.array_equal(params["w"], w) and np.array_equal(params["b"], b),
      "external data read from the model's folder")
unloaded = onnx.load(path, load_external_data=False)
expect_error(lambda: rlx.onnx.import_model(unloaded), "give base_dir",
             "a ModelProto with external data and no base_dir")
mlir, params = rlx.onnx.import_model(unloaded, base_dir=workdir)
check(np.array_equal(params["w"], w), "external data read from base_dir")
os.rename(os.path.join(workdir, "linear.data"),
          os.path.join(workdir, "moved.data"))
expect_error(lambda: rlx.onnx.import_model(path), "linear.data' does not "
             "exist", "a missing external data file is named")

# The command line.
cli_path = os.path.join(workdir, "cli.onnx")
onnx.save_model(linear, cli_path)
out_mlir = os.path.join(workdir, "cli.mlir")
out_params = os.path.join(workdir, "cli.safetensors")
run = subprocess.run([sys.executable, "-m", "rlx.onnx", cli_path, "-o",
                      out_mlir, "--params", out_params, "--dim", "N=2"],
                     capture_output=True, text=True)
check(run.returncode == 0, f"python3 -m rlx.onnx exits 0 ({run.stderr})")
if run.returncode == 0:
    graph = rlx.compile(out_mlir, params=out_params)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    close(graph(x=x), np.maximum(x @ w + b, 0), "the command line's graph")
run = subprocess.run([sys.executable, "-m", "rlx.onnx", cli_path, "-o",
                      out_mlir, "--dim", "N"], capture_output=True, text=True)
check(run.returncode == 1 and "NAME=SIZE" in run.stderr,
      f"a bad --dim is an error: {run.stderr.strip()}")

# Errors name the node: index, name, op_type.
unsupported = model(
    [helper.make_node("Relu", ["x"], ["r"], name="first"),
     helper.make_node("Det", ["r"], ["out"], name="my_det")],
    [f32("x", [3, 3])], [f32("out", [])])
expect_error(lambda: rlx.onnx.import_model(unsupported),
             "node 1 'my_det' (op_type Det, domain ai.onnx, opset 17): no "
             "rlx translation", "an unsupported operator names the node")
check(issubclass(rlx.onnx.UnsupportedError, rlx.RLXError),
      "UnsupportedError is an RLXError")
lone_erf = model([helper.make_node("Erf", ["x"], ["out"], name="e")],
                 [f32("x", [4])], [f32("out", [4])])
expect_error(lambda: rlx.onnx.import_model(lone_erf),
             "Erf outside the exact GELU pattern",
             "an Erf that is not part of a GELU")
indices = model([helper.make_node("MaxPool", ["x"], ["y", "i"],
                                  kernel_shape=[2, 2])],
                [f32("x", [1, 1, 4, 4])],
                [f32("y", [1, 1, 2, 2]),
                 helper.make_tensor_value_info("i", TensorProto.INT64,
                                               [1, 1, 2, 2])])
expect_error(lambda: rlx.onnx.import_model(indices),
             "graph output 'i' is MaxPool's Indices",
             "an output with no translation is named")
expect_error(lambda: rlx.onnx.import_model(model(
    [helper.make_node("Relu", ["x"], ["out"])], [f32("x", [2])],
    [f32("out", [2])], opset=18)), "opset is 18", "opset 18 is refused")
# Opset 11's Squeeze takes its axes as an attribute (opset 13's as an
# input): a different version, refused; opset 9's Sin is opset 13's.
old = model([helper.make_node("Squeeze", ["x"], ["out"], axes=[0])],
            [f32("x", [1, 2])], [f32("out", [2])], opset=11)
expect_error(lambda: rlx.onnx.import_model(old),
             "opset 11 defines Squeeze version 11",
             "an operator version older than opset 13's is refused")
old_sin = model([helper.make_node("Sin", ["x"], ["out"])],
                [f32("x", [3])], [f32("out", [3])], opset=9)
x = rng.standard_normal(3).astype(np.float32)
graph = rlx.compile(rlx.onnx.import_model(old_sin)[0])
close(graph(x=x), np.sin(x), "opset 9's Sin is opset 13's")
expect_error(lambda: rlx.onnx.import_model(os.path.join(workdir, "none")),
             "cannot read the ONNX model", "a missing model file")
expect_error(lambda: rlx.onnx.import_model(model(
    [helper.make_node("Identity", ["x"], ["out"])],
    [helper.make_tensor_value_info("x", TensorProto.UINT32, [2])],
    [helper.make_tensor_value_info("out", TensorProto.UINT32, [2])])),
    "graph input 'x' has element type UINT32",
    "an element type rlx does not take")
# ArgMax/ArgMin (planted ties: the first index), Floor, Ceil, Mod both
# ways and integer Div of graph values, bit for bit against NumPy.
ints = [helper.make_tensor_value_info(n, TensorProto.INT64, s)
        for n, s in (("i", [4, 6]), ("j", [6]))]
outputs = [helper.make_tensor_value_info(n, t, None) for n, t in (
    ("am", TensorProto.INT64), ("an", TensorProto.INT64),
    ("fl", TensorProto.FLOAT), ("ce", TensorProto.FLOAT),
    ("mf", TensorProto.FLOAT), ("mi", TensorProto.INT64),
    ("di", TensorProto.INT64))]
divisors = np.array([1.5, -0.7, 2.0, -3.0], np.float32)
rounding = model(
    [helper.make_node("ArgMax", ["x"], ["am"], axis=1),
     helper.make_node("ArgMin", ["x"], ["an"], axis=-1, keepdims=0),
     helper.make_node("Floor", ["x"], ["fl"]),
     helper.make_node("Ceil", ["x"], ["ce"]),
     helper.make_node("Mod", ["x", "d"], ["mf"], fmod=1),
     helper.make_node("Mod", ["i", "j"], ["mi"], fmod=0),
     helper.make_node("Div", ["i", "j"], ["di"])],
    [f32("x", [3, 5, 4])] + ints, outputs,
    [numpy_helper.from_array(divisors, "d")])
xs = (rng.standard_normal((3, 5, 4)) * 4).astype(np.float32)
xs[0, 1, 0] = xs[0, 3, 0] = 50.0
iv = rng.integers(-20, 20, (4, 6))
jv = np.array([3, -3, 2, -7, 1, 5])
text, params = rlx.onnx.import_model(rounding)
got = rlx.compile(text, params=params)(x=xs, i=iv, j=jv)
wants = [np.argmax(xs, 1)[:, None, :], np.argmin(xs, -1), np.floor(xs),
         np.ceil(xs), np.fmod(xs, divisors), np.mod(iv, jv),
         np.trunc(iv / jv).astype(np.int64)]
for name, g, w in zip(["ArgMax", "ArgMin", "Floor", "Ceil", "Mod fmod 1",
                       "Mod fmod 0", "integer Div"], got, wants):
    check(g.shape == w.shape and np.array_equal(g, w),
          f"{name} of graph values equals NumPy's")
finish()
