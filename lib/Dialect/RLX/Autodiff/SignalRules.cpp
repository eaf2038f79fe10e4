//===- SignalRules.cpp - derivatives of the complex and signal ops --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// conjugate, fft, complex_norm_sq and log_mel. Complex cotangents follow
// PyTorch's convention: the gradient of a real loss `L` at `z = a + i b` is
// `dL/da + i dL/db`, so the VJP of a C-linear map is its adjoint (conjugate
// transpose) and that of `|z|^2` is `2 g z`. The real-block layout of fft
// (`[re..., im...]` on the last axis) is the same map on R^2N, whose
// transpose is the real form of the adjoint.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// `v * factor` for a real or complex `v`.
static Value scaleBy(PrimitiveBuilder &p, Value v, double factor) {
  if (factor == 1.0)
    return v;
  Type et = elementTypeOf(v);
  if (auto complex = llvm::dyn_cast<ComplexType>(et))
    return p.mul(v, p.cast(p.scalar(complex.getElementType(), factor), et));
  return p.mul(v, p.scalar(et, factor));
}

//===----------------------------------------------------------------------===//
// conjugate
//===----------------------------------------------------------------------===//

/// Self-adjoint: `conj(dy)`.
static LogicalResult vjpRule(ConjugateOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = p.conjugate(dys[0]);
  return success();
}

/// R-linear: `conj(t)`.
static LogicalResult jvpRule(ConjugateOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  tys[0] = p.conjugate(txs[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// fft
//===----------------------------------------------------------------------===//

/// The factor `norm` scales the transform of length `n` in direction
/// `inverse` by (RLX semantics: `forward` scales only the inverse).
static double fftScale(FftNorm norm, bool inverse, int64_t n) {
  switch (norm) {
  case FftNorm::Backward:
    return 1.0;
  case FftNorm::Forward:
    return inverse ? 1.0 / double(n) : 1.0;
  case FftNorm::Ortho:
    return 1.0 / std::sqrt(double(n));
  }
  return 1.0;
}

/// `y = s F x` with the DFT matrix `F` (symmetric) or its conjugate for the
/// inverse: the adjoint is `s conj(F) dy`, the transform in the other
/// direction, whose own scale `s'` is divided out: `(s / s') fft'(dy)`.
static LogicalResult vjpRule(FftOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op.getInput(), "rlx-autodiff")))
    return failure();
  Value x = op.getInput();
  int64_t n = shapeOf(x).back();
  if (!llvm::isa<ComplexType>(elementTypeOf(x)))
    n /= 2;
  bool inverse = op.getInverse();
  FftNorm norm = op.getNorm();
  Value opposite = FftOp::create(p.b, p.loc, dys[0], !inverse, norm);
  dxs[0] = scaleBy(p, opposite,
                   fftScale(norm, inverse, n) / fftScale(norm, !inverse, n));
  return success();
}

/// Linear (C-linear on complex tensors): the op on the tangent.
static LogicalResult jvpRule(FftOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  tys[0] = applyToTangents(op, p, txs, {0});
  return success();
}

//===----------------------------------------------------------------------===//
// complex_norm_sq
//===----------------------------------------------------------------------===//

/// `d|z|^2 = 2 re(conj(z) dz)`: the dedicated kernel's `g z` (the derivative
/// with respect to `conj(z)`) at `2 g`.
static LogicalResult vjpRule(ComplexNormSqOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = ComplexNormSqBackwardOp::create(p.b, p.loc, op.getInput(),
                                           scaleBy(p, dys[0], 2.0));
  return success();
}

/// `2 re(conj(z) t)` (a complex-to-real cast keeps the real part).
static LogicalResult jvpRule(ComplexNormSqOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  Value product = p.mul(p.conjugate(op.getInput()), txs[0]);
  tys[0] = scaleBy(p, p.cast(product, elementTypeOf(op.getResult())), 2.0);
  return success();
}

//===----------------------------------------------------------------------===//
// log_mel
//===----------------------------------------------------------------------===//

/// The dedicated kernel; the filterbank gets none. Like the kernel, both
/// modes treat the floor `max(l) - 8` as a constant: clamped entries get no
/// derivative, and none flows to the maximum through the floor.
static LogicalResult vjpRule(LogMelOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = LogMelBackwardOp::create(p.b, p.loc, op.getSpectrum(),
                                    op.getFilterbank(), dys[0]);
  return success();
}

/// Composed: with `P = re^2 + im^2` of the `n_bins` first frequencies and
/// `mel = P fb^T`, `t = (2 (re t_re + im t_im)) fb^T / (4 ln(10) mel)` where
/// `mel > 1e-10` and the entry is above the floor, 0 elsewhere.
static LogicalResult jvpRule(LogMelOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (!txs[0])
    return success();
  Value spectrum = op.getSpectrum(), filterbank = op.getFilterbank();
  if (failed(requireStaticShapes(op, {spectrum, filterbank}, "rlx-jvp")))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(spectrum);
  int64_t last = shape.size() - 1, nfft = shape.back() / 2;
  int64_t bins = nfft / 2 + 1, mels = shapeOf(filterbank)[0];
  Type et = elementTypeOf(spectrum);
  Value t = txs[0];
  Value re = p.narrow(spectrum, last, 0, bins);
  Value im = p.narrow(spectrum, last, nfft, bins);
  Value power = p.add(p.mul(re, re), p.mul(im, im));
  Value tPower = scaleBy(p,
                         p.add(p.mul(re, p.narrow(t, last, 0, bins)),
                               p.mul(im, p.narrow(t, last, nfft, bins))),
                         2.0);
  SmallVector<int64_t> outShape(shape.drop_back());
  outShape.push_back(mels);
  Value filterT = p.swapLastTwo(filterbank);
  auto applyFilter = [&](Value v) {
    return p.reshape(p.matmul(p.reshape(v, {-1, bins}), filterT), outShape);
  };
  Value mel = applyFilter(power), tMel = applyFilter(tPower);
  double ln10 = std::log(10.0);
  Value floored = p.binary(BinaryKind::Max, mel, p.scalar(et, 1e-10));
  Value level =
      p.div(p.activation(ActivationKind::Log, floored), p.scalar(et, ln10));
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
  Value floor = p.sub(p.reduce(ReduceKind::Max, level, all, /*keepDim=*/false),
                      p.scalar(et, 8.0));
  Value slope = p.div(tMel, scaleBy(p, mel, 4.0 * ln10));
  Value zero = p.scalar(et, 0.0);
  slope = p.where(p.compare(CompareKind::Gt, mel, p.scalar(et, 1e-10)), slope,
                  zero);
  tys[0] = p.where(p.compare(CompareKind::Ge, level, floor), slope, zero);
  return success();
}

void attachSignalRules(MLIRContext *ctx) {
  attachRules<ConjugateOp, FftOp, ComplexNormSqOp, LogMelOp>(ctx);
}

} // namespace rlx
} // namespace mlir
