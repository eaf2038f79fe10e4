# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""A small textual builder of rlx graphs for the model families.

Unlike the PyTorch importer's emitter, shapes may hold `None`: a `?` dim
whose size each run gives (docs/abi.md, dynamic shapes), such as the
number of tokens a prefill call takes. Each method writes one rlx op and
returns its result with the shape the op's type inference gives it
(docs/ops/)."""

import numpy as np

from .._shapes import DYNAMIC, broadcast_shapes


def type_text(shape, dtype):
    dims = "".join(("?" if d is DYNAMIC else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{dtype}>"


class Value:
    """An SSA value: its name, shape (ints and None for `?`) and rlx
    element type."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def type(self):
        return type_text(self.shape, self.dtype)


# -inf in each float type, as a hexadecimal literal of its bits.
_NEG_INF_BITS = {"f32": "0xFF800000", "bf16": "0xFF80", "f16": "0xFC00"}


def _float_text(value, dtype="f32"):
    if np.isneginf(value):
        return _NEG_INF_BITS[dtype]  # the only non-finite value used.
    if not np.isfinite(value):
        raise ValueError(f"constant {value} has no {dtype} literal here")
    return f"{float(value):.9e}"


class GraphText:
    """One graph function: arguments (inputs and parameters), a body of rlx
    ops, results. `text()` is the module."""

    def __init__(self, name):
        self.name = name
        self.arguments = []
        self.body = []
        self.count = 0

    def _fresh(self):
        self.count += 1
        return f"%v{self.count - 1}"

    def _op(self, text, shape, dtype):
        value = Value(self._fresh(), shape, dtype)
        self.body.append(f"  {value.name} = {text}")
        return value

    def _argument(self, kind, name, shape, dtype):
        value = Value(f"%arg{len(self.arguments)}", shape, dtype)
        self.arguments.append(
            f"{value.name}: {value.type} {{rlx.{kind} = \"{name}\"}}")
        return value

    def input(self, name, shape, dtype="f32"):
        return self._argument("input", name, shape, dtype)

    def param(self, name, shape, dtype="f32"):
        return self._argument("param", name, shape, dtype)

    def text(self, results, param_names=None):
        """The module returning `results`; `param_names`, when given, names
        for each result the `rlx.param` argument it becomes in the next
        step (None: none), as a training step's results do."""
        types = ", ".join(r.type for r in results)
        names = ", ".join(r.name for r in results)
        marked = types
        if param_names is not None:
            marked = ", ".join(
                r.type + ("" if n is None else f' {{rlx.param = "{n}"}}')
                for r, n in zip(results, param_names))
        arguments = ",\n    ".join(self.arguments)
        return "\n".join(
            [f"func.func @{self.name}(\n    {arguments})\n    -> ({marked}) {{"]
            + self.body + [f"  return {names} : {types}", "}", ""])

    # Ops, in the order of docs/ops.md.

    def constant(self, value, dtype="f32", shape=None):
        """A rank-1 array, or a scalar splat to `shape` (default: rank
        0)."""
        array = np.asarray(value)
        scalar = (lambda v: _float_text(v, dtype)) \
            if dtype.startswith(("f", "bf")) else (lambda v: str(int(v)))
        if array.ndim == 0:
            literal = scalar(array.item())
            shape = () if shape is None else tuple(shape)
        else:
            literal = "[" + ", ".join(scalar(v) for v in array) + "]"
            shape = array.shape
        return self._op(f"rlx.constant dense<{literal}> : "
                        f"{type_text(shape, dtype)}", shape, dtype)

    def activation(self, kind, x):
        return self._op(f"rlx.activation {kind} {x.name} : {x.type}",
                        x.shape, x.dtype)

    def cast(self, x, dtype):
        return self._op(f"rlx.cast {x.name} : {x.type} to {dtype}", x.shape,
                        dtype)

    def binary(self, kind, a, b):
        return self._op(f"rlx.binary {kind} {a.name}, {b.name} : {a.type}, "
                        f"{b.type}", broadcast_shapes(a.shape, b.shape), a.dtype)

    def compare(self, kind, a, b):
        return self._op(f"rlx.compare {kind} {a.name}, {b.name} : "
                        f"{a.type}, {b.type}", broadcast_shapes(a.shape, b.shape),
                        "i1")

    def where(self, cond, a, b):
        shape = broadcast_shapes(cond.shape, broadcast_shapes(a.shape, b.shape))
        return self._op(f"rlx.where {cond.name}, {a.name}, {b.name} : "
                        f"{cond.type}, {a.type}, {b.type}", shape, a.dtype)

    def matmul(self, a, b):
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        return self._op(f"rlx.matmul {a.name}, {b.name} : {a.type}, "
                        f"{b.type}", batch + (a.shape[-2], b.shape[-1]),
                        a.dtype)

    def rms_norm(self, x, gamma, beta, eps):
        return self._op(f"rlx.rms_norm {x.name}, {gamma.name}, {beta.name} "
                        f"{{axis = -1 : i64, eps = {_float_text(eps)} : "
                        f"f32}} : {x.type}, {gamma.type}, {beta.type}",
                        x.shape, x.dtype)

    def layer_norm(self, x, gamma, beta, eps):
        return self._op(f"rlx.layer_norm {x.name}, {gamma.name}, "
                        f"{beta.name} {{axis = -1 : i64, eps = "
                        f"{_float_text(eps)} : f32}} : {x.type}, "
                        f"{gamma.type}, {beta.type}", x.shape, x.dtype)

    def attention(self, q, k, v, bias):
        """q, k, v `[B, H, S, D]`; `bias` `[B, H, Sq, Sk]` is added to the
        scaled scores (-inf hides a key)."""
        heads, head_dim = q.shape[1], q.shape[3]
        return self._op(
            f"rlx.attention {q.name}, {k.name}, {v.name} mask {bias.name} : "
            f"{bias.type} {{head_dim = {head_dim} : i64, mask_kind = "
            f"#rlx.mask<bias>, num_heads = {heads} : i64}} : {q.type}, "
            f"{k.type}, {v.type}", q.shape, q.dtype)

    def dequant_matmul(self, x, packed, scheme, columns):
        """x `[M, K]` times the `[K, columns]` weight of the GGUF-packed
        ui8 bytes `packed` (`columns` rows of K elements quantized in
        `scheme`'s blocks, docs/quantization.md)."""
        return self._op(f"rlx.dequant_matmul {scheme} {x.name}, "
                        f"{packed.name} : {x.type}, {packed.type}",
                        (x.shape[0], columns), "f32")

    def rope(self, x, cos, sin, head_dim, n_rot):
        return self._op(f"rlx.rope {x.name}, {cos.name}, {sin.name} "
                        f"{{head_dim = {head_dim} : i64, n_rot = {n_rot} : "
                        f"i64}} : {x.type}, {cos.type}, {sin.type}",
                        x.shape, x.dtype)

    def reshape(self, x, shape):
        """`shape` may hold one -1 (None in the result where `x` has a `?`
        dim, its size otherwise)."""
        shape = tuple(shape)
        result = list(shape)
        if -1 in shape:
            known = [d for d in shape if d != -1]
            if DYNAMIC in x.shape:
                result[shape.index(-1)] = DYNAMIC
            else:
                result[shape.index(-1)] = (int(np.prod(x.shape))
                                           // int(np.prod(known)))
        dims = ", ".join(str(d) for d in shape)
        return self._op(f"rlx.reshape {x.name} new_shape = [{dims}] : "
                        f"{x.type}", result, x.dtype)

    def transpose(self, x, perm):
        return self._op(f"rlx.transpose {x.name} perm = "
                        f"[{', '.join(map(str, perm))}] : {x.type}",
                        [x.shape[p] for p in perm], x.dtype)

    def narrow(self, x, axis, start, length):
        shape = list(x.shape)
        shape[axis] = length
        return self._op(f"rlx.narrow {x.name} axis = {axis} start = {start} "
                        f"len = {length} : {x.type}", shape, x.dtype)

    def expand(self, x, shape):
        """`shape` may hold -1: that dim keeps `x`'s (a `?` stays `?`)."""
        offset = len(shape) - len(x.shape)
        result = [x.shape[i - offset] if d == -1 else d
                  for i, d in enumerate(shape)]
        dims = ", ".join(map(str, shape))
        return self._op(f"rlx.expand {x.name} target_shape = [{dims}] : "
                        f"{x.type}", result, x.dtype)

    def gather(self, table, indices, axis=0):
        shape = table.shape[:axis] + indices.shape + table.shape[axis + 1:]
        return self._op(f"rlx.gather {table.name}, {indices.name} axis = "
                        f"{axis} : {table.type}, {indices.type}", shape,
                        table.dtype)

    def reduce(self, kind, x, axes):
        axes = sorted(a % len(x.shape) for a in axes)
        shape = [d for i, d in enumerate(x.shape) if i not in axes]
        return self._op(f"rlx.reduce {kind} {x.name} axes = "
                        f"[{', '.join(map(str, axes))}] : {x.type}", shape,
                        x.dtype)

    def all_reduce(self, kind, x, ranks):
        """`kind` (sum, mean, max, min) of `x` over the `ranks` ranks of a
        one-axis mesh (docs/distributed.md)."""
        return self._op(f"rlx.all_reduce {kind} {x.name} mesh [{ranks}] : "
                        f"{x.type}", x.shape, x.dtype)

    def all_gather(self, x, dim, ranks):
        """The `ranks` ranks' `x` concatenated along `dim` in rank
        order."""
        shape = list(x.shape)
        shape[dim] *= ranks
        return self._op(f"rlx.all_gather {x.name} dim = {dim} mesh "
                        f"[{ranks}] : {x.type}", shape, x.dtype)

    # Composites.

    def linear(self, x, weight, bias=None):
        """x @ weight^T (+ bias): `weight` in the `[out, in]` layout of
        torch.nn.Linear, as checkpoints store it."""
        y = self.matmul(x, self.transpose(weight, [1, 0]))
        return self.binary("add", y, bias) if bias is not None else y

    def quantized_linear(self, x, packed, scheme, shape, bias=None):
        """`linear` of a weight of `shape` `[out, in]` kept GGUF-packed
        (`packed`, ui8 bytes of `out` rows of `in` elements in `scheme`'s
        blocks): x `[..., in]` is flattened to the `[M, in]` that
        rlx.dequant_matmul takes, then given back its leading dims. The
        product is f32: a half `x` is widened to it (exactly) and the
        product rounded once to x's type, as a half model's matmul
        accumulates in f32 and rounds its result."""
        out, inp = shape
        flat = self.reshape(x, (-1, inp))
        if x.dtype != "f32":
            flat = self.cast(flat, "f32")
        y = self.dequant_matmul(flat, packed, scheme, out)
        if x.dtype != "f32":
            y = self.cast(y, x.dtype)
        y = self.reshape(y, tuple(-1 if d is DYNAMIC else d
                                  for d in x.shape[:-1]) + (out,))
        return self.binary("add", y, bias) if bias is not None else y
