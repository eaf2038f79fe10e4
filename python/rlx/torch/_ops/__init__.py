# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Translations of torch modules, functions, Tensor methods and aten ops
into rlx ops, by concern (elementwise, reductions, linalg, shapes,
indexing, nn, resize, attention, recurrent, losses). Each handler takes the
converter `c` and the node's arguments with nodes replaced by Values (or
Python values); a module's handler also takes the module and its path (the
prefix of its state_dict names)."""

from .common import (ATEN, FUNCTIONS, METHODS, MODULES, NAMED_FUNCTIONS,
                     NoIndices)
# Each module fills the tables as it is imported.
from . import (elementwise, reductions, linalg, shapes,  # noqa: F401
               indexing, nn, resize, attention, recurrent, losses)

__all__ = ["ATEN", "FUNCTIONS", "METHODS", "MODULES", "NAMED_FUNCTIONS",
           "NoIndices", "module_handler"]


def module_handler(module):
    """The translation of `module` as a whole, or None: the module is then
    traced through. A subclass of a translated module that keeps its
    forward is translated like it; one that overrides forward (torchvision's
    LayerNorm2d, a LayerNorm over the channels of NCHW) is traced through,
    since the translation would be of the wrong computation."""
    for cls in type(module).__mro__:
        if cls in MODULES:
            return MODULES[cls] if type(module).forward is cls.forward \
                else None
    return None
