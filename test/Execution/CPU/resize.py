"""rlx.resize on the CPU against PyTorch's F.interpolate: every mode
(cubic as bicubic, over 2 dims), 1 to 3 resized dims, up- and downsampling, align_corners, scale factors (whose
coordinates differ from in / out), a size-1 input dim, sizes equal to the
input's, f32, f64 and f16, an integer nearest resize and a dynamic batch.

Tolerances: f32 rtol 2e-6 with atol 2e-6 (PyTorch sums the taps in another
order and multiplies the per-dim weights in another order: a few ulps of
the O(1) values); f64 1e-13; f16 rtol and atol 2e-3 (the kernel computes in
f32 and rounds once; the reference is PyTorch's f32 result of the same
f16 inputs, rounded to f16: one f16 ulp apart at most); nearest of any type
exactly (a copy).
"""

import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

TOLERANCE = {np.float32: (2e-6, 2e-6), np.float64: (1e-13, 1e-13),
             np.float16: (2e-3, 2e-3)}
TORCH_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}

# (mode, input shape, sizes, align_corners, scale factors or None)
CASES = [
    ("linear", (2, 3, 5, 7), (9, 4), False, None),
    ("linear", (2, 3, 5, 7), (9, 13), True, None),
    ("linear", (1, 2, 6, 6), (10, 10), False, (1.7, 1.7)),
    ("linear", (1, 2, 8, 8), (3, 5), False, None),
    ("linear", (1, 2, 8, 8), (3, 5), True, None),
    ("linear", (1, 1, 1, 4), (3, 9), False, None),
    ("linear", (1, 1, 1, 4), (3, 9), True, None),
    ("linear", (2, 3, 10), (23,), False, None),
    ("linear", (2, 3, 10), (4,), True, None),
    ("linear", (1, 2, 3, 4, 5), (5, 7, 3), True, None),
    ("linear", (1, 2, 3, 4, 5), (6, 8, 10), False, (2.0, 2.0, 2.0)),
    ("linear", (2, 3, 4, 5), (4, 5), False, None),
    ("nearest", (2, 3, 4, 5), (7, 11), False, None),
    ("nearest", (2, 3, 4, 5), (10, 12), False, (2.5, 2.5)),
    ("nearest", (2, 3, 4, 5), (8, 10), False, None),
    ("nearest", (2, 3, 9, 7), (4, 3), False, None),
    ("nearest", (1, 2, 3, 4, 5), (6, 3, 9), False, None),
    ("nearest_exact", (1, 2, 5, 7), (13, 3), False, None),
    ("nearest_exact", (2, 3, 10), (7,), False, (0.75,)),
    ("cubic", (2, 3, 5, 7), (9, 4), False, None),
    ("cubic", (2, 3, 5, 7), (9, 13), True, None),
    ("cubic", (1, 2, 6, 6), (10, 10), False, (1.7, 1.7)),
    ("cubic", (1, 2, 8, 8), (3, 5), False, None),
    ("cubic", (1, 2, 8, 8), (3, 5), True, None),
    ("cubic", (1, 1, 1, 4), (3, 9), False, None),
    ("cubic", (1, 1, 1, 4), (3, 9), True, None),
    ("cubic", (2, 3, 4, 5), (4, 5), False, None),
]


def torch_resize(x, mode, sizes, align, scales):
    if mode == "linear":
        kwargs = {"mode": TORCH_LINEAR[len(sizes)], "align_corners": align}
    elif mode == "cubic":
        kwargs = {"mode": "bicubic", "align_corners": align}
    else:
        kwargs = {"mode": "nearest" if mode == "nearest" else "nearest-exact"}
    if scales:
        return F.interpolate(x, scale_factor=scales, **kwargs)
    return F.interpolate(x, size=sizes, **kwargs)


def attrs(align, scales):
    parts = (["align_corners"] if align else []) + (
        [f"scales = array<f64: {', '.join(map(str, scales))}>"]
        if scales else [])
    return f" {{{', '.join(parts)}}}" if parts else ""


def out_shape(shape, sizes):
    return tuple(shape[:len(shape) - len(sizes)]) + tuple(sizes)


# All cases of one dtype in one graph, one input and one output each.
for dtype in (np.float32, np.float64, np.float16):
    args, body, results, inputs, wants = [], [], [], {}, []
    for i, (mode, shape, sizes, align, scales) in enumerate(CASES):
        x = check.uniform(shape, dtype)
        xt = tensor_type(shape, dtype)
        ot = tensor_type(out_shape(shape, sizes), dtype)
        args.append(f"%x{i}: {xt} {{rlx.input = \"x{i}\"}}")
        body.append(f"  %y{i} = rlx.resize {mode} %x{i} to "
                    f"[{', '.join(map(str, sizes))}]{attrs(align, scales)} "
                    f": {xt}")
        results.append((f"%y{i}", ot))
        inputs[f"x{i}"] = x
        reference = torch.from_numpy(x.astype(np.float32)
                                     if dtype == np.float16 else x)
        want = torch_resize(reference, mode, sizes, align, scales).numpy()
        assert want.shape == out_shape(shape, sizes), (want.shape, sizes)
        wants.append(want.astype(dtype))
    mlir = (f"func.func @main({', '.join(args)}) -> "
            f"({', '.join(t for _, t in results)}) {{\n" + "\n".join(body) +
            f"\n  return {', '.join(n for n, _ in results)} : "
            f"{', '.join(t for _, t in results)}\n}}")
    outs = check.run(mlir, inputs)
    for i, (mode, shape, sizes, align, scales) in enumerate(CASES):
        rtol, atol = TOLERANCE[dtype] if mode in ("linear", "cubic") \
            else (0, 0)
        check.close(f"resize {mode} {shape} -> {sizes}"
                    f"{' align_corners' if align else ''}"
                    f"{f' scales {scales}' if scales else ''} "
                    f"{np.dtype(dtype)}", outs[i] if outs else None,
                    wants[i], rtol, atol)

# Nearest of integers (a copy), and a dynamic batch bound at run time.
x = check.integers((2, 3, 4, 5), np.int32, -100, 100)
mlir = ("func.func @main(%x: tensor<2x3x4x5xi32> {rlx.input = \"x\"}) -> "
        "tensor<2x3x7x3xi32> {\n"
        "  %y = rlx.resize nearest %x to [7, 3] : tensor<2x3x4x5xi32>\n"
        "  return %y : tensor<2x3x7x3xi32>\n}")
outs = check.run(mlir, {"x": x})
want = F.interpolate(torch.from_numpy(x).double(), size=(7, 3)).numpy()
check.close("resize nearest i32", outs[0] if outs else None,
            want.astype(np.int32), 0, 0)

x = check.uniform((3, 2, 5, 7), np.float32)
mlir = ("func.func @main(%x: tensor<?x2x5x7xf32> {rlx.input = \"x\"}) -> "
        "tensor<?x2x11x4xf32> {\n"
        "  %y = rlx.resize linear %x to [11, 4] : tensor<?x2x5x7xf32>\n"
        "  return %y : tensor<?x2x11x4xf32>\n}")
outs = check.run(mlir, {"x": x})
want = F.interpolate(torch.from_numpy(x), size=(11, 4), mode="bilinear",
                     align_corners=False).numpy()
check.close("resize linear, dynamic batch of 3", outs[0] if outs else None,
            want, *TOLERANCE[np.float32])

check.finish()
