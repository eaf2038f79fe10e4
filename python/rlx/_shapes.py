# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Shape rules the textual IR builders share (the PyTorch and ONNX
importers' emitter, the model families' GraphText)."""

DYNAMIC = None


def broadcast_shapes(a, b):
    """NumPy broadcasting of two shapes, as rlx's elementwise type
    inference does; a `?` dim (None) never broadcasts: the other side's
    size fixes it."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif DYNAMIC in (x, y):
            out.append(y if x is DYNAMIC else x)
        else:
            raise ValueError(f"shapes {a} and {b} do not broadcast")
    return tuple(out)
