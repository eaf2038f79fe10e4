"""rlx.cast, rlx.compare, rlx.where and rlx.stop_gradient on the CPU.

Casts follow Rust's `as`: float -> integer truncates toward zero, saturates
and maps NaN to 0; integer -> integer wraps; conversions into floats round
to nearest, ties to even (checked against an exact rational oracle, so a
double rounding anywhere would show); any -> i1 is `!= 0`; complex <-> real
goes through the real part. bf16 and the 8-bit floats have no .npy dtype:
they are reached through chains of casts whose other ends are exact.
Every cast result is compared exactly (rtol = atol = 0, NaN = NaN).
Comparisons and selections are exact as well.
"""

import math
import sys
import warnings
from fractions import Fraction

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import MLIR_TYPES, Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
# NaN, infinities and overflowing oracle casts are intended here.
warnings.filterwarnings("ignore", category=RuntimeWarning)

NPY_TYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32,
             np.int64, np.uint8, np.uint32, np.bool_, np.complex64]

# (precision incl. the implicit bit, min normal exponent, max finite, inf?)
FORMATS = {
    "f16": (11, -14, 65504.0, True),
    "bf16": (8, -126, float((2 - Fraction(1, 2**7)) * Fraction(2) ** 127), True),
    "f8E4M3FN": (4, -6, 448.0, False),
    "f8E5M2": (3, -14, 57344.0, True),
}


def round_to(value, fmt):
    """`value` (a float or int) rounded to nearest-even in `fmt`, as float."""
    p, emin, maxval, has_inf = FORMATS[fmt]
    if isinstance(value, float):
        if math.isnan(value):
            return math.nan
        if math.isinf(value):
            return value if has_inf else math.nan
    f = Fraction(value)
    if f == 0:
        return math.copysign(0.0, value) if isinstance(value, float) else 0.0
    a = abs(f)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    q = Fraction(2) ** (e - p + 1)
    v = round(a / q) * q
    if v > maxval:
        v = math.inf if has_inf else math.nan
    else:
        v = float(v)
    return -v if f < 0 else v


def round_array(x, fmt):
    out = np.array([round_to(v.item(), fmt) for v in x.flat], np.float64)
    return out.reshape(x.shape)


def saturate(x, dtype):
    """Float -> integer like Rust's `as`."""
    info = np.iinfo(dtype)
    out = []
    for v in np.asarray(x, np.float64).flat:
        if math.isnan(v):
            out.append(0)
        elif v >= info.max + 1:
            out.append(info.max)
        elif v <= info.min:
            out.append(info.min)
        else:
            out.append(math.trunc(v))
    return np.array(out, dtype).reshape(np.shape(x))


def cast_oracle(x, to):
    """`x` (NumPy array) cast to `to` (NumPy dtype or a FORMATS name; the
    latter give float64 arrays holding the rounded values)."""
    kind = x.dtype.kind
    if to is np.bool_:
        return x != 0
    if kind == "c":
        if to is np.complex64:
            return x
        return cast_oracle(x.real.astype(np.float32), to)
    if to is np.complex64:
        re = cast_oracle(x, np.float32)
        return (re + 0j).astype(np.complex64)
    if isinstance(to, str) or to is np.float16:
        fmt = "f16" if to is np.float16 else to
        if kind == "b":
            values = x.astype(np.float64)
        elif kind in "iu":
            values = np.array([round_to(int(v), fmt) for v in x.flat]).reshape(x.shape)
            return values if isinstance(to, str) else values.astype(np.float16)
        else:
            values = x
        values = round_array(values.astype(np.float64), fmt)
        return values if isinstance(to, str) else values.astype(np.float16)
    if kind in "fb" and np.dtype(to).kind == "f":
        return x.astype(to)
    if kind == "f":
        return saturate(x, to)
    return x.astype(to)  # integers and booleans: wrap / 0-1


def sample(dtype, n):
    """Random values of `dtype` plus the edge cases of every conversion."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        special = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1.5,
                   2.5, -2.5, 127.9, 128.0, -128.9, -129.0, 255.5, 256.0,
                   -1.0, -0.99, 32767.5, 32768.0, 65504.0, 65520.0, 65519.0,
                   2.0**31, -2.0**31, 2.0**31 - 128, 4294967295.0, 2.0**32,
                   2.0**63, -2.0**63, 2.0**64, 1e30, -1e30, 448.0, 464.0,
                   465.0, 480.0, 57344.0, 61440.0, 61439.0, 1e-3, -1e-3,
                   2.0**-7, 2.0**-9, 3 * 2.0**-10, 2.0**-16, 3 * 2.0**-17,
                   1.0 + 2.0**-8, 1.0 + 2.0**-8 + 2.0**-20, 1e-40, -1e-40,
                   3e38, 3.4e38]
        if dtype == np.float64:
            special += [1.0 + 2.0**-8 + 2.0**-30, 1e300, 1e-300,
                        1.0 + 2.0**-11 + 2.0**-40, 2.0**-130 * 1.5,
                        float(2**63 - 1024), -float(2**63)]
        with np.errstate(over="ignore"):
            values = np.array(special, np.float64).astype(dtype)
        rand = check.rng.uniform(-300, 300, n).astype(dtype)
        return np.concatenate([values, rand])
    if dtype.kind == "c":
        re = np.concatenate([sample(np.float32, n), [0.0, 0.0]]).astype(np.float32)
        im = np.zeros_like(re)
        im[::3] = check.rng.uniform(-2, 2, im[::3].shape)
        im[-1] = 1.0  # real part 0, imaginary part non-zero: true as i1
        return (re + 1j * im).astype(np.complex64)
    if dtype.kind == "b":
        return check.rng.integers(0, 2, n + 3).astype(np.bool_)
    info = np.iinfo(dtype)
    special = [0, 1, -1, 2, 127, 128, 255, 256, -128, -129, 65535, 65536,
               2**24 + 1, 2**24 + 3, 2**24 + 2**16 + 1, 2**31 - 1, -2**31,
               2**32 - 1, 2**53 + 1, 2**60 + 2**52 + 1, 2**63 - 1, -2**63]
    values = [v for v in special if info.min <= v <= info.max]
    rand = check.rng.integers(info.min, info.max, n, dtype=dtype,
                              endpoint=True)
    return np.concatenate([np.array(values, dtype), rand])


def type_name(to):
    return to if isinstance(to, str) else MLIR_TYPES[np.dtype(to)]


def cast_graph(n, src, targets):
    """One cast of %x per target; a FORMATS target is cast back to f32."""
    t = tensor_type((n,), src)
    lines, results, types = [], [], []
    for i, to in enumerate(targets):
        lines.append(f"  %c{i} = rlx.cast %x : {t} to {type_name(to)}")
        if isinstance(to, str):
            mid = f"tensor<{n}x{to}>"
            lines.append(f"  %r{i} = rlx.cast %c{i} : {mid} to f32")
            results.append(f"%r{i}")
            types.append(tensor_type((n,), np.float32))
        else:
            results.append(f"%c{i}")
            types.append(tensor_type((n,), to))
    return (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> "
            f"({', '.join(types)}) {{\n" + "\n".join(lines) +
            f"\n  return {', '.join(results)} : {', '.join(types)}\n}}")


# Every pair of .npy dtypes, and every dtype into bf16 / f8 and back to f32.
for src in NPY_TYPES:
    x = sample(src, 23)
    # (f16 -> f16 -> f32 would be the f16 -> f32 result once more.)
    targets = [to for to in NPY_TYPES if to is not src] + \
        [f for f in FORMATS if not (f == "f16" and src is np.float16)]
    # i32 and ui32 (i8 and ui8) results are often the same bits, which CSE
    # merges into one value; the unsigned targets get a graph of their own
    # so that no graph returns one value twice.
    unsigned = [to for to in targets if to in (np.uint8, np.uint32)]
    targets = [to for to in targets if to not in unsigned]
    outs = check.run(cast_graph(x.size, src, targets), {"x": x})
    outs_unsigned = check.run(cast_graph(x.size, src, unsigned), {"x": x})
    if outs is not None and outs_unsigned is not None:
        outs = outs + outs_unsigned
    else:
        outs = None
    targets += unsigned
    for i, to in enumerate(targets):
        want = cast_oracle(x, to)
        if isinstance(to, str):
            want = want.astype(np.float32)
        else:
            want = np.asarray(want).astype(to)
        check.close(f"cast {np.dtype(src)} -> {type_name(to)}",
                    outs[i] if outs else None, want, 0, 0)


def from_format_graph(n, fmt, targets):
    """f32 -> fmt -> each target: casts out of bf16 / f8."""
    t = tensor_type((n,), np.float32)
    mid = f"tensor<{n}x{fmt}>"
    lines = [f"  %m = rlx.cast %x : {t} to {fmt}"]
    types = []
    for i, to in enumerate(targets):
        lines.append(f"  %c{i} = rlx.cast %m : {mid} to {type_name(to)}")
        types.append(tensor_type((n,), to))
    return (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> "
            f"({', '.join(types)}) {{\n" + "\n".join(lines) +
            f"\n  return {', '.join(f'%c{i}' for i in range(len(targets)))}"
            f" : {', '.join(types)}\n}}")


# Out of bf16 / f8 into every .npy dtype (the f32 target is covered above),
# and between the narrow formats.
for fmt in FORMATS:
    if fmt == "f16":
        continue
    x = sample(np.float32, 23)
    rounded = round_array(x.astype(np.float64), fmt)
    targets = [to for to in NPY_TYPES if to is not np.float32]
    outs = check.run(from_format_graph(x.size, fmt, targets), {"x": x})
    for i, to in enumerate(targets):
        want = np.asarray(cast_oracle(rounded, to)).astype(to)
        check.close(f"cast f32 -> {fmt} -> {type_name(to)}",
                    outs[i] if outs else None, want, 0, 0)
    others = [f for f in FORMATS if f not in ("f16", fmt)]
    lines = [f"  %m = rlx.cast %x : tensor<{x.size}xf32> to {fmt}"]
    for i, other in enumerate(others):
        lines.append(f"  %o{i} = rlx.cast %m : tensor<{x.size}x{fmt}> to {other}")
        lines.append(f"  %r{i} = rlx.cast %o{i} : tensor<{x.size}x{other}> to f32")
    t = tensor_type((x.size,), np.float32)
    mlir = (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> "
            f"({', '.join([t] * len(others))}) {{\n" + "\n".join(lines) +
            f"\n  return {', '.join(f'%r{i}' for i in range(len(others)))}"
            f" : {', '.join([t] * len(others))}\n}}")
    outs = check.run(mlir, {"x": x})
    for i, other in enumerate(others):
        want = round_array(rounded, other).astype(np.float32)
        check.close(f"cast f32 -> {fmt} -> {other} -> f32",
                    outs[i] if outs else None, want, 0, 0)

# Casts keep the shape: a rank-3 tensor with a size-1 dim, and 1x1.
for shape in ((2, 1, 5), (1, 1)):
    x = check.uniform(shape, np.float32, -200, 200)
    t = tensor_type(shape, np.float32)
    ti = tensor_type(shape, np.int8)
    mlir = (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> {ti} {{\n"
            f"  %0 = rlx.cast %x : {t} to i8\n  return %0 : {ti}\n}}")
    outs = check.run(mlir, {"x": x})
    check.close(f"cast f32 -> i8 {shape}", outs[0] if outs else None,
                saturate(x, np.int8), 0, 0)

# stop_gradient is the identity.
x = check.uniform((3, 4), np.float64)
t = tensor_type((3, 4), np.float64)
outs = check.run(f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> {t} {{\n"
                 f"  %0 = rlx.stop_gradient %x : {t}\n  return %0 : {t}\n}}",
                 {"x": x})
check.close("stop_gradient", outs[0] if outs else None, x, 0, 0)

# Comparisons: every kind, broadcasting, NaN, unsigned order, i1, complex.
KINDS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less,
         "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}
SHAPES = [((4, 3), (3,)), ((4, 1, 5), (3, 1)), ((1,), (2, 3)),
          ((2, 1, 1, 3), (1, 4, 3)), ((7,), (7,)), ((2, 2), (1, 1))]


def compare_graph(lshape, rshape, dtype, kinds):
    lt, rt = tensor_type(lshape, dtype), tensor_type(rshape, dtype)
    out = tensor_type(np.broadcast_shapes(lshape, rshape), np.bool_)
    body = "".join(f"  %{i} = rlx.compare {k} %a, %b : {lt}, {rt}\n"
                   for i, k in enumerate(kinds))
    return (f"func.func @main(%a: {lt} {{rlx.input = \"a\"}}, "
            f"%b: {rt} {{rlx.input = \"b\"}}) -> ({', '.join([out] * len(kinds))}) {{\n"
            f"{body}  return {', '.join(f'%{i}' for i in range(len(kinds)))} : "
            f"{', '.join([out] * len(kinds))}\n}}")


def operands(shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        # Few distinct values, so equal elements occur; NaN and -0.0 too.
        x = check.rng.choice(np.array([-1.0, -0.0, 0.0, 0.5, 2.0, np.nan]),
                             shape).astype(dtype)
    elif dtype.kind == "c":
        x = (check.rng.choice([0.0, 1.0, np.nan], shape)
             + 1j * check.rng.choice([0.0, 1.0], shape)).astype(dtype)
    elif dtype.kind == "b":
        x = check.rng.integers(0, 2, shape).astype(dtype)
    else:
        info = np.iinfo(dtype)
        # Values above the signed range of ui8 / ui32 tell unsigned order.
        pool = np.array([info.min, info.min + 1, 0, 1, 2, info.max - 1,
                         info.max], dtype)
        x = check.rng.choice(pool, shape).astype(dtype)
    return np.asarray(x, dtype)


for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64, np.int8,
              np.int16, np.uint8, np.uint32, np.bool_, np.complex64):
    kinds = ["eq", "ne"] if dtype is np.complex64 else list(KINDS)
    shapes = SHAPES if dtype in (np.float32, np.int32) else SHAPES[1:3]
    for lshape, rshape in shapes:
        a, b = operands(lshape, dtype), operands(rshape, dtype)
        outs = check.run(compare_graph(lshape, rshape, dtype, kinds),
                         {"a": a, "b": b})
        for i, kind in enumerate(kinds):
            check.close(f"compare {kind} {lshape}x{rshape} {np.dtype(dtype)}",
                        outs[i] if outs else None, KINDS[kind](a, b), 0, 0)

# where: all three operands broadcast against each other.
WHERE_SHAPES = [((4, 1, 5), (3, 1), (5,)), ((1,), (2, 3), (2, 1)),
                ((2, 3), (2, 3), (2, 3)), ((3, 1, 1), (1, 4, 1), (1, 1, 2)),
                ((1,), (3,), (1, 1))]
for dtype in (np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_,
              np.complex64, np.float16):
    shapes = WHERE_SHAPES if dtype is np.float32 else WHERE_SHAPES[:2]
    for cshape, tshape, fshape in shapes:
        c = check.rng.integers(0, 2, cshape).astype(np.bool_)
        x = operands(tshape, dtype)
        y = operands(fshape, dtype)
        ct, xt, yt = (tensor_type(cshape, np.bool_), tensor_type(tshape, dtype),
                      tensor_type(fshape, dtype))
        out = tensor_type(np.broadcast_shapes(cshape, tshape, fshape), dtype)
        mlir = (f"func.func @main(%c: {ct} {{rlx.input = \"c\"}}, "
                f"%x: {xt} {{rlx.input = \"x\"}}, %y: {yt} {{rlx.input = \"y\"}}) -> {out} {{\n"
                f"  %0 = rlx.where %c, %x, %y : {ct}, {xt}, {yt}\n"
                f"  return %0 : {out}\n}}")
        outs = check.run(mlir, {"c": c, "x": x, "y": y})
        check.close(f"where {cshape}/{tshape}/{fshape} {np.dtype(dtype)}",
                    outs[0] if outs else None, np.where(c, x, y), 0, 0)

# Rank-0 operands (.npy inputs are at least 1-D, so constants): a mask from
# a comparison selecting between a tensor and a scalar, cast to
# float: the usual ReLU-by-hand pattern, checked against PyTorch.
x = check.uniform((5, 7), np.float32, -2, 2)
t = tensor_type((5, 7), np.float32)
mlir = (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> ({t}, {t}) {{\n"
        f"  %z = rlx.constant dense<0.0> : tensor<f32>\n"
        f"  %m = rlx.compare gt %x, %z : {t}, tensor<f32>\n"
        f"  %y = rlx.where %m, %x, %z : tensor<5x7xi1>, {t}, tensor<f32>\n"
        f"  %f = rlx.cast %m : tensor<5x7xi1> to f32\n"
        f"  return %y, %f : {t}, {t}\n}}")
outs = check.run(mlir, {"x": x})
tx = torch.from_numpy(x)
check.close("where(x > 0, x, 0)", outs[0] if outs else None,
            torch.where(tx > 0, tx, torch.zeros(())).numpy(), 0, 0)
check.close("cast(x > 0)", outs[1] if outs else None,
            (tx > 0).to(torch.float32).numpy(), 0, 0)

# An i1 tensor in memory (a constant mask, and a mask that is also a graph
# result so it is stored) read along a vectorizable innermost dim: i1
# elements are bytes in memory, so these reads must not become bit-packed
# vector loads.
mask = check.rng.integers(0, 2, (9, 37)).astype(np.bool_)
rows = ", ".join("[" + ", ".join("true" if v else "false" for v in row) + "]"
                 for row in mask)
a = check.uniform((2, 3, 9, 37), np.float32)
b = check.uniform((2, 3, 9, 37), np.float32)
t4 = tensor_type((2, 3, 9, 37), np.float32)
mlir = (f"func.func @main(%a: {t4} {{rlx.input = \"a\"}}, "
        f"%b: {t4} {{rlx.input = \"b\"}}) -> ({t4}, tensor<2x3x9x37xi1>, {t4}) {{\n"
        f"  %m = rlx.constant dense<[{rows}]> : tensor<9x37xi1>\n"
        f"  %r = rlx.where %m, %a, %b : tensor<9x37xi1>, {t4}, {t4}\n"
        f"  %g = rlx.compare gt %a, %b : {t4}, {t4}\n"
        f"  %s = rlx.where %g, %b, %a : tensor<2x3x9x37xi1>, {t4}, {t4}\n"
        f"  return %r, %g, %s : {t4}, tensor<2x3x9x37xi1>, {t4}\n}}")
outs = check.run(mlir, {"a": a, "b": b})
check.close("where(constant i1 [9, 37] mask)", outs[0] if outs else None,
            np.where(mask, a, b), 0, 0)
check.close("a > b stored as i1", outs[1] if outs else None, a > b, 0, 0)
check.close("where(stored i1 mask)", outs[2] if outs else None,
            np.minimum(a, b), 0, 0)

check.finish()
