//===- FftOps.cpp - FFT, complex helpers and audio features ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerFftOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXFftOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// FftOp
//===----------------------------------------------------------------------===//

LogicalResult FftOp::verify() {
  RankedTensorType type = getInput().getType();
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.empty())
    return emitOpError() << "input must have rank >= 1 (the transform runs "
                            "along the last axis), got a rank-0 tensor";
  int64_t last = shape.back();
  if (ShapedType::isDynamic(last))
    return success();
  if (isa<ComplexType>(type.getElementType())) {
    if (last < 1)
      return emitOpError() << "the last axis must hold at least one complex "
                              "value, got "
                           << formatShape(shape);
    return success();
  }
  if (last < 2 || last % 2 != 0)
    return emitOpError() << "real-block layout needs an even last axis of "
                            "length 2N >= 2 ([re..., im...]), got "
                         << formatShape(shape);
  return success();
}

//===----------------------------------------------------------------------===//
// FftButterflyStageOp
//===----------------------------------------------------------------------===//

LogicalResult FftButterflyStageOp::verify() {
  int64_t nFft = getNFft();
  int64_t stages = llvm::Log2_64(nFft);
  int64_t stage = getStage();
  if (stage < 0 || stage >= stages)
    return emitOpError() << "stage " << stage << " is out of range [0, "
                         << stages << ") for n_fft = " << nFft;
  RankedTensorType stateType = getState().getType();
  ArrayRef<int64_t> state = stateType.getShape();
  if (state.size() != 3 || !dimsCompatible(state[1], nFft) ||
      !dimsCompatible(state[2], 2))
    return emitOpError() << "state must have shape [batch, " << nFft
                         << ", 2] (re/im interleaved), got "
                         << formatShape(state);
  int64_t half = nFft / 2;
  for (auto [name, value] :
       {std::pair{"gate", getGate()}, std::pair{"rev", getRev()},
        std::pair{"tw_re", getTwRe()}, std::pair{"tw_im", getTwIm()}}) {
    ArrayRef<int64_t> shape = value.getType().getShape();
    if (shape.size() != 1 || !dimsCompatible(shape[0], half))
      return emitOpError() << name << " must have shape [" << half
                           << "] (n_fft / 2), got " << formatShape(shape);
  }
  if (getTwRe().getType().getElementType() != stateType.getElementType())
    return emitOpError() << "twiddle element type "
                         << getTwRe().getType().getElementType()
                         << " differs from state element type "
                         << stateType.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// LogMelOp / LogMelBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult
LogMelOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto spec = dyn_cast<RankedTensorType>(adaptor.getSpectrum().getType());
  auto fb = dyn_cast<RankedTensorType>(adaptor.getFilterbank().getType());
  if (!spec || spec.getRank() == 0) {
    inferredReturnTypes.push_back(adaptor.getSpectrum().getType());
    return success();
  }
  SmallVector<int64_t> shape(spec.getShape());
  shape.back() =
      fb && fb.getRank() == 2 ? fb.getDimSize(0) : ShapedType::kDynamic;
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, spec.getElementType()));
  return success();
}

/// Spectrum and filterbank rules shared by the log-mel ops.
static LogicalResult verifyLogMelInputs(Operation *op, ArrayRef<int64_t> spec,
                                        ArrayRef<int64_t> fb) {
  if (spec.empty())
    return op->emitOpError()
           << "spectrum must have rank >= 1 ([..., 2 * n_fft]), got []";
  int64_t last = spec.back();
  if (!ShapedType::isDynamic(last) && (last < 2 || last % 2 != 0))
    return op->emitOpError()
           << "spectrum last axis must be 2 * n_fft with n_fft >= 1 "
              "([re..., im...]), got "
           << formatShape(spec);
  if (fb.size() != 2)
    return op->emitOpError()
           << "filterbank must have rank 2 ([n_mels, n_fft / 2 + 1]), got "
           << formatShape(fb);
  if (!ShapedType::isDynamic(last) && !dimsCompatible(fb[1], last / 2 / 2 + 1))
    return op->emitOpError() << "filterbank " << formatShape(fb) << " has "
                             << fb[1] << " frequency bins but spectrum "
                             << formatShape(spec) << " (n_fft = " << last / 2
                             << ") has n_fft / 2 + 1 = " << last / 2 / 2 + 1;
  return success();
}

LogicalResult LogMelOp::verify() {
  return verifyLogMelInputs(*this, getSpectrum().getType().getShape(),
                            getFilterbank().getType().getShape());
}

LogicalResult LogMelBackwardOp::verify() {
  ArrayRef<int64_t> spec = getSpectrum().getType().getShape();
  ArrayRef<int64_t> fb = getFilterbank().getType().getShape();
  if (failed(verifyLogMelInputs(*this, spec, fb)))
    return failure();
  SmallVector<int64_t> expected(spec);
  expected.back() = fb[0];
  ArrayRef<int64_t> dy = getDy().getType().getShape();
  bool ok = dy.size() == expected.size();
  for (size_t i = 0; ok && i < dy.size(); ++i)
    ok = dimsCompatible(dy[i], expected[i]);
  if (!ok)
    return emitOpError() << "dy must have the forward output shape "
                         << formatShape(expected) << " ([..., n_mels]), got "
                         << formatShape(dy);
  return success();
}

//===----------------------------------------------------------------------===//
// ComplexNormSqOp
//===----------------------------------------------------------------------===//

LogicalResult
ComplexNormSqOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferredReturnTypes) {
  Type type = adaptor.getInput().getType();
  if (auto ranked = dyn_cast<RankedTensorType>(type))
    type = RankedTensorType::get(ranked.getShape(), Float32Type::get(context));
  inferredReturnTypes.push_back(type);
  return success();
}

//===----------------------------------------------------------------------===//
// ConjugateOp
//===----------------------------------------------------------------------===//

OpFoldResult ConjugateOp::fold(FoldAdaptor) {
  // conj(conj(z)) = z.
  if (auto inner = getInput().getDefiningOp<ConjugateOp>())
    return inner.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXFftOps.cpp.inc"
