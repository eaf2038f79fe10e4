# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""`import_module(..., dynamic=...)`: one graph whose symbolic dims are `?`
(docs/torch-importer.md, "Symbolic dims").

The translations compute shapes with ints. So the module is translated at
the example sizes and once more for each symbolic dim at another size
(other_size; the others kept), each time recording the ops the
translations ask the emitter for. The translations must ask for the same
ops each time (else the graph depends on a size, an error naming the
node); a number that differs between them is a function of the sizes: a
product of symbolic dims and a static factor (`batch`, `batch*4`,
`batch*seq`) is a symbolic dim, spelled as the ONNX importer spells its
dims (python/rlx/torch/_symbolic.py), anything else an error naming the
node and the dim. The recorded ops are then replayed on a symbolic
emitter with those dims, and each result's dims are checked against the
recorded ones.

A reshape that merges `?` dims is not emitted where it is asked for: its
result is a view, the unmerged value with its dims grouped, which the ops
that can work on the unmerged dims take as it is (elementwise ops,
transposes, matmuls, softmax, layer norm). aten's linear layers flatten
[seq, batch, d] to [seq * batch, d] and back, and attention views
[seq, batch, d] as [seq, batch * heads, d / heads]: rlx.reshape infers one
`?` dim, so neither way back is a reshape once both dims are `?`."""

import inspect
import math
import re

import numpy as np
import torch

from .._capi import RLXError
from ._emitter import Emitter, Value
from ._symbolic import (SymbolicEmitter, SymbolicValue, broadcast_dims,
                        is_static, make_dim, regroup)

DEFAULT_NAME = "batch"


# -- the request ----------------------------------------------------------
def parse(dynamic, names, example_inputs):
    """{input index: {axis: symbol}} of `dynamic` (True: dim 0 of every
    input is `batch`), and {symbol: its example size}."""
    if dynamic is True:
        requested = {name: {0: DEFAULT_NAME} for name in names}
    elif isinstance(dynamic, dict):
        requested = dynamic
    else:
        raise RLXError(f"dynamic={dynamic!r}: give True (dim 0 of every "
                       "input is the symbolic dim 'batch') or {input name: "
                       "{dim: symbol name}}")
    spec, sizes = {}, {}
    for name, dims in requested.items():
        if name not in names:
            raise RLXError(f"dynamic names '{name}', which is not an input "
                           f"of forward ({', '.join(names)})")
        index = names.index(name)
        example = example_inputs[index]
        if not isinstance(example, torch.Tensor):
            raise RLXError(f"dynamic names input '{name}', which is a "
                           f"{type(example).__name__}, not a tensor")
        if not isinstance(dims, dict):
            raise RLXError(f"dynamic['{name}'] is {dims!r}: give {{dim: "
                           "symbol name}}")
        for axis, symbol in dims.items():
            if not isinstance(axis, int) or \
                    not -example.dim() <= axis < example.dim():
                raise RLXError(f"dynamic['{name}'] names dim {axis!r} of a "
                               f"rank-{example.dim()} input")
            if not isinstance(symbol, str) or \
                    not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", symbol):
                raise RLXError(f"dynamic['{name}'][{axis}] is {symbol!r}: a "
                               "symbolic dim is named by an identifier")
            axis %= example.dim()
            size = example.shape[axis]
            where = f"dim {axis} of input '{name}'"
            if size < 2:
                # A size of 1 broadcasts (and squeeze drops it): the trace
                # would hold ops that only that size needs.
                raise RLXError(f"{where} ('{symbol}') is {size} in the "
                               "example: give a size of at least 2 for a "
                               "symbolic dim")
            if sizes.setdefault(symbol, size) != size:
                raise RLXError(f"{where} is '{symbol}', of size {size} in "
                               f"the example, but another '{symbol}' is "
                               f"{sizes[symbol]}: dims of one symbol are "
                               "one size" + (" (dynamic=True names dim 0 of "
                                             "every input 'batch'; give "
                                             "dynamic={...})"
                                             if dynamic is True else ""))
            spec.setdefault(index, {})[axis] = symbol
    return spec, sizes


def variants(spec, sizes, example_inputs):
    """The sizes and inputs of each translation: the example's, then for
    each symbol 2n + 1 of its example size n, the others kept. The inputs
    are resized by repeating their rows along the symbolic dims, so that
    their values (a token id, a mask) stay ones the module takes."""
    runs = [(dict(sizes), tuple(example_inputs))]
    for symbol in sizes:
        changed = dict(sizes, **{symbol: other_size(sizes[symbol])})
        inputs = list(example_inputs)
        for index, dims in spec.items():
            tensor = inputs[index]
            for axis, name in dims.items():
                rows = torch.arange(changed[name]) % tensor.shape[axis]
                tensor = tensor.index_select(axis, rows)
            inputs[index] = tensor
        runs.append((changed, tuple(inputs)))
    return runs


def other_size(size):
    """The second size a symbolic dim of example size n is traced at:
    2n + 1, not n + 1. A dim that follows the symbolic one only up to a
    bound (x[:4] of a batch) is the symbolic dim itself at two sizes within
    the bound, and would be taken for it (a wrong graph beyond the bound);
    at 2n + 1 it differs from it for the bounds below 2n + 1 (an error)."""
    return 2 * size + 1


def describe(sizes):
    return ", ".join(f"{name}={size}" for name, size in sizes.items())


# -- recording ------------------------------------------------------------
class _Call:
    """One op a translation asked for: the emitter's method, its arguments
    by name, its result, and the node being translated (converter, node);
    for a scan, its body as recorded (emitter, carry, bcasts, x_ts,
    result)."""

    def __init__(self, method, arguments, node):
        self.method, self.arguments, self.node = method, arguments, node
        self.result = None
        self.body = None

    def where(self):
        if self.node is None:
            return ""
        converter, node = self.node
        return converter.where(node)

    def node_name(self):
        return self.node[1].name if self.node else None


class Recorder(Emitter):
    """The emitter of one translation: emits as Emitter does, and records
    each op the translations ask for, with the node that asked
    (`node`, set by the converter)."""

    def __init__(self, parent=None, indent="  "):
        super().__init__(parent, indent)
        self.calls = []
        self.node = None
        self._depth = 0

    def _asking(self):
        root = self
        while root.parent is not None:
            root = root.parent
        return root.node


def _snapshot(tree):
    """The arguments as they are now (a translation may change a list it
    passed afterwards), sequences as lists and tuples (a torch.Size too:
    the replay puts symbolic dims in them)."""
    if isinstance(tree, list):
        return [_snapshot(t) for t in tree]
    if isinstance(tree, tuple):
        return tuple(_snapshot(t) for t in tree)
    if isinstance(tree, dict):
        return {k: _snapshot(v) for k, v in tree.items()}
    return tree


def _recording(name):
    method = getattr(Emitter, name)
    signature = inspect.signature(method)

    def record(self, *args, **kwargs):
        if self._depth:
            # An op's own use of another (reduce's keepdim reshape).
            return method(self, *args, **kwargs)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(list(bound.arguments.items())[1:])
        call = _Call(name, _snapshot(arguments), self._asking())
        if name == "scan":
            body = arguments["body"]

            def traced(e, carry, bcasts, x_ts):
                result = body(e, carry, bcasts, x_ts)
                call.body = (e, carry, list(bcasts), list(x_ts), result)
                return result
            arguments["body"] = traced
        self._depth += 1
        try:
            call.result = method(self, **arguments)
        finally:
            self._depth -= 1
        self.calls.append(call)
        return call.result
    return record


_OPS = [n for n, v in vars(Emitter).items()
        if not n.startswith("_") and callable(v)]
for _name in _OPS:
    setattr(Recorder, _name, _recording(_name))


# -- views ------------------------------------------------------------------
class _View(SymbolicValue):
    """A value of shape `shape` that the graph holds as `backing`, a value
    whose dims, grouped by `groups` (consecutive; one group per dim of
    `shape`, none for a 1), multiply to `shape`'s: what a reshape merging
    `?` dims makes, kept unmerged until an op needs it merged."""

    def __init__(self, backing, groups, shape):
        self.backing = backing
        self.groups = tuple(tuple(g) for g in groups)
        self.shape = tuple(shape)
        self.dtype = backing.dtype
        self.origin = None  # the node that made it, for messages

    @property
    def name(self):
        raise RLXError("internal error: an unmerged view used as an operand")

    def pieces(self, axis):
        return tuple(self.backing.shape[a] for a in self.groups[axis])


def _consecutive(counts):
    groups, start = [], 0
    for count in counts:
        groups.append(tuple(range(start, start + count)))
        start += count
    return groups


def _unknowns(shape):
    return sum(isinstance(d, str) for d in shape)


class ViewEmitter(SymbolicEmitter):
    """The symbolic emitter the recorded ops are replayed on, whose values
    may be _Views: reshape_view makes them, the ops below take them (the
    replay merges them for any other op: materialize)."""

    def materialize(self, x):
        if not isinstance(x, _View):
            return x
        try:
            return self.reshape(x.backing, x.shape)
        except ValueError as error:
            raise ValueError(f"it reads node '{x.origin}''s result merged: "
                             f"{error}") from None

    def _wrap(self, backing, groups, shape):
        if tuple(shape) == backing.shape and \
                all(tuple(g) == (i,) for i, g in enumerate(groups)):
            return backing
        return _View(backing, groups, shape)

    def reshape_view(self, x, shape):
        """x reshaped to `shape`: a view where the reshape merges dims and
        x has several `?` dims, else rlx ops (reshape())."""
        shape = tuple(d if isinstance(d, str) else int(d) for d in shape)
        if shape == x.shape:
            return x
        backing = x.backing if isinstance(x, _View) else x
        if _unknowns(backing.shape) <= 1:
            return self.reshape(backing, shape)
        plan = regroup(backing.shape, shape)
        if plan is None or all(len(g) <= 1 for g in plan[1]):
            return self.reshape(backing, shape)
        pieces, groups = plan
        return self._wrap(self.to_pieces(backing, pieces), groups, shape)

    def transpose(self, x, perm):
        if not isinstance(x, _View):
            return super().transpose(x, perm)
        perm = [p % x.rank for p in perm]
        order = [a for p in perm for a in x.groups[p]]
        groups = _consecutive([len(x.groups[p]) for p in perm])
        return self._wrap(super().transpose(x.backing, order), groups,
                          [x.shape[p] for p in perm])

    def activation(self, kind, x):
        if not isinstance(x, _View):
            return super().activation(kind, x)
        return _View(super().activation(kind, x.backing), x.groups, x.shape)

    def cast(self, x, dtype):
        if not isinstance(x, _View):
            return super().cast(x, dtype)
        return _View(super().cast(x.backing, dtype), x.groups, x.shape)

    def _whole_axis(self, x, axis):
        """The backing's axis that holds x's dim `axis` whole, or None."""
        group = x.groups[axis % x.rank]
        return group[0] if len(group) == 1 else None

    def softmax(self, x, axis):
        if isinstance(x, _View):
            atom = self._whole_axis(x, axis)
            if atom is not None:
                return _View(super().softmax(x.backing, atom), x.groups,
                             x.shape)
            x = self.materialize(x)
        return super().softmax(x, axis)

    def layer_norm(self, x, gamma, beta, eps):
        if isinstance(x, _View):
            if self._whole_axis(x, -1) is not None:
                return _View(super().layer_norm(x.backing, gamma, beta, eps),
                             x.groups, x.shape)
            x = self.materialize(x)
        return super().layer_norm(x, gamma, beta, eps)

    def _elementwise_views(self, operands, emit):
        """emit(operands) over the backings where an operand is a view:
        each operand reshaped to the pieces of the result's dims (a 1 where
        it broadcasts), the result a view of the same groups. Where the
        operands' dims are not in the same pieces, over the merged
        operands."""
        if not any(isinstance(v, _View) for v in operands):
            return emit(operands)
        lifted = self._lift(operands)
        if lifted is None:
            return emit([self.materialize(v) for v in operands])
        values, groups, shape = lifted
        return self._wrap(emit(values), groups, shape)

    def _lift(self, operands):
        shape = ()
        for v in operands:
            shape = broadcast_dims(shape, v.shape)
        rank = len(shape)
        pieces = [None] * rank
        for v in operands:
            if not isinstance(v, _View):
                continue
            offset = rank - v.rank
            for i, d in enumerate(v.shape):
                if d != 1 and d == shape[offset + i]:
                    if pieces[offset + i] not in (None, v.pieces(i)):
                        return None
                    pieces[offset + i] = v.pieces(i)
        pieces = [p if p is not None else (() if d == 1 else (d,))
                  for p, d in zip(pieces, shape)]
        values = []
        for v in operands:
            offset = rank - v.rank
            target = []
            for i, d in enumerate(v.shape):
                want = pieces[offset + i]
                if d == 1:
                    target += [1] * len(want)
                elif isinstance(v, _View):
                    if v.pieces(i) != want:
                        return None
                    target += want
                elif len(want) == 1:
                    target.append(d)
                elif is_static([d]):
                    target += want  # a static dim split as the view's
                else:
                    return None
            values.append(self.reshape(v.backing if isinstance(v, _View)
                                       else v, target))
        return values, _consecutive([len(p) for p in pieces]), shape

    def binary(self, kind, a, b):
        return self._elementwise_views(
            [a, b], lambda v: super(ViewEmitter, self).binary(kind, *v))

    def compare(self, kind, a, b):
        return self._elementwise_views(
            [a, b], lambda v: super(ViewEmitter, self).compare(kind, *v))

    def where(self, cond, a, b):
        return self._elementwise_views(
            [cond, a, b], lambda v: super(ViewEmitter, self).where(*v))

    def _whole(self, x, axis):
        """x with its dim `axis` held by one dim of its backing (its static
        pieces merged); None where they are not static."""
        if not isinstance(x, _View) or len(x.groups[axis]) == 1:
            return x
        group = x.groups[axis]
        if not group or not is_static(x.pieces(axis)):
            return None
        backing = self._merge_static(x.backing, group[0], len(group))
        shift = len(group) - 1
        groups = [g if i < axis else (group[0],) if i == axis else
                  tuple(a - shift for a in g)
                  for i, g in enumerate(x.groups)]
        return self._wrap(backing, groups, x.shape)

    def matmul(self, a, b):
        if not isinstance(a, _View) and not isinstance(b, _View):
            return super().matmul(a, b)
        product = self._matmul_views(a, b)
        if product is None:
            product = super().matmul(self.materialize(a),
                                     self.materialize(b))
        return product

    def _matmul_views(self, a, b):
        if a.rank < 2 or b.rank < 2:
            return None
        a, b = self._whole(a, a.rank - 1), self._whole(b, b.rank - 2)
        if a is None or b is None:
            return None
        a_backing = a.backing if isinstance(a, _View) else a
        a_groups = a.groups if isinstance(a, _View) else \
            [(i,) for i in range(a.rank)]
        shape = broadcast_dims(a.shape[:-2], b.shape[:-2]) + \
            (a.shape[-2], b.shape[-1])
        if b.rank == 2 and not isinstance(b, _View):
            # The rows of a, however grouped, times b.
            product = super().matmul(a_backing, b)
            return self._wrap(product, list(a_groups[:-1]) +
                              [(product.rank - 1,)], shape)
        if not isinstance(a, _View) or not isinstance(b, _View) or \
                a.rank != b.rank or len(a.groups[-2]) != 1 or \
                len(b.groups[-1]) != 1 or \
                any(a.pieces(i) != b.pieces(i) for i in range(a.rank - 2)):
            return None
        # A batched matmul whose batch dims are in the same pieces.
        product = super().matmul(a.backing, b.backing)
        return self._wrap(product, list(a.groups[:-1]) +
                          [(product.rank - 1,)], shape)


# Ops that take views; the replay merges views for the others.
_VIEW_OPS = {"reshape", "transpose", "activation", "cast", "softmax",
             "layer_norm", "binary", "compare", "where", "matmul"}


# -- the merge --------------------------------------------------------------
class _Differs:
    """A leaf of an op's arguments that differs between translations."""

    def __init__(self, values, dim):
        self.values, self.dim = values, dim


class Merger:
    """Replays the ops the translations recorded (the same ops, by
    construction of each: checked) on a ViewEmitter, with the arguments
    that differ between them as symbolic dims."""

    def __init__(self, runs, sizes, varied):
        # runs: (converter, recorder, results) of each translation; sizes:
        # the symbols' sizes in each; varied: symbol -> the translation
        # that changes its size.
        self.runs, self.sizes, self.varied = runs, sizes, varied
        self.e = ViewEmitter()
        self.bound = [{} for _ in runs]  # id(a translation's value) -> ours

    def fit(self, values):
        """The dim that is values[i] at sizes[i]: an int, or a product of
        symbols and a factor; None if it is neither."""
        base = values[0]
        if all(v == base for v in values):
            return base
        names = [s for s, run in self.varied.items()
                 if values[run] != base]
        count = math.prod(self.sizes[0][s] for s in names)
        if base % count:
            return None
        factor = base // count
        for value, sizes in zip(values, self.sizes):
            if value != factor * math.prod(sizes[s] for s in names):
                return None
        return make_dim(names, factor)

    def at(self, values):
        return "; ".join(f"{v} at {describe(s)}"
                         for v, s in zip(values, self.sizes))

    def run(self):
        converter = self.runs[0][0]
        arguments = self.merge_arguments()
        self.replay([recorder.calls for _, recorder, _ in self.runs],
                    self.e)
        outputs = [results for _, _, results in self.runs]
        if len({len(o) for o in outputs}) != 1:
            raise RLXError("the module returns a different number of "
                           f"tensors at {describe(self.sizes[0])} and at "
                           "other sizes")
        results = []
        for index, values in enumerate(zip(*outputs)):
            try:
                results.append(self.e.materialize(
                    self.value(list(values), None)))
            except ValueError as error:
                raise RLXError(f"output {index} of the module: {error}") \
                    from None
        converter.e, converter.arguments = self.e, arguments
        return converter, results

    def merge_arguments(self):
        lists = [converter.arguments for converter, _, _ in self.runs]
        merged = []
        for entries in zip(*lists):
            value, attribute, name, is_state = entries[0]
            if any(e[1:] != entries[0][1:] or e[0].dtype != value.dtype or
                   e[0].rank != value.rank for e in entries):
                raise self.differs(None, f"its arguments ('{name}')")
            shape = []
            for axis in range(value.rank):
                dims = [e[0].shape[axis] for e in entries]
                dim = self.fit(dims)
                if dim is None:
                    raise RLXError(f"dim {axis} of '{name}' is {self.at(dims)}"
                                   ": not a product of the symbolic dims")
                shape.append(dim)
            argument = SymbolicValue(value.name, shape, value.dtype)
            for run, e in enumerate(entries):
                self.bound[run][id(e[0])] = [argument]
            if attribute == "rlx.input":
                for axis, dim in enumerate(shape):
                    if isinstance(dim, str):
                        self.e.symbols.setdefault(dim, (argument, axis))
            merged.append((argument, attribute, name, is_state))
        if len({len(arguments) for arguments in lists}) != 1:
            raise self.differs(None, "the parameters it reads")
        return merged

    def differs(self, call, what, other=None):
        """The error of translations that differ: `other` is the run and
        call where they first do."""
        where = call.where() if call is not None else ""
        at = f"{describe(self.sizes[0])} and the other sizes traced"
        if other is not None:
            run, theirs = other
            at = f"{describe(self.sizes[0])} and {describe(self.sizes[run])}"
            if theirs is None:
                what += f" (at {describe(self.sizes[run])} there are fewer)"
            elif theirs.node_name() != call.node_name():
                what += (f" (node '{call.node_name()}' at "
                         f"{describe(self.sizes[0])}, '{theirs.node_name()}' "
                         f"at {describe(self.sizes[run])})")
        return RLXError(
            f"{where}{what} differ between {at}: the graph would depend on "
            "the size of a symbolic dim (Python control flow on a size?), "
            "and one graph with `?` dims cannot")

    def replay(self, lists, e):
        for position in range(max(len(calls) for calls in lists)):
            calls = [c[position] if position < len(c) else None
                     for c in lists]
            first = calls[0] or next(c for c in calls if c is not None)
            for run, call in enumerate(calls):
                if call is None or call.method != first.method or \
                        call.node_name() != first.node_name():
                    raise self.differs(first, "the ops of its translation",
                                       (run, call))
            self.replay_call(calls, e)

    def replay_call(self, calls, e):
        first = calls[0]
        arguments = {}
        for key in first.arguments:
            if first.method == "scan" and key == "body":
                continue
            arguments[key] = self.merge([c.arguments[key] for c in calls],
                                        first)
        self.resolve(first, arguments)
        method = first.method
        if method == "scan":
            self.check_scan(first, arguments)
            arguments["body"] = self.replay_body(calls)
        if method not in _VIEW_OPS:
            arguments = {k: self.materialized(e, v)
                         for k, v in arguments.items()}
        try:
            result = getattr(e, "reshape_view" if method == "reshape"
                             else method)(**arguments)
        except TypeError as error:
            # A size computed from a dim that is `?` here (a convolution's
            # output length from a symbolic length).
            operands = ", ".join(v.type for v in _values(arguments))
            raise RLXError(
                f"{first.where()}rlx.{method} of {operands}: its result's "
                "size is computed from static sizes where these have `?` "
                f"dims ({error})") from None
        except (ValueError, IndexError, KeyError) as error:
            raise RLXError(f"{first.where()}{error}") from None
        except RLXError as error:
            raise RLXError(f"{first.where()}{error}") from None
        self.bind([c.result for c in calls], result, first, arguments)

    def materialized(self, e, tree):
        if isinstance(tree, (list, tuple)):
            return type(tree)(self.materialized(e, t) for t in tree)
        return e.materialize(tree) if isinstance(tree, Value) else tree

    def merge(self, trees, call):
        first = trees[0]
        if isinstance(first, Value):
            return self.value(trees, call)
        if isinstance(first, (list, tuple)):
            if any(type(t) is not type(first) or len(t) != len(first)
                   for t in trees):
                raise self.differs(call, "the arguments of its ops")
            return type(first)(self.merge([t[i] for t in trees], call)
                               for i in range(len(first)))
        if _same(trees):
            return first
        if all(isinstance(t, int) and not isinstance(t, bool)
               for t in trees):
            return _Differs(trees, self.fit(trees))
        return _Differs(trees, None)

    def resolve(self, call, arguments):
        """The arguments that differ between translations, as symbolic
        dims where the op takes one (a reshape's or an expand's shape, a
        slice's bounds, a splat constant's shape); an error otherwise."""
        dims_of = {"reshape": ("shape",), "expand": ("shape",),
                   "narrow": ("start", "length"),
                   "constant": ("shape",)}.get(call.method, ())
        where = call.where()
        for key, value in arguments.items():
            if call.method == "constant" and key == "value" and \
                    isinstance(value, _Differs):
                arguments[key], shape = self.splat(call, value)
                arguments["shape"] = shape
                continue
            if key in dims_of:
                arguments[key] = self.dims(call, key, value)
            elif _contains_differs(value):
                raise RLXError(
                    f"{where}its rlx.{call.method}'s {key} depends on the "
                    f"symbolic dims ({self.at(_first_differs(value).values)}"
                    "): rlx takes it static")

    def dims(self, call, key, tree):
        if isinstance(tree, (list, tuple)):
            return type(tree)(self.dims(call, key, t) for t in tree)
        if not isinstance(tree, _Differs):
            return tree
        if tree.dim is None:
            raise RLXError(
                f"{call.where()}a dim of its rlx.{call.method}'s {key} is "
                f"{self.at(tree.values)}: not a product of the symbolic dims "
                "(rlx's `?` dims are)")
        return tree.dim

    def splat(self, call, differs):
        """A constant computed at import time whose shape follows the
        symbolic dims: a splat of one value, emitted over `?` dims."""
        arrays = differs.values
        if not all(isinstance(a, np.ndarray) and a.ndim for a in arrays):
            raise RLXError(
                f"{call.where()}a number it computes is "
                f"{self.at([np.asarray(a).tolist() for a in arrays])}: it "
                "depends on the size of a symbolic dim, and rlx takes it "
                "static (x.sum(0) / x.size(0) is x.mean(0))")
        value = arrays[0].reshape(-1)[:1]
        if value.size != 1 or not all(
                a.dtype == arrays[0].dtype and a.ndim == arrays[0].ndim and
                _same([np.full_like(a, value[0]), a]) for a in arrays):
            raise RLXError(
                f"{call.where()}a tensor computed at import time depends on "
                "the symbolic dims (of shape "
                f"{self.at([list(a.shape) for a in arrays])}) and is not one "
                "value repeated: rlx cannot compute its values from `?` "
                "sizes")
        shape = []
        for axis in range(arrays[0].ndim):
            sizes = [a.shape[axis] for a in arrays]
            dim = self.fit(sizes)
            if dim is None:
                raise RLXError(
                    f"{call.where()}dim {axis} of a constant is "
                    f"{self.at(sizes)}: not a product of the symbolic dims")
            shape.append(dim)
        return value[0].item(), tuple(shape)

    def check_scan(self, call, arguments):
        values = [arguments["init"]] + list(arguments["bcasts"]) + \
            list(arguments["xs"])
        for value in values:
            if not is_static(value.shape):
                raise RLXError(
                    f"{call.where()}an rlx.scan over {value.type}: rlx.scan "
                    "takes static shapes, so this recurrence imports with "
                    "static dims only")

    def replay_body(self, calls):
        bodies = [c.body for c in calls]

        def body(inner, carry, bcasts, x_ts):
            for run, (_, c, bs, xs, _) in enumerate(bodies):
                self.bound[run][id(c)] = [carry]
                for mine, theirs in zip(bcasts, bs):
                    self.bound[run][id(theirs)] = [mine]
                for mine, theirs in zip(x_ts, xs):
                    self.bound[run][id(theirs)] = [mine]
            self.replay([b[0].calls for b in bodies], inner)
            return inner.materialize(self.value([b[4] for b in bodies],
                                                calls[0]))
        return body

    def value(self, values, call):
        """Our value of the translations' `values` (one each): the one
        each is bound to. An op that returned its operand in some
        translations (a slice of a whole dim) binds it to two of ours;
        the others tell which."""
        candidates = None
        for run, v in enumerate(values):
            found = self.bound[run].get(id(v))
            if found is None:
                raise self.differs(call, "the values its ops read")
            candidates = list(found) if candidates is None else \
                [c for c in candidates if any(c is f for f in found)]
        unique = []
        for c in candidates:
            if not any(c is u for u in unique):
                unique.append(c)
        if len(unique) != 1:
            raise self.differs(call, "the values its ops read")
        return unique[0]

    def bind(self, results, result, call, arguments):
        """Binds each translation's result to ours, checking its dims
        against the recorded ones."""
        ours = [result] if isinstance(result, Value) else list(result)
        per_run = [[r] if isinstance(r, Value) else list(r)
                   for r in results]
        for index, mine in enumerate(ours):
            values = [run[index] for run in per_run]
            for axis in range(mine.rank):
                dims = [v.shape[axis] for v in values]
                want = self.fit(dims)
                if want is None:
                    raise RLXError(
                        f"{call.where()}dim {axis} of its result is "
                        f"{self.at(dims)}: not a product of the symbolic "
                        "dims (rlx's `?` dims are)")
                if want != mine.shape[axis]:
                    raise RLXError(
                        f"{call.where()}dim {axis} of its result is "
                        f"{self.at(dims)} ({want}), but rlx.{call.method} "
                        f"makes it {mine.shape[axis]} over `?` dims")
            if isinstance(mine, _View) and mine.origin is None:
                # The reshape that merged dims, through the ops after it.
                mine.origin = next(
                    (v.origin for v in _values(arguments)
                     if isinstance(v, _View)), call.node_name())
            for run, v in enumerate(values):
                self.bound[run].setdefault(id(v), []).append(mine)


def _values(tree):
    """The Values in an op's arguments, in order."""
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (list, tuple)):
        return [v for t in tree for v in _values(t)]
    return [tree] if isinstance(tree, Value) else []


def _same(values):
    """Whether the translations' leaves are one value (NaN is NaN)."""
    first = values[0]
    for v in values[1:]:
        if type(v) is not type(first):
            return False
        if isinstance(v, np.ndarray):
            if v.dtype != first.dtype or v.shape != first.shape or \
                    not np.array_equal(v, first, equal_nan=v.dtype.kind in
                                       "fc"):
                return False
        elif not (v == first or (isinstance(v, float) and
                                 math.isnan(v) and math.isnan(first))):
            return False
    return True


def _contains_differs(tree):
    return _first_differs(tree) is not None


def _first_differs(tree):
    if isinstance(tree, _Differs):
        return tree
    if isinstance(tree, (list, tuple)):
        for t in tree:
            found = _first_differs(t)
            if found is not None:
                return found
    return None


def import_dynamic(convert, names, example_inputs, dynamic):
    """(converter, results) of the module translated with the symbolic
    dims `dynamic` asks for: convert(inputs, emitter) translates it at
    the sizes of `inputs` into `emitter`."""
    spec, sizes = parse(dynamic, names, example_inputs)
    runs, all_sizes = [], []
    for index, (run_sizes, inputs) in enumerate(
            variants(spec, sizes, example_inputs)):
        recorder = Recorder()
        try:
            converter, results = convert(inputs, recorder)
        except RLXError as error:
            if not index:
                raise
            raise type(error)(
                f"translating the module at {describe(run_sizes)} (a second "
                "size, to find the dims that follow it) failed; an example "
                "size of less than half the largest the module takes leaves "
                f"room for it: {error}") from None
        runs.append((converter, recorder, results))
        all_sizes.append(run_sizes)
    varied = {symbol: i + 1 for i, symbol in enumerate(sizes)}
    return Merger(runs, all_sizes, varied).run()
