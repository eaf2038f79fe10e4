//===- FusedOps.cpp - fused composite ops ---------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerFusedOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXFusedOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// Checks that `value` has the shape `expected` (dims compatible, `?` in
/// `expected` matching anything); `rule` names the shape rule.
static LogicalResult expectShape(Operation *op, StringRef name, Value value,
                                 ArrayRef<int64_t> expected, StringRef rule) {
  ArrayRef<int64_t> actual = cast<RankedTensorType>(value.getType()).getShape();
  bool ok = actual.size() == expected.size() &&
            llvm::all_of(llvm::zip(actual, expected), [](auto dims) {
              return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
            });
  if (!ok)
    return op->emitOpError()
           << "'" << name << "' must have shape " << formatShape(expected)
           << " (" << rule << "), got " << formatShape(actual);
  return success();
}

/// Like `expectShape` for an optional operand; absent is fine.
static LogicalResult expectOptionalShape(Operation *op, StringRef name,
                                         Value value,
                                         ArrayRef<int64_t> expected,
                                         StringRef rule) {
  return value ? expectShape(op, name, value, expected, rule) : success();
}

/// Checks that `value`, when present, has the element type `elementType`.
static LogicalResult expectElementType(Operation *op, StringRef name,
                                       Value value, Type elementType) {
  if (!value)
    return success();
  Type actual = cast<RankedTensorType>(value.getType()).getElementType();
  if (actual != elementType)
    return op->emitOpError() << "'" << name << "' must have element type "
                             << elementType << ", got " << actual;
  return success();
}

//===----------------------------------------------------------------------===//
// FusedMatMulBiasActOp
//===----------------------------------------------------------------------===//

LogicalResult FusedMatMulBiasActOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(operands[0].getType());
  auto weightType = dyn_cast<RankedTensorType>(operands[1].getType());
  // Type and rank errors are the verifier's to report.
  if (!inputType || !weightType || inputType.getRank() == 0 ||
      weightType.getRank() != 2) {
    inferred.push_back(operands[0].getType());
    return success();
  }
  SmallVector<int64_t> shape(inputType.getShape());
  shape.back() = weightType.getDimSize(1);
  inferred.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult FusedMatMulBiasActOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  if (input.size() < 2)
    return emitOpError() << "input must have rank >= 2 ([..., M, K]), got "
                         << formatShape(input);
  if (weight.size() != 2)
    return emitOpError() << "weight must have rank 2 ([K, N]), got "
                         << formatShape(weight);
  if (!dimsCompatible(input.back(), weight[0]))
    return emitOpError() << "contraction dims differ: input "
                         << formatShape(input) << " has K = " << input.back()
                         << " but weight " << formatShape(weight)
                         << " has K = " << weight[0];
  return expectShape(*this, "bias", getBias(), {weight[1]}, "[N]");
}

//===----------------------------------------------------------------------===//
// FusedResidualLNOp / FusedResidualRmsNormOp
//===----------------------------------------------------------------------===//

/// Checks x `[..., H]` and the `[H]` vectors of a residual norm.
static LogicalResult
verifyResidualNorm(Operation *op, Value x,
                   ArrayRef<std::pair<StringRef, Value>> vectors) {
  auto xType = cast<RankedTensorType>(x.getType());
  if (xType.getRank() == 0)
    return op->emitOpError() << "x must have rank >= 1 ([..., H]), got []";
  int64_t hidden = xType.getShape().back();
  for (auto [name, value] : vectors) {
    if (failed(expectElementType(op, name, value, xType.getElementType())) ||
        failed(expectOptionalShape(op, name, value, {hidden},
                                   "[H], H = the last dim of x")))
      return failure();
  }
  return success();
}

LogicalResult FusedResidualLNOp::verify() {
  return verifyResidualNorm(
      *this, getX(),
      {{"bias", getBias()}, {"gamma", getGamma()}, {"beta", getBeta()}});
}

LogicalResult FusedResidualRmsNormOp::verify() {
  return verifyResidualNorm(
      *this, getX(),
      {{"bias", getBias()}, {"gamma", getGamma()}, {"beta", getBeta()}});
}

//===----------------------------------------------------------------------===//
// FusedSwiGLUOp
//===----------------------------------------------------------------------===//

LogicalResult FusedSwiGLUOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location>,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto inputType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!inputType) {
    inferred.push_back(adaptor.getInput().getType());
    return success();
  }
  Type elementType = inputType.getElementType();
  if (std::optional<Type> castTo = adaptor.getCastTo())
    elementType = *castTo;
  SmallVector<int64_t> shape(inputType.getShape());
  if (!shape.empty() && !ShapedType::isDynamic(shape.back()))
    shape.back() /= 2;
  inferred.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

LogicalResult FusedSwiGLUOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  if (input.empty())
    return emitOpError() << "input must have rank >= 1 ([..., 2F]), got []";
  if (!ShapedType::isDynamic(input.back()) && input.back() % 2 != 0)
    return emitOpError() << "the last dim of input " << formatShape(input)
                         << " must be even (up and gate halves [..., 2F])";
  if (std::optional<Type> castTo = getCastTo();
      castTo && !isa<Float16Type, BFloat16Type, Float32Type, Float64Type,
                     Float8E4M3FNType, Float8E5M2Type>(*castTo))
    return emitOpError() << "'cast_to' must be f16, bf16, f32, f64, "
                            "f8E4M3FN or f8E5M2, got "
                         << *castTo;
  return success();
}

//===----------------------------------------------------------------------===//
// FusedTransformerLayerOp
//===----------------------------------------------------------------------===//

LogicalResult FusedTransformerLayerOp::verify() {
  Operation *op = *this;
  auto hiddenType = getHidden().getType();
  ArrayRef<int64_t> hidden = hiddenType.getShape();
  if (hidden.size() != 3)
    return emitOpError() << "hidden must have rank 3 ([B, S, E]), got "
                         << formatShape(hidden);
  // The weights' dims are num_heads * head_dim and 3 times that: products
  // that must fit in 64 bits (huge attributes are an error, not overflow).
  int64_t e = 0, threeE = 0;
  if (llvm::MulOverflow(int64_t(getNumHeads()), int64_t(getHeadDim()), e) ||
      llvm::MulOverflow(int64_t(3), e, threeE))
    return emitOpError() << "3 * num_heads * head_dim overflows 64 bits";
  if (!dimsCompatible(hidden[2], e))
    return emitOpError() << "hidden " << formatShape(hidden)
                         << " must have E = num_heads * head_dim = " << e
                         << " as its last dim";
  int64_t f = getIntermediateSize();

  // The projection biases come as a group (RLX has_bias).
  std::pair<StringRef, Value> biases[] = {{"qkv_b", getQkvB()},
                                          {"out_b", getOutB()},
                                          {"fc1_b", getFc1B()},
                                          {"fc2_b", getFc2B()}};
  int present = llvm::count_if(biases, [](auto b) { return bool(b.second); });
  if (present != 0 && present != 4) {
    InFlightDiagnostic diag =
        emitOpError() << "projection biases qkv_b, out_b, fc1_b, fc2_b must "
                         "be given all together or not at all; got ";
    llvm::interleaveComma(
        llvm::make_filter_range(biases, [](auto b) { return bool(b.second); }),
        diag, [&](auto b) { diag << b.first; });
    return diag;
  }

  struct Expected {
    StringRef name;
    Value value;
    SmallVector<int64_t> shape;
    StringRef rule;
  };
  Expected expected[] = {
      {"qkv_w", getQkvW(), {e, threeE}, "[E, 3E]"},
      {"qkv_b", getQkvB(), {threeE}, "[3E]"},
      {"out_w", getOutW(), {e, e}, "[E, E]"},
      {"out_b", getOutB(), {e}, "[E]"},
      {"ln1_g", getLn1G(), {e}, "[E]"},
      {"ln1_b", getLn1B(), {e}, "[E]"},
      {"fc1_w", getFc1W(), {e, f}, "[E, F], F = intermediate_size"},
      {"fc1_b", getFc1B(), {f}, "[F], F = intermediate_size"},
      {"fc2_w", getFc2W(), {f, e}, "[F, E], F = intermediate_size"},
      {"fc2_b", getFc2B(), {e}, "[E]"},
      {"ln2_g", getLn2G(), {e}, "[E]"},
      {"ln2_b", getLn2B(), {e}, "[E]"},
  };
  Type elementType = hiddenType.getElementType();
  for (const Expected &item : expected)
    if (failed(expectElementType(op, item.name, item.value, elementType)) ||
        failed(expectOptionalShape(op, item.name, item.value, item.shape,
                                   item.rule)))
      return failure();
  if (Value mask = getMask()) {
    Type maskElement = cast<RankedTensorType>(mask.getType()).getElementType();
    if (maskElement != elementType && !maskElement.isInteger(1))
      return emitOpError() << "'mask' must have element type " << elementType
                           << " or i1, got " << maskElement;
    return expectShape(op, "mask", mask, {hidden[0], hidden[1]},
                       "[B, S] key-padding mask");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// FusedAttentionBlockOp
//===----------------------------------------------------------------------===//

LogicalResult
FusedAttentionBlockOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto hiddenType = dyn_cast<RankedTensorType>(adaptor.getHidden().getType());
  auto outType = dyn_cast<RankedTensorType>(adaptor.getOutW().getType());
  if (!hiddenType) {
    inferred.push_back(adaptor.getHidden().getType());
    return success();
  }
  SmallVector<int64_t> shape(hiddenType.getShape());
  if (!shape.empty() && outType && outType.getRank() == 2)
    shape.back() = outType.getDimSize(1);
  inferred.push_back(RankedTensorType::get(shape, hiddenType.getElementType()));
  return success();
}

LogicalResult FusedAttentionBlockOp::verify() {
  Operation *op = *this;
  int64_t heads = getNumHeads();
  int64_t headDim = getHeadDim();
  int64_t inner = 0, threeInner = 0;
  if (llvm::MulOverflow(heads, headDim, inner) ||
      llvm::MulOverflow(int64_t(3), inner, threeInner))
    return emitOpError() << "3 * num_heads * head_dim overflows 64 bits";

  auto hiddenType = getHidden().getType();
  ArrayRef<int64_t> hidden = hiddenType.getShape();
  if (hidden.size() != 3)
    return emitOpError() << "hidden must have rank 3 ([B, S, E]), got "
                         << formatShape(hidden);
  int64_t batch = hidden[0], seq = hidden[1];
  Type elementType = hiddenType.getElementType();

  // Both-or-neither groups.
  if (bool(getQkvB()) != bool(getOutB()))
    return emitOpError() << "'qkv_b' and 'out_b' must be given together "
                            "(has_bias), got only "
                         << (getQkvB() ? "qkv_b" : "out_b");
  if (bool(getRopeCos()) != bool(getRopeSin()))
    return emitOpError() << "'rope_cos' and 'rope_sin' must be given "
                            "together (has_rope), got only "
                         << (getRopeCos() ? "rope_cos" : "rope_sin");

  auto outW = getOutW().getType();
  if (outW.getRank() != 2)
    return emitOpError() << "'out_w' must have rank 2 ([I, N]), got "
                         << formatShape(outW.getShape());
  int64_t n = outW.getDimSize(1);
  std::string ropeRule = "[S, D/2] with D = head_dim";
  struct Expected {
    StringRef name;
    Value value;
    SmallVector<int64_t> shape;
    StringRef rule;
  };
  Expected expected[] = {
      {"qkv_w",
       getQkvW(),
       {hidden[2], threeInner},
       "[E, 3I], I = num_heads * head_dim"},
      {"qkv_b", getQkvB(), {threeInner}, "[3I], I = num_heads * head_dim"},
      {"out_w", getOutW(), {inner, n}, "[I, N], I = num_heads * head_dim"},
      {"out_b", getOutB(), {n}, "[N], N = the last dim of out_w"},
      {"rope_cos", getRopeCos(), {seq, headDim / 2}, ropeRule},
      {"rope_sin", getRopeSin(), {seq, headDim / 2}, ropeRule},
  };
  for (const Expected &item : expected)
    if (failed(expectElementType(op, item.name, item.value, elementType)) ||
        failed(expectOptionalShape(op, item.name, item.value, item.shape,
                                   item.rule)))
      return failure();
  if (getRopeCos() && headDim % 2 != 0)
    return emitOpError() << "rotary embedding needs an even head_dim, got "
                         << headDim;

  MaskKind kind = getMaskKind();
  bool needsMask = kind == MaskKind::Custom || kind == MaskKind::Bias;
  if (needsMask && !getMask())
    return emitOpError() << "mask_kind '" << stringifyEnum(kind)
                         << "' needs a 'mask' operand";
  if (!needsMask && getMask())
    return emitOpError() << "a 'mask' operand needs mask_kind 'custom' or "
                            "'bias', got '"
                         << stringifyEnum(kind) << "'";
  if (Value mask = getMask()) {
    Type maskElement = cast<RankedTensorType>(mask.getType()).getElementType();
    if (kind == MaskKind::Custom) {
      if (maskElement != elementType && !maskElement.isInteger(1))
        return emitOpError() << "'mask' must have element type " << elementType
                             << " or i1, got " << maskElement;
      if (failed(expectShape(op, "mask", mask, {batch, seq},
                             "[B, S] key-padding mask of mask_kind custom")))
        return failure();
    } else {
      if (failed(expectElementType(op, "mask", mask, elementType)) ||
          failed(expectShape(op, "mask", mask, {batch, heads, seq, seq},
                             "[B, H, S, S] additive mask of mask_kind bias")))
        return failure();
    }
  }

  std::optional<uint64_t> window = getWindow();
  if (kind == MaskKind::SlidingWindow && !window)
    return emitOpError()
           << "mask_kind 'sliding_window' needs a 'window' attribute";
  if (kind != MaskKind::SlidingWindow && window)
    return emitOpError() << "'window' only applies to mask_kind "
                            "'sliding_window', got '"
                         << stringifyEnum(kind) << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// LoraMatMulOp
//===----------------------------------------------------------------------===//

LogicalResult LoraMatMulOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  auto xType = dyn_cast<RankedTensorType>(operands[0].getType());
  auto wType = dyn_cast<RankedTensorType>(operands[1].getType());
  // Type and rank errors are the verifier's to report.
  if (!xType || !wType || xType.getRank() != 2 || wType.getRank() != 2) {
    inferred.push_back(operands[0].getType());
    return success();
  }
  inferred.push_back(RankedTensorType::get(
      {xType.getDimSize(0), wType.getDimSize(1)}, xType.getElementType()));
  return success();
}

LogicalResult LoraMatMulOp::verify() {
  ArrayRef<int64_t> x = getX().getType().getShape();
  if (x.size() != 2)
    return emitOpError() << "x must have rank 2 ([m, k]), got "
                         << formatShape(x);
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"w", getW()}, {"a", getA()}, {"b", getB()}})
    if (cast<RankedTensorType>(value.getType()).getRank() != 2)
      return emitOpError()
             << name << " must have rank 2, got "
             << formatShape(cast<RankedTensorType>(value.getType()).getShape());
  ArrayRef<int64_t> w = getW().getType().getShape();
  ArrayRef<int64_t> a = getA().getType().getShape();
  if (failed(expectShape(*this, "w", getW(), {x[1], w[1]}, "[k, n]")) ||
      failed(expectShape(*this, "a", getA(), {x[1], a[1]}, "[k, r]")) ||
      failed(expectShape(*this, "b", getB(), {a[1], w[1]}, "[r, n]")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXFusedOps.cpp.inc"
