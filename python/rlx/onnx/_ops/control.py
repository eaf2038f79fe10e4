# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""If, Loop and Scan: their subgraphs translated by the importer's own
converter (docs/onnx.md).

An If whose condition is known at import time is its taken branch,
translated in place; otherwise it is an rlx.if whose regions are the two
branches. Scan, and a Loop of a trip count known at import time, are one
rlx.scan: its carry is the state variables and the scan outputs of a step,
each flattened, concatenated (so of one element type); the scan outputs
are the rows of its trajectory. Values of the enclosing graphs the body
reads are bcast operands of the scan (its region is isolated). Any other
Loop without scan outputs (its steps known at run time only) is an
rlx.while."""

import numpy as np

from ..._capi import RLXError
from ...torch._emitter import Value, rlx_dtype
from ...torch._ops.recurrent import _reverse_time
from ...torch._symbolic import SymbolicEmitter, SymbolicValue, is_static
from .common import NoValue, axis_index, is_const, ints, numeric, op


def _names_read(graph):
    """The names `graph` reads: its nodes' inputs, its outputs, and what
    the subgraphs of its nodes read from outside themselves."""
    from onnx import AttributeProto
    read = []
    for node in graph.node:
        read += node.input
        for a in node.attribute:
            if a.type == AttributeProto.GRAPH:
                read += _free_names(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    read += _free_names(g)
    read += [o.name for o in graph.output]
    return list(dict.fromkeys(read))


def _free_names(graph):
    """The names `graph` reads from the enclosing scopes."""
    defined = {""} | {i.name for i in graph.input} | \
        {t.name for t in graph.initializer}
    for node in graph.node:
        defined.update(node.output)
    return [n for n in _names_read(graph) if n not in defined]


def _signature(x):
    """(shape, rlx element type) of a Value or an import-time array."""
    if is_const(x):
        array = np.asarray(x)
        return tuple(array.shape), rlx_dtype(array.dtype)
    return tuple(x.shape), x.dtype


def _type_text(signature):
    shape, dtype = signature
    return f"tensor<{''.join(f'{d}x' for d in shape)}{dtype}>"


def _element(cond, what):
    """The truth of a one-element import-time condition."""
    flat = np.asarray(numeric(np.asarray(cond), what)).reshape(-1)
    if flat.size != 1:
        raise RLXError(f"{what} has {flat.size} elements (one)")
    return bool(flat[0])


@op("If")
def if_(c, inputs, attrs):
    branches = (("then_branch", attrs["then_branch"]),
                ("else_branch", attrs["else_branch"]))
    cond = inputs[0]
    if is_const(cond):
        # Known at import time: the taken branch, in place.
        label, graph = branches[0 if _element(cond, "If's condition") else 1]
        _, outputs = c.subgraph(graph, c.e, [], label)
        return tuple(outputs)
    if cond.dtype != "i1" or not is_static(cond.shape) or \
            int(np.prod(cond.shape)) != 1:
        raise RLXError(f"If's condition of type {cond.type} (an i1 tensor "
                       "of one element)")
    predicate = c.e.reshape(cond, ())
    regions = []
    for label, graph in branches:
        e = SymbolicEmitter(c.e, c.e.indent + "  ")
        e.symbols = c.e.symbols
        body, outputs = c.subgraph(graph, e, [], label)
        regions.append((e, [body.value(v) for v in outputs]))
    types = [[v.type for v in values] for _, values in regions]
    if types[0] != types[1]:
        raise RLXError(f"If's branches give {', '.join(types[0])} and "
                       f"{', '.join(types[1])}: rlx.if yields the same types "
                       "from both")
    types = ", ".join(types[0])
    names = [c.e._fresh("v") for _ in regions[0][1]]
    lines = [f"{c.e.indent}{', '.join(names)} = rlx.if {predicate.name} : "
             f"{predicate.type} -> {types} {{"]
    for i, (e, values) in enumerate(regions):
        lines += e.lines + [f"{e.indent}rlx.yield "
                            f"{', '.join(v.name for v in values)} : {types}"]
        lines.append(f"{c.e.indent}}}" + (" else {" if i == 0 else ""))
    c.e.lines += lines
    return tuple(SymbolicValue(name, v.shape, v.dtype)
                 for name, v in zip(names, regions[0][1]))


class _Bound(np.ndarray):
    """An initializer read inside an isolated region: its values are known
    at import time, and as a tensor it is the block argument `bound` (the
    scan's bcast of its parameter)."""


def _static(value, what):
    if not is_static(value.shape):
        raise RLXError(f"{what} of type {value.type}: the rlx.scan needs "
                       "static shapes (give the sizes with "
                       "import_model(..., dims={...}))")
    return value


class _Step:
    """The body of a Scan or Loop as the step of an rlx.scan. `states`: the
    initial state Values; `xs`: the per-step inputs ([length, ...]);
    `arrange(states, x_ts)`: the body's inputs; the first `skip` outputs
    of the body are neither states nor scan outputs (Loop's condition)."""

    def __init__(self, c, graph, states, xs, arrange, skip):
        self.c, self.graph, self.arrange, self.skip = c, graph, arrange, skip
        self.states = [_static(s, "a state variable") for s in states]
        self.xs = xs
        # What the body reads from the enclosing graphs: import-time values
        # stay so; graph values and initializers become bcasts.
        self.known, self.bcast_names, self.bcasts = {}, [], []
        for name in _free_names(graph):
            try:
                outer = c.lookup(name)
            except KeyError:
                continue  # the body's translation names it
            if isinstance(outer, NoValue) or outer is None or \
                    (is_const(outer) and
                     getattr(outer, "initializer", None) is None and
                     getattr(outer, "bound", None) is None):
                self.known[name] = outer
                continue
            self.bcast_names.append(name)
            self.bcasts.append(_static(c.value(outer), f"'{name}'"))

    def translate(self, e, states, bcasts, x_ts):
        """The body translated into `e`: (its converter, its outputs)."""
        table = dict(self.known)
        for name, arg in zip(self.bcast_names, bcasts):
            outer = self.c.lookup(name)
            if is_const(outer):
                outer = np.asarray(outer).view(_Bound)
                outer.bound = arg
                table[name] = outer
            else:
                table[name] = arg
        return self.c.subgraph(self.graph, e, self.arrange(states, x_ts),
                               "body", lookup=table.__getitem__)

    def probe(self):
        """The body's outputs, translated once into a throwaway emitter
        (for the types of the scan outputs, and Loop's condition)."""
        e = SymbolicEmitter(self.c.e, self.c.e.indent + "  ")

        def argument(shape, dtype):
            return Value(e._fresh("p"), shape, dtype)
        _, outputs = self.translate(
            e, [argument(s.shape, s.dtype) for s in self.states],
            [argument(b.shape, b.dtype) for b in self.bcasts],
            [argument(x.shape[1:], x.dtype) for x in self.xs])
        return outputs

    def emit(self, length, outputs):
        """The rlx.scan of `length` steps; `outputs` the probe's. Returns
        the final states and the scan outputs ([length, ...])."""
        c, count = self.c, len(self.states)
        signatures = [_signature(s) for s in self.states] + \
            [_signature(v) for v in outputs[self.skip + count:]]
        for i, (state, out) in enumerate(zip(self.states,
                                             outputs[self.skip:])):
            if _signature(out) != signatures[i]:
                raise RLXError(f"state variable {i} enters the body as "
                               f"{state.type} and leaves it as "
                               f"{_type_text(_signature(out))}")
        dtypes = sorted({dtype for _, dtype in signatures})
        if len(dtypes) != 1:
            raise RLXError(f"state variables and scan outputs of element "
                           f"types {', '.join(dtypes)}: the rlx.scan "
                           "carries them as one tensor (one element type)")
        if any(not is_static(shape) for shape, _ in signatures):
            raise RLXError("a scan output of a `?` shape (the rlx.scan "
                           "needs static shapes)")
        dtype = dtypes[0]
        sizes = [int(np.prod(shape)) for shape, _ in signatures]
        offsets = np.cumsum([0] + sizes).tolist()
        init = c.e.concat(
            [c.e.reshape(s, (n,)) for s, n in zip(self.states, sizes)] +
            [c.e.constant(0, dtype, (n,)) for n in sizes[count:]], 0)

        def step(e, carry, bcasts, x_ts):
            states = [e.reshape(e.narrow(carry, 0, offsets[i], sizes[i]),
                                signatures[i][0]) for i in range(count)]
            body, outs = self.translate(e, states, bcasts, x_ts)
            values = [body.value(v) for v in outs[self.skip:]]
            for v, signature in zip(values, signatures):
                if _signature(v) != signature:
                    raise RLXError(f"the body gives {v.type}, where its "
                                   f"first translation gave "
                                   f"{_type_text(signature)}")
            return e.concat([e.reshape(v, (n,))
                             for v, n in zip(values, sizes)], 0)
        scans = len(signatures) > count
        result = c.e.scan(init, self.bcasts, self.xs, step,
                          save_trajectory=scans, length=length)
        final = c.e.reshape(c.e.narrow(result, 0, length - 1, 1),
                            init.shape) if scans else result
        finals = [c.e.reshape(c.e.narrow(final, 0, offsets[i], sizes[i]),
                              signatures[i][0]) for i in range(count)]
        stacked = [c.e.reshape(c.e.narrow(result, 1, offsets[i], sizes[i]),
                               (length,) + signatures[i][0])
                   for i in range(count, len(signatures))]
        return finals, stacked


@op("Scan")
def scan(c, inputs, attrs):
    graph = attrs["body"]
    count = attrs["num_scan_inputs"]
    states = [c.value(s) for s in inputs[:len(inputs) - count]]
    scanned = inputs[len(inputs) - count:]
    outputs = len(graph.output) - len(states)
    in_axes = attrs.get("scan_input_axes", [0] * count)
    in_directions = attrs.get("scan_input_directions", [0] * count)
    out_axes = attrs.get("scan_output_axes", [0] * outputs)
    out_directions = attrs.get("scan_output_directions", [0] * outputs)
    xs = []
    for x, axis, direction in zip(scanned, in_axes, in_directions):
        x = _static(c.value(x), "a scan input")
        axis = axis_index(axis, x.rank)
        x = c.e.transpose(x, [axis] + [i for i in range(x.rank)
                                       if i != axis])
        xs.append(_reverse_time(c, x) if direction else x)
    lengths = sorted({x.shape[0] for x in xs})
    if len(lengths) != 1:
        raise RLXError(f"scan inputs of lengths {lengths}")
    step = _Step(c, graph, states, xs, lambda s, x_ts: s + x_ts, 0)
    finals, stacked = step.emit(lengths[0], step.probe())
    results = []
    for y, axis, direction in zip(stacked, out_axes, out_directions):
        if direction:
            y = _reverse_time(c, y)
        axis = axis_index(axis, y.rank)
        results.append(c.e.transpose(
            y, list(range(1, axis + 1)) + [0] +
            list(range(axis + 1, y.rank))))
    return tuple(finals + results)


@op("Loop")
def loop(c, inputs, attrs):
    """A Loop of a number of steps known at import time (trip count and
    condition known, the body's condition a constant) is an rlx.scan;
    any other without scan outputs an rlx.while."""
    graph = attrs["body"]
    trip = inputs[0] if inputs else None
    cond = inputs[1] if len(inputs) > 1 else None
    states = [c.value(s) for s in inputs[2:]]
    scan_outputs = len(graph.output) - 1 - len(states)
    if trip is None or not is_const(trip):
        why = "a trip count " + ("not given" if trip is None else
                                 "the graph computes")
    elif cond is not None and not is_const(cond):
        why = "a condition the graph computes"
    elif not all(is_static(s.shape) for s in states):
        why = "state variables of `?` shapes"
    else:
        why = None
    if why is None:
        scanned = _scanned_loop(c, graph, ints(trip, "Loop's trip count")[0],
                                cond, states, scan_outputs)
        if scanned is not None:
            return scanned
        why = "a body that computes its condition from graph values"
    if scan_outputs:
        raise RLXError(f"Loop with {why} and scan outputs (their length "
                       "would be known only at run time: rlx translates "
                       "such a Loop without scan outputs, as an rlx.while, "
                       "and with them one of a number of steps known at "
                       "import time, as an rlx.scan)")
    return _while(c, graph, trip, cond, states)


def _scanned_loop(c, graph, length, cond, states, scan_outputs):
    """The Loop as an rlx.scan of `length` steps (fewer where a condition
    stops it), or None where the body computes its condition from graph
    values."""
    if cond is not None and not _element(cond, "Loop's condition"):
        length = 0
    # The iteration number, where the body reads it: an xs of 0, 1, ...
    counter = graph.input[0].name
    counted = counter in _names_read(graph)

    def arrange(states, x_ts):
        number = x_ts[0] if counted else NoValue("the iteration number")
        return [number, np.array(True)] + list(states)
    # Probed with a stand-in for the iteration numbers (only the type of
    # a step's row matters), which exist once the length is known.
    step = _Step(c, graph, states,
                 [Value("%iterations", (1,), "i64")] if counted else [],
                 arrange, 1)
    outputs = step.probe()
    if not is_const(outputs[0]):
        return None
    if not _element(outputs[0], "the body's condition"):
        length = min(length, 1)  # the body runs once
    if length <= 0:
        if scan_outputs:
            raise RLXError("Loop of no iterations with scan outputs (they "
                           "would be empty)")
        return tuple(states)
    if counted:
        step.xs = [c.e.constant(np.arange(length, dtype=np.int64), "i64")]
    finals, stacked = step.emit(length, outputs)
    return tuple(finals + stacked)


def _scalar(c, value, what, dtype):
    """A one-element operand as a rank-0 Value of `dtype`."""
    value = c.value(value)
    if value.dtype != dtype or not is_static(value.shape) or \
            int(np.prod(value.shape)) != 1:
        raise RLXError(f"{what} of type {value.type} (one {dtype} element)")
    return c.e.reshape(value, ())


def _while(c, graph, trip, cond, states):
    """The Loop as an rlx.while carrying (the iteration number, the
    condition, the states): its cond region is `condition and number <
    trip count`, its body the Loop's body, which also yields the number
    plus one and the body's condition. The trip count, where known, is its
    max_iterations."""
    if trip is not None and is_const(trip):
        bound = ints(trip, "Loop's trip count")[0]
        if bound <= 0:
            return tuple(states)
    else:
        bound = None
    carried = [c.e.constant(0, "i64"),
               c.e.constant(True, "i1") if cond is None else
               _scalar(c, cond, "Loop's condition", "i1")] + list(states)
    limit = None if trip is None else _scalar(c, trip, "Loop's trip count",
                                              "i64")
    types = [v.type for v in carried]

    def region():
        e = SymbolicEmitter(c.e, c.e.indent + "  ")
        e.symbols = c.e.symbols
        return e, [SymbolicValue(e._fresh("w"), v.shape, v.dtype)
                   for v in carried]

    def block(e, arguments, yields):
        return [f"{e.indent[:-2]}^bb0("
                f"{', '.join(f'{a.name}: {a.type}' for a in arguments)}):"] \
            + e.lines + [f"{e.indent}rlx.yield "
                         f"{', '.join(v.name for v in yields)} : "
                         f"{', '.join(v.type for v in yields)}"]
    test, arguments = region()
    predicate = arguments[1]
    if limit is not None:
        predicate = test.where(predicate, test.compare(
            "lt", arguments[0], limit), test.constant(False, "i1"))
    cond_lines = block(test, arguments, [predicate] + arguments)
    e, body_arguments = region()
    body, outputs = c.subgraph(graph, e, body_arguments, "body")
    values = [body.value(v) for v in outputs]
    yields = [e.binary("add", body_arguments[0], e.constant(1, "i64")),
              _scalar(body, values[0], "the body's condition", "i1")] + \
        values[1:]
    for i, (v, t) in enumerate(zip(yields[2:], types[2:])):
        if v.type != t:
            raise RLXError(f"state variable {i} enters the body as {t} and "
                           f"leaves it as {v.type}")
    names = [c.e._fresh("v") for _ in carried]
    bounded = f" max_iterations = {bound}" if bound is not None else ""
    c.e.lines += [f"{c.e.indent}{', '.join(names)} = rlx.while "
                  f"{', '.join(v.name for v in carried)} : {', '.join(types)}"
                  f"{bounded} cond {{"] + cond_lines + \
        [f"{c.e.indent}}} do {{"] + block(e, body_arguments, yields) + \
        [f"{c.e.indent}}}"]
    return tuple(SymbolicValue(name, v.shape, v.dtype)
                 for name, v in zip(names[2:], carried[2:]))
