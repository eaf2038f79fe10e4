"""Folded against executed: every elementwise kind the folders evaluate,
on every element type, gives the same bits folded at compile time as run.

For each element type T one graph applies every activation, binary,
compare and where kind defined on T and every cast from T to x, y (and a
condition c). It runs twice: with x, y, c as rlx.constant operands after
`rlx-opt --canonicalize` (the folders evaluate the ops' scalar computation
with the arith / math constant folders), and with x, y, c as graph inputs
(rlx-run executes the lowered code). bf16 has no NumPy type: its values
travel as f32 and are cast to and from bf16 inside the graph (exactly).

Inputs: signed zeros, infinities, NaN, subnormals, 1, 0.5 and their
negations, large and small values, each special against each other
special, and random values (normal and log-uniform); integers include 0,
+-1 and the type's extremes. The operands of f16 / bf16 math are computed
in f32 and rounded once, as at run time.

Exactly rounded kinds (add, sub, mul, div, max, min, compare, every cast,
relu, neg, abs, round, where) must agree bit for bit; NaN agrees with NaN
whatever its payload. Transcendental kinds (gelu, gelu_approx, silu,
sigmoid, tanh, exp, log, sqrt, sin, cos, tan, atan, pow) are evaluated by
the host's libm when folded and by the CPU pipeline's polynomial
approximations when run: they must agree within the units in the last
place of the result type that MAX_ULP states, except where the CPU
pipeline's approximations are known to lose accuracy (see GELU_ABS below);
exp into the subnormal range and the log of subnormal inputs are held to
the same bound as every other input. A kind whose computation has an op without a
constant folder (rsqrt: math.rsqrt has none) is not folded, and the test
checks that it stays unfolded. The largest difference of each
transcendental kind is printed.
"""

import collections
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from rlxcheck import Checker  # noqa: E402

check = Checker(sys.argv[1])
RLX_OPT = sys.argv[2]

N = 256

# Units in the last place of the result type allowed between folded and run
# transcendental results. f64 and the f16 / bf16 kinds (computed in f32,
# rounded once) agree to 1 ulp. In f32 the CPU pipeline's polynomial
# approximations differ from libm by a few ulps; gelu_approx more.
MAX_ULP = {"f64": 1, "f16": 1, "bf16": 1, "f32": 4}
MAX_ULP_F32 = {"activation gelu_approx": 8}

# gelu's 1 + erf(x) and gelu_approx's 1 + tanh(...) cancel for very negative
# x: the result is tiny and carries the absolute error of erf / tanh near
# -1, so it is held to this absolute bound rather than to ulps.
GELU_ABS = 2.0 ** -20


def max_ulp(name, rt):
    if rt == "f32":
        return MAX_ULP_F32.get(name, MAX_ULP["f32"])
    return MAX_ULP[rt]

FLOATS = ("f32", "f64", "f16", "bf16")
SIGNED = ("i8", "i16", "i32", "i64")
UNSIGNED = ("ui8", "ui32")
ALL_TYPES = FLOATS + SIGNED + UNSIGNED + ("i1",)

NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16,
      "bf16": np.float32, "i8": np.int8, "i16": np.int16, "i32": np.int32,
      "i64": np.int64, "ui8": np.uint8, "ui32": np.uint32, "i1": np.bool_}

ACTIVATIONS = ("gelu", "gelu_approx", "silu", "relu", "sigmoid", "tanh",
               "exp", "log", "sqrt", "rsqrt", "neg", "abs", "sin", "cos",
               "tan", "atan", "round")
EXACT_ACTIVATIONS = ("relu", "neg", "abs", "round")
UNFOLDABLE = ("rsqrt",)
BINARIES = ("add", "sub", "mul", "div", "max", "min", "pow")
COMPARES = ("eq", "ne", "lt", "le", "gt", "ge")


def carried(t):
    """The type a value of rlx type `t` travels in through .npy files."""
    return "f32" if t == "bf16" else t


def tensor(t, n=N):
    return f"tensor<{n}x{t}>"


def bf16_values(f32):
    """f32 values rounded to bf16 (ties to even), kept as f32."""
    bits = f32.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16
    out = rounded.astype(np.uint32).view(np.float32).copy()
    out[np.isnan(f32)] = np.nan
    return out


def float_values(t):
    info = np.finfo(np.float16 if t == "f16" else np.float64 if t == "f64"
                    else np.float32)
    tiny = {"f16": 6e-8, "f32": 1e-40, "bf16": 1e-39, "f64": 5e-320}[t]
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1.0, -1.0,
               0.5, -0.5, float(info.max), 2.5, -3.5]
    if t == "bf16":
        special[12] = 3.0e38
    n = len(special)
    x = [a for a in special for _ in range(n)]
    y = [b for _ in range(n) for b in special]
    rest = N - len(x)
    rng = check.rng
    half = rest // 2
    x += list(rng.normal(0, 3, half)) + list(
        np.exp(rng.uniform(-20, 20, rest - half)) *
        rng.choice([-1, 1], rest - half))
    y += list(rng.normal(0, 3, half)) + list(
        np.exp(rng.uniform(-20, 20, rest - half)) *
        rng.choice([-1, 1], rest - half))
    dtype = NP[t]
    with np.errstate(over="ignore"):
        x, y = np.array(x, dtype), np.array(y, dtype)
    if t == "bf16":
        x, y = bf16_values(x), bf16_values(y)
    return x, y


def int_values(t):
    if t == "i1":
        return (check.rng.integers(0, 2, N).astype(np.bool_),
                check.rng.integers(0, 2, N).astype(np.bool_))
    info = np.iinfo(NP[t])
    special = [0, 1, -1 if info.min < 0 else 2, info.min, info.max,
               info.max - 1, info.min + 1]
    n = len(special)
    x = [a for a in special for _ in range(n)]
    y = [b for _ in range(n) for b in special]
    rest = N - len(x)
    x += list(check.rng.integers(info.min, info.max, rest, endpoint=True))
    small = check.rng.integers(max(info.min, -100), min(info.max, 100), rest,
                               endpoint=True)
    y += list(small)
    return np.array(x).astype(NP[t]), np.array(y).astype(NP[t])


def ops_for(t):
    """[(name, class, result type, body line builder)] of every kind on t.
    The builder gets the operand names and returns the op's line."""
    vt = tensor(t)
    ops = []
    if t in FLOATS or t in SIGNED:
        kinds = ACTIVATIONS if t in FLOATS else ("relu", "neg", "abs")
        for k in kinds:
            cls = "exact" if k in EXACT_ACTIVATIONS else (
                "unfoldable" if k in UNFOLDABLE else "transcendental")
            # log and sqrt have no constant folder for negative inputs (or
            # -0.0): an op with one such element is not folded at all. They
            # are compared on |x|.
            if k in ("log", "sqrt"):
                build = (lambda x, y, c, k=k:
                         f"rlx.activation {k} %abs : {vt}")
            else:
                build = (lambda x, y, c, k=k:
                         f"rlx.activation {k} {x} : {vt}")
            ops.append((f"activation {k}", cls, t, build))
    if t != "i1":
        kinds = BINARIES if t in FLOATS else BINARIES[:-1]
    else:
        kinds = ("max", "min")
    for k in kinds:
        cls = "transcendental" if k == "pow" else "exact"
        ops.append((f"binary {k}", cls, t,
                    lambda x, y, c, k=k: f"rlx.binary {k} {x}, {y} : {vt}, {vt}"))
    for k in COMPARES:
        ops.append((f"compare {k}", "exact", "i1",
                    lambda x, y, c, k=k:
                    f"rlx.compare {k} {x}, {y} : {vt}, {vt}"))
    ops.append(("where", "exact", t,
                lambda x, y, c: f"rlx.where {c}, {x}, {y} : "
                f"{tensor('i1')}, {vt}, {vt}"))
    for to in ALL_TYPES:
        if to != t:
            ops.append((f"cast to {to}", "exact", to,
                        lambda x, y, c, to=to: f"rlx.cast {x} : {vt} to {to}"))
    return ops


def graph(t, ops, as_constants, x, y, c):
    """The graph applying `ops` to x, y (and c); inputs or constants."""
    lines = []
    operands = {"x": x, "y": y, "c": c}
    types = {"x": carried(t), "y": carried(t), "c": "i1"}
    args = []
    for name, value in operands.items():
        ty = tensor(types[name])
        if as_constants:
            if types[name] == "i1":
                text = ", ".join("true" if v else "false" for v in value)
                lines.append(f"%{name}0 = rlx.constant dense<[{text}]> : {ty}")
            else:
                raw = np.require(value.astype(NP[types[name]]),
                                 requirements="C").tobytes().hex().upper()
                lines.append(f'%{name}0 = rlx.constant dense<"0x{raw}"> : {ty}')
        else:
            args.append(f"%{name}0: {ty} {{rlx.input = \"{name}\"}}")
    # bf16 values travel as f32 and are cast (exactly) to bf16.
    ref = {}
    for name in operands:
        if name != "c" and t == "bf16":
            lines.append(f"%{name} = rlx.cast %{name}0 : {tensor('f32')} "
                         "to bf16")
            ref[name] = f"%{name}"
        else:
            ref[name] = f"%{name}0"
    if t in FLOATS:
        lines.append(f"%abs = rlx.activation abs {ref['x']} : {tensor(t)}")
    results = []
    for i, (_, _, rt, build) in enumerate(ops):
        lines.append(f"%r{i} = " + build(ref["x"], ref["y"], ref["c"]))
        if rt == "bf16":
            lines.append(f"%o{i} = rlx.cast %r{i} : {tensor('bf16')} to f32")
            results.append((f"%o{i}", tensor("f32")))
        else:
            results.append((f"%r{i}", tensor(rt)))
    out_types = ", ".join(ty for _, ty in results)
    body = "\n".join("  " + line for line in lines)
    return (f"func.func @main({', '.join(args)}) -> ({out_types}) {{\n{body}\n"
            f"  return {', '.join(v for v, _ in results)} : {out_types}\n}}\n")


def folded_outputs(text):
    """For each returned value of the canonicalized graph, whether it is
    an rlx.constant (the op was folded)."""
    defs = dict(re.findall(r"(%\w+) = (rlx\.\w+)", text))
    ret = re.search(r"return (.*?) :", text).group(1)
    return [defs.get(v.strip()) == "rlx.constant" for v in ret.split(",")]


def ordered(bits, width):
    """Float bit patterns mapped to integers that order like the floats."""
    bits = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    sign = np.int64(1) << (width - 1)
    if width < 64:
        negative = bits >= sign
        return np.where(negative, sign - bits, bits + 0)
    return np.where(bits < 0, np.int64(-(2**63)) - bits, bits)


def ulp_diff(a, b, rt):
    """Distance in units in the last place of `rt` (NaN == NaN)."""
    if rt == "bf16":
        ia = ordered(a.view(np.uint32) >> 16, 16)
        ib = ordered(b.view(np.uint32) >> 16, 16)
    else:
        width = a.dtype.itemsize * 8
        view = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
        ia = ordered(a.view(view), width)
        ib = ordered(b.view(view), width)
    d = np.abs(ia.astype(np.float64) - ib.astype(np.float64))
    both_nan = np.isnan(a) & np.isnan(b)
    one_nan = np.isnan(a) ^ np.isnan(b)
    d[both_nan] = 0
    d[one_nan] = np.inf
    return d


def same_bits(a, b):
    """Bit identity; a NaN matches any NaN."""
    if a.dtype.kind != "f":
        return np.array_equal(a, b)
    nan = np.isnan(a)
    return bool(np.array_equal(nan, np.isnan(b)) and np.array_equal(
        a[~nan].tobytes(), b[~nan].tobytes()))


worst = collections.defaultdict(float)
for t in ALL_TYPES:
    x, y = float_values(t) if t in FLOATS else int_values(t)
    c = check.rng.integers(0, 2, N).astype(np.bool_)
    ops = ops_for(t)
    folded_text = subprocess.run(
        [RLX_OPT, "--canonicalize"], input=graph(t, ops, True, x, y, c),
        capture_output=True, text=True)
    if folded_text.returncode != 0:
        print(f"FAIL {t}: rlx-opt --canonicalize:\n{folded_text.stderr}")
        check.failed += 1
        continue
    folded = folded_outputs(folded_text.stdout)
    got = check.run(folded_text.stdout, {})
    run = check.run(graph(t, ops, False, x, y, c),
                    {"x": x.astype(NP[carried(t)]), "y": y.astype(
                        NP[carried(t)]), "c": c})
    if got is None or run is None:
        continue
    for i, (name, cls, rt, _) in enumerate(ops):
        what = f"{t} {name}"
        if cls == "unfoldable":
            if folded[i]:
                print(f"FAIL {what}: folded without a constant folder")
                check.failed += 1
            else:
                check.passed += 1
            continue
        if not folded[i]:
            print(f"FAIL {what}: not folded")
            check.failed += 1
            continue
        a, b = got[i], run[i]
        if cls == "exact":
            ok = a.shape == b.shape and a.dtype == b.dtype and same_bits(a, b)
            if not ok:
                bad = np.nonzero(~((a == b) | (np.isnan(a) & np.isnan(b))
                                   if a.dtype.kind == "f" else a == b))[0]
                j = bad[0] if len(bad) else 0
                print(f"FAIL {what}: folded {a[j]!r} run {b[j]!r} "
                      f"(x={x[j]!r}, y={y[j]!r})")
        else:
            d = ulp_diff(a, b, rt)
            if name in ("activation gelu", "activation gelu_approx"):
                with np.errstate(invalid="ignore"):
                    close = np.abs(a.astype(np.float64) - b) <= GELU_ABS
                d[close & (d > max_ulp(name, rt))] = 0
            worst[(name, rt)] = max(worst[(name, rt)], float(d.max()))
            ok = bool(d.max() <= max_ulp(name, rt))
            if not ok:
                j = int(np.argmax(d))
                print(f"FAIL {what}: {d[j]} ulp: folded {a[j]!r} run "
                      f"{b[j]!r} (x={x[j]!r}, y={y[j]!r})")
        if ok:
            check.passed += 1
        else:
            check.failed += 1

for (name, rt), ulp in sorted(worst.items()):
    print(f"max ulp {name} {rt}: {ulp:g}")
check.finish()
