"""rlx.layer_norm, rms_norm, group_norm, layer_norm2d, batch_norm_inference
and resize_nearest2x on the CPU against PyTorch.

Every axis (negative and middle ones included), odd sizes, size-1 dims, f32,
f64 and f16, and a [256, 1000] case that takes the parallel and vectorized
path. The oracle computes in f64 with eps rounded to f32, as the op stores
it, and rounds to the tested type once. (PyTorch's f32 kernels are not the
reference: with one element per group they leave x - mean at one ulp, which
1 / sqrt(eps) amplifies to 3e-5.)

Tolerances: f32 rtol 1e-5 with atol 1e-5 (normalized values are O(1));
f64 rtol 1e-12 with atol 1e-12; f16 rtol 2e-3 with atol 2e-3 (the kernel
computes in f32 and rounds once: one f16 ulp); resize exactly.
"""

import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

TOLERANCE = {np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12),
             np.float16: (2e-3, 2e-3)}
EPS = 1e-5
EPS_F32 = float(np.float32(EPS))


def t(a, dtype):
    """The oracle computes in f64 and rounds to `dtype` once."""
    return torch.from_numpy(np.ascontiguousarray(a).astype(np.float64))


def axis_norm_graph(op, shape, axis, dtype):
    xt = tensor_type(shape, dtype)
    ct = tensor_type((shape[axis],), dtype)
    return (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, %g: {ct} {{rlx.input = \"g\"}}, "
            f"%b: {ct} {{rlx.input = \"b\"}}) -> {xt} {{\n"
            f"  %0 = rlx.{op} %x, %g, %b {{axis = {axis} : i64, eps = {EPS:e} : f32}} "
            f": {xt}, {ct}, {ct}\n  return %0 : {xt}\n}}")


def layer_norm_ref(x, g, b, axis, dtype):
    xx = t(np.moveaxis(x, axis, -1), dtype)
    y = F.layer_norm(xx, (x.shape[axis],), t(g, dtype), t(b, dtype), EPS_F32)
    return np.moveaxis(y.numpy(), -1, axis).astype(dtype)


def rms_norm_ref(x, g, b, axis, dtype):
    xx = t(x, dtype)
    ms = (xx * xx).mean(dim=axis, keepdim=True)
    bshape = [1] * x.ndim
    bshape[axis] = x.shape[axis]
    y = xx / torch.sqrt(ms + EPS_F32) * t(g, dtype).reshape(bshape) + \
        t(b, dtype).reshape(bshape)
    return y.numpy().astype(dtype)


REFS = {"layer_norm": layer_norm_ref, "rms_norm": rms_norm_ref}

# Every axis of several shapes, positive and negative spellings.
AXIS_CASES = [((3, 5, 7), [0, 1, 2, -1, -2, -3]),
              ((17,), [0, -1]),
              ((2, 1, 9), [1, -1, 0]),
              ((4, 6, 1, 33), [3, 2, -3]),
              ((33, 1), [0, -1])]
for dtype in (np.float32, np.float64, np.float16):
    rtol, atol = TOLERANCE[dtype]
    for shape, axes in AXIS_CASES:
        for axis in axes:
            if dtype == np.float16 and axis not in (-1, 1):
                continue
            for op in ("layer_norm", "rms_norm"):
                x = check.uniform(shape, dtype, -2, 2)
                g = check.uniform((shape[axis],), dtype, 0.5, 1.5)
                b = check.uniform((shape[axis],), dtype)
                outs = check.run(axis_norm_graph(op, shape, axis, dtype),
                                 {"x": x, "g": g, "b": b})
                check.close(f"{op} {shape} axis {axis} {np.dtype(dtype)}",
                            outs[0] if outs else None,
                            REFS[op](x, g, b, axis, dtype), rtol, atol)

# A larger row count and width: parallel rows, vectorized inner loop.
for op in ("layer_norm", "rms_norm"):
    shape = (256, 1000)
    x = check.uniform(shape, np.float32, -3, 3)
    g = check.uniform((1000,), np.float32, 0.5, 1.5)
    b = check.uniform((1000,), np.float32)
    outs = check.run(axis_norm_graph(op, shape, -1, np.float32),
                     {"x": x, "g": g, "b": b})
    check.close(f"{op} {shape} f32", outs[0] if outs else None,
                REFS[op](x, g, b, -1, np.float32), 1e-5, 1e-5)
# Rows of 16384 to 65536 (on the GPU a cluster of 2 to 8 blocks per row), a
# constant row (zero variance: the result is beta), rows off zero (mean 10,
# unit spread: the variance must not cancel; at mean 100 the f32 mean's
# rounding alone reaches the tolerance).
for op in ("layer_norm", "rms_norm"):
    for name, x in (("rows of 65536", check.uniform((2, 65536), np.float32, -3, 3)),
                    ("rows of 16384", check.uniform((3, 16384), np.float32, -3, 3)),
                    ("rows of 32768", 5 + check.uniform((2, 32768), np.float32, -3, 3)),
                    ("constant and offset rows",
                     np.concatenate([np.full((1, 300), 0.75, np.float32),
                                     10 + check.uniform((3, 300), np.float32, -1, 1)
                                     ]).astype(np.float32))):
        n = x.shape[-1]
        g = check.uniform((n,), np.float32, 0.5, 1.5)
        b = check.uniform((n,), np.float32)
        outs = check.run(axis_norm_graph(op, x.shape, -1, np.float32),
                         {"x": x, "g": g, "b": b})
        check.close(f"{op} {name} f32", outs[0] if outs else None,
                    REFS[op](x, g, b, -1, np.float32), 1e-5, 1e-5)
# ... and normalizing the leading axis of the same size.
x = check.uniform((1000, 40), np.float32, -3, 3)
g = check.uniform((1000,), np.float32, 0.5, 1.5)
b = check.uniform((1000,), np.float32)
outs = check.run(axis_norm_graph("layer_norm", (1000, 40), 0, np.float32),
                 {"x": x, "g": g, "b": b})
check.close("layer_norm (1000, 40) axis 0 f32", outs[0] if outs else None,
            layer_norm_ref(x, g, b, 0, np.float32), 1e-5, 1e-5)


def nchw_graph(op, shape, dtype, attrs):
    xt = tensor_type(shape, dtype)
    ct = tensor_type((shape[1],), dtype)
    return (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, %g: {ct} {{rlx.input = \"g\"}}, "
            f"%b: {ct} {{rlx.input = \"b\"}}) -> {xt} {{\n"
            f"  %0 = rlx.{op} %x, %g, %b {{{attrs}}} : {xt}, {ct}, {ct}\n"
            f"  return %0 : {xt}\n}}")


# group_norm: several group counts, including 1 and C.
GROUP_CASES = [((2, 6, 5, 3), [1, 2, 3, 6]), ((1, 4, 1, 1), [2, 4]),
               ((3, 8, 7, 9), [4]), ((2, 32, 16, 17), [8])]
for dtype in (np.float32, np.float64, np.float16):
    rtol, atol = TOLERANCE[dtype]
    for shape, group_counts in GROUP_CASES:
        for groups in group_counts:
            if dtype == np.float16 and shape[1] > 8:
                continue
            x = check.uniform(shape, dtype, -2, 2)
            g = check.uniform((shape[1],), dtype, 0.5, 1.5)
            b = check.uniform((shape[1],), dtype)
            attrs = f"eps = {EPS:e} : f32, num_groups = {groups} : i64"
            outs = check.run(nchw_graph("group_norm", shape, dtype, attrs),
                             {"x": x, "g": g, "b": b})
            # By hand: F.group_norm rejects one value per group.
            xx = t(x, dtype).reshape(shape[0], groups, -1)
            mean = xx.mean(dim=2, keepdim=True)
            var = ((xx - mean) ** 2).mean(dim=2, keepdim=True)
            y = ((xx - mean) / torch.sqrt(var + EPS_F32)).reshape(shape)
            want = (y * t(g, dtype).reshape(1, -1, 1, 1) +
                    t(b, dtype).reshape(1, -1, 1, 1)).numpy().astype(dtype)
            check.close(f"group_norm {shape} G={groups} {np.dtype(dtype)}",
                        outs[0] if outs else None, want, rtol, atol)

# layer_norm2d: per pixel over the channels.
for dtype in (np.float32, np.float64, np.float16):
    rtol, atol = TOLERANCE[dtype]
    for shape in ((2, 5, 3, 7), (1, 1, 4, 4), (1, 33, 1, 2), (2, 64, 9, 17)):
        x = check.uniform(shape, dtype, -2, 2)
        g = check.uniform((shape[1],), dtype, 0.5, 1.5)
        b = check.uniform((shape[1],), dtype)
        outs = check.run(nchw_graph("layer_norm2d", shape, dtype,
                                    f"eps = {EPS:e} : f32"),
                         {"x": x, "g": g, "b": b})
        xx = t(x, dtype).permute(0, 2, 3, 1)
        want = F.layer_norm(xx, (shape[1],), t(g, dtype), t(b, dtype),
                            EPS_F32).permute(0, 3, 1, 2).numpy().astype(dtype)
        check.close(f"layer_norm2d {shape} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, rtol, atol)

# batch_norm_inference: channels last, ranks 1 to 4.
for dtype in (np.float32, np.float64, np.float16):
    rtol, atol = TOLERANCE[dtype]
    for shape in ((7,), (5, 3), (2, 4, 4, 17), (3, 1, 1)):
        c = shape[-1]
        x = check.uniform(shape, dtype, -2, 2)
        g = check.uniform((c,), dtype, 0.5, 1.5)
        b = check.uniform((c,), dtype)
        mean = check.uniform((c,), dtype)
        var = check.uniform((c,), dtype, 0.1, 2.0)
        xt = tensor_type(shape, dtype)
        ct = tensor_type((c,), dtype)
        mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}, %g: {ct} {{rlx.input = \"g\"}}, "
                f"%b: {ct} {{rlx.input = \"b\"}}, %m: {ct} {{rlx.input = \"m\"}}, "
                f"%v: {ct} {{rlx.input = \"v\"}}) -> {xt} {{\n"
                f"  %0 = rlx.batch_norm_inference %x, %g, %b, %m, %v {{eps = {EPS:e} : f32}} "
                f": {xt}, {ct}, {ct}, {ct}, {ct}\n  return %0 : {xt}\n}}")
        outs = check.run(mlir, {"x": x, "g": g, "b": b, "m": mean, "v": var})
        # torch's batch_norm wants channels at dim 1.
        xx = t(x, dtype).reshape(-1, c)
        want = F.batch_norm(xx, t(mean, dtype), t(var, dtype), t(g, dtype),
                            t(b, dtype), training=False, eps=EPS_F32)
        want = want.reshape(shape).numpy().astype(dtype)
        check.close(f"batch_norm_inference {shape} {np.dtype(dtype)}",
                    outs[0] if outs else None, want, rtol, atol)

# resize_nearest2x: floats, integers, booleans, complex, odd sizes and size-1
# dims.
for dtype, shape in ((np.float32, (2, 3, 5, 7)), (np.float64, (1, 1, 1, 1)),
                     (np.int32, (1, 2, 3, 1)), (np.uint8, (2, 1, 4, 9)),
                     (np.float16, (1, 2, 17, 3)), (np.float32, (1, 4, 16, 20)),
                     (np.bool_, (2, 2, 3, 5)), (np.complex64, (1, 3, 2, 7))):
    if np.dtype(dtype).kind in "fc":
        x = check.uniform(shape, dtype)
    else:
        x = check.integers(shape, dtype, 0, 2 if dtype == np.bool_ else 100)
    out_shape = shape[:2] + (2 * shape[2], 2 * shape[3])
    xt, ot = tensor_type(shape, dtype), tensor_type(out_shape, dtype)
    mlir = (f"func.func @main(%x: {xt} {{rlx.input = \"x\"}}) -> {ot} {{\n"
            f"  %0 = rlx.resize_nearest2x %x : {xt}\n  return %0 : {ot}\n}}")
    outs = check.run(mlir, {"x": x})
    want = x.repeat(2, axis=2).repeat(2, axis=3)
    check.close(f"resize_nearest2x {shape} {np.dtype(dtype)}",
                outs[0] if outs else None, want, 0, 0)

check.finish()
