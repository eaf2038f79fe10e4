//===- RLXInterfaces.td - rlx op interfaces ----------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXINTERFACES_TD
#define RLX_DIALECT_RLX_IR_RLXINTERFACES_TD

include "mlir/IR/OpBase.td"

def RLX_ScalarizableOpInterface : OpInterface<"ScalarizableOpInterface"> {
  let cppNamespace = "::mlir::rlx";
  let description = [{
    An elementwise op whose result element is a function of one element of
    each operand. `emitScalar` is the one definition of that function: the
    linalg lowering builds its `linalg.generic` bodies with it, the lowering
    of `rlx.elementwise_region` emits each body op with it, and the op's
    folder evaluates it on constant operands, so folded and executed results
    agree bit for bit.

    Scalars are of the operands' element types, with `ui8` and `ui32`
    carried as the signless `i8` and `i32` (as in lowered code); the op's
    own types give the signedness. The emitted ops are `arith`, `math` and
    `complex` ops (see `ScalarOps.h`).
  }];

  let methods = [
    InterfaceMethod<[{
        Emits this op's computation on `operands` (one scalar per operand, in
        operand order) at `b`'s insertion point and returns the result
        scalar.
      }],
      "::mlir::Value", "emitScalar",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::ValueRange":$operands)>,
  ];
}

#endif // RLX_DIALECT_RLX_IR_RLXINTERFACES_TD
