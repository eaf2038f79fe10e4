//===- ConvGeometry.h - sliding-window geometry of NCHW ops -----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The window geometry shared by rlx.conv, rlx.im2col, rlx.conv_transpose2d,
// rlx.pool and their backward kernels (rlx.conv2d_backward_input,
// rlx.conv2d_backward_weight, rlx.max_pool2d_backward): the output extent of
// a window sweep, attribute checks, and the diagnostics both families emit.
// Internal to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_CONVGEOMETRY_H
#define RLX_DIALECT_RLX_IR_CONVGEOMETRY_H

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

namespace mlir {
namespace rlx {
namespace conv_geometry {

/// The `[H, W]` window attributes of one op. `dilation` is empty for ops
/// without dilation (pooling), which then behave as dilation `[1, 1]`;
/// `outputPadding` is empty except for transposed convolution.
struct Window {
  ArrayRef<int64_t> kernel;
  ArrayRef<int64_t> stride;
  ArrayRef<int64_t> padding;
  ArrayRef<int64_t> dilation;
  ArrayRef<int64_t> outputPadding;

  int64_t dilationAt(unsigned i) const {
    return dilation.empty() ? 1 : dilation[i];
  }
  int64_t outputPaddingAt(unsigned i) const {
    return outputPadding.empty() ? 0 : outputPadding[i];
  }
};

/// The array behind an optional dense array attribute (empty when absent).
inline ArrayRef<int64_t> arrayOrEmpty(DenseI64ArrayAttr attr) {
  return attr ? attr.asArrayRef() : ArrayRef<int64_t>();
}

/// The array of a window attribute during type inference (empty if absent).
template <typename AdaptorT>
inline ArrayRef<int64_t> windowArray(AdaptorT &adaptor,
                                     DenseI64ArrayAttr fromProperties,
                                     StringRef name) {
  return arrayOrEmpty(inferenceAttr<DenseI64ArrayAttr>(
      fromProperties, adaptor.getAttributes(), name));
}

/// `a / b` for a static divisor; dynamic when `a` is dynamic or the division
/// is not exact (the verifier reports the latter).
inline int64_t exactDiv(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || b < 1 || a % b != 0)
    return ShapedType::kDynamic;
  return a / b;
}

/// True when every attribute of `window` has two entries in range, so the
/// output extents below are meaningful. Type inference uses this to stay
/// total; the verifier reports the precise problem.
inline bool isWellFormed(const Window &window, bool hasDilation,
                         bool hasOutputPadding) {
  auto allAtLeast = [](ArrayRef<int64_t> values, int64_t min) {
    return values.size() == 2 &&
           llvm::all_of(values, [&](int64_t v) { return v >= min; });
  };
  return allAtLeast(window.kernel, 1) && allAtLeast(window.stride, 1) &&
         allAtLeast(window.padding, 0) &&
         (!hasDilation || allAtLeast(window.dilation, 1)) &&
         (!hasOutputPadding || allAtLeast(window.outputPadding, 0));
}

/// What the extent computations below return for an extent that 64 bits
/// cannot hold (huge dims or window attributes): no type is built with it;
/// the verifier and type inference report it (`anyOverflowingExtent`).
inline constexpr int64_t kOverflowingExtent =
    std::numeric_limits<int64_t>::max();

/// `value` (computed in 128 bits from 64-bit operands, so exactly) as an
/// extent: kOverflowingExtent when it is too large for 64 bits, at least
/// -kOverflowingExtent (below 1 either way) when negative.
inline int64_t extentFrom(__int128 value) {
  if (value >= kOverflowingExtent)
    return kOverflowingExtent;
  if (value <= -kOverflowingExtent)
    return -kOverflowingExtent;
  return static_cast<int64_t>(value);
}

/// Output extent of a window sweep along one spatial dim:
/// `floor((in + 2 pad - dil (k - 1) - 1) / stride) + 1`. Dynamic when `in`
/// is; may be < 1 when the window does not fit (the caller checks).
inline int64_t slidingOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                 int64_t pad, int64_t dil) {
  if (ShapedType::isDynamic(in) || stride < 1)
    return ShapedType::kDynamic;
  __int128 span = __int128(in) + 2 * __int128(pad) -
                  __int128(dil) * (__int128(kernel) - 1) - 1;
  // Floor division: the span may be negative (the window does not fit).
  __int128 quotient = span / stride;
  if (span % stride != 0 && span < 0)
    --quotient;
  return extentFrom(quotient + 1);
}

/// Output extent of a transposed convolution along one spatial dim:
/// `(in - 1) stride - 2 pad + dil (k - 1) + output_padding + 1`.
inline int64_t transposedOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                    int64_t pad, int64_t dil,
                                    int64_t outputPadding) {
  if (ShapedType::isDynamic(in))
    return ShapedType::kDynamic;
  return extentFrom((__int128(in) - 1) * stride - 2 * __int128(pad) +
                    __int128(dil) * (__int128(kernel) - 1) + outputPadding + 1);
}

/// `a * b` for extents: dynamic when either is, kOverflowingExtent when the
/// product does not fit in 64 bits.
inline int64_t mulExtents(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return ShapedType::kDynamic;
  int64_t product;
  if (llvm::MulOverflow(a, b, product))
    return kOverflowingExtent;
  return product;
}

/// True when an extent of `shape` is too large for 64 bits.
inline bool anyOverflowingExtent(ArrayRef<int64_t> shape) {
  return llvm::is_contained(shape, kOverflowingExtent);
}

/// `[H_out, W_out]` of a window sweep over the spatial dims of an NCHW
/// shape. Requires a well-formed window and a rank-4 shape.
inline SmallVector<int64_t, 2> slidingOutputHW(ArrayRef<int64_t> nchw,
                                               const Window &window) {
  SmallVector<int64_t, 2> out;
  for (unsigned i = 0; i < 2; ++i)
    out.push_back(slidingOutputSize(nchw[2 + i], window.kernel[i],
                                    window.stride[i], window.padding[i],
                                    window.dilationAt(i)));
  return out;
}

/// `[H_out, W_out]` of a transposed convolution over an NCHW shape.
inline SmallVector<int64_t, 2> transposedOutputHW(ArrayRef<int64_t> nchw,
                                                  const Window &window) {
  SmallVector<int64_t, 2> out;
  for (unsigned i = 0; i < 2; ++i)
    out.push_back(transposedOutputSize(
        nchw[2 + i], window.kernel[i], window.stride[i], window.padding[i],
        window.dilationAt(i), window.outputPaddingAt(i)));
  return out;
}

/// Checks that an attribute holds two entries, each at least `min`.
inline LogicalResult verifyPair(Operation *op, StringRef name,
                                ArrayRef<int64_t> values, int64_t min,
                                StringRef layout) {
  if (values.size() != 2)
    return op->emitOpError() << "'" << name << "' must have 2 entries "
                             << layout << ", got " << formatShape(values);
  if (llvm::any_of(values, [&](int64_t v) { return v < min; }))
    return op->emitOpError() << "'" << name << "' entries must be >= " << min
                             << ", got " << formatShape(values);
  return success();
}

/// Checks every attribute of a window: two entries each, kernel, stride and
/// dilation >= 1, padding and output padding >= 0.
inline LogicalResult verifyWindowAttrs(Operation *op, const Window &window,
                                       bool hasDilation,
                                       bool hasOutputPadding) {
  if (failed(verifyPair(op, "kernel_size", window.kernel, 1, "[kH, kW]")) ||
      failed(verifyPair(op, "stride", window.stride, 1, "[sH, sW]")) ||
      failed(verifyPair(op, "padding", window.padding, 0, "[pH, pW]")))
    return failure();
  if (hasDilation &&
      failed(verifyPair(op, "dilation", window.dilation, 1, "[dH, dW]")))
    return failure();
  if (hasOutputPadding &&
      failed(verifyPair(op, "output_padding", window.outputPadding, 0,
                        "[opH, opW]")))
    return failure();
  return success();
}

/// Checks that a value is an NCHW tensor.
inline LogicalResult verifyNCHW(Operation *op, StringRef name,
                                ArrayRef<int64_t> shape) {
  if (shape.size() != 4)
    return op->emitOpError()
           << name << " must be NCHW (rank 4), got " << formatShape(shape);
  return success();
}

/// Renders the window attributes for diagnostics.
inline std::string describeWindow(const Window &window, bool hasDilation) {
  std::string text = "kernel_size " + formatShape(window.kernel) + ", stride " +
                     formatShape(window.stride) + ", padding " +
                     formatShape(window.padding);
  if (hasDilation)
    text += ", dilation " + formatShape(window.dilation);
  return text;
}

/// True when a static extent of `hw` is below 1: the window does not fit.
inline bool anyEmptyExtent(ArrayRef<int64_t> hw) {
  return llvm::any_of(
      hw, [](int64_t d) { return !ShapedType::isDynamic(d) && d < 1; });
}

/// The diagnostic of a window sweep whose output extents `hw` are not all
/// >= 1, after the op's name: `window does not fit: input [...] with
/// kernel_size ... gives output size [...]; each extent must be >= 1`.
template <typename DiagT>
DiagT &describeMisfit(DiagT &diag, StringRef name, ArrayRef<int64_t> nchw,
                      const Window &window, bool hasDilation,
                      ArrayRef<int64_t> hw) {
  diag << "window does not fit: " << name << " " << formatShape(nchw)
       << " with " << describeWindow(window, hasDilation);
  if (!window.outputPadding.empty())
    diag << ", output_padding " << formatShape(window.outputPadding);
  diag << " gives output size " << formatShape(hw)
       << "; each extent must be >= 1";
  return diag;
}

/// Computes the `[H_out, W_out]` of a window sweep over `nchw` and reports
/// an error when a static extent is below 1.
inline FailureOr<SmallVector<int64_t, 2>>
verifySlidingOutput(Operation *op, StringRef name, ArrayRef<int64_t> nchw,
                    const Window &window, bool hasDilation) {
  SmallVector<int64_t, 2> out = slidingOutputHW(nchw, window);
  if (anyOverflowingExtent(out))
    return op->emitOpError() << "output size overflows 64 bits: " << name << " "
                             << formatShape(nchw) << " with "
                             << describeWindow(window, hasDilation);
  if (anyEmptyExtent(out)) {
    InFlightDiagnostic diag = op->emitOpError();
    describeMisfit(diag, name, nchw, window, hasDilation, out);
    return failure();
  }
  return out;
}

/// The output extents `hw` that type inference of `opName` computed, or
/// a failure with the verifier's diagnostic (at `location`, when given)
/// when a window does not fit: a type with negative dims is never built.
inline FailureOr<SmallVector<int64_t, 2>>
inferredOutputHW(std::optional<Location> location, StringRef opName,
                 ArrayRef<int64_t> nchw, const Window &window, bool hasDilation,
                 SmallVector<int64_t, 2> hw) {
  if (anyOverflowingExtent(hw)) {
    if (location)
      emitError(*location) << "'" << opName
                           << "' op output size overflows 64 bits: input "
                           << formatShape(nchw) << " with "
                           << describeWindow(window, hasDilation);
    return failure();
  }
  if (!anyEmptyExtent(hw))
    return hw;
  if (location) {
    InFlightDiagnostic diag = emitError(*location) << "'" << opName << "' op ";
    describeMisfit(diag, "input", nchw, window, hasDilation, hw);
  }
  return failure();
}

/// Checks that the weight's trailing dims are the kernel extents.
inline LogicalResult verifyKernelMatchesWeight(Operation *op,
                                               ArrayRef<int64_t> weight,
                                               ArrayRef<int64_t> kernel) {
  if (!dimsCompatible(weight[2], kernel[0]) ||
      !dimsCompatible(weight[3], kernel[1]))
    return op->emitOpError()
           << "weight " << formatShape(weight) << " has kernel extents "
           << formatShape(weight.drop_front(2)) << " but kernel_size is "
           << formatShape(kernel);
  return success();
}

/// Checks that `groups` is positive and divides a static channel count.
inline LogicalResult verifyGroupsDivide(Operation *op, int64_t groups,
                                        StringRef what, int64_t channels) {
  if (groups < 1)
    return op->emitOpError() << "'groups' must be >= 1, got " << groups;
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return op->emitOpError() << what << " = " << channels
                             << " is not divisible by groups = " << groups;
  return success();
}

/// Checks the padding of a pooling window: at most half the kernel extent,
/// so every window overlaps the input.
inline LogicalResult verifyPoolPadding(Operation *op, const Window &window) {
  for (unsigned i = 0; i < 2; ++i)
    if (window.padding[i] > window.kernel[i] / 2) // 2 p > k, without overflow
      return op->emitOpError()
             << "padding " << formatShape(window.padding)
             << " exceeds half of kernel_size " << formatShape(window.kernel)
             << "; every window must overlap the input";
  return success();
}

} // namespace conv_geometry
} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_CONVGEOMETRY_H
