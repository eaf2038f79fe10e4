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

def RLX_MatMulOp : RLX_Op<"matmul", [
    Pure, AllElementTypesMatch<["lhs", "rhs", "result"]>,
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

#endif // RLX_DIALECT_RLX_IR_RLXLINALGOPS_TD
