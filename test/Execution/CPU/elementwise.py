"""rlx.activation, rlx.binary and rlx.constant on the CPU against PyTorch.

Tolerances: f32 rtol 1e-5 (atol 1e-6); f64 rtol 1e-12; f16 rtol 2e-3
(one f16 ulp: the kernel computes in f32 and rounds once, as the oracle does);
integers and booleans exactly.
"""

import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

ACTIVATIONS = {
    "gelu": lambda t: F.gelu(t),
    "gelu_approx": lambda t: F.gelu(t, approximate="tanh"),
    "silu": F.silu,
    "relu": F.relu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "neg": torch.neg,
    "abs": torch.abs,
    "sin": torch.sin,
    "cos": torch.cos,
    "tan": torch.tan,
    "atan": torch.atan,
    "round": torch.round,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "trunc": torch.trunc,
}
POSITIVE_ONLY = {"log", "sqrt", "rsqrt"}
TOLERANCE = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-14),
             np.float16: (2e-3, 1e-3)}


def activation_graph(shape, dtype, kinds):
    t = tensor_type(shape, dtype)
    lines = [f"func.func @main(%x: {t} {{rlx.input = \"x\"}}, "
             f"%p: {t} {{rlx.input = \"p\"}}) -> ({', '.join([t] * len(kinds))}) {{"]
    for i, kind in enumerate(kinds):
        src = "%p" if kind in POSITIVE_ONLY else "%x"
        lines.append(f"  %{i} = rlx.activation {kind} {src} : {t}")
    results = ", ".join(f"%{i}" for i in range(len(kinds)))
    lines.append(f"  return {results} : {', '.join([t] * len(kinds))}")
    lines.append("}")
    return "\n".join(lines)


# Every activation kind, several shapes (odd sizes, size-1 dims) and dtypes.
for dtype in (np.float32, np.float64, np.float16):
    for shape in ((3, 5), (17,), (2, 1, 7), (1,)):
        kinds = list(ACTIVATIONS)
        x = check.uniform(shape, dtype, -3, 3)
        # Exact halves exercise round-half-to-even.
        x.flat[0] = 2.5
        if x.size > 1:
            x.flat[1] = -0.5
        p = check.uniform(shape, dtype, 0.1, 4)
        outs = check.run(activation_graph(shape, dtype, kinds), {"x": x, "p": p})
        rtol, atol = TOLERANCE[dtype]
        for i, kind in enumerate(kinds):
            src = p if kind in POSITIVE_ONLY else x
            # The oracle computes f16 in f32 and rounds once.
            wide = torch.from_numpy(src.astype(np.float32 if dtype == np.float16 else dtype))
            want = ACTIVATIONS[kind](wide).numpy().astype(dtype)
            got = outs[i] if outs else None
            check.close(f"activation {kind} {shape} {np.dtype(dtype)}", got,
                        want, rtol, atol)

# The positive-only kinds over the whole f32 range: subnormals (whose
# exponent bits the vectorized log approximation cannot read directly),
# the smallest normal, zero (-inf / inf), huge values and random ones.
edges = np.array([1e-45, 1e-40, 3e-39, 1.1754944e-38, 0.0, 3.4e38, 1e30, 1.0],
                 np.float32)
p = np.concatenate([edges, check.uniform((9,), np.float32, 1e-30, 10)])
kinds = sorted(POSITIVE_ONLY)
outs = check.run(activation_graph(p.shape, np.float32, kinds), {"x": p, "p": p})
for i, kind in enumerate(kinds):
    want = ACTIVATIONS[kind](torch.from_numpy(p.astype(np.float64))).numpy()
    check.close(f"activation {kind} on subnormals, zero and huge values",
                outs[i] if outs else None, want.astype(np.float32),
                *TOLERANCE[np.float32])

# exp into the subnormal range (the vectorized approximation flushes results
# below FLT_MIN to zero unless its input is shifted first): within one
# subnormal unit (2^-149) of the exact value; -inf gives 0 and NaN NaN.
x = np.concatenate([
    np.array([-87.0, -87.3, -87.34, -87.5, -90.0, -100.0, -103.9, -103.98,
              -104.5, -200.0, -np.inf, np.nan], np.float32),
    check.uniform((20,), np.float32, -104, -87)])
outs = check.run(activation_graph(x.shape, np.float32, ["exp"]), {"x": x, "p": x})
want = np.exp(x.astype(np.float64)).astype(np.float32)
check.close("activation exp into subnormals", outs[0] if outs else None, want,
            0.0, 2.0 ** -149)

# f32 exp and log at ulp level against NumPy's float64 result rounded to
# f32, on the subnormal ranges (exp results below FLT_MIN: inputs in
# [-104, -87.3]; log of subnormal inputs, every exponent of the subnormal
# range) and on ordinary ones (exp over [-87.3, 88.7]; log over every
# positive normal exponent and around 1). Measured over 200000 values per
# range: at most 1 ulp except exp near overflow (4 ulp, the polynomial's
# 2^k scaling); the bounds are 2 ulp, 4 ulp for exp's ordinary range.
subnormal_bits = np.exp(check.uniform((3000,), np.float64, 0, np.log(2 ** 23)))
subnormals = subnormal_bits.astype(np.uint32).view(np.float32)
normal_bits = check.uniform((3000,), np.float64, 0x00800000, 0x7F7FFFFF)
ULP_RANGES = [
    ("exp", "into subnormals", check.uniform((3000,), np.float32, -104, -87.3),
     2),
    ("exp", "ordinary", check.uniform((3000,), np.float32, -87.3, 88.7), 4),
    ("log", "of subnormals", subnormals, 2),
    ("log", "of normals", normal_bits.astype(np.uint32).view(np.float32), 2),
    ("log", "around 1", check.uniform((3000,), np.float32, 0.5, 2), 2),
]
for kind, where, x, max_ulp in ULP_RANGES:
    outs = check.run(activation_graph(x.shape, np.float32, [kind]),
                     {"x": x, "p": x})
    want = getattr(np, kind)(x.astype(np.float64)).astype(np.float32)
    check.within_ulp(f"activation {kind} f32 {where}",
                     outs[0] if outs else None, want, max_ulp)

# f32 atan across the whole range, within 2 ulp of the float64 result
# rounded to f32: the reduction boundaries tan(pi/8) and tan(3 pi/8),
# subnormals and signed zeros (atan(x) = x there, sign kept), huge values
# and +-inf (+-pi/2), NaN, and random values spread over every exponent.
edges = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-40, 1.1754944e-38, 1e-20,
                  1e-4, 0.41421354, 0.41421357, 0.5, 1.0, -1.0, 2.4142134,
                  2.4142137, 10.0, 1e4, 1e10, 3.4e38, -3.4e38, np.inf,
                  -np.inf, np.nan], np.float32)
spread = (check.uniform((4000,), np.float64, -1, 1) *
          10.0 ** check.uniform((4000,), np.float64, -45, 38)).astype(np.float32)
x = np.concatenate([edges, spread, check.uniform((1000,), np.float32, -4, 4)])
outs = check.run(activation_graph(x.shape, np.float32, ["atan"]), {"x": x, "p": x})
want = np.arctan(x.astype(np.float64)).astype(np.float32)
check.within_ulp("activation atan f32 over the whole range",
                 outs[0] if outs else None, want, 2)

# relu, neg and abs on signed integers.
for dtype in (np.int32, np.int64, np.int8):
    shape = (4, 6)
    kinds = ["relu", "neg", "abs"]
    x = check.integers(shape, dtype, -100, 100)
    t = tensor_type(shape, dtype)
    mlir = (f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> ({t}, {t}, {t}) {{\n"
            + "".join(f"  %{i} = rlx.activation {k} %x : {t}\n" for i, k in enumerate(kinds))
            + f"  return %0, %1, %2 : {t}, {t}, {t}\n}}")
    outs = check.run(mlir, {"x": x})
    want = [np.maximum(x, 0), -x, np.abs(x)]
    for i, kind in enumerate(kinds):
        check.close(f"activation {kind} {np.dtype(dtype)}", outs[i] if outs else None,
                    want[i].astype(dtype), 0, 0)

# Binary ops with NumPy broadcasting, middle axes included.
SHAPES = [((4, 3), (3,)), ((4, 1, 5), (3, 1)), ((1,), (2, 3)),
          ((2, 3), (2, 3)), ((2, 1, 1, 3), (1, 4, 3))]
FLOAT_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply,
                "div": np.divide, "max": np.maximum, "min": np.minimum,
                "pow": np.power}


def binary_graph(lshape, rshape, dtype, kinds):
    lt, rt = tensor_type(lshape, dtype), tensor_type(rshape, dtype)
    out = tensor_type(np.broadcast_shapes(lshape, rshape), dtype)
    body = "".join(f"  %{i} = rlx.binary {k} %a, %b : {lt}, {rt}\n"
                   for i, k in enumerate(kinds))
    results = ", ".join(f"%{i}" for i in range(len(kinds)))
    return (f"func.func @main(%a: {lt} {{rlx.input = \"a\"}}, "
            f"%b: {rt} {{rlx.input = \"b\"}}) -> ({', '.join([out] * len(kinds))}) {{\n"
            f"{body}  return {results} : {', '.join([out] * len(kinds))}\n}}")


for dtype in (np.float32, np.float64):
    for lshape, rshape in SHAPES:
        kinds = list(FLOAT_BINARY)
        a = check.uniform(lshape, dtype, 0.5, 2.0)  # pow needs a positive base
        b = check.uniform(rshape, dtype, -2.0, 2.0)
        outs = check.run(binary_graph(lshape, rshape, dtype, kinds), {"a": a, "b": b})
        rtol, atol = TOLERANCE[dtype]
        for i, kind in enumerate(kinds):
            want = FLOAT_BINARY[kind](a, b).astype(dtype)
            check.close(f"binary {kind} {lshape}x{rshape} {np.dtype(dtype)}",
                        outs[i] if outs else None, want, rtol, atol)

# max / min order -0.0 below +0.0 and propagate NaN (rlx.binary's
# definition, as the constant folder computes it; fold-vs-run.py checks the
# two agree on same-shape operands): every pair of 0, -0, NaN, 1 and -inf,
# at sizes below, at and past a vector's width (scalar loops, masked
# tails), and against a broadcast -0.0 / +0.0 scalar on either side. The
# result must match bit for bit (any NaN for NaN).


def ieee_max_min(kind, a, b):
    """IEEE 754-2019 maximum / minimum: NaN propagates, -0 < +0."""
    a, b = np.broadcast_arrays(a, b)
    want = (np.maximum if kind == "max" else np.minimum)(a, b)
    zeros = (a == 0) & (b == 0)
    pick = np.signbit(a) & np.signbit(b) if kind == "max" else \
        np.signbit(a) | np.signbit(b)
    want[zeros] = np.where(pick[zeros], -0.0, 0.0)
    return want


def same_bits(got, want):
    if got is None or got.shape != want.shape:
        return False
    nan = np.isnan(want)
    return bool(np.array_equal(np.isnan(got), nan) and np.array_equal(
        got[~nan].tobytes(), want[~nan].tobytes()))


SPECIAL = [0.0, -0.0, np.nan, 1.0, -np.inf]
for dtype in (np.float32, np.float64, np.float16):
    for size in (1, 7, 25, 64):
        pairs = [(u, v) for u in SPECIAL for v in SPECIAL]
        a = np.array([pairs[i % 25][0] for i in range(size)], dtype)
        b = np.array([pairs[i % 25][1] for i in range(size)], dtype)
        vt, st = tensor_type((size,), dtype), tensor_type((), dtype)
        cases = [(kind, l, r) for kind in ("max", "min")
                 for l, r in (("a", "b"), ("a", "s"), ("s", "a"))]
        types = {"a": vt, "b": vt, "s": st}
        body = "".join(f"  %{i} = rlx.binary {k} %{l}, %{r} : {types[l]}, "
                       f"{types[r]}\n" for i, (k, l, r) in enumerate(cases))
        mlir = (f"func.func @main(%a: {vt} {{rlx.input = \"a\"}}, "
                f"%b: {vt} {{rlx.input = \"b\"}}, "
                f"%s: {st} {{rlx.input = \"s\"}}) -> "
                f"({', '.join([vt] * len(cases))}) {{\n{body}  return "
                f"{', '.join(f'%{i}' for i in range(len(cases)))} : "
                f"{', '.join([vt] * len(cases))}\n}}")
        for scalar in (-0.0, 0.0):
            values = {"a": a, "b": b, "s": np.array(scalar, dtype)}
            outs = check.run(mlir, values)
            for i, (kind, l, r) in enumerate(cases):
                want = ieee_max_min(kind, values[l], values[r]).astype(dtype)
                got = outs[i] if outs else None
                what = (f"binary {kind} signed zeros / NaN %{l}, %{r} "
                        f"size {size} {np.dtype(dtype)} (s = {scalar})")
                if same_bits(got, want):
                    check.passed += 1
                else:
                    check.failed += 1
                    print(f"FAIL {what}: got {got} want {want}")

# Integers: division truncates toward zero; ui8 uses unsigned semantics.
for dtype in (np.int32, np.int64, np.uint8):
    lshape, rshape = (3, 4), (4,)
    kinds = ["add", "sub", "mul", "div", "max", "min"]
    signed = np.dtype(dtype).kind == "i"
    a = check.integers(lshape, dtype, -50 if signed else 0, 50 if signed else 250)
    b = check.integers(rshape, dtype, 1, 9)
    if signed:
        b[::2] *= -1
    outs = check.run(binary_graph(lshape, rshape, dtype, kinds), {"a": a, "b": b})
    ta, tb = torch.from_numpy(a.astype(np.int64)), torch.from_numpy(b.astype(np.int64))
    want = [a + b, a - b, a * b,
            torch.div(ta, tb, rounding_mode="trunc").numpy(),
            np.maximum(a, b), np.minimum(a, b)]
    for i, kind in enumerate(kinds):
        check.close(f"binary {kind} {np.dtype(dtype)}", outs[i] if outs else None,
                    np.asarray(want[i]).astype(dtype), 0, 0)

# Integer division never traps: x / 0 is 0 and INT_MIN / -1 wraps.
for dtype in (np.int32, np.int8):
    info = np.iinfo(dtype)
    a = np.array([7, -7, info.min, info.min, 5, -9, 3], dtype)
    b = np.array([0, 2, -1, 3, 0, -2, 1], dtype)
    outs = check.run(binary_graph((7,), (7,), dtype, ["div"]), {"a": a, "b": b})
    want = np.array([0, -3, info.min, int(info.min / 3), 0, 4, 3], dtype)
    check.close(f"binary div by zero {np.dtype(dtype)}", outs[0] if outs else None,
                want, 0, 0)

# floor_div, remainder and fmod against PyTorch's kernels, bit for bit (the
# same f32/f64 operations; f16 computes in f32 and rounds once, as
# PyTorch's CPU kernels do): random operands of both signs, exact
# multiples (remainder 0, whose sign follows the divisor), 1 / 0.1 (floor
# 9: the quotient from fmod, not floor(a / b) = 10), zero divisors (inf,
# NaN or signed zero quotients), infinities and NaN.
DIVISIONS = {"floor_div": lambda a, b: torch.div(a, b, rounding_mode="floor"),
             "remainder": torch.remainder, "fmod": torch.fmod}
for dtype in (np.float32, np.float64, np.float16):
    a = np.concatenate([check.uniform((40,), dtype, -9, 9),
                        np.array([6, -6, 6, -6, 1, -1, 0, -0.0, 5, -5, np.inf,
                                  -np.inf, np.nan, 3, 7.5, -7.5, 0.3],
                                 dtype)])
    b = np.concatenate([check.uniform((40,), dtype, -3, 3),
                        np.array([3, 3, -3, -3, 0.1, 0.1, 2, 2, 0, -0.0, 2,
                                  -2, 2, np.inf, -2, 2, -0.1], dtype)])
    kinds = list(DIVISIONS)
    outs = check.run(binary_graph(a.shape, b.shape, dtype, kinds),
                     {"a": a, "b": b})
    wide = np.float32 if dtype == np.float16 else dtype
    for i, kind in enumerate(kinds):
        want = DIVISIONS[kind](torch.from_numpy(a.astype(wide)),
                               torch.from_numpy(b.astype(wide))).numpy()
        want = want.astype(dtype)
        got = outs[i] if outs else None
        what = f"binary {kind} {np.dtype(dtype)}"
        if same_bits(got, want):
            check.passed += 1
        else:
            check.failed += 1
            bad = np.flatnonzero(~((got == want) | (np.isnan(got) &
                                                    np.isnan(want))))
            print(f"FAIL {what}: at {bad[:5]} a={a[bad[:5]]} b={b[bad[:5]]}"
                  f" got {got[bad[:5]]} want {want[bad[:5]]}")

# Integers: floor_div rounds down, remainder takes the divisor's sign,
# fmod the dividend's; a zero divisor gives 0 (PyTorch raises) and
# INT_MIN / -1 wraps; unsigned operands divide unsigned.
for dtype in (np.int32, np.int64, np.int8, np.uint8):
    info = np.iinfo(dtype)
    signed = info.min < 0
    a = check.integers((30,), dtype, info.min if signed else 0, info.max)
    b = check.integers((30,), dtype, -9 if signed else 1, 10)
    b[b == 0] = 1
    if signed:
        a = np.concatenate([a, np.array([7, -7, 7, -7, 6, info.min, 5, -5],
                                        dtype)])
        b = np.concatenate([b, np.array([2, 2, -2, -2, -3, -1, 0, 0], dtype)])
    kinds = list(DIVISIONS)
    outs = check.run(binary_graph(a.shape, b.shape, dtype, kinds),
                     {"a": a, "b": b})
    nonzero = b != 0
    safe = np.where(nonzero, b, 1).astype(np.int64)
    wide = a.astype(np.int64)
    with np.errstate(over="ignore"):  # int64's INT_MIN // -1
        wants = [np.floor_divide(wide, safe), np.remainder(wide, safe),
                 np.fmod(wide, safe)]
    for i, kind in enumerate(kinds):
        want = np.where(nonzero, wants[i], 0)
        if signed and kind == "floor_div":
            want[(a == info.min) & (b == -1)] = info.min  # wraps
        check.close(f"binary {kind} {np.dtype(dtype)}",
                    outs[i] if outs else None, want.astype(dtype), 0, 0)

# Booleans: max is or, min is and.
a = check.integers((5, 2), np.bool_, 0, 2)
b = check.integers((2,), np.bool_, 0, 2)
outs = check.run(binary_graph((5, 2), (2,), np.bool_, ["max", "min"]), {"a": a, "b": b})
check.close("binary max i1", outs[0] if outs else None, a | b, 0, 0)
check.close("binary min i1", outs[1] if outs else None, a & b, 0, 0)

# complex<f32>: add, sub, mul, div.
a = check.uniform((3, 2), np.complex64)
b = check.uniform((2,), np.complex64)
outs = check.run(binary_graph((3, 2), (2,), np.complex64, ["add", "sub", "mul", "div"]),
                 {"a": a, "b": b})
for i, want in enumerate([a + b, a - b, a * b, a / b]):
    check.close(f"binary complex #{i}", outs[i] if outs else None,
                want.astype(np.complex64), 1e-5, 1e-6)

# Constants, including a graph with no inputs.
mlir = """func.func @main() -> tensor<2x3xf32> {
  %c = rlx.constant dense<[[1.5, -2.0, 3.25], [0.0, 4.0, -1.0]]> : tensor<2x3xf32>
  %d = rlx.constant dense<[0.5, 0.25, 2.0]> : tensor<3xf32>
  %0 = rlx.binary mul %c, %d : tensor<2x3xf32>, tensor<3xf32>
  return %0 : tensor<2x3xf32>
}"""
outs = check.run(mlir, {})
check.close("constant", outs[0] if outs else None,
            np.array([[0.75, -0.5, 6.5], [0.0, 1.0, -2.0]], np.float32), 0, 0)

check.finish()
