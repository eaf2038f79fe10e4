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

def RLX_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::rlx";
  let description = [{
    An op with derivative rules: its vector-Jacobian product (reverse mode,
    used by `rlx-autodiff`) and its Jacobian-vector product (forward mode,
    used by `rlx-jvp`), each emitted as rlx ops at a builder's insertion
    point. The rules of each op family live beside each other in
    `lib/Dialect/RLX/Autodiff/<Family>Rules.cpp` and are attached to the
    ops as external models (`registerDerivativeRules`), because they build
    with `PrimitiveBuilder`, which sits one layer above the dialect.

    A rule reads the op's operands and results as the forward values (they
    are reused, never recomputed) and returns values of the exact type of
    the operand (VJP) or result (JVP) they belong to: broadcast operands are
    un-broadcast, dtypes are kept. A null value means "nothing flows here"
    (an index operand, a mask, a zero tangent). A rule that cannot handle
    an op's form (a dynamic extent, say) emits an error at the op and
    fails.
  }];

  let methods = [
    InterfaceMethod<[{
        Emits the vector-Jacobian product at `b`'s insertion point.
        `resultCotangents` holds one value per result (null where no
        gradient reaches it); `operandCotangents` is resized to one entry
        per operand and filled with the gradient of each operand (null
        where none flows).
      }],
      "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$b,
           "::mlir::ValueRange":$resultCotangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
    InterfaceMethod<[{
        Emits the Jacobian-vector product at `b`'s insertion point.
        `operandTangents` holds one value per operand (null for a zero
        tangent, at least one is non-null); `resultTangents` is resized to
        one entry per result and filled with each result's tangent (null
        where it is zero).
      }],
      "::llvm::LogicalResult", "buildJVP",
      (ins "::mlir::OpBuilder &":$b,
           "::mlir::ValueRange":$operandTangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents)>,
  ];
}

#endif // RLX_DIALECT_RLX_IR_RLXINTERFACES_TD
