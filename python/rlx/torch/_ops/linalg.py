# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""matmul, linear, addmm, einsum."""

import math
import operator

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ..._capi import RLXError
from .._symbolic import dim_mul
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


def _einsum_terms(equation, ranks):
    """The letters of each operand and of the output, `...` spelled out as
    characters no letter uses (the ellipsis dims right-aligned across
    operands, as broadcasting aligns them); the output of an equation
    without `->` is the ellipsis dims, then the letters used once in
    alphabetical order."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise RLXError(f"einsum '{equation}' of {len(ranks)} operands")
    spare = [chr(code) for code in range(0x100, 0x140)]
    widths = []
    for term, rank in zip(terms, ranks):
        named = len(term.replace("...", ""))
        widths.append(rank - named if "..." in term else 0)
        if ("..." not in term and named != rank) or widths[-1] < 0:
            raise RLXError(f"einsum term '{term}' of a rank-{rank} operand")
    width = max(widths, default=0)
    ellipsis = "".join(spare[:width])
    terms = [t.replace("...", ellipsis[width - w:])
             for t, w in zip(terms, widths)]
    if not arrow:
        used = "".join(terms)
        output = ellipsis + "".join(sorted(
            l for l in set(used) if used.count(l) == 1 and
            l not in ellipsis))
    else:
        output = output.replace("...", ellipsis)
    for term in terms + [output]:
        if any(not (l.isalpha() or l in ellipsis) for l in term):
            raise RLXError(f"einsum '{equation}'")
    if len(set(output)) != len(output):
        raise RLXError(f"einsum '{equation}' with an output index repeated")
    if set(output) - set("".join(terms)):
        raise RLXError(f"einsum '{equation}': an output index no operand "
                       "has")
    return terms, output


def einsum(c, equation, *operands):
    """torch.einsum / ONNX Einsum: each operand's indices used nowhere
    else summed first (rlx.reduce), then the operands contracted pairwise
    from the left, each pair one rlx.matmul of [batch, M, K] by
    [batch, K, N] (its shared kept indices the batch, its shared summed
    ones K), then the output's order by rlx.transpose. Size-1 dims
    broadcast. An index repeated in one term takes the diagonal first (an
    rlx.gather of the two dims merged)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    terms, output = _einsum_terms(equation, [o.rank for o in operands])
    sizes = {}
    for term, x in zip(terms, operands):
        for letter, size in zip(term, x.shape):
            # A size may be a symbolic dim (the ONNX importer's names).
            if sizes.get(letter, 1) == 1:
                sizes[letter] = size
            elif size not in (1, sizes[letter]):
                raise RLXError(f"einsum '{equation}': index '{letter}' of "
                               f"sizes {sizes[letter]} and {size}")
    values = []
    for term, x in zip(terms, operands):
        x = c.e.expand(x, [sizes[l] for l in term])
        while len(set(term)) != len(term):
            # A diagonal: the two dims of a repeated index side by side,
            # merged, and an rlx.gather of the positions i * (n + 1).
            letter = next(l for l in term if term.count(l) > 1)
            first = term.index(letter)
            second = term.index(letter, first + 1)
            order = [k for k in range(len(term)) if k != second]
            order.insert(first + 1, second)
            x = c.e.transpose(x, order)
            n = sizes[letter]
            x = c.e.reshape(x, x.shape[:first] + (n * n,) +
                            x.shape[first + 2:])
            x = c.e.gather(x, c.e.constant(
                np.arange(n, dtype=np.int64) * (n + 1), "i64"), first)
            term = term[:second] + term[second + 1:]
        values.append((x, term))

    def sum_unused(x, term, needed):
        drop = [k for k, l in enumerate(term) if l not in needed]
        if drop:
            x = c.e.reduce("sum", x, drop)
            term = "".join(l for l in term if l in needed)
        return x, term

    dtype = operands[0].dtype
    if any(o.dtype != dtype for o in operands):
        raise RLXError("einsum of operands of different dtypes")
    x, term = values[0]
    for k in range(1, len(values) + 1):
        later = output + "".join(t for _, t in values[k + 1:])
        if k == len(values):
            x, term = sum_unused(x, term, output)
            break
        y, other = values[k]
        x, term = sum_unused(x, term, later + other)
        y, other = sum_unused(y, other, later + term)
        batch = [l for l in term if l in other and l in later]
        inner = [l for l in term if l in other and l not in later]
        left = [l for l in term if l not in other]
        right = [l for l in other if l not in term]

        def arranged(v, t, order):
            return c.e.transpose(v, [t.index(l) for l in order])
        def size(letters):
            """The size of dims merged; a symbolic one (the ONNX
            importer's) stays a name, times the static ones."""
            static = math.prod(sizes[l] for l in letters
                               if not isinstance(sizes[l], str))
            named = [sizes[l] for l in letters if isinstance(sizes[l], str)]
            if not named:
                return static
            if len(named) > 1:
                raise RLXError(f"einsum '{equation}' merging symbolic dims "
                               f"{named}")
            return dim_mul(named[0], static)
        lhs = c.e.reshape(arranged(x, term, batch + left + inner),
                          ([size(batch)] if batch else []) +
                          [size(left), size(inner)])
        rhs = c.e.reshape(arranged(y, other, batch + inner + right),
                          ([size(batch)] if batch else []) +
                          [size(inner), size(right)])
        term = "".join(batch + left + right)
        x = c.e.reshape(c.e.matmul(lhs, rhs), [sizes[l] for l in term])
    return c.e.transpose(x, [term.index(l) for l in output])


for _f in (torch.matmul, operator.matmul, torch.mm, torch.bmm):
    FUNCTIONS[_f] = matmul
METHODS["matmul"] = METHODS["mm"] = METHODS["bmm"] = matmul
FUNCTIONS[F.linear] = linear
ATEN["aten.mm.default"] = ATEN["aten.bmm.default"] = matmul
ATEN["aten.matmul.default"] = matmul
ATEN["aten.addmm.default"] = ATEN["aten.baddbmm.default"] = addmm
ATEN["aten.linear.default"] = linear
FUNCTIONS[torch.einsum] = ATEN["aten.einsum.default"] = einsum
MODULES[nn.Linear] = lambda c, m, p, x: linear(
    c, x, c.param(p + ".weight"),
    c.param(p + ".bias") if m.bias is not None else None)
