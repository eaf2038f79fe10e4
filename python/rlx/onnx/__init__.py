# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.onnx: import ONNX models (opsets 13 to 17) as rlx graphs.

    mlir, params = rlx.onnx.import_model("model.onnx")
    graph = rlx.compile(mlir, params=params)
    y = graph(**{"input": x})

See docs/onnx.md for what is translated.
"""

from ._importer import UnsupportedError, import_model

__all__ = ["import_model", "UnsupportedError"]
