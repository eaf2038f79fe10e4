//===- RLXControlFlowOps.td - regions and control flow -----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXCONTROLFLOWOPS_TD
#define RLX_DIALECT_RLX_IR_RLXCONTROLFLOWOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

//===----------------------------------------------------------------------===//
// rlx.yield
//===----------------------------------------------------------------------===//

def RLX_YieldOp : RLX_Op<"yield", [
    Pure, Terminator, ReturnLike]> {
  let summary = "terminator of rlx op regions";
  let description = [{
    Returns values from the region of an rlx op (`rlx.elementwise_region`,
    `rlx.if`, `rlx.while`, `rlx.scan`, `rlx.custom_fn`, ...) to the op. The
    enclosing op checks the number and types of the yielded values.

    Example:

    ```mlir
    rlx.yield %sum : f32
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXCONTROLFLOWOPS_TD
