# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""From an ONNX ModelProto to an rlx graph, node by node (docs/onnx.md)."""

import os

import numpy as np

from .._capi import RLXError
from ..torch._emitter import rlx_dtype
from ..torch._importer import _print_function
from ..torch._symbolic import SymbolicEmitter, SymbolicValue
from ._ops import OPS
from ._ops.common import NoValue, is_const, is_symbolic

OPSETS = range(13, 18)

# ONNX TensorProto.DataType -> rlx element type.
_ONNX_DTYPES = {1: "f32", 2: "ui8", 3: "i8", 5: "i16", 6: "i32", 7: "i64",
                9: "i1", 10: "f16", 11: "f64", 16: "bf16"}
_ONNX_DTYPE_NAMES = {0: "UNDEFINED", 4: "UINT16", 8: "STRING",
                     12: "UINT32", 13: "UINT64", 14: "COMPLEX64",
                     15: "COMPLEX128"}


# Earlier versions whose models are models of the opset-13 version too:
# If 11 and Loop 11 (13 adds sequence types), Scan 9 (11 adds negative
# axes), Constant 11 and 12, Add 7 and Identity 1 (13 adds bf16): what the
# subgraphs of ONNX's control-flow node tests hold.
_SUBSET_VERSIONS = {"If": (11,), "Loop": (11,), "Scan": (9,),
                    "Constant": (11, 12), "Add": (7,), "Identity": (1,)}


class UnsupportedError(RLXError):
    """A node (or a graph input) the importer has no translation for."""


def rlx_type(elem_type, what):
    """The rlx element type of an ONNX element type."""
    if elem_type not in _ONNX_DTYPES:
        name = _ONNX_DTYPE_NAMES.get(elem_type, str(elem_type))
        raise UnsupportedError(f"{what} has element type {name}, which rlx "
                               "does not take")
    return _ONNX_DTYPES[elem_type]


def _array(tensor):
    """A TensorProto's values as NumPy (bf16 read as float32, the array
    rlx binds to a bf16 argument)."""
    from onnx import numpy_helper
    if tensor.data_type == 16:
        raw = np.frombuffer(tensor.raw_data, np.uint16) if tensor.raw_data \
            else np.array(tensor.int32_data, np.uint16)
        return (raw.astype(np.uint32) << 16).view(np.float32) \
            .reshape(tuple(tensor.dims))
    return numpy_helper.to_array(tensor)


class _Converter:
    """Translates one ONNX graph. env maps value names to Values (graph
    values), NumPy arrays (known at import time) or None (an omitted
    optional input)."""

    def __init__(self, graph, opset, dims, constants=None):
        self.graph = graph
        self.opset = opset
        self.dims = dict(dims or {})
        self.constants = dict(constants or {})
        self.e = SymbolicEmitter()
        self.env = {"": None}
        self.arguments = []  # (Value, attribute, name, is_state)
        self.params = {}
        self.initializers = {}  # name -> ndarray, bound as rlx.param
        self.param_values = {}
        self.folded_values = {}  # id(array) -> (array, its rlx.param)
        self.initializer_names = {t.name for t in graph.initializer}
        self.input_names = {}  # id(import-time input) -> its ONNX name
        self.node_output = ""

    # -- values -------------------------------------------------------
    def _argument(self, attribute, name, shape, dtype):
        value = SymbolicValue(f"%a{len(self.arguments)}", shape, dtype)
        self.arguments.append((value, attribute, name, False))
        return value

    def value(self, x):
        """A graph Value for an input: an initializer becomes its
        rlx.param argument (on first use), an import-time array an
        rlx.constant."""
        if x is None or not is_const(x):
            return x
        name = getattr(x, "initializer", None)
        if name is not None:
            if name not in self.param_values:
                dtype = "bf16" if getattr(x, "bf16", False) else \
                    rlx_dtype(x.dtype)
                self.param_values[name] = self._argument(
                    "rlx.param", name, x.shape, dtype)
                self.params[name] = np.asarray(x)
            return self.param_values[name]
        return self.constant(x)

    def constant(self, array):
        if is_symbolic(array):
            raise RLXError(f"a shape with symbolic dims ({array.tolist()}) "
                           "used as a tensor: its values are only known at "
                           "run time")
        dtype = rlx_dtype(array.dtype)
        if dtype is None:
            raise RLXError(f"a constant of dtype {array.dtype}")
        flat = array.reshape(-1)
        if flat.size > 4096 and not np.all(flat == flat[0]):
            return self.folded(array, dtype)
        return self.e.constant(np.asarray(array), dtype)

    def folded(self, array, dtype):
        """A value computed at import time that is too large to print as
        an rlx.constant (swin's shifted-window masks): an rlx.param,
        params holding its value, named after the ONNX value it is where
        that is known (`:N` added to be unique)."""
        key = id(array)
        if key not in self.folded_values:
            base = self.input_names.get(key) or \
                f"{self.node_output}:constant"
            name, n = base, 0
            while name in self.params or name in self.initializer_names:
                n += 1
                name = f"{base}:{n}"
            self.params[name] = np.ascontiguousarray(array)
            # The array stays referenced, so its id is not reused.
            self.folded_values[key] = (array, self._argument(
                "rlx.param", name, array.shape, dtype))
        return self.folded_values[key][1]

    def scalar(self, value, ref):
        """A rank-0 constant of `ref`'s dtype (the torch translations'
        interface)."""
        return self.e.constant(value, ref.dtype)

    def operands(self, a, b):
        """Two operands as Values of one dtype (ONNX's binary ops take one
        type; an import-time operand takes the other's)."""
        if is_const(a) and not is_const(b):
            a = self.e.cast(self.value(a), b.dtype)
        elif is_const(b) and not is_const(a):
            b = self.e.cast(self.value(b), a.dtype)
        a, b = self.value(a), self.value(b)
        if a.dtype != b.dtype:
            raise RLXError(f"operands of types {a.type} and {b.type}")
        return a, b

    def binary(self, kind, a, b):
        a, b = self.operands(a, b)
        return self.e.binary(kind, a, b)

    # -- translation --------------------------------------------------
    def bind_inputs(self):
        for tensor in self.graph.initializer:
            array = _array(tensor).view(_Initializer)
            array.initializer = tensor.name
            array.bf16 = tensor.data_type == 16
            self.env[tensor.name] = array
        for info in self.graph.input:
            if info.name in self.env:
                continue  # an initializer listed as an input (IR < 4)
            if info.name in self.constants:
                # Given at import time: a known value, not an argument.
                self.env[info.name] = np.asarray(self.constants[info.name])
                continue
            what = f"graph input '{info.name}'"
            kind = info.type.WhichOneof("value")
            if kind != "tensor_type":
                raise UnsupportedError(f"{what} is a {kind}; rlx graphs "
                                       "take tensors")
            tensor_type = info.type.tensor_type
            dtype = rlx_type(tensor_type.elem_type, what)
            if not tensor_type.HasField("shape"):
                raise UnsupportedError(f"{what} has no shape")
            shape = []
            for i, dim in enumerate(tensor_type.shape.dim):
                if dim.HasField("dim_value"):
                    shape.append(dim.dim_value)
                else:
                    # A named dim (dim_param), or an unnamed one (a name
                    # of its own): `?`, unless dims gives its size.
                    name = dim.dim_param or f"{info.name}:{i}"
                    shape.append(self.dims.get(name, name))
            value = self._argument("rlx.input", info.name, shape, dtype)
            for axis, dim in enumerate(shape):
                if isinstance(dim, str):
                    self.e.symbols.setdefault(dim, (value, axis))
            self.env[info.name] = value

    def lookup(self, name):
        """The value of `name` (KeyError where the graph has none)."""
        return self.env[name]

    def subgraph(self, graph, e, inputs, label, lookup=None):
        """Translates `graph` (a branch or body of a control-flow node)
        into the emitter `e`, its inputs bound to `inputs`; a name it does
        not define is read by `lookup` (by default this graph's values).
        Returns the subgraph's converter and its outputs (Values, import-time
        arrays)."""
        body = _Body(self, graph, e, inputs, lookup or self.lookup, label)
        body.bind_inputs()
        return body, body.translate_nodes()

    def run(self):
        self.bind_inputs()
        return [self.value(value) for value in self.translate_nodes()]

    def translate_nodes(self):
        """Translates the nodes; returns the graph outputs' values."""
        # For the translations that match a pattern of several nodes (the
        # GELU around Erf): who makes and who reads each value, and the
        # nodes a match has translated already.
        self.producers, self.consumers, self.skip = {}, {}, set()
        for index, node in enumerate(self.graph.node):
            for name in node.output:
                self.producers[name] = node
            for name in node.input:
                self.consumers.setdefault(name, []).append(index)
        for index, node in enumerate(self.graph.node):
            if index in self.skip:
                continue
            outputs = self.translate(index, node)
            if not isinstance(outputs, tuple):
                outputs = (outputs,)
            for name, value in zip(node.output, outputs):
                value = _normalized(value)
                if name:
                    self.env[name] = value
        results = []
        for info in self.graph.output:
            try:
                value = self.lookup(info.name)
            except KeyError:
                raise RLXError(f"graph output '{info.name}' is never "
                               "computed") from None
            if isinstance(value, NoValue):
                raise UnsupportedError(f"graph output '{info.name}' is "
                                       f"{value.what}, which has no rlx "
                                       "translation")
            results.append(value)
        return results

    def where(self, index, node):
        domain = node.domain or "ai.onnx"
        name = f"'{node.name}'" if node.name else "(unnamed)"
        return (f"node {index} {name} (op_type {node.op_type}, domain "
                f"{domain}, opset {self.opset}): ")

    def check_version(self, index, node):
        """A model of an opset before 13 imports where each of its
        operators is the version opset 13 has (the same definition)."""
        from onnx import defs
        try:
            version = defs.get_schema(node.op_type, self.opset,
                                      "").since_version
            translated = defs.get_schema(node.op_type, OPSETS.start,
                                         "").since_version
        except defs.SchemaError:
            version, translated = None, -1
        if version != translated and \
                version not in _SUBSET_VERSIONS.get(node.op_type, ()):
            raise UnsupportedError(
                self.where(index, node) + f"the model's opset {self.opset} "
                f"defines {node.op_type} version {version}; rlx.onnx "
                f"translates the versions of opsets {OPSETS.start} to "
                f"{OPSETS.stop - 1}")

    def translate(self, index, node):
        handler = OPS.get(node.op_type) if node.domain in ("", "ai.onnx") \
            else None
        if handler is None:
            raise UnsupportedError(self.where(index, node) + "no rlx "
                                   "translation (see docs/onnx.md)")
        if self.opset < OPSETS.start:
            self.check_version(index, node)
        from onnx import helper
        attrs = {a.name: _attribute(helper.get_attribute_value(a))
                 for a in node.attribute}
        try:
            inputs = [self.lookup(name) for name in node.input]
        except KeyError as error:
            raise RLXError(self.where(index, node) + f"input {error} is "
                           "not computed before the node (the graph is "
                           "not topologically sorted)") from None
        for name, value in zip(node.input, inputs):
            if isinstance(value, NoValue):
                raise UnsupportedError(
                    self.where(index, node) + f"reads '{name}', "
                    f"{value.what}, which has no rlx translation")
        self.outputs, self.node_index = len(node.output), index
        self.input_names = {id(v): name for name, v in zip(node.input,
                                                            inputs)
                            if is_const(v)}
        self.node_output = node.output[0] if node.output else \
            f"node{index}"
        try:
            return handler(self, inputs, attrs)
        except UnsupportedError as error:
            raise UnsupportedError(self.where(index, node) + str(error)) \
                from None
        except RLXError as error:
            raise UnsupportedError(self.where(index, node) + str(error)) \
                from None
        except (TypeError, ValueError, IndexError, KeyError) as error:
            raise UnsupportedError(self.where(index, node) +
                                   f"not translated ({error})") from None


class _Body(_Converter):
    """A subgraph of a control-flow node, translated into the emitter `e`
    (the enclosing graph's, or a region's). Its initializers are constants
    (a region has no parameters of its own); a name it does not define is
    read by `outer`: a value of an enclosing graph, an initializer of the
    model (a parameter of the function, or, for an isolated region, the
    block argument `bound` to it)."""

    def __init__(self, parent, graph, e, inputs, outer, label):
        super().__init__(graph, parent.opset, parent.dims)
        self.e, self.parent, self.outer = e, parent, outer
        self.inputs, self.label = inputs, label

    def bind_inputs(self):
        for tensor in self.graph.initializer:
            self.env[tensor.name] = _array(tensor)
        if len(self.inputs) != len(self.graph.input):
            raise RLXError(f"{self.label} has {len(self.graph.input)} "
                           f"inputs, the node gives it {len(self.inputs)}")
        for info, value in zip(self.graph.input, self.inputs):
            self.env[info.name] = value

    def lookup(self, name):
        if name in self.env:
            return self.env[name]
        return self.outer(name)

    def value(self, x):
        bound = getattr(x, "bound", None)
        if bound is not None:
            return bound
        if getattr(x, "initializer", None) is not None:
            return self.parent.value(x)
        return super().value(x)

    def where(self, index, node):
        return f"{self.label}: " + super().where(index, node)

    def folded(self, array, dtype):
        # A region reads no arguments of its own (rlx.scan's is isolated).
        raise RLXError(f"a constant of shape {list(array.shape)} computed "
                       "at import time inside a subgraph is too large to "
                       "inline")


def _normalized(value):
    """A fold's result as an ndarray: a NumPy scalar as a rank-0 array, a
    symbolic dim as a rank-0 object array, and an object array whose dims
    are all known as int64."""
    if isinstance(value, str):
        return np.array(value, dtype=object)
    if isinstance(value, (np.generic, bool, int, float)):
        return np.asarray(value)
    if is_const(value) and value.dtype == object and \
            not any(isinstance(v, str) for v in value.flat):
        return value.astype(np.int64)
    return value


class _Initializer(np.ndarray):
    """An initializer's array: its values are known at import time (for a
    shape or axes operand), and as a graph value it is an rlx.param."""


def _attribute(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode() for v in value]
    if hasattr(value, "data_type") and hasattr(value, "dims"):
        return _array(value)
    return value


def _load(model, base_dir):
    import onnx
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        try:
            proto = onnx.load(path, load_external_data=False)
        except (OSError, Exception) as error:  # noqa: BLE001 (protobuf)
            raise RLXError(f"cannot read the ONNX model '{path}': "
                           f"{error}") from None
        if base_dir is None:
            base_dir = os.path.dirname(os.path.abspath(path))
    elif isinstance(model, onnx.ModelProto):
        proto = model
    else:
        raise RLXError(f"import_model takes a path or an onnx.ModelProto, "
                       f"not a {type(model).__name__}")
    external = [t for t in proto.graph.initializer
                if t.data_location == onnx.TensorProto.EXTERNAL]
    if external:
        if base_dir is None:
            raise RLXError(f"initializer '{external[0].name}' is in an "
                           "external data file: give base_dir (the folder "
                           "the model's data files are in)")
        for tensor in external:
            location = {e.key: e.value for e in tensor.external_data} \
                .get("location", "")
            file = os.path.join(base_dir, location)
            if not os.path.isfile(file):
                raise RLXError(f"initializer '{tensor.name}': its external "
                               f"data file '{file}' does not exist")
        onnx.load_external_data_for_model(proto, base_dir)
    return proto


def import_model(model, dims=None, base_dir=None, constants=None):
    """Imports an ONNX model (a path or an onnx.ModelProto) as an rlx graph.
    Returns (mlir_text, params): the graph's inputs keep the ONNX input
    names, its results are the graph outputs in order, and params maps the
    initializers' names to NumPy arrays, to bind with
    rlx.compile(mlir_text, params=params).

    A dim given as a `dim_param` (or with no size) is a `?` dim of the
    graph, unless `dims` maps its name to a size. Initializers stored in
    external data files are read from `base_dir` (by default the model
    file's folder). `constants` maps graph input names to values known at
    import time (NumPy arrays): those inputs are not arguments of the
    graph, and ops that need a value at import time (a shape, axes,
    scales) can read them."""
    proto = _load(model, base_dir)
    opset = None
    for entry in proto.opset_import:
        if entry.domain in ("", "ai.onnx"):
            opset = entry.version
    if opset is None:
        raise UnsupportedError("the model imports no version of the "
                               "default ONNX domain")
    if opset > OPSETS.stop - 1:
        raise UnsupportedError(f"the model's opset is {opset}; rlx.onnx "
                               f"translates opsets {OPSETS.start} to "
                               f"{OPSETS.stop - 1}")
    unknown = set(constants or {}) - {i.name for i in proto.graph.input}
    if unknown:
        raise RLXError(f"constants name no graph input: {sorted(unknown)}")
    converter = _Converter(proto.graph, opset, dims, constants)
    results = converter.run()
    return _print_function(converter, results), converter.params
