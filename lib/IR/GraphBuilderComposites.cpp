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

Value GraphBuilder::padLastAxis(Value x, int64_t length) {
  if (failed(checkOperands(!x)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(x, "zero padding");
  if (failed(type))
    return {};
  int64_t n = type->getShape().back();
  if (length == n)
    return x;
  if (length < n) {
    emitBuilderError() << "cannot zero-pad a last axis of " << n
                       << " to the shorter length " << length;
    return {};
  }
  SmallVector<int64_t> zerosShape(type->getShape());
  zerosShape.back() = length - n;
  return concat({x, splat(zerosShape, type->getElementType(), 0.0)},
                type->getRank() - 1);
}

Value GraphBuilder::padToPowerOfTwo(Value x) {
  if (failed(checkOperands(!x)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(x, "padToPowerOfTwo");
  if (failed(type))
    return {};
  return padLastAxis(x, llvm::PowerOf2Ceil(type->getShape().back()));
}

std::pair<Value, Value> GraphBuilder::splitSpectrum(Value spectrum) {
  if (failed(checkOperands(!spectrum)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(spectrum, "splitSpectrum");
  if (failed(type))
    return {};
  int64_t length = type->getShape().back();
  if (length % 2) {
    emitBuilderError() << "splitSpectrum needs a real-block spectrum of even "
                          "length, got "
                       << *type;
    return {};
  }
  int64_t axis = type->getRank() - 1;
  return {narrow(spectrum, axis, 0, length / 2),
          narrow(spectrum, axis, length / 2, length / 2)};
}

std::pair<Value, Value> GraphBuilder::fftReal(Value x, FftNorm norm) {
  if (failed(checkOperands(!x)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(x, "fftReal");
  if (failed(type))
    return {};
  Type element = type->getElementType();
  if (!element.isF32() && !element.isF64()) {
    emitBuilderError() << "the real FFT helpers need an f32 or f64 signal, "
                          "got "
                       << *type;
    return {};
  }
  // The real-block layout [re..., im...]: the padded signal, then as many
  // zero imaginary parts.
  SmallVector<int64_t> imShape(type->getShape());
  imShape.back() = llvm::PowerOf2Ceil(imShape.back());
  Value block = concat({padToPowerOfTwo(x), splat(imShape, element, 0.0)},
                       type->getRank() - 1);
  return splitSpectrum(fft(block, /*inverse=*/false, norm));
}

std::pair<Value, Value> GraphBuilder::rfft(Value x, FftNorm norm) {
  auto [re, im] = fftReal(x, norm);
  if (!re)
    return {};
  auto type = llvm::cast<RankedTensorType>(re.getType());
  int64_t axis = type.getRank() - 1;
  int64_t bins = type.getShape().back() / 2 + 1;
  return {narrow(re, axis, 0, bins), narrow(im, axis, 0, bins)};
}

Value GraphBuilder::ifftSpectrum(Value re, Value im, FftNorm norm) {
  if (failed(checkOperands(!re || !im)))
    return {};
  FailureOr<RankedTensorType> type = staticTypeOf(re, "ifftSpectrum");
  if (failed(type))
    return {};
  int64_t axis = type->getRank() - 1;
  Value signal = fft(concat({re, im}, axis), /*inverse=*/true, norm);
  // The real block; the imaginary one is the caller's to ignore (zero for a
  // Hermitian spectrum).
  return splitSpectrum(signal).first;
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
  return narrow(ifftSpectrum(fullRe, fullIm, norm), axis, 0, n);
}

Value GraphBuilder::fftConv1d(Value a, Value b, int64_t nFft) {
  if (failed(checkOperands(!a || !b)))
    return {};
  FailureOr<RankedTensorType> aType = staticTypeOf(a, "fftConv1d");
  if (failed(aType))
    return {};
  FailureOr<RankedTensorType> bType = staticTypeOf(b, "fftConv1d");
  if (failed(bType))
    return {};
  int64_t length = aType->getShape().back() + bType->getShape().back() - 1;
  int64_t padded = std::max(nFft, length);
  auto [aRe, aIm] = rfft(padLastAxis(a, padded));
  auto [bRe, bIm] = rfft(padLastAxis(b, padded));
  if (!aRe || !bRe)
    return {};
  // The product of the spectra; the inverse with 1/m makes the round trip
  // exact, so the result is the convolution whatever the transform length.
  Value re = sub(mul(aRe, bRe), mul(aIm, bIm));
  Value im = add(mul(aRe, bIm), mul(aIm, bRe));
  return irfft(re, im, length, FftNorm::Forward);
}

Value GraphBuilder::fftAxis(Value x, int64_t axis, bool inverse, FftNorm norm) {
  if (failed(checkOperands(!x)))
    return {};
  auto type = dyn_cast<RankedTensorType>(x.getType());
  std::optional<int64_t> normalized =
      type ? normalizeAxis(axis, type.getRank()) : std::nullopt;
  if (!normalized) {
    emitBuilderError() << "fftAxis: axis " << axis << " is out of range for "
                       << x.getType();
    return {};
  }
  int64_t last = type.getRank() - 1;
  if (*normalized == last)
    return fft(x, inverse, norm);
  SmallVector<int64_t> swap = llvm::to_vector(llvm::seq<int64_t>(0, last + 1));
  std::swap(swap[*normalized], swap[last]);
  return transpose(fft(transpose(x, swap), inverse, norm), swap);
}

Value GraphBuilder::fftn(Value x, ArrayRef<int64_t> axes, bool inverse,
                         FftNorm norm) {
  if (failed(checkOperands(!x)))
    return {};
  auto type = dyn_cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> sorted;
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized =
        type ? normalizeAxis(axis, type.getRank()) : std::nullopt;
    if (!normalized) {
      emitBuilderError() << "fftn: axis " << axis << " is out of range for "
                         << x.getType();
      return {};
    }
    sorted.push_back(*normalized);
  }
  llvm::sort(sorted);
  sorted.erase(llvm::unique(sorted), sorted.end());
  for (int64_t axis : sorted)
    x = fftAxis(x, axis, inverse, norm);
  return x;
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
