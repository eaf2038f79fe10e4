# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""matmul, linear, addmm."""

import operator

import torch
import torch.nn as nn
import torch.nn.functional as F

from .common import ATEN, FUNCTIONS, METHODS, MODULES, const


def matmul(c, a, b):
    squeeze = []
    if a.rank == 1:
        a = c.e.reshape(a, (1, a.shape[0]))
        squeeze.append(-2)
    if b.rank == 1:
        b = c.e.reshape(b, (b.shape[0], 1))
        squeeze.append(-1)
    a, b = c.operands(a, b)
    y = c.e.matmul(a, b)
    if squeeze:
        shape = [d for i, d in enumerate(y.shape)
                 if i - y.rank not in squeeze]
        y = c.e.reshape(y, shape)
    return y


def linear(c, x, weight, bias=None):
    y = c.e.matmul(x if x.rank >= 2 else c.e.reshape(x, (1,) + x.shape),
                   c.e.transpose(weight, [1, 0]))
    if x.rank < 2:
        y = c.e.reshape(y, y.shape[1:])
    return c.e.binary("add", y, bias) if bias is not None else y


def addmm(c, bias, a, b, beta=1, alpha=1):
    """aten's addmm and baddbmm: beta * bias + alpha * (a @ b)."""
    product = c.e.matmul(a, b)
    if alpha != 1:
        product = c.e.binary("mul", product, const(c, product, alpha))
    if beta == 0:
        return product
    if beta != 1:
        bias = c.e.binary("mul", bias, const(c, bias, beta))
    return c.e.binary("add", product, bias)


for _f in (torch.matmul, operator.matmul, torch.mm, torch.bmm):
    FUNCTIONS[_f] = matmul
METHODS["matmul"] = METHODS["mm"] = METHODS["bmm"] = matmul
FUNCTIONS[F.linear] = linear
ATEN["aten.mm.default"] = ATEN["aten.bmm.default"] = matmul
ATEN["aten.matmul.default"] = matmul
ATEN["aten.addmm.default"] = ATEN["aten.baddbmm.default"] = addmm
ATEN["aten.linear.default"] = linear
MODULES[nn.Linear] = lambda c, m, p, x: linear(
    c, x, c.param(p + ".weight"),
    c.param(p + ".bias") if m.bias is not None else None)
