//===- RLXLinalgOps.td - matmul and linear algebra ---------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXLINALGOPS_TD
#define RLX_DIALECT_RLX_IR_RLXLINALGOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

//===----------------------------------------------------------------------===//
// rlx.matmul
//===----------------------------------------------------------------------===//

def RLX_MatMulOp : RLX_PureOp<"matmul", [
    AllElementTypesMatch<["lhs", "rhs", "result"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "batched matrix product with broadcast batch dims (RLX `MatMul`)";
  let description = [{
    `[..., M, K] x [..., K, N] -> [..., M, N]`. Both operands have rank >= 2
    and the same floating-point element type. The contraction dims (`K`)
    must agree. The leading batch dims broadcast NumPy-style, so a rank-2
    weight multiplies every matrix of a rank-3 activation.

    Example:

    ```mlir
    %y = rlx.matmul %x, %w : tensor<4x128x768xf32>, tensor<768x3072xf32>
    // %y : tensor<4x128x3072xf32>
    ```
  }];

  let arguments = (ins RankedTensorOf<[RLX_Float]>:$lhs,
                       RankedTensorOf<[RLX_Float]>:$rhs);
  let results = (outs RankedTensorOf<[RLX_Float]>:$result);

  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.dot_general
//===----------------------------------------------------------------------===//

def RLX_DotGeneralOp : RLX_InferredTypeOp<"dot_general", [
    AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "contraction with explicit batch and contracting dims (RLX `DotGeneral`)";
  let description = [{
    XLA-style `DotGeneral`. `lhs_contracting[i]` of `lhs` is contracted with
    `rhs_contracting[i]` of `rhs`, and `lhs_batch[i]` is paired with
    `rhs_batch[i]`; paired dims have equal sizes. Every other dim is a free
    dim. The result shape is

    `[batch dims (in lhs_batch order), lhs free dims, rhs free dims]`

    with free dims in their operand order. Dims are in range and appear at
    most once across an operand's batch and contracting lists; both lists
    default to empty. Operands share a floating-point element type, which
    the result has too.

    Example (a batched `[B, M, K] x [B, K, N]` matmul):

    ```mlir
    %y = rlx.dot_general %a, %b contracting_dims = [2] x [1]
        batch_dims = [0] x [0] : tensor<4x8x16xf32>, tensor<4x16x3xf32>
    // %y : tensor<4x8x3xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$lhs,
                       RLX_FloatTensor:$rhs,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$lhs_contracting,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$rhs_contracting,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$lhs_batch,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$rhs_batch);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $lhs `,` $rhs `contracting_dims` `=` $lhs_contracting `x` $rhs_contracting
    `batch_dims` `=` $lhs_batch `x` $rhs_batch attr-dict `:` type($lhs) `,`
    type($rhs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.dense_solve / rlx.batched_dense_solve
//===----------------------------------------------------------------------===//

def RLX_DenseSolveOp : RLX_PureOp<"dense_solve", [
    AllElementTypesMatch<["a", "b", "result"]>,
    AllTypesMatch<["b", "result"]>]> {
  let summary = "dense linear solve x = A^-1 b (RLX `DenseSolve`)";
  let description = [{
    Solves `A x = b` for `x` (LU factorisation with partial pivoting).
    `A` is `[N, N]`; `b` is `[N]` (one right-hand side) or `[N, K]`
    (K right-hand sides). The result has the type of `b`. Both operands
    share a floating-point element type.

    A singular `A` is not reported: elimination reaches a zero pivot and
    divides by it, so the affected entries of the result are inf or NaN
    (with no error and no diagnostic). A nearly singular `A` gives a
    finite result whose error grows with its condition number. Callers
    that may pass singular systems check the result for inf and NaN or
    regularise `A` (for example `A + eps I`).

    Example:

    ```mlir
    %x = rlx.dense_solve %a, %b : tensor<3x3xf64>, tensor<3x2xf64>
    // %x : tensor<3x2xf64>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$a, RLX_FloatTensor:$b);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $a `,` $b attr-dict `:` type($a) `,` type($b)
  }];
  let hasVerifier = 1;
}

def RLX_BatchedDenseSolveOp : RLX_PureOp<"batched_dense_solve", [
    AllElementTypesMatch<["a", "b", "result"]>,
    AllTypesMatch<["b", "result"]>]> {
  let summary = "independent dense solves over a batch (RLX `BatchedDenseSolve`)";
  let description = [{
    `rlx.dense_solve` applied to every batch entry independently:
    `x[i] = A[i]^-1 b[i]`. `A` is `[B, N, N]`; `b` is `[B, N]` or
    `[B, N, K]`. The result has the type of `b`. Both operands share a
    floating-point element type. A singular `A[i]` gives inf or NaN in
    `x[i]` only, unreported, as for `rlx.dense_solve`.

    Example:

    ```mlir
    %x = rlx.batched_dense_solve %a, %b : tensor<8x3x3xf32>, tensor<8x3xf32>
    // %x : tensor<8x3xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$a, RLX_FloatTensor:$b);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $a `,` $b attr-dict `:` type($a) `,` type($b)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXLINALGOPS_TD
