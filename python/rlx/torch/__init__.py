# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.torch: import PyTorch modules as rlx graphs.

    mlir, params = rlx.torch.import_module(model.eval(), x)
    graph = rlx.compile(mlir, params=params)
    y = graph(x=x.numpy())

See docs/torch-importer.md for what is translated.
"""

from ._importer import UnsupportedError, import_module

__all__ = ["import_module", "UnsupportedError"]
