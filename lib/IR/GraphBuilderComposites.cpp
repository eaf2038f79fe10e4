//===- GraphBuilderComposites.cpp - helpers built from rlx ops ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Composite helpers of the RLX Graph API that have no op of their own: they
// are built from rlx ops with the single-op builders, so every op is still
// verified as it is created. The signal helpers read static shapes (to pad
// to a power of two, index frames or mirror a spectrum) and report a
// diagnostic for dynamic ones.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/IR/GraphBuilder.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

FailureOr<RankedTensorType> GraphBuilder::staticTypeOf(Value x,
                                                       StringRef helper) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.hasStaticShape() || type.getRank() == 0) {
    emitBuilderError() << helper
                       << " needs a tensor of static shape and rank >= 1, got "
                       << x.getType();
    return failure();
  }
  return type;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

std::pair<Value, Value> GraphBuilder::sharedMatMulPair(Value x, Value wFirst,
                                                       Value wSecond) {
  return {matmul(x, wFirst), matmul(x, wSecond)};
}

Value GraphBuilder::swigluFfn(Value x, Value upW, Value gateW, Value downW) {
  auto [up, gate] = sharedMatMulPair(x, upW, gateW);
  return matmul(mul(silu(gate), up), downW);
}

Value GraphBuilder::fusedSwigluFfn(Value x, Value upW, Value gateW,
                                   Value downW) {
  if (failed(checkOperands(!upW)))
    return {};
  auto type = dyn_cast<RankedTensorType>(upW.getType());
  if (!type || type.getRank() == 0) {
    emitBuilderError() << "fusedSwigluFfn needs ranked weights, got "
                       << upW.getType();
    return {};
  }
  // One projection onto [up | gate], split by rlx.fused_swiglu (up first).
  Value upGate = concat({upW, gateW}, type.getRank() - 1);
  return matmul(fusedSwiGLU(matmul(x, upGate), /*gateFirst=*/false), downW);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

std::array<Value, 3>
GraphBuilder::attentionBackwardAll(Value q, Value k, Value v, Value dy,
                                   int64_t numHeads, int64_t headDim,
                                   const AttentionOptions &options) {
  auto gradient = [&](AttentionBwdWrt wrt) {
    return attentionBackward(wrt, q, k, v, dy, numHeads, headDim, options);
  };
  return {gradient(AttentionBwdWrt::Query), gradient(AttentionBwdWrt::Key),
          gradient(AttentionBwdWrt::Value)};
}

//===----------------------------------------------------------------------===//
// Signal processing
//===----------------------------------------------------------------------===//

/// An i64 constant tensor of `shape` with `values`.
static DenseElementsAttr indexConstant(OpBuilder &builder,
                                       ArrayRef<int64_t> shape,
                                       ArrayRef<int64_t> values) {
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, builder.getI64Type()), values);
}

Value GraphBuilder::power(Value re, Value im, int64_t count) {
  Type element = getElementTypeOrSelf(re.getType());
  return div(add(mul(re, re), mul(im, im)),
             splat({}, element, static_cast<double>(count)));
}

std::pair<Value, Value> GraphBuilder::rfft(Value x, FftNorm norm) {
  if (failed(checkOperands(!x)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(x, "rfft");
  if (failed(type))
    return {};
  Type element = type->getElementType();
  if (!element.isF32() && !element.isF64()) {
    emitBuilderError() << "rfft needs a real f32 or f64 signal, got " << *type;
    return {};
  }
  int64_t axis = type->getRank() - 1;
  int64_t n = type->getShape().back();
  int64_t m = llvm::PowerOf2Ceil(n);
  auto zeros = [&](int64_t length) {
    SmallVector<int64_t> shape(type->getShape());
    shape.back() = length;
    return splat(shape, element, 0.0);
  };
  // The real-block layout [re..., im...]: the signal zero-padded to m, then
  // m zero imaginary parts.
  Value block = m > n ? concat({x, zeros(m - n), zeros(m)}, axis)
                      : concat({x, zeros(m)}, axis);
  Value spectrum = fft(block, /*inverse=*/false, norm);
  int64_t bins = m / 2 + 1;
  return {narrow(spectrum, axis, 0, bins), narrow(spectrum, axis, m, bins)};
}

Value GraphBuilder::irfft(Value re, Value im, int64_t n, FftNorm norm) {
  if (failed(checkOperands(!re || !im)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(re, "irfft");
  if (failed(type))
    return {};
  int64_t axis = type->getRank() - 1;
  int64_t bins = type->getShape().back();
  int64_t m = 2 * (bins - 1);
  if (bins < 2 || n < 1 || n > m) {
    emitBuilderError() << "irfft of " << bins << " bins gives a signal of "
                       << "length 1 to " << std::max<int64_t>(m, 0)
                       << " (2 * (bins - 1)), got n = " << n;
    return {};
  }
  // Hermitian symmetry: bin m - k is the conjugate of bin k, for the bins
  // k = 1 .. bins - 2 between DC and Nyquist.
  Value fullRe = re, fullIm = im;
  if (int64_t mirrored = m - bins) {
    SmallVector<int64_t> sources;
    for (int64_t k = bins; k < m; ++k)
      sources.push_back(m - k);
    Value indices = constant(indexConstant(builder, {mirrored}, sources));
    fullRe = concat({re, gather(re, indices, axis)}, axis);
    fullIm = concat({im, neg(gather(im, indices, axis))}, axis);
  }
  Value signal = fft(concat({fullRe, fullIm}, axis), /*inverse=*/true, norm);
  // The real part, truncated to n; the imaginary part is zero.
  return narrow(signal, axis, 0, n);
}

Value GraphBuilder::stft(Value x, int64_t frameLength, int64_t hop,
                         FftNorm norm) {
  if (failed(checkOperands(!x)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(x, "stft");
  if (failed(type))
    return {};
  int64_t rank = type->getRank();
  int64_t length = type->getShape().back();
  if (frameLength < 1 || hop < 1 || frameLength > length) {
    emitBuilderError() << "stft needs 1 <= frame length <= " << length
                       << " (the signal length) and hop >= 1, got frame "
                          "length "
                       << frameLength << " and hop " << hop;
    return {};
  }
  // Frame f is x[..., f * hop + j], j < frameLength: one gather of
  // [frames, frameLength] indices gives [..., frames, frameLength].
  int64_t frames = (length - frameLength) / hop + 1;
  SmallVector<int64_t> positions;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frameLength; ++j)
      positions.push_back(f * hop + j);
  Value framed = gather(
      x, constant(indexConstant(builder, {frames, frameLength}, positions)),
      rank - 1);
  auto [re, im] = rfft(framed, norm);
  // [..., frames, 2 * bins] with the frames moved to the front.
  Value spectra = concat({re, im}, rank);
  if (rank == 1)
    return spectra;
  SmallVector<int64_t> perm{rank - 1};
  for (int64_t d = 0; d < rank - 1; ++d)
    perm.push_back(d);
  perm.push_back(rank);
  return transpose(spectra, perm);
}

Value GraphBuilder::psd(Value re, Value im) {
  if (failed(checkOperands(!re || !im)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(re, "psd");
  if (failed(type))
    return {};
  return power(re, im, type->getShape().back());
}

Value GraphBuilder::psdReal(Value x, FftNorm norm) {
  auto [re, im] = rfft(x, norm);
  if (!re)
    return {};
  // The transform length m: the half spectrum has m / 2 + 1 bins.
  int64_t bins = llvm::cast<RankedTensorType>(re.getType()).getShape().back();
  return power(re, im, std::max<int64_t>(2 * (bins - 1), 1));
}

/// Checks the arguments of fftfreq and rfftfreq.
static bool validFrequencyArguments(int64_t n, double spacing) {
  return n >= 1 && std::isfinite(spacing) && spacing > 0;
}

Value GraphBuilder::fftfreq(int64_t n, double spacing) {
  if (!validFrequencyArguments(n, spacing)) {
    emitBuilderError() << "fftfreq needs n >= 1 and a finite positive sample "
                          "spacing, got n = "
                       << n << " and spacing " << spacing;
    return {};
  }
  SmallVector<float> values;
  for (int64_t i = 0; i < n; ++i) {
    // [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1], as NumPy.
    int64_t k = i < (n + 1) / 2 ? i : i - n;
    values.push_back(static_cast<float>(k / (spacing * n)));
  }
  return constant({n}, values);
}

Value GraphBuilder::rfftfreq(int64_t n, double spacing) {
  if (!validFrequencyArguments(n, spacing)) {
    emitBuilderError() << "rfftfreq needs n >= 1 and a finite positive "
                          "sample spacing, got n = "
                       << n << " and spacing " << spacing;
    return {};
  }
  SmallVector<float> values;
  for (int64_t k = 0; k <= n / 2; ++k)
    values.push_back(static_cast<float>(k / (spacing * n)));
  return constant({n / 2 + 1}, values);
}
