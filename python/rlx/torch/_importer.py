# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""From a torch.nn.Module to an rlx graph: trace, then translate node by
node (docs/torch-importer.md)."""

import dis
import inspect
import operator
import re
import types
import torch
import torch.fx

from .._capi import RLXError
from ._emitter import Emitter, Value, rlx_dtype, torch_dtype
from . import _autocast, _dynamic, _ops

# Ops whose values are random: never evaluated at import time.
_RANDOM_OPS = re.compile(r"_?(rand\w*|bernoulli_?|normal_?|uniform_|"
                         r"multinomial|poisson|exponential_|cauchy_|"
                         r"geometric_|log_normal_|random_)")


class UnsupportedError(RLXError):
    """A node the importer has no translation for."""


class _Proxy(torch.fx.Proxy):
    def __iter__(self):
        # `out, (h, c) = self.lstm(x)`: fx unpacks a proxy into as many
        # getitems as the UNPACK_SEQUENCE that iterates it asks for. torch
        # 1.13 finds that instruction at index f_lasti // 2, which Python
        # 3.11's inline caches shift; its byte offset finds it everywhere.
        frame = inspect.currentframe().f_back
        for instruction in dis.get_instructions(frame.f_code):
            if instruction.offset == frame.f_lasti and \
                    instruction.opname == "UNPACK_SEQUENCE":
                return (self[i] for i in range(instruction.argval))
        return super().__iter__()


class _Tracer(torch.fx.Tracer):
    def __init__(self):
        super().__init__(autowrap_functions=_ops.recurrent.PACKING)
        # Source lines for the unsupported-op message.
        self.record_stack_traces = True

    def proxy(self, node):
        return _Proxy(node, self)

    def is_leaf_module(self, module, qualified_name):
        # Modules with a translation are leaves; every other module is
        # traced through.
        return _ops.module_handler(module) is not None


def _source_line(node):
    """The innermost frame of the node's recorded stack: the line of the
    model's code that made it."""
    trace = getattr(node, "stack_trace", None) or \
        node.meta.get("stack_trace")
    if not trace:
        return "source line unknown (traced with make_fx)"
    frames = [line.strip() for line in trace.strip().splitlines()
              if line.strip().startswith("File ")]
    return frames[0] if frames else trace.strip().splitlines()[0]


def _describe_target(node, root):
    if node.op == "call_module":
        return f"module {type(root.get_submodule(node.target)).__name__}"
    if node.op == "call_method":
        return f"method Tensor.{node.target}"
    target = node.target
    name = getattr(target, "__name__", None) or str(target)
    module = getattr(target, "__module__", None)
    return f"function {module + '.' if module else ''}{name}"


class _Converter:
    """Translates one traced graph; env maps nodes to Values or Python
    values (ints, tuples, None)."""

    def __init__(self, graph_module, state, aten, buffers=(), emitter=None):
        self.gm = graph_module
        self.state = state  # name -> tensor of parameters and buffers
        # Registered buffers (running statistics) become rlx.state: bound
        # like parameters, not trained.
        self.buffers = set(buffers)
        self.aten = aten
        self.e = emitter if emitter is not None else Emitter()
        self.env = {}
        self.arguments = []  # (Value, attribute, name, is_state)
        self.params = {}
        self.param_values = {}  # name -> its first argument
        # Mixed precision (import_module's dtype=): the Autocast policy, the
        # argument of each (name, dtype) a parameter is read in, their
        # names, and the dtype a translated module reads its parameters in.
        self.autocast = None
        self.param_versions = {}
        self.param_names = {}  # argument name -> parameter name
        self.param_dtype = None
        self.param_nodes = set()  # placeholders of parameters (make_fx)
        self.order = None  # node -> position, for check_no_stale_view

    # -- values -------------------------------------------------------
    def _argument(self, attribute, name, tensor, what, is_state=False,
                  dtype=None):
        """A new graph argument of `tensor`'s shape and dtype (or
        `dtype`)."""
        dtype = dtype or rlx_dtype(tensor.dtype)
        if dtype is None:
            raise RLXError(f"{what} '{name}' has dtype {tensor.dtype}, "
                           "which rlx does not take")
        value = Value(f"%a{len(self.arguments)}", tuple(tensor.shape), dtype)
        self.arguments.append((value, attribute, name, is_state))
        return value

    def param(self, name, dtype=None):
        """The rlx.param argument of state_dict entry `name`: in its own
        dtype, or for a floating one in `dtype` (or, while a module is
        translated in mixed precision, in the dtype it reads parameters
        in). A parameter read in several dtypes is one argument, cast at
        the top of the body (finish)."""
        tensor = self.state[name].detach()
        dtype = (dtype or self.param_dtype) if tensor.is_floating_point() \
            else None
        dtype = dtype or rlx_dtype(tensor.dtype)
        if (name, dtype) not in self.param_versions:
            value = self._argument("rlx.param", name, tensor, "parameter",
                                   is_state=name in self.buffers,
                                   dtype=dtype)
            self.param_versions[name, dtype] = value
            self.param_names[value.name] = name
            if name not in self.param_values:
                self.param_values[name] = value
                self.params[name] = _array(tensor, dtype)
        return self.param_versions[name, dtype]

    def cast_value(self, value, dtype):
        """`value` in `dtype`: a parameter's argument of that dtype, or an
        rlx.cast."""
        name = self.param_names.get(value.name)
        if name is not None and \
                self.param_versions.get((name, value.dtype)) is value:
            return self.param(name, dtype)
        return self.e.cast(value, dtype)

    def finish(self, results):
        """One argument per parameter: one read in several dtypes (mixed
        precision) is stored in the widest of those the graph uses and cast
        to the others at the top of the body, its versions the graph does
        not use dropped, and its array is in the stored dtype."""
        text = "\n".join(self.e.lines + [r.name for r in results])
        used = set(re.findall(r"%a\d+", text))
        versions = {}
        for (name, dtype), value in self.param_versions.items():
            versions.setdefault(name, []).append(value)
        dropped, casts = set(), []
        for name, values in versions.items():
            if len(values) == 1:
                continue  # params[name] is in its dtype already
            kept = [v for v in values if v.name in used] or values[:1]
            store = max(kept, key=lambda v: _WIDTH.get(v.dtype, 0))
            dropped.update(v.name for v in values if v is not store)
            casts += [f"{self.e.indent}{v.name} = rlx.cast {store.name} : "
                      f"{store.type} to {v.dtype}"
                      for v in kept if v is not store]
            self.params[name] = _array(self.state[name].detach(),
                                       store.dtype)
        self.arguments = [a for a in self.arguments
                          if a[0].name not in dropped]
        self.e.lines[:0] = casts

    def input(self, name, example):
        if not isinstance(example, torch.Tensor):
            raise RLXError(f"input '{name}' is a {type(example).__name__}; "
                           "rlx graphs take tensors")
        return self._argument("rlx.input", name, example, "input")

    def const_tensor(self, tensor):
        """A tensor computed while tracing or folded at import time,
        inlined as an rlx.constant where an op of the graph uses it."""
        dtype = rlx_dtype(tensor.dtype)
        array = _array(tensor.detach(), dtype)
        if dtype is None:
            raise RLXError(f"a constant of dtype {tensor.dtype}")
        if not _inlinable(tensor):
            raise RLXError(f"a constant tensor of shape {list(array.shape)} "
                           "computed while tracing is too large to inline")
        return self.e.constant(array, dtype)

    def like(self, scalar, ref):
        """A scalar operand as a rank-0 constant of `ref`'s dtype."""
        if isinstance(scalar, Value):
            return self.e.cast(scalar, ref.dtype) \
                if scalar.dtype != ref.dtype else scalar
        if isinstance(scalar, torch.Tensor):
            return self.e.cast(self.const_tensor(scalar), ref.dtype)
        return self.e.constant(scalar, ref.dtype)

    def operands(self, a, b):
        """Two operands of a binary op as Values of one dtype."""
        if not isinstance(a, Value) and not isinstance(b, Value):
            raise RLXError("binary op of two constants")
        if not isinstance(a, Value):
            return self.like(a, b), b
        if not isinstance(b, Value):
            return a, self.like(b, a)
        if a.dtype != b.dtype:
            # torch promotes to the float operand's type; of two floats, to
            # the wider (f16 with bf16: f32), unless one is rank 0.
            if _is_float(a.dtype) and _is_float(b.dtype) and \
                    a.rank and b.rank:
                dtype = max(a.dtype, b.dtype, key=_WIDTH.get)
                if {a.dtype, b.dtype} == {"f16", "bf16"}:
                    dtype = "f32"
                a, b = self.e.cast(a, dtype), self.e.cast(b, dtype)
            elif _is_float(a.dtype) and (a.rank or not _is_float(b.dtype)):
                b = self.e.cast(b, a.dtype)
            else:
                a = self.e.cast(a, b.dtype)
        return a, b

    def binary(self, kind, a, b):
        a, b = self.operands(a, b)
        if kind == "div" and not _is_float(a.dtype):
            a, b = self.e.cast(a, "f32"), self.e.cast(b, "f32")
        return self.e.binary(kind, a, b)

    def scalar(self, value, ref):
        return self.e.constant(value, ref.dtype)

    # -- translation --------------------------------------------------
    def load(self, arg):
        return torch.fx.node.map_arg(arg, lambda n: self.env[n])

    def materialize(self, tree):
        """`tree` with its constant tensors as rlx.constant Values, for a
        translation (which takes Values)."""
        return torch.fx.node.map_aggregate(
            tree, lambda v: self.const_tensor(v)
            if isinstance(v, torch.Tensor) else v)

    def run(self, input_names, example_inputs, param_names=()):
        placeholders = [n for n in self.gm.graph.nodes
                        if n.op == "placeholder"]
        flat_params = list(param_names)
        self.param_nodes = set(placeholders[:len(flat_params)])
        low = self.low_params(self.param_nodes)
        for i, node in enumerate(placeholders):
            if i < len(flat_params):
                self.env[node] = self.param(
                    flat_params[i], self.autocast.low if node in low else None)
            else:
                j = i - len(flat_params)
                self.env[node] = self.input(input_names[j], example_inputs[j])
        return self.run_nodes()

    def low_params(self, nodes):
        """Of the parameter nodes `nodes`, those mixed precision reads only
        in the low dtype (bound in it)."""
        if self.autocast is None:
            return set()
        return self.autocast.low_params(nodes, self.autocast_name,
                                        self.param_nodes)

    def autocast_name(self, node):
        return _autocast.op_name(node, self.gm, _op_name)

    def run_nodes(self):
        """Translates the graph's nodes after its placeholders (bound in
        env); returns its outputs."""
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                continue
            # The node that asks for the ops (a dynamic import's recorder
            # names it where the ops differ between sizes).
            asking, self.e.node = getattr(self.e, "node", None), (self, node)
            if node.op == "output":
                try:
                    return self.materialize(self.load(node.args[0]))
                finally:
                    self.e.node = asking
            try:
                self.env[node] = self.translate(node, _ops)
                self.functionalize(node)
            except UnsupportedError:
                raise
            except RLXError as error:
                raise UnsupportedError(self.where(node) + str(error)) \
                    from None
            except (TypeError, ValueError, IndexError) as error:
                # Arguments a translation does not take (a keyword of a
                # newer torch, a shape it cannot handle).
                raise UnsupportedError(
                    self.where(node) + f"not translated ({error})") from None
            finally:
                self.e.node = asking
        return None

    def functionalize(self, node):
        """An in-place op was translated as its out-of-place form; later
        uses of the updated node read the new value instead, and where the
        node is a slice or select of a base, the base is rebuilt around the
        new region (`bias[n:2 * n].zero_()`)."""
        if not _in_place(node) or node.op == "call_module" or not node.args:
            return
        target = node.args[0]
        if not isinstance(target, torch.fx.Node) or \
                not isinstance(self.env.get(target), (Value, torch.Tensor)):
            return
        if self.env[node] is self.env[target]:
            return  # a constant folded in place: torch updated it
        updated = [target]
        new = self.env[node]
        self.env[target] = new
        region = self.region(target)
        while region is not None:
            base = target.args[0]
            new = self.write_region(self.materialize(self.env[base]),
                                    *region, self.materialize(new))
            self.env[base] = new
            updated.append(base)
            target, region = base, self.region(base)
        self.check_no_stale_view(node, updated)

    def region(self, node):
        """(axis, start, length, squeezed) of an aten slice (step 1) or
        select of a tensor in env; None for anything else."""
        if node.op != "call_function" or not node.args or \
                not isinstance(node.args[0], torch.fx.Node):
            return None
        base = self.env.get(node.args[0])
        if not isinstance(base, (Value, torch.Tensor)):
            return None
        rank = len(base.shape)
        if str(node.target) == "aten.slice.Tensor":
            dim, start, end, step = (list(node.args[1:]) +
                                     [0, None, None, 1][len(node.args) - 1:])
            axis = dim % rank
            start, stop, step = slice(start, end, step).indices(
                base.shape[axis])
            return (axis, start, max(0, stop - start), False) \
                if step == 1 else None
        if str(node.target) == "aten.select.int":
            axis = node.args[1] % rank
            return axis, node.args[2] % base.shape[axis], 1, True
        if node.target is operator.getitem and isinstance(base, Value):
            return _getitem_region(node.args[1], base.shape)
        return None

    def write_region(self, base, axis, start, length, squeezed, value):
        """base with [start, start + length) along axis replaced."""
        if squeezed:
            value = self.e.reshape(value, value.shape[:axis] + (1,) +
                                   value.shape[axis:])
        shape = list(base.shape)
        shape[axis] = length
        value = self.e.expand(self.e.cast(value, base.dtype), shape)
        end = base.shape[axis] - start - length
        pieces = ([self.e.narrow(base, axis, 0, start)] if start else []) + \
            [value] + ([self.e.narrow(base, axis, start + length, end)]
                       if end else [])
        return self.e.concat(pieces, axis)

    def check_no_stale_view(self, node, updated):
        """The nodes in `updated` read their new values; any other view of
        the same storage read after `node` would read the old one: an
        error."""
        root = updated[-1]
        while _is_view(root) and isinstance(root.args[0], torch.fx.Node):
            root = root.args[0]
        if self.order is None:
            self.order = {n: i for i, n in enumerate(self.gm.graph.nodes)}
        family, pending = set(), [root]
        while pending:
            member = pending.pop()
            family.add(member)
            pending += [u for u in member.users
                        if _is_view(u) and u not in family]
        for member in family - set(updated):
            if self.order[member] > self.order[node]:
                continue  # a view taken after the update reads it
            for user in member.users:
                if user is not node and self.order[user] > self.order[node]:
                    raise RLXError(
                        f"an in-place update of '{node.args[0].name}' "
                        f"(a view of '{root.name}', or viewed by another "
                        f"node) which '{user.name}' reads afterwards (the "
                        "update is translated as a new value, which the "
                        "other views would not see)")

    def where(self, node):
        return (f"node '{node.name}' ({_describe_target(node, self.gm)}) at "
                f"{_source_line(node)}: ")

    def translate(self, node, ops):
        if node.op == "get_attr":
            attribute = self.gm
            for part in node.target.split("."):
                attribute = getattr(attribute, part)
            if node.target in self.state:
                return self.param(node.target, self.autocast.low
                                  if self.low_params([node]) else None)
            if isinstance(attribute, torch.Tensor):
                # A constant (make_fx's lifted tensors, a mask kept as a
                # plain attribute); a copy, so that folding an in-place op
                # on it leaves the module alone.
                return attribute.detach().clone()
            return attribute
        args = self.load(node.args)
        kwargs = self.load(node.kwargs)
        if node.target is not operator.getitem and \
                _contains((args, kwargs), ops.NoIndices):
            raise RLXError("uses a result with no rlx translation (the "
                           "indices of max/min, the statistics of a norm, "
                           "attention weights)")
        policy = None
        if self.autocast is not None:
            policy = self.autocast.target(self.autocast_name(node))
            if policy is None and self.autocast.bias_add(
                    node, self.autocast_name, self.param_nodes):
                policy = "low"
        if node.op == "call_module":
            module = self.gm.get_submodule(node.target)
            handler = ops.module_handler(module)
            if handler is None:
                raise UnsupportedError(self.where(node) + "no rlx translation"
                                       " (see docs/torch-importer.md)")
            args, kwargs = self.autocast_operands(
                policy, self.materialize((args, kwargs)))
            # A module's parameters are read in its mixed-precision dtype.
            self.param_dtype = self.autocast.low if policy == "low" else None
            try:
                return handler(self, module, node.target, *args, **kwargs)
            finally:
                self.param_dtype = None
        if node.op == "call_method":
            handler = ops.METHODS.get(node.target)
        else:
            handler = ops.FUNCTIONS.get(node.target) or \
                ops.NAMED_FUNCTIONS.get(_qualified_name(node.target))
            if handler is None and self.aten:
                handler = ops.ATEN.get(str(node.target))
        if not _has_value((args, kwargs)):
            # Every operand is a constant: arithmetic on shapes and Python
            # numbers, tensors made while tracing (the full + triu of
            # generate_square_subsequent_mask). The op runs now, in torch,
            # and its result stays a constant until a graph op uses it;
            # unless it is too large to inline while its operands are not
            # (swin's shifted window mask, an outer difference of a small
            # one): then the graph computes it from them.
            result = self.fold(node, args, kwargs)
            if handler is None or _in_place(node) or not isinstance(
                    result, torch.Tensor) or _inlinable(result) or \
                    not _all_inlinable((args, kwargs)):
                return result
        if handler is None and node.op == "call_function" and \
                isinstance(node.target, types.FunctionType):
            return self.inline(node, self.materialize(args),
                               self.materialize(kwargs))
        if handler is None:
            raise UnsupportedError(self.where(node) + "no rlx translation "
                                   "(see docs/torch-importer.md)")
        args, kwargs = self.autocast_operands(
            policy, self.materialize((args, kwargs)))
        return handler(self, *args, **kwargs)

    def autocast_operands(self, policy, tree):
        """`tree` with its floating operands cast as mixed precision's
        `policy` for the op says ("low", "f32", "promote" or None)."""
        if policy is None:
            return tree
        return self.autocast.cast_operands(self, policy, tree)

    def inline(self, node, args, kwargs):
        """A Python function that fx keeps as one call (wrapped with
        torch.fx.wrap, such as torchvision's shifted_window_attention, or
        a torch.nn.functional function with no translation of its own):
        make_fx traces it on tensors of its operands' shapes (parameters and
        buffers with their values; the values of the others are never read,
        since make_fx refuses data-dependent control flow), and its aten
        graph is translated here."""
        from torch.fx.experimental.proxy_tensor import make_fx
        operands = []

        def collect(value):
            if isinstance(value, Value):
                operands.append(value)
            return value
        torch.fx.node.map_aggregate((args, kwargs), collect)
        examples = [self.state[self.param_names[v.name]].detach().to(
                    torch_dtype(v.dtype)) if v.name in self.param_names else
                    torch.zeros(v.shape, dtype=torch_dtype(v.dtype))
                    for v in operands]

        def call(*tensors):
            remaining = iter(tensors)
            a, k = torch.fx.node.map_aggregate(
                (args, kwargs), lambda v: next(remaining)
                if isinstance(v, Value) else v)
            return node.target(*a, **k)
        try:
            with torch.enable_grad():
                graph_module = make_fx(call, tracing_mode=_tracing_mode(
                    examples))(*examples)
            inner = _Converter(graph_module, self.state, True, self.buffers)
            inner.e, inner.arguments = self.e, self.arguments
            inner.params, inner.param_values = self.params, self.param_values
            inner.autocast, inner.param_names = self.autocast, self.param_names
            inner.param_versions = self.param_versions
            placeholders = [n for n in graph_module.graph.nodes
                            if n.op == "placeholder"]
            for placeholder, value in zip(placeholders, operands):
                inner.env[placeholder] = value
            return inner.run_nodes()
        except RLXError as error:
            raise UnsupportedError(self.where(node) + "in its make_fx "
                                   f"trace: {error}") from None
        except RuntimeError as error:
            raise UnsupportedError(self.where(node) + "make_fx cannot "
                                   f"trace it: {error}") from None

    def fold(self, node, args, kwargs):
        """Evaluates a node of constant operands with torch."""
        if _RANDOM_OPS.fullmatch(_op_name(node)):
            # Its values would be one draw, frozen into the graph.
            raise UnsupportedError(self.where(node) + "a random op has no "
                                   "rlx translation")
        try:
            if node.op == "call_method":
                return getattr(args[0], node.target)(*args[1:], **kwargs)
            return node.target(*args, **kwargs)
        except RuntimeError as error:
            raise RLXError(f"evaluating it at import time (all its operands "
                           f"are constants) failed: {error}") from None


# Floating types by width, for promotion and for the stored dtype of a
# parameter read in several.
_WIDTH = {"f64": 3, "f32": 2, "f16": 1, "bf16": 1}


def _is_float(dtype):
    return dtype in _WIDTH


def _array(tensor, dtype):
    """A tensor as the NumPy array rlx binds to an argument of rlx type
    `dtype`: bf16 (which NumPy lacks) as the float32 array of its values."""
    tensor = tensor.cpu().to(torch_dtype(dtype))
    if dtype == "bf16":
        tensor = tensor.float()
    return tensor.numpy().copy()


def _tracing_mode(tensors):
    """make_fx's mode for these example tensors: "real" runs the ops, which
    PyTorch's CPU kernels cannot for f16 and bf16 (addmm, layer_norm), so
    with any such tensor the trace runs on fake tensors (shapes and dtypes,
    no values); the graph is the same, since data-dependent control flow
    fails in either mode."""
    low = any(isinstance(t, torch.Tensor) and
              t.dtype in (torch.float16, torch.bfloat16) for t in tensors)
    return "fake" if low else "real"


def _qualified_name(target):
    return f"{getattr(target, '__module__', None)}." \
        f"{getattr(target, '__qualname__', None)}"


def _getitem_region(index, shape):
    """The region of x[index] where one entry of the index is an int or a
    step-1 slice and the others take whole dims (`b[:, 1:3]`, `b[0]`)."""
    index = index if isinstance(index, tuple) else (index,)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (len(shape) + 1 - len(index)) \
            + index[at + 1:]
    if len(index) > len(shape):
        return None
    partial = [(axis, i) for axis, i in enumerate(index)
               if i != slice(None)]
    if len(partial) != 1:
        return None
    axis, i = partial[0]
    if isinstance(i, int):
        return axis, i % shape[axis], 1, True
    if isinstance(i, slice):
        start, stop, step = i.indices(shape[axis])
        return (axis, start, max(0, stop - start), False) if step == 1 \
            else None
    return None


def _inlinable(tensor):
    """Small enough to print as an rlx.constant: at most 4096 elements, or
    a splat."""
    flat = tensor.reshape(-1)
    return flat.numel() <= 4096 or bool((flat == flat[0]).all())


def _all_inlinable(tree):
    tensors = []
    torch.fx.node.map_aggregate(
        tree, lambda v: tensors.append(v) if isinstance(v, torch.Tensor)
        else v)
    return all(_inlinable(t) for t in tensors)


def _op_name(node):
    """A method's name, a function's, or an aten op's without its
    namespace and overload (`add_` of aten.add_.Tensor)."""
    if isinstance(node.target, str):
        return node.target
    if str(node.target).startswith("aten."):
        return str(node.target).split(".")[1]
    return getattr(node.target, "__name__", str(node.target))


def _in_place(node):
    """`x.add_(y)`, `x += y`, `relu(x, inplace=True)`, aten's `add_`,
    `x[i] = v`."""
    if node.op not in ("call_function", "call_method"):
        return False
    name = _op_name(node)
    return (name.endswith("_") and not name.startswith("_")) or \
        node.kwargs.get("inplace") is True or \
        name in ("iadd", "isub", "imul", "itruediv", "setitem")


# Ops whose result may share its input's storage.
_VIEW_OPS = {
    "getitem", "view", "_unsafe_view", "_reshape_alias", "reshape",
    "view_as", "slice", "select", "narrow", "transpose", "t", "permute",
    "unsqueeze", "squeeze", "expand", "expand_as", "alias", "as_strided",
    "diagonal", "unfold", "flatten", "unflatten", "split", "chunk",
    "unbind", "split_with_sizes", "contiguous", "detach", "movedim"}


def _is_view(node):
    return node.op in ("call_function", "call_method") and \
        _op_name(node) in _VIEW_OPS


def _contains(tree, kind):
    found = []
    torch.fx.node.map_aggregate(
        tree, lambda v: found.append(v) if isinstance(v, kind) else v)
    return bool(found)


def _has_value(tree):
    return _contains(tree, Value)


def _forward_names(module, count):
    parameters = [p for p in inspect.signature(module.forward)
                  .parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in parameters[:count]]
    names += [f"input_{i}" for i in range(len(names), count)]
    return names


def _flatten_outputs(outputs):
    flat = []
    torch.fx.node.map_aggregate(outputs, flat.append)
    for value in flat:
        if not isinstance(value, Value):
            raise RLXError(f"the module returns a {type(value).__name__}; "
                           "rlx graph results are tensors")
    return flat


def _trace(module, example_inputs, symbolic=True):
    """(graph module, parameter names of leading placeholders, aten?):
    symbolic tracing, else (or with symbolic=False) make_fx on the example
    inputs."""
    symbolic_error = None
    if symbolic:
        try:
            tracer = _Tracer()
            graph = tracer.trace(module)
            for node in graph.nodes:
                # The GraphModule's generated code would re-register wrapped
                # functions with torch.fx.wrap for its own retracing (which
                # never happens here), a torch function under its qualified
                # name, which then breaks every later trace in the process.
                node.meta.pop("is_wrapped", None)
            return torch.fx.GraphModule(tracer.root, graph), (), False
        except Exception as error:  # noqa: BLE001 (any trace failure)
            symbolic_error = error
    # Data-dependent Python control flow (TransformerEncoderLayer's
    # fast-path checks) defeats symbolic tracing; make_fx runs the code on
    # real tensors and records the aten ops instead.
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.nn.utils import stateless
    state = dict(module.named_parameters())
    state.update(module.named_buffers())
    names = list(state)

    def call(*flat):
        return stateless.functional_call(
            module, dict(zip(names, flat[:len(names)])),
            tuple(flat[len(names):]))
    flat = [state[n] for n in names] + list(example_inputs)
    try:
        with torch.enable_grad():
            graph_module = make_fx(call, tracing_mode=_tracing_mode(
                flat))(*flat)
    except Exception as error:  # noqa: BLE001
        if symbolic_error is None:
            raise RLXError(f"make_fx cannot trace the module ({error})") \
                from None
        raise RLXError(f"cannot trace the module: symbolic tracing "
                       f"failed ({symbolic_error}) and so did make_fx "
                       f"({error})") from None
    return graph_module, names, True


def import_module(module, *example_inputs, dynamic=False, dtype=None):
    """Imports `module` (in eval mode) as an rlx graph for inputs shaped
    like `example_inputs`. Returns (mlir_text, params): the graph's inputs
    are named after forward's parameters, and params maps state_dict names
    to NumPy arrays, to bind with rlx.compile(mlir_text, params=params).
    Registered buffers (batch norm's running statistics) are marked
    rlx.state: bound like parameters, not trained.

    dynamic=True makes dim 0 of every input the symbolic dim `batch` (`?`
    in the graph: it compiles once and runs at any batch size);
    dynamic={"x": {0: "batch", 1: "seq"}} names the symbolic dims of each
    input (dims of one name are one size). The dims of the graph that
    follow them are `?` too; what cannot follow them is an error naming
    the node (docs/torch-importer.md, "Symbolic dims").

    A module in f16 or bf16 is imported in its dtype. dtype="f16" or "bf16"
    imports an f32 module in mixed precision, as PyTorch's autocast runs
    it: matmuls, convolutions and linear layers in the low dtype (their
    parameters stored in it), norms, softmax, reductions and the like in
    f32 (docs/torch-importer.md). bf16 parameters are float32 arrays of
    bf16 values."""
    if module.training:
        raise RLXError("the module is in training mode: call .eval() first "
                       "(batch norm and dropout are imported in eval form)")
    state = dict(module.named_parameters())
    buffers = dict(module.named_buffers())
    state.update(buffers)
    autocast = None
    if dtype is not None:
        autocast = _autocast.Autocast(_autocast.low_dtype(dtype))
        _autocast.check_f32_model(state, example_inputs, autocast.low)
    names = _forward_names(module, len(example_inputs))
    traces = []

    def convert(inputs, emitter):
        """The module translated at the sizes of `inputs`, into `emitter`:
        (converter, results). A make_fx trace holds the sizes it ran at,
        so it is traced again at other sizes; a symbolic trace is not."""
        if not traces or traces[0][2]:
            traces.append(_trace(module, inputs, symbolic=not traces))
        graph_module, param_names, aten = traces[-1]
        converter = _Converter(graph_module, state, aten, buffers, emitter)
        converter.autocast = autocast
        with torch.no_grad():
            outputs = converter.run(names, inputs, param_names)
        return converter, _flatten_outputs(outputs)
    if dynamic:
        converter, results = _dynamic.import_dynamic(
            convert, names, example_inputs, dynamic)
    else:
        converter, results = convert(example_inputs, Emitter())
    converter.finish(results)
    return _print_function(converter, results), converter.params


def _print_function(converter, results):
    arguments = ",\n    ".join(
        f"{value.name}: {value.type} {{{attribute} = \"{name}\""
        f"{', rlx.state' if is_state else ''}}}"
        for value, attribute, name, is_state in converter.arguments)
    types = ", ".join(r.type for r in results)
    result_types = f"({types})" if len(results) != 1 else types
    body = "\n".join(converter.e.lines)
    names = ", ".join(r.name for r in results)
    return (f"func.func @forward(\n    {arguments})\n    -> {result_types} "
            f"{{\n{body}\n  return {names} : {types}\n}}\n")
