# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Tensor parallelism of the model families (docs/llm.md, "Tensor
parallelism"): a rank's slice of a checkpoint's tensors, as Megatron-LM
splits a transformer's linear layers. A column-parallel layer (q, k, v,
gate, up, the head) keeps the rank's block of output rows of its
`[out, in]` weight; a row-parallel one (o, down) the rank's block of
input columns, and the rank's partial products are summed by an
all-reduce in the graph. GGUF-packed weights are split on their blocks:
rows are independent, and a column block must hold whole blocks."""

import numpy as np

from .._capi import RLXError
from ..gguf import QuantizedTensor

# How a tensor is split: its rows (output features), its columns (input
# features), or not at all (every rank holds it whole).
ROWS, COLUMNS, WHOLE = "rows", "columns", "whole"


def check_divides(what, size, ranks):
    if size % ranks:
        raise RLXError(f"tensor parallelism over {ranks} ranks: {what} "
                       f"{size} is not a multiple of {ranks}")


def rank_slice(name, value, split, rank, ranks):
    """Rank `rank`'s part of checkpoint tensor `name` (an array or a
    QuantizedTensor) split `split` over `ranks` ranks."""
    if split == WHOLE or ranks == 1:
        return value
    shape = tuple(value.shape)
    axis = 0 if split == ROWS else len(shape) - 1
    check_divides(f"dim {axis} of '{name}' {list(shape)} is", shape[axis],
                  ranks)
    part = shape[axis] // ranks
    begin, end = rank * part, (rank + 1) * part
    if not isinstance(value, QuantizedTensor):
        index = [slice(None)] * len(shape)
        index[axis] = slice(begin, end)
        return np.ascontiguousarray(value[tuple(index)])
    kind = value.type
    if len(shape) != 2:
        raise RLXError(f"'{name}': a packed tensor is split as a 2-d "
                       f"[out, in] weight, not {list(shape)}")
    local = shape[:axis] + (part,) + shape[axis + 1:]
    if split == ROWS:
        data = value.row_view()[begin:end]
    else:
        if part % kind.block_elements:
            raise RLXError(
                f"tensor parallelism over {ranks} ranks: '{name}' is "
                f"{kind.name}-packed in blocks of {kind.block_elements} "
                f"along its rows, and a rank's {part} columns do not hold "
                "whole blocks")
        blocks = value.data.reshape(value.rows, -1, kind.block_bytes)
        step = part // kind.block_elements
        data = blocks[:, rank * step:(rank + 1) * step]
    return QuantizedTensor(kind, local, np.ascontiguousarray(data).ravel())
