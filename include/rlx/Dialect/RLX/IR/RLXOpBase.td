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
// Attribute constraints
//===----------------------------------------------------------------------===//

// Range checks on scalar attributes live here rather than in verifiers, so
// that the constraint shows in the generated docs and the diagnostic names
// the attribute. Verifiers keep the checks that relate an attribute to
// operand shapes or to other attributes.
def RLX_PositiveI64Attr : ConfinedAttr<I64Attr, [IntPositive]>;
def RLX_NonNegativeI64Attr : ConfinedAttr<I64Attr, [IntNonNegative]>;
def RLX_PositiveI64ArrayAttr
    : ConfinedAttr<DenseI64ArrayAttr,
                   [DenseArrayStrictlyPositive<DenseI64ArrayAttr>]>;
def RLX_NonNegativeI64ArrayAttr
    : ConfinedAttr<DenseI64ArrayAttr,
                   [DenseArrayNonNegative<DenseI64ArrayAttr>]>;

// An f32 attribute whose value `v` (an APFloat) satisfies the C++ expression
// `cond`. NaN fails every condition below.
class RLX_F32AttrWhere<string cond, string summary>
    : ConfinedAttr<F32Attr, [AttrConstraint<CPred<
          "[](const ::llvm::APFloat &v) { return " # cond # "; }("
          "::llvm::cast<::mlir::FloatAttr>($_self).getValue())">,
          "whose value is " # summary>]>;

def RLX_FiniteF32Attr : RLX_F32AttrWhere<"v.isFinite()", "finite">;
def RLX_PositiveF32Attr
    : RLX_F32AttrWhere<"v.isFiniteNonZero() && !v.isNegative()",
                       "finite and positive">;
// Epsilons and other offsets: zero allowed, -0.0 is not.
def RLX_NonNegativeF32Attr
    : RLX_F32AttrWhere<"v.isFinite() && !v.isNegative()",
                       "finite and non-negative">;

// An f32 attribute in a range whose ends are written in C++ as comparisons
// of `v.convertToFloat()`, e.g. `v.convertToFloat() < 1.0f`.
class RLX_F32AttrIn<string lower, string upper, string range>
    : RLX_F32AttrWhere<"v.convertToFloat() " # lower # " && "
                       "v.convertToFloat() " # upper, "in " # range>;

//===----------------------------------------------------------------------===//
// Op base classes
//===----------------------------------------------------------------------===//

class RLX_Op<string mnemonic, list<Trait> traits = []>
    : Op<RLX_Dialect, mnemonic, traits>;

// A side-effect-free op: every rlx op but the region ops and rlx.custom.
class RLX_PureOp<string mnemonic, list<Trait> traits = []>
    : RLX_Op<mnemonic, !listconcat([Pure], traits)>;

// A pure op whose result types follow from operand shapes and attributes by
// a rule too rich for ODS: the family .cpp defines `inferReturnTypes` on the
// op's Adaptor, and the builders without result types call it.
class RLX_InferredTypeOp<string mnemonic, list<Trait> traits = []>
    : RLX_PureOp<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])>;

// A pure op whose operands and results all have one type (unary elementwise
// math, scans and transforms along an axis).
class RLX_SameTypeOp<string mnemonic, list<Trait> traits = []>
    : RLX_PureOp<mnemonic, !listconcat([SameOperandsAndResultType], traits)>;

#endif // RLX_DIALECT_RLX_IR_RLXOPBASE_TD
