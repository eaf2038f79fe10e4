//===- RLXOpBase.td - rlx op base classes and types --------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXOPBASE_TD
#define RLX_DIALECT_RLX_IR_RLXOPBASE_TD

include "rlx/Dialect/RLX/IR/RLXDialect.td"
include "rlx/Dialect/RLX/IR/RLXEnums.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Element and tensor types
//===----------------------------------------------------------------------===//

// RLX DType -> MLIR element type: F32 f32, F16 f16, BF16 bf16, F64 f64,
// I8 i8, I16 i16, I32 i32, I64 i64, U8 ui8, U32 ui32, Bool i1,
// C64 complex<f32>; f8E4M3FN and f8E5M2 for quantization.
def RLX_Float : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
def RLX_SignedInt : AnyTypeOf<[I8, I16, I32, I64], "signless integer">;
def RLX_Int : AnyTypeOf<[I8, I16, I32, I64, UI8, UI32], "integer">;
def RLX_Float8 : AnyTypeOf<[F8E4M3FN, F8E5M2], "8-bit float">;
def RLX_Complex : Complex<F32>;
def RLX_ElementType : AnyTypeOf<[RLX_Float, RLX_Int, I1, RLX_Complex,
                                 RLX_Float8], "rlx element type">;

def RLX_Tensor : RankedTensorOf<[RLX_ElementType]>;
def RLX_FloatTensor : RankedTensorOf<[RLX_Float]>;
def RLX_IndexTensor : RankedTensorOf<[I32, I64]>;
def RLX_BoolTensor : RankedTensorOf<[I1]>;
// Operands of arithmetic ops: floats, integers and complex.
def RLX_NumericTensor : RankedTensorOf<[RLX_Float, RLX_Int, I1, RLX_Complex]>;

//===----------------------------------------------------------------------===//
// Op base class
//===----------------------------------------------------------------------===//

class RLX_Op<string mnemonic, list<Trait> traits = []>
    : Op<RLX_Dialect, mnemonic, traits>;

#endif // RLX_DIALECT_RLX_IR_RLXOPBASE_TD
