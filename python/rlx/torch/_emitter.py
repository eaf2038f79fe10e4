# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Textual rlx IR for the importer: one method per rlx op, each computing
its result type the way the op's type inference does (docs/ops/)."""

import numpy as np

from .._shapes import broadcast_shapes

_DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16",
           "bfloat16": "bf16", "int64": "i64", "int32": "i32",
           "int16": "i16", "int8": "i8", "uint8": "ui8", "bool": "i1"}


def rlx_dtype(torch_dtype):
    """The rlx element type of a torch dtype; None if rlx has none."""
    return _DTYPES.get(str(torch_dtype).replace("torch.", ""))


def torch_dtype(dtype):
    """The torch dtype of an rlx element type."""
    import torch
    name = {v: k for k, v in _DTYPES.items()}[dtype]
    return getattr(torch, name)


def tensor_type(shape, dtype):
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{dtype}>"


# MLIR spells a non-finite float as the hex bit pattern of its own type:
# (NaN, +inf, -inf) per element type.
_NON_FINITE = {
    "f64": ("0x7FF8000000000000", "0x7FF0000000000000",
            "0xFFF0000000000000"),
    "f32": ("0x7FC00000", "0x7F800000", "0xFF800000"),
    "f16": ("0x7E00", "0x7C00", "0xFC00"),
    "bf16": ("0x7FC0", "0x7F80", "0xFF80"),
}


def _float_literal(value, dtype):
    if np.isnan(value) or np.isinf(value):
        nan, inf, ninf = _NON_FINITE[dtype]
        return nan if np.isnan(value) else inf if value > 0 else ninf
    # Always with a point and an exponent, as MLIR's float literals need.
    return f"{float(value):.17e}"


class Value:
    """An SSA value with its static shape and rlx element type."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self):
        return len(self.shape)


class Emitter:
    """Collects the body of one graph function, or of a region of one of
    its ops (`parent`: the emitter of the enclosing body, which numbers
    every value, so that names are unique in the whole function)."""

    def __init__(self, parent=None, indent="  "):
        self.lines = []
        self.parent = parent
        self.indent = indent
        self.count = 0

    def _fresh(self, prefix):
        if self.parent is not None:
            return self.parent._fresh(prefix)
        self.count += 1
        return f"%{prefix}{self.count - 1}"

    def _value(self, name, shape, dtype):
        """The Value of an SSA name (a subclass's, for its dims)."""
        return Value(name, shape, dtype)

    def _emit(self, text, shape, dtype):
        name = self._fresh("v")
        self.lines.append(f"{self.indent}{name} = {text}")
        return self._value(name, shape, dtype)

    def constant(self, value, dtype, shape=()):
        """A splat of `value`, or a dense array for an ndarray."""
        if isinstance(value, np.ndarray):
            shape = value.shape
            flat = value.reshape(-1)
            if flat.size and np.all(flat == flat[0]):
                literal = self._scalar(flat[0], dtype)
            else:
                literal = self._nested(value, dtype)
        else:
            literal = self._scalar(value, dtype)
        return self._emit(f"rlx.constant dense<{literal}> : "
                          f"{tensor_type(shape, dtype)}", shape, dtype)

    def _scalar(self, value, dtype):
        if dtype == "i1":
            return "true" if value else "false"
        if dtype.startswith("f") or dtype == "bf16":
            return _float_literal(value, dtype)
        return str(int(value))

    def _nested(self, array, dtype):
        if array.ndim == 0:
            return self._scalar(array.item(), dtype)
        return "[" + ", ".join(self._nested(a, dtype) for a in array) + "]"

    def binary(self, kind, a, b):
        shape = broadcast_shapes(a.shape, b.shape)
        return self._emit(f"rlx.binary {kind} {a.name}, {b.name} : "
                          f"{a.type}, {b.type}", shape, a.dtype)

    def compare(self, kind, a, b):
        shape = broadcast_shapes(a.shape, b.shape)
        return self._emit(f"rlx.compare {kind} {a.name}, {b.name} : "
                          f"{a.type}, {b.type}", shape, "i1")

    def where(self, cond, a, b):
        shape = broadcast_shapes(cond.shape,
                                 broadcast_shapes(a.shape, b.shape))
        return self._emit(f"rlx.where {cond.name}, {a.name}, {b.name} : "
                          f"{cond.type}, {a.type}, {b.type}", shape, a.dtype)

    def activation(self, kind, x):
        return self._emit(f"rlx.activation {kind} {x.name} : {x.type}",
                          x.shape, x.dtype)

    def cast(self, x, dtype):
        if x.dtype == dtype:
            return x
        return self._emit(f"rlx.cast {x.name} : {x.type} to {dtype}",
                          x.shape, dtype)

    def matmul(self, a, b):
        if a.rank < 2 or b.rank < 2:
            raise ValueError("rlx.matmul takes operands of rank >= 2")
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        shape = batch + (a.shape[-2], b.shape[-1])
        return self._emit(f"rlx.matmul {a.name}, {b.name} : {a.type}, "
                          f"{b.type}", shape, a.dtype)

    def reshape(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if shape == x.shape:
            return x
        dims = ", ".join(str(d) for d in shape)
        return self._emit(f"rlx.reshape {x.name} new_shape = [{dims}] : "
                          f"{x.type}", shape, x.dtype)

    def transpose(self, x, perm):
        perm = [p % max(1, x.rank) for p in perm]
        if perm == list(range(x.rank)):
            return x
        shape = tuple(x.shape[p] for p in perm)
        return self._emit(f"rlx.transpose {x.name} perm = "
                          f"[{', '.join(map(str, perm))}] : {x.type}",
                          shape, x.dtype)

    def narrow(self, x, axis, start, length):
        if start == 0 and length == x.shape[axis]:
            return x
        shape = list(x.shape)
        shape[axis] = length
        return self._emit(f"rlx.narrow {x.name} axis = {axis} start = "
                          f"{start} len = {length} : {x.type}", shape,
                          x.dtype)

    def concat(self, values, axis):
        if len(values) == 1:
            return values[0]
        shape = list(values[0].shape)
        shape[axis] = sum(v.shape[axis] for v in values)
        names = ", ".join(v.name for v in values)
        types = ", ".join(v.type for v in values)
        return self._emit(f"rlx.concat {names} axis = {axis} : {types}",
                          shape, values[0].dtype)

    def expand(self, x, shape):
        shape = tuple(int(d) for d in shape)
        if shape == x.shape:
            return x
        dims = ", ".join(map(str, shape))
        return self._emit(f"rlx.expand {x.name} target_shape = [{dims}] : "
                          f"{x.type}", shape, x.dtype)

    def reduce(self, kind, x, axes, keepdim=False):
        axes = sorted(a % x.rank for a in axes)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        result = self._emit(f"rlx.reduce {kind} {x.name} axes = "
                            f"[{', '.join(map(str, axes))}] : {x.type}",
                            shape, x.dtype)
        if keepdim:
            kept = tuple(1 if i in axes else d
                         for i, d in enumerate(x.shape))
            result = self.reshape(result, kept)
        return result

    def softmax(self, x, axis):
        return self._emit(f"rlx.softmax {x.name} {{axis = {axis} : i64}} : "
                          f"{x.type}", x.shape, x.dtype)

    def softmax_cross_entropy_with_logits(self, logits, labels):
        """The per-row loss [N] of logits [N, C] at labels [N] (i32/i64);
        a label outside [0, C) gives its row 0."""
        return self._emit(f"rlx.softmax_cross_entropy_with_logits "
                          f"{logits.name}, {labels.name} : {logits.type}, "
                          f"{labels.type}", logits.shape[:1], logits.dtype)

    def gather(self, table, indices, axis):
        shape = table.shape[:axis] + indices.shape + table.shape[axis + 1:]
        return self._emit(f"rlx.gather {table.name}, {indices.name} axis = "
                          f"{axis} : {table.type}, {indices.type}", shape,
                          table.dtype)

    def scatter_add(self, updates, indices, rows):
        """rlx.scatter_add of `updates` [U, T] at `indices` [U] into zeros
        [rows, T]."""
        shape = (rows, updates.shape[1])
        return self._emit(f"rlx.scatter_add {updates.name}, {indices.name} "
                          f": {updates.type}, {indices.type} -> "
                          f"{tensor_type(shape, updates.dtype)}", shape,
                          updates.dtype)

    def layer_norm(self, x, gamma, beta, eps):
        return self._emit(
            f"rlx.layer_norm {x.name}, {gamma.name}, {beta.name} "
            f"{{axis = -1 : i64, eps = {float(eps):e} : f32}} : {x.type}, "
            f"{gamma.type}, {beta.type}", x.shape, x.dtype)

    def conv(self, x, w, stride, padding, dilation, groups):
        n, _, h, wd = x.shape
        out_c, _, kh, kw = w.shape
        oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
        ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] \
            + 1

        def pair(p):
            return f"[{p[0]}, {p[1]}]"
        return self._emit(
            f"rlx.conv {x.name}, {w.name} kernel_size = {pair((kh, kw))}, "
            f"stride = {pair(stride)}, padding = {pair(padding)}, dilation = "
            f"{pair(dilation)}, groups = {groups} : {x.type}, {w.type}",
            (n, out_c, oh, ow), x.dtype)

    def conv_transpose2d(self, x, w, stride, padding, output_padding,
                         dilation, groups):
        n, _, h, wd = x.shape
        _, out_per_group, kh, kw = w.shape
        size = [(d - 1) * s - 2 * p + dl * (k - 1) + op + 1
                for d, s, p, dl, k, op in zip((h, wd), stride, padding,
                                              dilation, (kh, kw),
                                              output_padding)]

        def pair(p):
            return f"[{p[0]}, {p[1]}]"
        return self._emit(
            f"rlx.conv_transpose2d {x.name}, {w.name} kernel_size = "
            f"{pair((kh, kw))}, stride = {pair(stride)}, padding = "
            f"{pair(padding)}, dilation = {pair(dilation)}, output_padding "
            f"= {pair(output_padding)}, groups = {groups} : {x.type}, "
            f"{w.type}", (n, out_per_group * groups, *size), x.dtype)

    def cumsum(self, x, axis):
        return self._emit(f"rlx.cumsum {x.name} {{axis = {axis} : i64}} : "
                          f"{x.type}", x.shape, x.dtype)

    def top_k(self, x, k):
        """rlx.top_k along the last axis: (values, i64 indices)."""
        values, indices = self._fresh("v"), self._fresh("v")
        self.lines.append(f"{self.indent}{values}, {indices} = rlx.top_k "
                          f"{x.name} {{k = {k} : i64}} : {x.type}")
        shape = tuple(x.shape[:-1]) + (k,)
        return (self._value(values, shape, x.dtype),
                self._value(indices, shape, "i64"))

    def resize(self, x, mode, sizes, align_corners=False, scales=None):
        """rlx.resize of the last len(sizes) dims of `x`."""
        attrs = []
        if align_corners:
            attrs.append("align_corners")
        if scales is not None:
            attrs.append("scales = array<f64: " +
                         ", ".join(repr(float(s)) for s in scales) + ">")
        attr_dict = " {" + ", ".join(attrs) + "}" if attrs else ""
        shape = tuple(x.shape[:len(x.shape) - len(sizes)]) + tuple(sizes)
        return self._emit(
            f"rlx.resize {mode} {x.name} to [{', '.join(map(str, sizes))}]"
            f"{attr_dict} : {x.type}", shape, x.dtype)

    def pool(self, kind, x, kernel, stride, padding):
        n, c, h, w = x.shape
        oh = (h + 2 * padding[0] - kernel[0]) // stride[0] + 1
        ow = (w + 2 * padding[1] - kernel[1]) // stride[1] + 1

        def pair(p):
            return f"[{p[0]}, {p[1]}]"
        return self._emit(
            f"rlx.pool {kind} {x.name} kernel_size = {pair(kernel)}, stride "
            f"= {pair(stride)}, padding = {pair(padding)} : {x.type}",
            (n, c, oh, ow), x.dtype)

    def attention(self, q, k, v, num_heads, head_dim, mask_kind="none",
                  mask=None, scale=None):
        """q, k, v: [B, H, S, D]."""
        attrs = [f"head_dim = {head_dim} : i64",
                 f"mask_kind = #rlx.mask<{mask_kind}>",
                 f"num_heads = {num_heads} : i64"]
        if scale is not None:
            attrs.append(f"score_scale = {float(scale):e} : f32")
        masked = f" mask {mask.name} : {mask.type}" if mask is not None \
            else ""
        return self._emit(
            f"rlx.attention {q.name}, {k.name}, {v.name}{masked} "
            f"{{{', '.join(attrs)}}} : {q.type}, {k.type}, {v.type}",
            q.shape, q.dtype)

    def scan(self, init, bcasts, xs, body, save_trajectory=False,
             length=None):
        """rlx.scan over the leading dim of each of `xs` (`length` steps,
        by default that dim). `body(e, carry, bcasts, x_ts)` emits the step
        into the region's emitter `e` (of this emitter's class) and returns
        the next carry. The result is the final carry, or the carries after
        each step stacked ([length, *carry])."""
        if length is None:
            length = xs[0].shape[0]
        inner = type(self)(self, self.indent + "  ")
        carry = self._value(self._fresh("s"), init.shape, init.dtype)
        inner_bcasts = [self._value(self._fresh("s"), b.shape, b.dtype)
                        for b in bcasts]
        x_ts = [self._value(self._fresh("s"), x.shape[1:], x.dtype)
                for x in xs]
        result = body(inner, carry, inner_bcasts, x_ts)
        if result.type != init.type:
            raise ValueError(f"the scan body yields {result.type}, its "
                             f"carry is {init.type}")
        arguments = ", ".join(f"{v.name}: {v.type}"
                              for v in [carry] + inner_bcasts + x_ts)

        def operands(keyword, values):
            if not values:
                return ""
            return (f" {keyword}({', '.join(v.name for v in values)} : "
                    f"{', '.join(v.type for v in values)})")
        text = "\n".join(
            [f"rlx.scan {init.name} : {init.type}" +
             operands("bcast", bcasts) + operands("xs", xs) +
             f" length = {length}" +
             (" save_trajectory" if save_trajectory else "") + " body {",
             f"{self.indent}^bb0({arguments}):"] + inner.lines +
            [f"{inner.indent}rlx.yield {result.name} : {result.type}",
             f"{self.indent}}}"])
        shape = ((length,) + init.shape) if save_trajectory else init.shape
        return self._emit(text, shape, init.dtype)
