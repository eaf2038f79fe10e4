# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""MatMul, Gemm and Einsum."""

from ...torch._ops import linalg as torch_linalg
from .common import op


@op("MatMul")
def matmul(c, inputs, attrs):
    """NumPy's matmul (rank-1 operands promoted and squeezed), as
    torch.matmul."""
    a, b = c.value(inputs[0]), c.value(inputs[1])
    return torch_linalg.matmul(c, a, b)


@op("Gemm")
def gemm(c, inputs, attrs):
    """alpha * op(A) @ op(B) + beta * C, op a transpose where transA /
    transB is set; C broadcasts unidirectionally."""
    a, b = c.value(inputs[0]), c.value(inputs[1])
    bias = c.value(inputs[2]) if len(inputs) > 2 else None
    if attrs.get("transA", 0):
        a = c.e.transpose(a, [1, 0])
    if attrs.get("transB", 0):
        b = c.e.transpose(b, [1, 0])
    if bias is None:
        product = c.e.matmul(a, b)
        alpha = attrs.get("alpha", 1.0)
        return product if alpha == 1.0 else \
            c.e.binary("mul", product, c.scalar(alpha, product))
    return torch_linalg.addmm(c, bias, a, b, attrs.get("beta", 1.0),
                              attrs.get("alpha", 1.0))


@op("Einsum")
def einsum(c, inputs, attrs):
    """The torch importer's einsum: diagonals, reductions, pairwise
    rlx.matmuls and transposes."""
    return torch_linalg.einsum(c, attrs["equation"],
                               *[c.value(x) for x in inputs])
