# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Symbolic dims, shared by the ONNX importer and the PyTorch importer's
dynamic import: a dim is an int or a symbolic dim, printed `?` and spelled
as a product of names and a static factor (`batch`, `batch*4`,
`batch*seq`): the name of an ONNX `dim_param`, or of a dim
`import_module(..., dynamic=...)` makes symbolic. Two dims of one spelling
are the same size; the shape rules below treat them so, and refuse what
they cannot decide at import time (two different names, a sum)."""

import math

import numpy as np

from .._capi import RLXError
from ._emitter import Emitter, Value


# -- the algebra of dims ------------------------------------------------
def dim_terms(d):
    """(names, factor) of a dim: the sorted names of a symbolic one and its
    static factor; ((), d) for a static one."""
    if not isinstance(d, str):
        return (), int(d)
    names, factor = [], 1
    for part in d.split("*"):
        if part.isdigit():
            factor *= int(part)
        else:
            names.append(part)
    return tuple(sorted(names)), factor


def make_dim(names, factor):
    """The dim of `names` (a product of them) times `factor`."""
    if not names or factor == 0:
        return factor
    return "*".join(sorted(names) + ([str(factor)] if factor != 1 else []))


def dim_mul(a, b):
    (na, fa), (nb, fb) = dim_terms(a), dim_terms(b)
    return make_dim(na + nb, fa * fb)


def dim_quotient(a, b):
    """a / b where it is a dim (b's names among a's, the factor dividing);
    None otherwise."""
    (na, fa), (nb, fb) = dim_terms(a), dim_terms(b)
    left = list(na)
    for name in nb:
        if name not in left:
            return None
        left.remove(name)
    if fb == 0 or fa % fb:
        return None
    return make_dim(left, fa // fb)


def dim_div(a, b):
    quotient = dim_quotient(a, b)
    if quotient is None:
        if isinstance(b, str):
            raise RLXError(f"a quotient of symbolic dims ({a} / {b})")
        raise RLXError(f"a symbolic dim {a} divided by {b}")
    return quotient


def dim_product(dims):
    product = 1
    for d in dims:
        product = dim_mul(product, d)
    return product


def shape_text(shape):
    """A shape for a message: [batch*4, 16]."""
    return "[" + ", ".join(str(d) for d in shape) + "]"


def dims_text(shape):
    return "".join(f"{'?' if isinstance(d, str) else d}x" for d in shape)


def is_static(shape):
    return not any(isinstance(d, str) for d in shape)


def _unknowns(shape):
    """How many `?` dims a shape has."""
    return sum(isinstance(d, str) for d in shape)


def broadcast_dims(a, b):
    """The NumPy broadcast of two shapes with symbolic dims: a static 1
    stretches to anything, a name matches itself (rlx checks at run time
    that a `?` matches a static size; it never broadcasts a `?`)."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif isinstance(x, str) and not isinstance(y, str):
            out.append(y)
        elif isinstance(y, str) and not isinstance(x, str):
            out.append(x)
        else:
            raise ValueError(f"shapes {shape_text(a)} and {shape_text(b)} "
                             "do not broadcast")
    return tuple(out)


def regroup(atoms, target):
    """How the row-major `target` shape is made of the dims `atoms`, if
    each target dim is a product of consecutive atoms, once static atoms a
    target dim ends inside are split: (pieces, groups), `pieces` the
    non-unit atoms after the splits as (index in atoms, size), `groups`
    the pieces (indices) of each target dim (none for a 1). None where the
    target is no such regrouping (it would split a `?` dim, or a static
    dim across target dims unevenly)."""
    source = [(i, d) for i, d in enumerate(atoms) if d != 1]
    pieces, groups, k, current = [], [], 0, None
    for t in target:
        need, group = t, []
        while need != 1:
            if current is None:
                if k == len(source):
                    return None
                current, k = source[k], k + 1
            index, d = current
            quotient = dim_quotient(need, d)
            if quotient is not None:
                group.append(len(pieces))
                pieces.append((index, d))
                need, current = quotient, None
            elif not isinstance(d, str) and not isinstance(need, str) and \
                    d % need == 0:
                group.append(len(pieces))
                pieces.append((index, need))
                need, current = 1, (index, d // need)
            else:
                return None
        groups.append(group)
    if current is not None or k < len(source):
        return None
    return pieces, groups


class SymbolicValue(Value):
    """A Value whose dims may be names (`?` dims)."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(d if isinstance(d, str) else int(d)
                           for d in shape)
        self.dtype = dtype

    @property
    def type(self):
        return f"tensor<{dims_text(self.shape)}{self.dtype}>"


# An rlx.reshape infers at most one dim; a reshape to more `?` dims that
# only splits, merges, adds or drops static dims is done by these ops, of
# at most this many slices (a static merge takes one per row it merges).
_MAX_SLICES = 1024


class SymbolicEmitter(Emitter):
    """Emitter whose values are SymbolicValues; the ops whose result shape
    mixes operand dims follow broadcast_dims. `symbols` maps a dim's name
    to a graph input that has it (the value, its axis): a constant of a
    shape with that dim takes its size from there."""

    def __init__(self, parent=None, indent="  "):
        super().__init__(parent, indent)
        self.symbols = {}
        self._references = {}

    def _value(self, name, shape, dtype):
        return SymbolicValue(name, shape, dtype)

    def constant(self, value, dtype, shape=()):
        """A splat of a shape with `?` dims: a static constant broadcast
        by an rlx.where over a tensor of each `?` dim (taken from the
        graph input that has it; both branches are the constant)."""
        if is_static(shape):
            return super().constant(value, dtype, shape)
        static = [1 if isinstance(d, str) else d for d in shape]
        result = super().constant(value, dtype, static)
        for axis, d in enumerate(shape):
            if isinstance(d, str):
                reference = self._reference(d, len(shape), axis)
                result = self.where(reference, result, result)
        return result

    def _reference(self, name, rank, axis):
        """An i1 tensor of shape [1, .., `name`, .., 1] (rank `rank`, the
        named dim at `axis`); its values do not matter (where() of two
        equal branches is the branch)."""
        key = (name, rank, axis)
        if key in self._references:
            return self._references[key]
        shape = [1] * rank
        shape[axis] = name
        names, factor = dim_terms(name)
        if name in self.symbols:
            value, source_axis = self.symbols[name]
            for other in range(value.rank):
                if other != source_axis:
                    value = self.narrow(value, other, 0, 1)
            value = self.compare("eq", value, value)
        elif all(n in self.symbols for n in names):
            # A product (batch * windows in swin's attention, batch * seq)
            # that no input has: [n1, n2, .., factor] made from the
            # reference of each name, merged by the reshape.
            count = len(names) + (factor != 1)
            value = self.constant(True, "i1", [1] * (count - 1) + [factor])
            for i, n in enumerate(names):
                value = self.where(self._reference(n, count, i), value,
                                   value)
        else:
            raise ValueError(f"a constant of a `?` dim '{name}' that no "
                             "graph input has")
        self._references[key] = self.reshape(value, shape)
        return self._references[key]

    def _elementwise(self, op_text, operands, dtype):
        shape = ()
        for v in operands:
            shape = broadcast_dims(shape, v.shape)
        names = ", ".join(v.name for v in operands)
        types = ", ".join(v.type for v in operands)
        return self._emit(f"{op_text} {names} : {types}", shape, dtype)

    def binary(self, kind, a, b):
        return self._elementwise(f"rlx.binary {kind}", [a, b], a.dtype)

    def compare(self, kind, a, b):
        return self._elementwise(f"rlx.compare {kind}", [a, b], "i1")

    def where(self, cond, a, b):
        return self._elementwise("rlx.where", [cond, a, b], a.dtype)

    def matmul(self, a, b):
        if a.rank < 2 or b.rank < 2:
            raise ValueError("rlx.matmul takes operands of rank >= 2")
        batch = broadcast_dims(a.shape[:-2], b.shape[:-2])
        shape = batch + (a.shape[-2], b.shape[-1])
        return self._emit(f"rlx.matmul {a.name}, {b.name} : {a.type}, "
                          f"{b.type}", shape, a.dtype)

    def reshape(self, x, shape):
        """A target dim may be a name: the result's dim is `?`, written -1.
        rlx.reshape infers one; a target of more `?` dims is made by other
        ops where it keeps each `?` dim of x and splits, merges, adds or
        drops static dims only."""
        shape = tuple(d if isinstance(d, str) else int(d) for d in shape)
        if shape == x.shape:
            return x
        names = [d for d in shape if isinstance(d, str)]
        if len(names) > 1:
            return self._regroup(x, shape)
        dims = ", ".join("-1" if isinstance(d, str) else str(d)
                         for d in shape)
        return self._emit(f"rlx.reshape {x.name} new_shape = [{dims}] : "
                          f"{x.type}", shape, x.dtype)

    def _regroup(self, x, shape):
        """x reshaped to `shape` (of several `?` dims) by gathers, concats,
        expands and transposes: static dims split by a gather of their
        positions (arange(n) shaped as the pieces), unit dims dropped by a
        gather of index 0, static dims merged by concatenating the rows
        (each a gather of one index), unit dims added by an expand and a
        transpose. Each moves elements without arithmetic (exact)."""
        plan = regroup(x.shape, shape)
        refused = ValueError(
            f"a reshape of {shape_text(x.shape)} to {shape_text(shape)}: "
            "rlx.reshape infers one `?` dim, and the others are not kept "
            "whole")
        if plan is None:
            raise refused
        pieces, groups = plan
        for group in groups:
            if len(group) > 1 and not is_static(
                    [pieces[p][1] for p in group]):
                raise refused
        x = self.to_pieces(x, pieces)
        # Merge each group's static pieces, last group first (positions
        # before it stay).
        for group in reversed(groups):
            if len(group) > 1:
                x = self._merge_static(x, group[0], len(group))
        # Now one dim per group that has pieces; add the target's 1s.
        for axis, group in enumerate(groups):
            if not group:
                x = self.insert_unit(x, axis)
        if x.shape != shape:
            raise refused
        return x

    def to_pieces(self, x, pieces):
        """x with its dims split into `pieces` (regroup's), unit dims
        dropped: a static dim split by a gather of its positions shaped as
        its pieces."""
        sizes = {}
        for index, size in pieces:
            sizes.setdefault(index, []).append(size)
        if _unknowns(x.shape) <= 1:
            # One `?` dim at most: one rlx.reshape does it.
            return self.reshape(x, [size for _, size in pieces])
        for axis in reversed(range(x.rank)):
            parts = sizes.get(axis, [])
            if not parts:
                # A unit dim, dropped by gathering its only index.
                x = self.gather(x, self.constant(np.array(0), "i64"), axis)
            elif len(parts) > 1:
                positions = np.arange(math.prod(parts)).reshape(parts)
                x = self.gather(x, self.constant(positions, "i64"), axis)
        return x

    def _merge_static(self, x, axis, count):
        """x with the static dims axis .. axis + count - 1 merged into one:
        the rows of the first concatenated along the second, and so on."""
        if _unknowns(x.shape) <= 1:
            size = math.prod(x.shape[axis:axis + count])
            return self.reshape(x, x.shape[:axis] + (size,) +
                                x.shape[axis + count:])
        if math.prod(x.shape[axis:axis + count - 1]) > _MAX_SLICES:
            raise ValueError(f"merging dims "
                             f"{shape_text(x.shape[axis:axis + count])} of "
                             f"{shape_text(x.shape)} takes more than "
                             f"{_MAX_SLICES} slices")
        for _ in range(count - 1):
            rows = [self.gather(x, self.constant(np.array(i), "i64"), axis)
                    for i in range(x.shape[axis])]
            x = self.concat(rows, axis)
        return x

    def insert_unit(self, x, axis):
        """x with a dim of 1 at `axis`: an rlx.expand adds it in front
        (keeping x's `?` dims, -1), a transpose moves it."""
        if _unknowns(x.shape) <= 1:
            return self.reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])
        x = self.expand(x, (1,) + x.shape)
        perm = list(range(1, axis + 1)) + [0] + \
            list(range(axis + 1, x.rank))
        return self.transpose(x, perm)

    def narrow(self, x, axis, start, length):
        """A slice of a `?` dim: the whole dim (the identity), or its first
        row. rlx.narrow's start and length are static, and nothing checks
        at run time that a `?` dim holds the rows of a longer slice (where
        PyTorch would clip it to the size)."""
        if isinstance(x.shape[axis], str) or isinstance(length, str):
            if start == 0 and length == x.shape[axis]:
                return x
            if isinstance(start, str) or isinstance(length, str) or \
                    start != 0 or length > 1:
                raise ValueError(
                    f"a slice of dim {axis} of {shape_text(x.shape)} from "
                    f"{start} of length {length}: a slice of a `?` dim is "
                    "the whole dim or its first row (rlx.narrow's start "
                    "and length are static, and a `?` dim may be shorter)")
        return super().narrow(x, axis, start, length)

    def expand(self, x, shape):
        """A target dim that is a name is the input's aligned dim (written
        -1: kept), or stretches a 1 (an rlx.where over a tensor of that
        dim, as constant() does)."""
        shape = tuple(d if isinstance(d, str) else int(d) for d in shape)
        if shape == x.shape:
            return x
        offset = len(shape) - x.rank
        aligned = (1,) * offset + x.shape
        stretched = [i for i, d in enumerate(shape)
                     if isinstance(d, str) and aligned[i] != d]
        for i in stretched:
            if aligned[i] != 1:
                raise ValueError(f"an expand of {shape_text(x.shape)} to "
                                 f"{shape_text(shape)}")
        dims = ["1" if i in stretched else "-1" if isinstance(d, str)
                else str(d) for i, d in enumerate(shape)]
        static = tuple(1 if i in stretched else d
                       for i, d in enumerate(shape))
        if static != x.shape:
            x = self._emit(f"rlx.expand {x.name} target_shape = "
                           f"[{', '.join(dims)}] : {x.type}", static,
                           x.dtype)
        for i in stretched:
            reference = self._reference(shape[i], len(shape), i)
            x = self.where(reference, x, x)
        return x

    def concat(self, values, axis):
        """Along a `?` dim: the sum must be a dim (`batch` and `batch`
        make `batch*2`)."""
        if len(values) == 1:
            return values[0]
        along = [v.shape[axis] for v in values]
        total = along[0]
        for d in along[1:]:
            (na, fa), (nb, fb) = dim_terms(total), dim_terms(d)
            if na != nb:
                raise ValueError(f"a concat along a `?` dim "
                                 f"({shape_text(along)}): the sum is no "
                                 "product of symbolic dims")
            total = make_dim(na, fa + fb)
        shape = list(values[0].shape)
        for v in values[1:]:
            shape = [s if i == axis else broadcast_dims((s,), (d,))[0]
                     for i, (s, d) in enumerate(zip(shape, v.shape))]
        shape[axis] = total
        names = ", ".join(v.name for v in values)
        types = ", ".join(v.type for v in values)
        return self._emit(f"rlx.concat {names} axis = {axis} : {types}",
                          shape, values[0].dtype)
