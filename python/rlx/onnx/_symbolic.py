# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The torch importer's emitter with symbolic dims: a dim is an int or the
name of an ONNX `dim_param` (printed `?`). Two dims of one name are the
same size; the shape rules below treat them so, and refuse what they
cannot decide at import time (two different names, arithmetic on one)."""

from ..torch._emitter import Emitter, Value


def dims_text(shape):
    return "".join(f"{'?' if isinstance(d, str) else d}x" for d in shape)


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
            raise ValueError(f"shapes {list(a)} and {list(b)} do not "
                             "broadcast")
    return tuple(out)


def is_static(shape):
    return not any(isinstance(d, str) for d in shape)


class SymbolicEmitter(Emitter):
    """Emitter whose values are SymbolicValues; the ops whose result shape
    mixes operand dims follow broadcast_dims. `symbols` maps a dim's name
    to a graph input that has it (the value, its axis): a constant of a
    shape with that dim takes its size from there."""

    def __init__(self, parent=None, indent="  "):
        super().__init__(parent, indent)
        self.symbols = {}
        self._references = {}

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
        if key not in self._references:
            shape = [1] * rank
            shape[axis] = name
            base, _, factor = name.partition("*")
            if name in self.symbols:
                value, source_axis = self.symbols[name]
                for other in range(value.rank):
                    if other != source_axis:
                        value = self.narrow(value, other, 0, 1)
                value = self.compare("eq", value, value)
            elif factor and base in self.symbols:
                # A product `base*factor` (batch * windows in swin's
                # attention) that no input has: [base, factor] made from
                # base's reference, its two dims merged by the reshape.
                value = self.where(self._reference(base, 2, 0),
                                   self.constant(True, "i1", (1, int(factor))),
                                   self.constant(False, "i1", (1, 1)))
            else:
                raise ValueError(f"a constant of a `?` dim '{name}' that no "
                                 "graph input has")
            self._references[key] = self.reshape(value, shape)
        return self._references[key]

    def _emit(self, text, shape, dtype):
        name = self._fresh("v")
        self.lines.append(f"{self.indent}{name} = {text}")
        return SymbolicValue(name, shape, dtype)

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
        """A target dim may be a name: the result's dim is `?`, written -1
        (at most one: rlx infers it from the element count)."""
        shape = tuple(d if isinstance(d, str) else int(d) for d in shape)
        if shape == x.shape:
            return x
        names = [d for d in shape if isinstance(d, str)]
        if len(names) > 1:
            raise ValueError(f"a reshape to {list(shape)}: rlx infers at "
                             "most one dim (-1)")
        dims = ", ".join("-1" if isinstance(d, str) else str(d)
                         for d in shape)
        return self._emit(f"rlx.reshape {x.name} new_shape = [{dims}] : "
                          f"{x.type}", shape, x.dtype)

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
                raise ValueError(f"an expand of {list(x.shape)} to "
                                 f"{list(shape)}")
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
        if len(values) == 1:
            return values[0]
        along = [v.shape[axis] for v in values]
        if not is_static(along):
            raise ValueError(f"a concat along a `?` dim ({along})")
        shape = list(values[0].shape)
        for v in values[1:]:
            shape = [s if i == axis else broadcast_dims((s,), (d,))[0]
                     for i, (s, d) in enumerate(zip(shape, v.shape))]
        shape[axis] = sum(along)
        names = ", ".join(v.name for v in values)
        types = ", ".join(v.type for v in values)
        return self._emit(f"rlx.concat {names} axis = {axis} : {types}",
                          shape, values[0].dtype)
