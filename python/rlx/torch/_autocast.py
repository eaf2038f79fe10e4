# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Mixed precision for `import_module(..., dtype="f16" / "bf16")`: the op
classes of PyTorch's autocast (torch/csrc/autocast_mode.cpp), applied to
the nodes of an f32 model while it is translated (docs/torch-importer.md,
"Mixed precision").

- LOWER: matmuls, convolutions, linear layers, attention. Their floating
  operands are cast to the low dtype, their parameters are stored in it,
  and their results are in it.
- FP32: norms, softmax and log_softmax, sums and means, losses, exp, log,
  pow and their kin. Floating operands of the low dtypes are cast to f32;
  their results are f32.
- PROMOTE: ops of several tensors (cat, stack, addcmul...). Floating
  operands are cast to the widest floating type among them.
- Any other op runs in the dtype its operands have (a relu of a linear
  layer's output is low, the sum of a low and an f32 tensor is f32, as
  torch's type promotion has it).

Batch norm, mean, var and std are not on autocast's lists (its CUDA
kernels take low inputs and accumulate in f32 internally); here they are
FP32 like the other norms and reductions, so that their results and the
elementwise steps of their translations (batch norm's rsqrt(var + eps))
are f32."""

import torch
import torch.nn as nn

from .._capi import RLXError
from ._emitter import Value

# autocast's lower_precision_fp list.
LOWER = frozenset({
    "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "convolution", "_convolution",
    "prelu", "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv",
    "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "linalg_multi_dot",
    "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
    "scaled_dot_product_attention", "multi_head_attention_forward"})

# autocast's fp32 lists (fp32, fp32_set_opt_dtype, fp32_append_dtype), with
# aten's internal names of the same ops, and batch norm, mean, var and std
# (see the module's docstring).
FP32 = frozenset({
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10",
    "log2", "log1p", "reciprocal", "rsqrt", "sinh", "tan", "pow",
    "softplus", "layer_norm", "native_layer_norm", "group_norm",
    "native_group_norm", "frobenius_norm", "nuclear_norm",
    "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss",
    "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div", "l1_loss",
    "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "binary_cross_entropy_with_logits",
    "cross_entropy", "dist", "pdist", "cdist", "renorm", "logsumexp",
    "prod", "softmax", "_softmax", "log_softmax", "_log_softmax", "cumprod",
    "cumsum", "linalg_vector_norm", "linalg_matrix_norm", "sum", "norm",
    "batch_norm", "native_batch_norm", "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training", "instance_norm", "mean", "var",
    "std", "var_mean", "std_mean"})

# autocast's promote list, and cat and stack (promoted by torch itself).
PROMOTE = frozenset({
    "addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot",
    "grid_sampler", "index_put", "scatter_add", "tensordot", "cat",
    "concat", "stack"})

# The op a translated module is, by class (subclasses alike).
_MODULE_OPS = {
    nn.Linear: "linear", nn.Conv1d: "conv1d", nn.Conv2d: "conv2d",
    nn.Conv3d: "conv3d", nn.ConvTranspose1d: "conv_transpose1d",
    nn.ConvTranspose2d: "conv_transpose2d",
    nn.ConvTranspose3d: "conv_transpose3d", nn.PReLU: "prelu",
    nn.MultiheadAttention: "multi_head_attention_forward",
    nn.LayerNorm: "layer_norm", nn.GroupNorm: "group_norm",
    nn.BatchNorm1d: "batch_norm", nn.BatchNorm2d: "batch_norm",
    nn.BatchNorm3d: "batch_norm", nn.Softmax: "softmax",
    nn.LogSoftmax: "log_softmax", nn.Softplus: "softplus",
    nn.LSTM: "lstm_cell", nn.GRU: "gru_cell", nn.RNN: "rnn_tanh_cell"}

# Ops that only move or view their operand's elements: a parameter read
# only through them by LOWER ops is stored in the low dtype.
_LAYOUT_OPS = frozenset({
    "t", "transpose", "permute", "view", "_unsafe_view", "reshape",
    "_reshape_alias", "unsqueeze", "squeeze", "expand", "slice", "select",
    "narrow", "split", "split_with_sizes", "chunk", "getitem", "contiguous",
    "clone", "detach", "alias", "flatten", "unflatten"})

# The floating types autocast casts (f64 stays f64).
_CAST = ("f16", "bf16", "f32")

_NAMES = {"f16": "f16", "float16": "f16", "half": "f16",
          "bf16": "bf16", "bfloat16": "bf16"}


def low_dtype(dtype):
    """The rlx element type of `import_module`'s dtype argument."""
    if isinstance(dtype, torch.dtype):
        name = str(dtype).replace("torch.", "")
    else:
        name = str(dtype)
    if name not in _NAMES:
        raise RLXError(f"dtype={dtype!r}: mixed precision takes 'f16' or "
                       "'bf16' (or torch.float16, torch.bfloat16)")
    return _NAMES[name]


def check_f32_model(state, example_inputs, low):
    """dtype= casts an f32 model: its floating parameters, buffers and
    inputs must be f32."""
    named = list(state.items()) + [(f"input {i}", t) for i, t in
                                   enumerate(example_inputs)]
    for name, tensor in named:
        if isinstance(tensor, torch.Tensor) and \
                tensor.is_floating_point() and tensor.dtype != torch.float32:
            raise RLXError(f"dtype='{low}' imports an f32 model in mixed "
                           f"precision, but '{name}' is {tensor.dtype} (a "
                           "model already in f16 or bf16 is imported as it "
                           "is, without dtype=)")


def op_name(node, root, in_place_name):
    """The name autocast's lists know `node` by: an aten op's, a function's
    or method's (without a trailing in-place underscore), or a translated
    module's."""
    if node.op == "call_module":
        module = root.get_submodule(node.target)
        for cls in type(module).__mro__:
            if cls in _MODULE_OPS:
                return _MODULE_OPS[cls]
        return None
    if node.op not in ("call_function", "call_method"):
        return None
    name = in_place_name(node)
    if name.endswith("_") and not name.startswith("_"):
        name = name[:-1]
    return name


class Autocast:
    """The policy of one import: `low` is "f16" or "bf16"."""

    def __init__(self, low):
        self.low = low

    def target(self, name):
        """"low", "f32", "promote" or None for the op `name`."""
        if name in LOWER:
            return "low"
        if name in FP32:
            return "f32"
        if name in PROMOTE:
            return "promote"
        return None

    def cast_operands(self, c, kind, tree):
        """`tree` with its floating Values cast as `kind` says. A parameter
        cast to the low dtype is read as its low copy (c.param), not cast
        in the graph."""
        values = []
        torch.fx.node.map_aggregate(
            tree, lambda v: values.append(v) if isinstance(v, Value) else v)
        dtypes = {v.dtype for v in values if v.dtype in _CAST}
        if not dtypes:
            return tree
        if kind == "low":
            dtype = self.low
        elif kind == "f32" or len(dtypes) > 1:
            dtype = "f32"  # promote: f16 with bf16 is f32 as well
        else:
            dtype = dtypes.pop()
        return torch.fx.node.map_aggregate(
            tree, lambda v: c.cast_value(v, dtype) if isinstance(v, Value)
            and v.dtype in _CAST and v.dtype != dtype else v)

    def low_params(self, param_nodes, name_of, traced_params):
        """The nodes of `param_nodes` that only LOWER ops read (directly or
        through layout ops), or bias adds of decomposed linear layers (of
        `traced_params`, the parameters of a make_fx graph): they are bound
        in the low dtype."""
        def only_lower(node, seen):
            if not node.users:
                return False
            for user in node.users:
                name = name_of(user)
                if name in _LAYOUT_OPS:
                    if user in seen or not only_lower(user, seen | {user}):
                        return False
                elif self.target(name) != "low" and not self.bias_add(
                        user, name_of, traced_params):
                    return False
            return True
        return {n for n in param_nodes if only_lower(n, {n})}

    def bias_add(self, node, name_of, param_nodes):
        """Whether `node`, in a graph make_fx traced, adds a parameter to
        the result of a LOWER op (through layout ops): aten's decomposition
        of F.linear on a 3-d input (matmul, then add_ of the bias), which
        autocast sees as one linear."""
        if name_of(node) != "add" or len(node.args) < 2:
            return False
        a, b = node.args[:2]
        product = a if b in param_nodes else b if a in param_nodes else None
        if not isinstance(product, torch.fx.Node):
            return False
        while name_of(product) in _LAYOUT_OPS and product.args and \
                isinstance(product.args[0], torch.fx.Node):
            product = product.args[0]
        return self.target(name_of(product)) == "low"
