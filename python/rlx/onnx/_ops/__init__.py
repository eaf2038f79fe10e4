# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Translations of ONNX operators into rlx ops, by family (elementwise,
linalg, nn, shapes, reductions, indexing, recurrent, resize, losses,
control flow). Each handler takes the converter `c`, the node's inputs (a
Value for a graph value, a NumPy array for a value known at import time,
None for an omitted optional input) and its attributes (a dict of Python
values); it returns one output or a tuple of them."""

from .common import OPS
# Each module fills the table as it is imported.
from . import (elementwise, linalg, nn, shapes, reductions,  # noqa: F401
               indexing, recurrent, resize, losses, control)

__all__ = ["OPS"]
