"""rlx.reshape, rlx.transpose, rlx.narrow, rlx.concat, rlx.expand and
rlx.gather on the CPU against NumPy / PyTorch.

The ops only move elements, so every result is compared exactly
(rtol = atol = 0). Out-of-range gather indices select zeros.
"""

import sys
import warnings

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
# NaN, infinities and overflowing oracle casts are intended here.
warnings.filterwarnings("ignore", category=RuntimeWarning)

DTYPES = (np.float32, np.float64, np.int64, np.int32, np.uint8, np.bool_,
          np.float16, np.complex64)


def random(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return check.uniform(shape, dtype, -10, 10)
    if dtype.kind == "b":
        return check.integers(shape, dtype, 0, 2)
    info = np.iinfo(dtype)
    return check.integers(shape, dtype, max(info.min, -1000),
                          min(info.max, 1000))


def unary_graph(shape, dtype, ops):
    """%x of `shape`; each op is (text with {x} and {t}, result shape)."""
    t = tensor_type(shape, dtype)
    lines, types = [], []
    for i, (text, out) in enumerate(ops):
        lines.append(f"  %{i} = " + text.format(x="%x", t=t))
        types.append(tensor_type(out, dtype))
    return (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> ({', '.join(types)}) {{\n"
            + "\n".join(lines) +
            f"\n  return {', '.join(f'%{i}' for i in range(len(ops)))} : "
            f"{', '.join(types)}\n}}")


def run_unary(name, shape, dtype, cases):
    """cases: list of (rlx op text, expected array)."""
    x = random(shape, dtype)
    ops = [(text, np.shape(fn(x))) for text, fn in cases]
    outs = check.run(unary_graph(shape, dtype, ops), {"x": x})
    for i, (text, fn) in enumerate(cases):
        check.close(f"{name} {shape} {np.dtype(dtype)}: {text.split(':')[0]}",
                    outs[i] if outs else None, np.asarray(fn(x)), 0, 0)


def shape_attr(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


# reshape: pure collapses and expansions, reshapes that are neither, -1,
# rank 0, size-1 dims.
RESHAPES = {
    (2, 3, 4): [(6, 4), (2, 12), (24,), (4, 6), (3, 8), (2, 3, 2, 2),
                (4, 3, 2), (1, 24, 1), (-1, 4), (3, -1, 2)],
    (7,): [(7, 1), (1, 7), (1, 1, 7, 1), (-1,)],
    (1, 7, 1): [(7,), (7, 1), (1, 7)],
    (3, 5): [(5, 3), (15,), (1, 3, 5), (5, 1, 3)],
    (1,): [(), (1, 1)],
    (2, 1, 3, 1, 5): [(6, 5), (2, 15), (10, 3), (30,)],
}
for dtype in DTYPES:
    shapes = RESHAPES if dtype in (np.float32, np.int64) else {(2, 3, 4): RESHAPES[(2, 3, 4)]}
    for shape, targets in shapes.items():
        cases = [(f"rlx.reshape {{x}} new_shape = {shape_attr(new)} : {{t}}",
                  lambda x, new=new: x.reshape(new)) for new in targets]
        run_unary("reshape", shape, dtype, cases)

# transpose: every permutation of rank 3, some of rank 2 and 4.
PERMS = {(3, 5): [(1, 0), (0, 1)],
         (2, 3, 5): [(0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)],
         (2, 1, 3, 4): [(0, 2, 1, 3), (3, 2, 1, 0), (1, 3, 0, 2)]}
for dtype in DTYPES:
    perms = PERMS if dtype in (np.float32, np.float64) else {(2, 3, 5): PERMS[(2, 3, 5)]}
    for shape, ps in perms.items():
        cases = [(f"rlx.transpose {{x}} perm = {shape_attr(p)} : {{t}}",
                  lambda x, p=p: torch.from_numpy(np.ascontiguousarray(x)).permute(p).numpy()
                  if x.dtype != np.uint8 and x.dtype.kind != "c" else np.transpose(x, p))
                 for p in ps]
        run_unary("transpose", shape, dtype, cases)

# narrow: every axis, starts at 0 and inside, whole axis.
for dtype in DTYPES:
    shape = (5, 4, 7)
    cases = []
    for axis, size in enumerate(shape):
        for start, length in ((0, 1), (1, size - 2), (size - 1, 1), (0, size),
                              (2, 2)):
            cases.append((f"rlx.narrow {{x}} axis = {axis} start = {start} "
                          f"len = {length} : {{t}}",
                          lambda x, a=axis, s=start, n=length:
                          torch.from_numpy(x).narrow(a, s, n).numpy()
                          if x.dtype.kind in "fi" and x.dtype != np.float16 else
                          np.take(x, range(s, s + n), axis=a)))
    run_unary("narrow", shape, dtype, cases)


# concat: one to three inputs along every axis, odd sizes.
def concat_case(shapes, axis, dtype):
    xs = [random(s, dtype) for s in shapes]
    ts = [tensor_type(s, dtype) for s in shapes]
    want = np.concatenate(xs, axis=axis)
    out = tensor_type(want.shape, dtype)
    args = ", ".join(f"%x{i}: {t} {{rlx.input = \"x{i}\"}}" for i, t in enumerate(ts))
    mlir = (f"func.func @main({args}) -> {out} {{\n"
            f"  %0 = rlx.concat {', '.join(f'%x{i}' for i in range(len(xs)))} "
            f"axis = {axis} : {', '.join(ts)}\n  return %0 : {out}\n}}")
    outs = check.run(mlir, {f"x{i}": x for i, x in enumerate(xs)})
    check.close(f"concat {shapes} axis {axis} {np.dtype(dtype)}",
                outs[0] if outs else None, want, 0, 0)


for dtype in DTYPES:
    concat_case([(2, 3), (2, 5)], 1, dtype)
    concat_case([(1, 3), (4, 3), (2, 3)], 0, dtype)
    if dtype in (np.float32, np.int64):
        concat_case([(3, 1, 5)], 1, dtype)
        concat_case([(2, 1, 5), (2, 3, 5)], 1, dtype)
        concat_case([(2, 3, 1), (2, 3, 4), (2, 3, 2)], 2, dtype)
        concat_case([(7,), (1,)], 0, dtype)

# expand: new leading dims, size-1 dims stretched (middle, first, last),
# -1 entries, nothing to do.
EXPANDS = {(1, 5): [(4, 3, -1), (3, 5), (2, 4, 5)],
           (3, 1): [(3, 4), (2, -1, 6)],
           (1,): [(7,), (2, 3)],
           (2, 1, 3): [(2, 5, 3), (4, -1, 4, -1), (2, 1, 3)],
           (1, 1): [(3, 5)]}
for dtype in DTYPES:
    expands = EXPANDS if dtype in (np.float32, np.bool_) else {(2, 1, 3): EXPANDS[(2, 1, 3)]}
    for shape, targets in expands.items():
        cases = []
        for target in targets:
            off = len(target) - len(shape)
            full = tuple(shape[i - off] if t == -1 else t for i, t in enumerate(target))
            cases.append((f"rlx.expand {{x}} target_shape = {shape_attr(target)} : {{t}}",
                          lambda x, full=full: np.broadcast_to(x, full)))
        run_unary("expand", shape, dtype, cases)


# gather: every axis, index ranks 0 to 2, i32 and i64 indices, out-of-range
# indices (negative, too large) select zeros.
def gather_case(tshape, ishape, axis, dtype, itype, out_of_range=False):
    table = random(tshape, dtype)
    size = tshape[axis]
    idx = check.integers(ishape, itype, 0, size)
    if out_of_range and idx.size:
        flat = idx.reshape(-1)
        flat[0] = -1
        if flat.size > 1:
            flat[1] = size
        if flat.size > 2:
            flat[2] = np.iinfo(itype).max
        if flat.size > 3:
            flat[3] = np.iinfo(itype).min
        idx = flat.reshape(ishape)
    valid = (idx >= 0) & (idx < size)
    taken = np.take(table, np.where(valid, idx, 0), axis=axis)
    mask = valid.reshape((1,) * axis + idx.shape + (1,) * (len(tshape) - axis - 1))
    want = np.where(mask, taken, np.zeros((), dtype)).astype(dtype)
    tt, it = tensor_type(tshape, dtype), tensor_type(ishape, itype)
    out = tensor_type(want.shape, dtype)
    mlir = (f"func.func @main(%t: {tt} {{rlx.input = \"t\"}}, %i: {it} {{rlx.input = \"i\"}}) -> {out} {{\n"
            f"  %0 = rlx.gather %t, %i axis = {axis} : {tt}, {it}\n"
            f"  return %0 : {out}\n}}")
    outs = check.run(mlir, {"t": table, "i": idx})
    if not out_of_range:
        # In range: the embedding lookup of PyTorch agrees.
        ref = torch.from_numpy(table.astype(np.float64) if dtype is np.bool_ else table) \
            if dtype not in (np.uint8, np.float16, np.complex64) else None
        if ref is not None and axis == 0 and len(tshape) == 2:
            emb = torch.nn.functional.embedding(torch.from_numpy(idx.astype(np.int64)), ref)
            assert np.array_equal(emb.numpy().astype(dtype), want)
    check.close(f"gather {tshape}[{ishape}:{np.dtype(itype)}] axis {axis} "
                f"{np.dtype(dtype)}{' out-of-range' if out_of_range else ''}",
                outs[0] if outs else None, want, 0, 0)


for dtype in DTYPES:
    gather_case((11, 6), (4, 3), 0, dtype, np.int64)
    gather_case((5, 7, 3), (9,), 1, dtype, np.int32, out_of_range=True)
for itype in (np.int32, np.int64):
    gather_case((5, 7, 3), (2, 5), 2, np.float32, itype)
    gather_case((5, 7, 3), (2, 1, 4), 0, np.float32, itype, out_of_range=True)
    gather_case((1, 3), (6,), 0, np.int32, itype, out_of_range=True)
    gather_case((4,), (3, 3), 0, np.float32, itype)

# Rank-0 operands (.npy inputs are at least 1-D, so constants): reshape from
# and expand of a scalar, gather with a scalar index (drops the axis).
x = check.uniform((5, 7, 3), np.float64)
mlir = """func.func @main(%x: tensor<5x7x3xf64> {rlx.input = "x"}) -> (tensor<1x1x1xf64>, tensor<2x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>) {
  %s = rlx.constant dense<2.5> : tensor<f64>
  %0 = rlx.reshape %s new_shape = [1, -1, 1] : tensor<f64>
  %1 = rlx.expand %s target_shape = [2, 3] : tensor<f64>
  %i = rlx.constant dense<4> : tensor<i64>
  %2 = rlx.gather %x, %i axis = 1 : tensor<5x7x3xf64>, tensor<i64>
  %j = rlx.constant dense<7> : tensor<i32>
  %3 = rlx.gather %x, %j axis = 1 : tensor<5x7x3xf64>, tensor<i32>
  return %0, %1, %2, %3 : tensor<1x1x1xf64>, tensor<2x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>
}"""
outs = check.run(mlir, {"x": x})
for i, want in enumerate([np.full((1, 1, 1), 2.5), np.full((2, 3), 2.5),
                          x[:, 4, :], np.zeros((5, 3))]):
    check.close(f"rank-0 operand #{i}", outs[i] if outs else None, want, 0, 0)

# Empty tensors: an empty narrow, concat with empty inputs, gather with no
# indices and from an empty axis (every index out of range: zeros), and a
# reshape of an empty tensor.
x = check.uniform((3, 4), np.float32)
e = np.zeros((3, 0), np.float32)
i = np.zeros((0,), np.int64)
j = np.array([0, 5], np.int32)
mlir = """func.func @main(%x: tensor<3x4xf32> {rlx.input = "x"}, %e: tensor<3x0xf32> {rlx.input = "e"}, %i: tensor<0xi64> {rlx.input = "i"}, %j: tensor<2xi32> {rlx.input = "j"}) -> (tensor<3x0xf32>, tensor<3x4xf32>, tensor<0x4xf32>, tensor<0x3xf32>, tensor<3x2xf32>) {
  %0 = rlx.narrow %x axis = 1 start = 2 len = 0 : tensor<3x4xf32>
  %1 = rlx.concat %e, %x, %e axis = 1 : tensor<3x0xf32>, tensor<3x4xf32>, tensor<3x0xf32>
  %2 = rlx.gather %x, %i axis = 0 : tensor<3x4xf32>, tensor<0xi64>
  %3 = rlx.reshape %e new_shape = [0, 3] : tensor<3x0xf32>
  %4 = rlx.gather %e, %j axis = 1 : tensor<3x0xf32>, tensor<2xi32>
  return %0, %1, %2, %3, %4 : tensor<3x0xf32>, tensor<3x4xf32>, tensor<0x4xf32>, tensor<0x3xf32>, tensor<3x2xf32>
}"""
outs = check.run(mlir, {"x": x, "e": e, "i": i, "j": j})
for k, want in enumerate([x[:, 2:2], x, np.zeros((0, 4), np.float32),
                          np.zeros((0, 3), np.float32),
                          np.zeros((3, 2), np.float32)]):
    check.close(f"empty tensors #{k}", outs[k] if outs else None, want, 0, 0)

check.finish()
