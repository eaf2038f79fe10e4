"""rlx.reduce, softmax, cumsum, top_k and scatter_add on the CPU against
PyTorch / NumPy.

Shapes with odd sizes and size-1 dims, every axis (negative and middle ones
included), every reduce kind with keep_dim both ways, inclusive and
exclusive cumsum, f32, f64, f16, integers (signed and unsigned) and
complex<f32> where the ops admit them, and [256, 1000] cases that take the
parallel and vectorized path. Float oracles compute in f64 and round once.

Tolerances: f32 rtol 1e-5 with atol 1e-6 * n (sums of n unit-scale terms;
1e-6 for softmax); f64 rtol 1e-12 with atol 1e-13 * n; f16 rtol 2e-3
(accumulated in f32, rounded once: one f16 ulp) with atol 2e-3 * n;
max/min, integers, top-k and everything index-valued exactly.
"""

import sys

import numpy as np
import torch

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])


def tolerance(dtype, n):
    dtype = np.dtype(dtype)
    if dtype == np.float32 or dtype == np.complex64:
        return 1e-5, 1e-6 * max(n, 1)
    if dtype == np.float64:
        return 1e-12, 1e-13 * max(n, 1)
    if dtype == np.float16:
        return 2e-3, 2e-3 * max(n, 1)
    return 0, 0


def graph(inputs, ops):
    """A function of named inputs [(name, shape, dtype)] returning the
    results of `ops`, [(text using %name operands, result type)]."""
    args = ", ".join(f"%{n}: {tensor_type(s, d)} {{rlx.input = \"{n}\"}}"
                     for n, s, d in inputs)
    types = ", ".join(r for _, r in ops)
    body = "".join(f"  %r{i} = {text}\n" for i, (text, _) in enumerate(ops))
    results = ", ".join(f"%r{i}" for i in range(len(ops)))
    return (f"func.func @main({args}) -> ({types}) {{\n{body}"
            f"  return {results} : {types}\n}}")


#===------------------------------------------------------------------------===#
# rlx.reduce
#===------------------------------------------------------------------------===#

KINDS = ("sum", "mean", "max", "min", "prod")


def reduce_ref(x, kind, axes, keep, dtype):
    axes = tuple(axes)
    if np.dtype(dtype).kind in "iu":
        fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]
        if kind in ("sum", "prod"):
            return fn(x, axis=axes, keepdims=keep, dtype=dtype)
        return fn(x, axis=axes, keepdims=keep).astype(dtype)
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    xx = x.astype(wide)
    fn = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max,
          "min": np.min}[kind]
    return np.asarray(fn(xx, axis=axes, keepdims=keep)).astype(dtype)


REDUCE_CASES = [((3, 5, 7), [[0], [1], [2], [0, 2], [2, 0, 1], [1, 2]]),
                ((17,), [[0]]),
                ((2, 1, 9), [[1], [0, 1], [2]]),
                ((4, 3, 2, 33), [[3], [1, 3], [0, 2]]),
                ((33, 1), [[0], [0, 1]])]


def reduce_ops(shape, dtype, axes):
    ops = []
    for kind in KINDS:
        if kind == "mean" and np.dtype(dtype).kind in "iu":
            continue
        if kind in ("max", "min") and np.dtype(dtype).kind == "c":
            continue
        for keep in (False, True):
            out = [1 if d in axes else n for d, n in enumerate(shape)] if keep \
                else [n for d, n in enumerate(shape) if d not in axes]
            text = (f"rlx.reduce {kind} %x axes = [{', '.join(map(str, axes))}]"
                    f"{' keep_dim' if keep else ''} : {tensor_type(shape, dtype)}")
            ops.append(((kind, keep), text, tensor_type(out, dtype)))
    return ops


def sample(shape, dtype):
    kind = np.dtype(dtype).kind
    if kind == "u":
        return check.integers(shape, dtype, 0, 256)
    if kind == "i":
        return check.integers(shape, dtype, -100, 100)
    # Away from zero so that products stay well scaled.
    x = check.uniform(shape, dtype, 0.5, 1.5)
    sign = np.where(check.uniform(shape, np.float64) < 0, -1, 1)
    return (x * sign).astype(dtype)


for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64,
              np.int8, np.uint8, np.uint32, np.complex64):
    for shape, axes_list in REDUCE_CASES:
        for axes in axes_list:
            if dtype not in (np.float32, np.float64) and len(shape) == 4:
                continue
            ops = reduce_ops(shape, dtype, axes)
            x = sample(shape, dtype)
            # Over unit dims most kinds fold to the same value, and a graph
            # returning one value twice does not compile
            # (buffer-results-to-out-params): one graph per op there.
            if all(shape[a] == 1 for a in axes):
                outs = []
                for _, text, t in ops:
                    got = check.run(graph([("x", shape, dtype)], [(text, t)]),
                                    {"x": x})
                    outs.append(got[0] if got else None)
            else:
                outs = check.run(graph([("x", shape, dtype)],
                                       [(text, t) for _, text, t in ops]),
                                 {"x": x})
            n = int(np.prod([shape[a] for a in axes]))
            for i, ((kind, keep), _, _) in enumerate(ops):
                rtol, atol = tolerance(dtype, n)
                if kind in ("max", "min"):
                    rtol, atol = 0, 0
                if kind == "prod":
                    atol = 0
                    rtol *= max(n, 1)
                check.close(f"reduce {kind} {shape} axes {axes} keep={keep} "
                            f"{np.dtype(dtype)}", outs[i] if outs else None,
                            reduce_ref(x, kind, axes, keep, dtype), rtol, atol)

# NaN propagates through max and min.
x = check.uniform((4, 6), np.float32)
x[1, 3] = np.nan
outs = check.run(graph([("x", (4, 6), np.float32)],
                       [("rlx.reduce max %x axes = [1] : tensor<4x6xf32>", "tensor<4xf32>"),
                        ("rlx.reduce min %x axes = [0] : tensor<4x6xf32>", "tensor<6xf32>")]),
                 {"x": x})
check.close("reduce max NaN", outs[0] if outs else None,
            torch.from_numpy(x).amax(dim=1).numpy(), 0, 0)
check.close("reduce min NaN", outs[1] if outs else None,
            torch.from_numpy(x).amin(dim=0).numpy(), 0, 0)

# Large: every row in parallel, and the leading axis.
x = check.uniform((256, 1000), np.float32)
outs = check.run(graph([("x", (256, 1000), np.float32)],
                       [("rlx.reduce sum %x axes = [1] : tensor<256x1000xf32>", "tensor<256xf32>"),
                        ("rlx.reduce mean %x axes = [0] : tensor<256x1000xf32>", "tensor<1000xf32>"),
                        ("rlx.reduce max %x axes = [1] keep_dim : tensor<256x1000xf32>", "tensor<256x1xf32>")]),
                 {"x": x})
check.close("reduce sum (256, 1000) axis 1", outs[0] if outs else None,
            reduce_ref(x, "sum", [1], False, np.float32), 1e-5, 1e-6 * 1000)
check.close("reduce mean (256, 1000) axis 0", outs[1] if outs else None,
            reduce_ref(x, "mean", [0], False, np.float32), 1e-5, 1e-6 * 256)
check.close("reduce max (256, 1000) keep_dim", outs[2] if outs else None,
            reduce_ref(x, "max", [1], True, np.float32), 0, 0)

#===------------------------------------------------------------------------===#
# rlx.softmax
#===------------------------------------------------------------------------===#


def softmax_ref(x, axis, dtype):
    return torch.softmax(torch.from_numpy(x.astype(np.float64)),
                         dim=axis).numpy().astype(dtype)


SOFTMAX_CASES = [((3, 5, 7), [0, 1, 2, -1, -2, -3]), ((17,), [0, -1]),
                 ((2, 1, 9), [1, -1, 0]), ((4, 3, 2, 33), [3, 1, -4]),
                 ((33, 1), [0])]
for dtype in (np.float32, np.float64, np.float16):
    for shape, axes in SOFTMAX_CASES:
        t = tensor_type(shape, dtype)
        # Large logits: only the max subtraction keeps exp finite.
        x = (check.uniform(shape, dtype, -1, 1) *
             (8 if dtype == np.float16 else 100)).astype(dtype)
        rtol = {np.float32: 1e-5, np.float64: 1e-12, np.float16: 2e-3}[dtype]
        atol = {np.float32: 1e-6, np.float64: 1e-14, np.float16: 1e-3}[dtype]
        # One graph per axis: a positive and a negative spelling of one axis
        # in one graph would be CSE'd into one value returned twice.
        for axis in axes:
            outs = check.run(graph([("x", shape, dtype)],
                                   [(f"rlx.softmax %x {{axis = {axis} : i64}} : {t}", t)]),
                             {"x": x})
            check.close(f"softmax {shape} axis {axis} {np.dtype(dtype)}",
                        outs[0] if outs else None, softmax_ref(x, axis, dtype),
                        rtol, atol)

x = check.uniform((256, 1000), np.float32, -10, 10)
t = tensor_type((256, 1000), np.float32)
outs = check.run(graph([("x", (256, 1000), np.float32)],
                       [(f"rlx.softmax %x {{axis = -1 : i64}} : {t}", t),
                        (f"rlx.softmax %x {{axis = 0 : i64}} : {t}", t)]),
                 {"x": x})
check.close("softmax (256, 1000) axis -1", outs[0] if outs else None,
            softmax_ref(x, -1, np.float32), 1e-5, 1e-6)
check.close("softmax (256, 1000) axis 0", outs[1] if outs else None,
            softmax_ref(x, 0, np.float32), 1e-5, 1e-6)

# Rows with special values (a row of -inf is NaN, +inf or NaN anywhere in a
# row makes it NaN, as in PyTorch), a one-element row and rows of 65536.
x = check.uniform((6, 9), np.float32, -5, 5)
x[0, 3] = -np.inf
x[1, :] = -np.inf
x[2, 4] = np.inf
x[3, 0] = np.nan
x[4, :] = 0.0
x[5, 1:] = -np.inf
t = tensor_type((6, 9), np.float32)
outs = check.run(graph([("x", (6, 9), np.float32)],
                       [(f"rlx.softmax %x {{axis = -1 : i64}} : {t}", t)]),
                 {"x": x})
check.close("softmax rows with -inf, +inf, NaN, zeros", outs[0] if outs else None,
            softmax_ref(x, -1, np.float32), 1e-5, 1e-6)
# Rows of 16384 to 65536: on the GPU a cluster of blocks per row.
for shape, dtype in (((3, 65536), np.float32), ((4, 1), np.float32),
                     ((2, 16384), np.float32), ((2, 65536), np.float16)):
    x = check.uniform(shape, dtype, -20, 20)
    t = tensor_type(shape, dtype)
    outs = check.run(graph([("x", shape, dtype)],
                           [(f"rlx.softmax %x {{axis = -1 : i64}} : {t}", t)]),
                     {"x": x})
    rtol, atol = (1e-5, 1e-6) if dtype == np.float32 else (2e-3, 1e-6)
    check.close(f"softmax {shape} axis -1 {np.dtype(dtype)}",
                outs[0] if outs else None, softmax_ref(x, -1, dtype), rtol, atol)

#===------------------------------------------------------------------------===#
# rlx.cumsum
#===------------------------------------------------------------------------===#


def cumsum_ref(x, axis, exclusive, dtype):
    kind = np.dtype(dtype).kind
    wide = x if kind in "iu" else x.astype(np.float64)
    y = np.cumsum(wide, axis=axis, dtype=dtype if kind in "iu" else None)
    if exclusive:
        y = y - wide  # exact for integers (wrapping) and in f64
    return y.astype(dtype)


CUMSUM_CASES = [((3, 5, 7), [0, 1, 2, -1, -2]), ((17,), [0, -1]),
                ((2, 1, 9), [1, 2]), ((1, 4, 1, 33), [3, 1, -2])]
for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64,
              np.int8, np.uint8):
    for shape, axes in CUMSUM_CASES:
        t = tensor_type(shape, dtype)
        x = sample(shape, dtype)
        ops, what = [], []
        for axis in axes:
            for exclusive in (False, True):
                flag = ", exclusive" if exclusive else ""
                ops.append((f"rlx.cumsum %x {{axis = {axis} : i64{flag}}} : {t}", t))
                what.append((axis, exclusive))
        outs = check.run(graph([("x", shape, dtype)], ops), {"x": x})
        for i, (axis, exclusive) in enumerate(what):
            rtol, atol = tolerance(dtype, shape[axis])
            check.close(f"cumsum {shape} axis {axis} exclusive={exclusive} "
                        f"{np.dtype(dtype)}", outs[i] if outs else None,
                        cumsum_ref(x, axis, exclusive, dtype), rtol, atol)

x = check.uniform((256, 1000), np.float32)
t = tensor_type((256, 1000), np.float32)
outs = check.run(graph([("x", (256, 1000), np.float32)],
                       [(f"rlx.cumsum %x {{axis = 1 : i64}} : {t}", t),
                        (f"rlx.cumsum %x {{axis = 0 : i64, exclusive}} : {t}", t)]),
                 {"x": x})
check.close("cumsum (256, 1000) axis 1", outs[0] if outs else None,
            cumsum_ref(x, 1, False, np.float32), 1e-5, 1e-6 * 1000)
check.close("cumsum (256, 1000) axis 0 exclusive", outs[1] if outs else None,
            cumsum_ref(x, 0, True, np.float32), 1e-5, 1e-6 * 256)

#===------------------------------------------------------------------------===#
# rlx.top_k
#===------------------------------------------------------------------------===#


def topk_ref(x, k):
    """Descending, ties by smaller index, NaN above every number."""
    kind = np.dtype(x.dtype).kind
    rows = x.reshape(-1, x.shape[-1])
    values, indices = [], []
    for row in rows:
        if kind == "f":
            wide = row.astype(np.float64)
            nan = np.isnan(wide)
            key = np.where(nan, 0.0, -wide)
            # lexsort: last key is primary.
            order = np.lexsort((np.arange(len(row)), key, ~nan))
        else:
            order = np.lexsort((np.arange(len(row)), -row.astype(np.int64)))
        order = order[:k]
        values.append(row[order])
        indices.append(order.astype(np.int64))
    shape = x.shape[:-1] + (k,)
    return (np.array(values, dtype=x.dtype).reshape(shape),
            np.array(indices, dtype=np.int64).reshape(shape))


TOPK_CASES = [((16, 8), [1, 2, 8]), ((9,), [1, 4, 9]), ((3, 1, 7), [3]),
              ((2, 3, 33), [5, 33]), ((1, 1), [1])]
for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64,
              np.uint8):
    for shape, ks in TOPK_CASES:
        if np.dtype(dtype).kind == "f":
            x = check.uniform(shape, dtype, -4, 4)
            # Ties (equal values at several indices) and NaN.
            flat = x.reshape(-1)
            if flat.size >= 4:
                flat[1] = flat[3]
                flat[2] = np.nan
                flat[-1] = np.nan
        else:
            # Few distinct values: many ties; uint8 above 127 checks the
            # unsigned order.
            high = 256 if dtype == np.uint8 else 6
            x = check.integers(shape, dtype, 0 if dtype == np.uint8 else -5, high)
        t = tensor_type(shape, dtype)
        ops = []
        for k in ks:
            out = shape[:-1] + (k,)
            ops.append((f"rlx.top_k %x {{k = {k} : i64}} : {t}",
                        f"{tensor_type(out, dtype)}, {tensor_type(out, np.int64)}"))
        mlir = graph([("x", shape, dtype)], [])
        # Two results per op: write the function by hand.
        args = f"%x: {t} {{rlx.input = \"x\"}}"
        types = ", ".join(r for _, r in ops)
        body = "".join(f"  %v{i}, %i{i} = {text}\n" for i, (text, _) in enumerate(ops))
        results = ", ".join(f"%v{i}, %i{i}" for i in range(len(ops)))
        mlir = (f"func.func @main({args}) -> ({types}) {{\n{body}"
                f"  return {results} : {types}\n}}")
        outs = check.run(mlir, {"x": x})
        for i, k in enumerate(ks):
            want_v, want_i = topk_ref(x, k)
            check.close(f"top_k {shape} k={k} values {np.dtype(dtype)}",
                        outs[2 * i] if outs else None, want_v, 0, 0)
            check.close(f"top_k {shape} k={k} indices {np.dtype(dtype)}",
                        outs[2 * i + 1] if outs else None, want_i, 0, 0)

# Sorted rows: ascending inserts every element at the top, descending
# keeps the first k.
for dtype in (np.float32, np.int32):
    x = np.stack([np.arange(33), np.arange(33)[::-1], np.zeros(33)]).astype(dtype)
    t = tensor_type((3, 33), dtype)
    rt = f"{tensor_type((3, 5), dtype)}, {tensor_type((3, 5), np.int64)}"
    outs = check.run(f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> ({rt}) {{\n"
                     f"  %v, %i = rlx.top_k %x {{k = 5 : i64}} : {t}\n"
                     f"  return %v, %i : {rt}\n}}", {"x": x})
    want_v, want_i = topk_ref(x, 5)
    check.close(f"top_k sorted rows values {np.dtype(dtype)}",
                outs[0] if outs else None, want_v, 0, 0)
    check.close(f"top_k sorted rows indices {np.dtype(dtype)}",
                outs[1] if outs else None, want_i, 0, 0)

# Without ties the oracle is torch.topk itself.
x = check.uniform((64, 1000), np.float32)
t = tensor_type((64, 1000), np.float32)
rt = f"{tensor_type((64, 10), np.float32)}, {tensor_type((64, 10), np.int64)}"
outs = check.run(f"func.func @main(%x: {t} {{rlx.input = \"x\"}}) -> ({rt}) {{\n"
                 f"  %v, %i = rlx.top_k %x {{k = 10 : i64}} : {t}\n"
                 f"  return %v, %i : {rt}\n}}", {"x": x})
want = torch.topk(torch.from_numpy(x), 10, dim=-1, largest=True, sorted=True)
check.close("top_k (64, 1000) k=10 values", outs[0] if outs else None,
            want.values.numpy(), 0, 0)
check.close("top_k (64, 1000) k=10 indices", outs[1] if outs else None,
            want.indices.numpy(), 0, 0)

#===------------------------------------------------------------------------===#
# rlx.scatter_add
#===------------------------------------------------------------------------===#

SCATTER_CASES = [(6, 4, 10), (1, 1, 1), (9, 17, 3), (40, 33, 7)]
for dtype in (np.float32, np.float64, np.float16, np.int32, np.int64):
    for index_dtype in (np.int32, np.int64):
        for u, cols, out_dim in SCATTER_CASES:
            updates = sample((u, cols), dtype)
            # Repeats, and out-of-range indices (negative and >= out_dim).
            idx = check.integers((u,), index_dtype, -2, out_dim + 2)
            ut = tensor_type((u, cols), dtype)
            it = tensor_type((u,), index_dtype)
            ot = tensor_type((out_dim, cols), dtype)
            mlir = (f"func.func @main(%u: {ut} {{rlx.input = \"u\"}}, %i: {it} {{rlx.input = \"i\"}}) -> {ot} {{\n"
                    f"  %0 = rlx.scatter_add %u, %i : {ut}, {it} -> {ot}\n"
                    f"  return %0 : {ot}\n}}")
            outs = check.run(mlir, {"u": updates, "i": idx})
            kind = np.dtype(dtype).kind
            acc = np.zeros((out_dim, cols),
                           dtype=dtype if kind in "iu" else np.float64)
            for row, target in enumerate(idx):
                if 0 <= target < out_dim:
                    acc[target] += updates[row].astype(acc.dtype)
            rtol, atol = tolerance(dtype, u)
            check.close(f"scatter_add U={u} T={cols} out={out_dim} "
                        f"{np.dtype(dtype)} {np.dtype(index_dtype)} indices",
                        outs[0] if outs else None, acc.astype(dtype), rtol, atol)

check.finish()
