# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The translation tables and the helpers the translations share."""

import math

import torch

# Handlers by nn.Module class, by torch function (or Python operator), by
# Tensor method name, and by aten op name (graphs traced by make_fx).
MODULES, FUNCTIONS, METHODS, ATEN = {}, {}, {}, {}
# Handlers of functions of optional libraries (torchvision), which rlx.torch
# does not import, by `module.qualified_name`.
NAMED_FUNCTIONS = {}


def axis_index(axis, rank):
    return axis % rank if rank else 0


def int_dims(args):
    """`x.view(2, 3)` and `x.view((2, 3))` alike."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return [int(d) for d in args[0]]
    return [int(d) for d in args]


def resolve_shape(shape, numel):
    shape = list(shape)
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        shape[shape.index(-1)] = numel // known if known else 0
    return tuple(shape)


def pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def const(c, x, value):
    return c.scalar(value, x)


class NoIndices:
    """A result with no translation (the indices of max(x, dim), the
    statistics of aten's batch and layer norm, attention weights): fine as
    long as nothing uses it."""
