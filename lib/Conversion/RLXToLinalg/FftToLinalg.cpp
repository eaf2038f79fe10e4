//===- FftToLinalg.cpp - FFT, complex helpers and log-mel features --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.fft works on two real planes (re, im) of shape [..., N] in the compute
// type, whatever the layout: the real-block layout is read at explicit
// indices (k and N + k), complex<f32> is split elementwise. Power-of-two
// lengths run an iterative radix-2 FFT (a bit-reversal gather, then log2(N)
// butterfly stages, unrolled for a static N, an scf.for over the stages for a
// dynamic one); other static lengths up to 16 a DFT contracted against
// a twiddle table exp(-2 pi i m / N), m in [0, N), computed in f64 and indexed
// by n * k mod N so that every twiddle is exact to the table's rounding;
// longer ones Bluestein's FFT, a convolution with a chirp through radix-2
// FFTs of a power-of-two length (O(N log N)). A dynamic N chooses between
// radix-2 and Bluestein at run time (scf.if). The norm scale is applied when
// the planes are joined back into the input's layout.
//
// rlx.log_mel is a power generic, a contraction with the filterbank, a log
// and a whole-tensor max; its backward recomputes that max and propagates
// through the unclamped entries only.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace {
/// The real and imaginary planes of a transform, each [..., N].
struct Planes {
  Value re;
  Value im;
};
} // namespace

static Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `size` as an index value (a constant when it is static).
static Value indexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  return getValueOrCreateConstantIndexOp(b, loc, size);
}

/// `size * factor`, static when `size` is.
static OpFoldResult scaledSize(OpBuilder &b, Location loc, OpFoldResult size,
                               int64_t factor) {
  if (std::optional<int64_t> value = getConstantIntValue(size))
    return b.getIndexAttr(*value * factor);
  return arith::MulIOp::create(b, loc, indexValue(b, loc, size),
                               indexConstant(b, loc, factor))
      .getResult();
}

/// A `linalg.generic` with several results written into `inits`.
static SmallVector<Value>
buildMultiGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                  ValueRange inits, ArrayRef<AffineMap> maps,
                  ArrayRef<utils::IteratorType> iterators, GenericBody body) {
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange(inits), inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return SmallVector<Value>(generic.getResults());
}

/// `tensor.insert_slice` of `source` at `offset` of the last axis of `dest`.
static Value insertLast(OpBuilder &b, Location loc, Value source, Value dest,
                        OpFoldResult offset) {
  int64_t rank = cast<RankedTensorType>(source.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets.back() = offset;
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                       strides);
}

/// The sizes of `tensor` with the last one replaced by `last`.
static SmallVector<OpFoldResult>
sizesWithLast(OpBuilder &b, Location loc, Value tensor, OpFoldResult last) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, tensor);
  sizes.back() = last;
  return sizes;
}

static AffineMap identityMap(MLIRContext *ctx, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx);
}

/// The indices (batch..., last) of the current iteration with the last one
/// replaced by `last`.
static SmallVector<Value> indicesWithLast(OpBuilder &b, Location loc,
                                          int64_t rank, Value last) {
  SmallVector<Value> indices;
  for (int64_t dim = 0; dim + 1 < rank; ++dim)
    indices.push_back(linalg::IndexOp::create(b, loc, dim));
  indices.push_back(last);
  return indices;
}

/// The body of a generic over the first `count` bins of a block-layout
/// tensor: (re, im) of the bin -> results.
using BinBody =
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, Value)>;

/// A parallel generic over [..., count] reading `re[..., k]` and
/// `im[..., k]` of the block-layout `input` ([..., 2n]). The reads are
/// tensor.extract at explicit indices: as operands, `input`'s last extent
/// (2n) would claim the loop's size, which is `count`.
static SmallVector<Value> buildOverBins(OpBuilder &b, Location loc, Value input,
                                        OpFoldResult n, OpFoldResult count,
                                        TypeRange resultTypes, BinBody body) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  return buildParallel(
      b, loc, sizesWithLast(b, loc, input, count), resultTypes, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value k = linalg::IndexOp::create(nb, nl, rank - 1);
        Value kIm = arith::AddIOp::create(nb, nl, k, indexValue(nb, nl, n));
        Value re = tensor::ExtractOp::create(nb, nl, input,
                                             indicesWithLast(nb, nl, rank, k));
        Value im = tensor::ExtractOp::create(
            nb, nl, input, indicesWithLast(nb, nl, rank, kIm));
        return body(nb, nl, re, im);
      });
}

/// The planes of an rlx.fft operand, in its compute type.
static Planes splitPlanes(OpBuilder &b, Location loc, Value input,
                          OpFoldResult n) {
  auto type = cast<RankedTensorType>(input.getType());
  auto complexType = dyn_cast<ComplexType>(type.getElementType());
  if (!complexType) {
    Type part = type.getElementType();
    SmallVector<Value> planes =
        buildOverBins(b, loc, input, n, n, {part, part},
                      [](OpBuilder &, Location, Value re, Value im) {
                        return SmallVector<Value>{re, im};
                      });
    return {planes[0], planes[1]};
  }
  Type part = complexType.getElementType();
  SmallVector<Value> planes = buildParallel(
      b, loc, tensor::getMixedSizes(b, loc, input), {part, part}, input,
      {identityMap(b.getContext(), type.getRank())},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return SmallVector<Value>{complex::ReOp::create(nb, nl, args[0]),
                                  complex::ImOp::create(nb, nl, args[0])};
      });
  return {planes[0], planes[1]};
}

/// Scales the planes by `scale` (in their type; none: 1) and joins them
/// into the layout of `resultType`.
static Value joinPlanes(OpBuilder &b, Location loc, Planes planes,
                        RankedTensorType resultType, Value scale) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  Type part = cast<RankedTensorType>(planes.re.getType()).getElementType();
  auto complexType = dyn_cast<ComplexType>(resultType.getElementType());
  if (!complexType && !scale) {
    OpFoldResult n = tensor::getMixedSizes(b, loc, planes.re).back();
    Value empty = tensor::EmptyOp::create(
        b, loc, sizesWithLast(b, loc, planes.re, scaledSize(b, loc, n, 2)),
        part);
    Value withRe = insertLast(b, loc, planes.re, empty, b.getIndexAttr(0));
    return insertLast(b, loc, planes.im, withRe, n);
  }
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, planes.re);
  AffineMap identity = identityMap(ctx, rank);
  auto scaled = [&](OpBuilder &nb, Location nl, Value x) -> Value {
    if (!scale)
      return x;
    return arith::MulFOp::create(nb, nl, x, scale);
  };
  if (complexType)
    return buildParallel(b, loc, sizes, {complexType}, {planes.re, planes.im},
                         {identity, identity},
                         [&](OpBuilder &nb, Location nl, ValueRange args) {
                           return SmallVector<Value>{complex::CreateOp::create(
                               nb, nl, complexType, scaled(nb, nl, args[0]),
                               scaled(nb, nl, args[1]))};
                         })
        .front();
  SmallVector<Value> scaledPlanes = buildParallel(
      b, loc, sizes, {part, part}, {planes.re, planes.im}, {identity, identity},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return SmallVector<Value>{scaled(nb, nl, args[0]),
                                  scaled(nb, nl, args[1])};
      });
  return joinPlanes(b, loc, {scaledPlanes[0], scaledPlanes[1]}, resultType,
                    Value());
}

/// cos and sign * sin of 2 pi m / n for m in [0, count), in f64 and then
/// rounded to `type` once. Multiples of pi / 2 are exact (std::cos(pi / 2)
/// is 6e-17, not 0), so that length-2 and length-4 transforms are exact.
/// The table is computed by a generic over m, not materialised as a
/// constant, so that compile time and memory do not grow with n.
static std::pair<Value, Value> twiddleTable(OpBuilder &b, Location loc,
                                            Type type, OpFoldResult n,
                                            OpFoldResult count, double sign) {
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  SmallVector<OpFoldResult> sizes = {count};
  Value length = arith::IndexCastOp::create(b, loc, i64, indexValue(b, loc, n));
  Value lengthF64 = arith::SIToFPOp::create(b, loc, f64, length);
  SmallVector<Value> table = buildParallel(
      b, loc, sizes, {type, type}, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        auto i64Const = [&](int64_t v) {
          return arith::ConstantIntOp::create(nb, nl, i64, v);
        };
        auto f64Const = [&](double v) { return floatConstant(nb, nl, f64, v); };
        auto equals = [&](Value a, int64_t v) {
          return arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, a,
                                       i64Const(v));
        };
        auto select = [&](Value cond, Value t, Value f) -> Value {
          return arith::SelectOp::create(nb, nl, cond, t, f);
        };
        Value m = arith::IndexCastOp::create(
            nb, nl, i64, linalg::IndexOp::create(nb, nl, 0));
        // 4 m / n is the quadrant when 4 m is a multiple of n.
        Value fourM = arith::MulIOp::create(nb, nl, m, i64Const(4));
        Value onAxis = equals(arith::RemSIOp::create(nb, nl, fourM, length), 0);
        Value quadrant = arith::DivSIOp::create(nb, nl, fourM, length);
        Value angle = arith::DivFOp::create(
            nb, nl,
            arith::MulFOp::create(nb, nl, f64Const(2.0 * M_PI),
                                  arith::SIToFPOp::create(nb, nl, f64, m)),
            lengthF64);
        Value one = f64Const(1.0), minusOne = f64Const(-1.0),
              zero = f64Const(0.0);
        Value axisCos = select(equals(quadrant, 0), one,
                               select(equals(quadrant, 2), minusOne, zero));
        Value axisSin = select(equals(quadrant, 1), one,
                               select(equals(quadrant, 3), minusOne, zero));
        Value cosine =
            select(onAxis, axisCos, math::CosOp::create(nb, nl, angle));
        Value sine = arith::MulFOp::create(
            nb, nl, select(onAxis, axisSin, math::SinOp::create(nb, nl, angle)),
            f64Const(sign));
        return SmallVector<Value>{truncateTo(nb, nl, type, cosine),
                                  truncateTo(nb, nl, type, sine)};
      });
  return {table[0], table[1]};
}

/// (a_re + i a_im) * (w_re + i w_im).
static std::pair<Value, Value> complexMul(OpBuilder &b, Location loc, Value aRe,
                                          Value aIm, Value wRe, Value wIm) {
  Value re =
      arith::SubFOp::create(b, loc, arith::MulFOp::create(b, loc, aRe, wRe),
                            arith::MulFOp::create(b, loc, aIm, wIm));
  Value im =
      arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, aRe, wIm),
                            arith::MulFOp::create(b, loc, aIm, wRe));
  return {re, im};
}

/// The DFT of the planes along the last axis as a contraction over
/// (batch..., k, n) with the twiddle read at n * k mod N.
static Planes buildDft(OpBuilder &b, Location loc, Planes x, int64_t n,
                       bool inverse) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.re.getType());
  Type part = type.getElementType();
  int64_t rank = type.getRank();
  std::pair<Value, Value> table = twiddleTable(
      b, loc, part, b.getIndexAttr(n), b.getIndexAttr(n), inverse ? 1.0 : -1.0);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x.re);
  Value zero = floatConstant(b, loc, part, 0.0);
  Value empty = tensor::EmptyOp::create(b, loc, sizes, part);
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);

  SmallVector<int64_t> inputDims, outputDims;
  for (int64_t dim = 0; dim + 1 < rank; ++dim) {
    inputDims.push_back(dim);
    outputDims.push_back(dim);
  }
  inputDims.push_back(rank);
  outputDims.push_back(rank - 1);
  AffineMap inputMap = projection(ctx, rank + 1, inputDims);
  AffineMap outputMap = projection(ctx, rank + 1, outputDims);
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  Value length = indexConstant(b, loc, n);
  SmallVector<Value> result = buildMultiGeneric(
      b, loc, {x.re, x.im}, {init, init},
      {inputMap, inputMap, outputMap, outputMap}, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value k = linalg::IndexOp::create(nb, nl, rank - 1);
        Value i = linalg::IndexOp::create(nb, nl, rank);
        Value m = arith::RemUIOp::create(
            nb, nl, arith::MulIOp::create(nb, nl, k, i), length);
        Value wRe = tensor::ExtractOp::create(nb, nl, table.first, m);
        Value wIm = tensor::ExtractOp::create(nb, nl, table.second, m);
        auto [re, im] = complexMul(nb, nl, args[0], args[1], wRe, wIm);
        return SmallVector<Value>{arith::AddFOp::create(nb, nl, args[2], re),
                                  arith::AddFOp::create(nb, nl, args[3], im)};
      });
  return {result[0], result[1]};
}

/// `value` (an index below 2^bits) with its low `bits` bits reversed: all 64
/// bits reversed by swapping ever smaller halves, then shifted down by
/// 64 - bits (a constant count for a static length, a run-time one for a
/// dynamic length, whose `bits` is a value).
static Value reverseBits(OpBuilder &b, Location loc, Value value,
                         OpFoldResult bits) {
  Type i64 = b.getI64Type();
  auto constant = [&](uint64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, static_cast<int64_t>(v));
  };
  Value x = arith::IndexCastUIOp::create(b, loc, i64, value);
  static constexpr uint64_t kMasks[] = {
      0x5555555555555555ull, 0x3333333333333333ull, 0x0f0f0f0f0f0f0f0full,
      0x00ff00ff00ff00ffull, 0x0000ffff0000ffffull, 0x00000000ffffffffull};
  for (int step = 0; step < 6; ++step) {
    Value shift = constant(uint64_t(1) << step);
    Value mask = constant(kMasks[step]);
    Value low = arith::ShLIOp::create(
        b, loc, arith::AndIOp::create(b, loc, x, mask), shift);
    Value high = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, x, shift), mask);
    x = arith::OrIOp::create(b, loc, low, high);
  }
  // bits = 0 (a length-1 transform) keeps index 0: a shift by 64 would be
  // poison.
  Value bitCount =
      arith::IndexCastUIOp::create(b, loc, i64, indexValue(b, loc, bits));
  Value down = arith::SubIOp::create(b, loc, constant(64), bitCount);
  Value isEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        bitCount, constant(0));
  Value safeDown = arith::SelectOp::create(b, loc, isEmpty, constant(0), down);
  Value reversed = arith::ShRUIOp::create(b, loc, x, safeDown);
  reversed = arith::SelectOp::create(b, loc, isEmpty, constant(0), reversed);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), reversed);
}

/// log2 of the power of two `n`, static when `n` is.
static OpFoldResult log2Of(OpBuilder &b, Location loc, OpFoldResult n) {
  if (std::optional<int64_t> value = getConstantIntValue(n))
    return b.getIndexAttr(llvm::Log2_64(*value));
  Value n64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                           indexValue(b, loc, n));
  return arith::IndexCastUIOp::create(
             b, loc, b.getIndexType(),
             math::CountTrailingZerosOp::create(b, loc, n64))
      .getResult();
}

/// Planes permuted to bit-reversed order of their `bits` low index bits
/// along the last axis. The source index is computed in the body (a
/// gather): bit reversal is not affine.
static Planes bitReverse(OpBuilder &b, Location loc, Planes x,
                         OpFoldResult bits) {
  auto type = cast<RankedTensorType>(x.re.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> result = buildParallel(
      b, loc, tensor::getMixedSizes(b, loc, x.re),
      {type.getElementType(), type.getElementType()}, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value k = linalg::IndexOp::create(nb, nl, rank - 1);
        SmallVector<Value> at =
            indicesWithLast(nb, nl, rank, reverseBits(nb, nl, k, bits));
        return SmallVector<Value>{tensor::ExtractOp::create(nb, nl, x.re, at),
                                  tensor::ExtractOp::create(nb, nl, x.im, at)};
      });
  return {result[0], result[1]};
}

namespace {
/// Where the butterfly of output element `i` at `stride` reads: its
/// butterfly `j`, j mod stride, its pair (i0, i1 = i0 + stride) and whether
/// `i` is i0.
struct ButterflyIndices {
  Value j, offset, i0, i1, isLow;
};
} // namespace

static ButterflyIndices butterflyIndices(OpBuilder &b, Location loc, Value i,
                                         OpFoldResult stride) {
  Value strideValue = indexValue(b, loc, stride);
  Value span = indexValue(b, loc, scaledSize(b, loc, stride, 2));
  Value block = arith::DivUIOp::create(b, loc, i, span);
  Value offset = arith::RemUIOp::create(b, loc, i, strideValue);
  Value isLow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      arith::RemUIOp::create(b, loc, i, span),
                                      strideValue);
  Value j = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, strideValue), offset);
  Value i0 = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, span), offset);
  Value i1 = arith::AddIOp::create(b, loc, i0, strideValue);
  return {j, offset, i0, i1, isLow};
}

/// One radix-2 stage of the FFT on planes: out[i0] = x[i0] + w x[i1],
/// out[i1] = x[i0] - w x[i1] with w the twiddle of butterfly j; `stride` is
/// 2^stage.
static Planes radix2Stage(OpBuilder &b, Location loc, Planes x,
                          OpFoldResult stride, bool inverse) {
  auto type = cast<RankedTensorType>(x.re.getType());
  Type part = type.getElementType();
  int64_t rank = type.getRank();
  // Butterfly j uses exp(-+2 pi i (j mod stride) / (2 stride)): the first
  // half of the table of length 2 stride.
  std::pair<Value, Value> table =
      twiddleTable(b, loc, part, scaledSize(b, loc, stride, 2), stride,
                   inverse ? 1.0 : -1.0);
  SmallVector<Value> result = buildParallel(
      b, loc, tensor::getMixedSizes(b, loc, x.re), {part, part}, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value i = linalg::IndexOp::create(nb, nl, rank - 1);
        ButterflyIndices at = butterflyIndices(nb, nl, i, stride);
        SmallVector<Value> lowAt = indicesWithLast(nb, nl, rank, at.i0);
        SmallVector<Value> highAt = indicesWithLast(nb, nl, rank, at.i1);
        Value lowRe = tensor::ExtractOp::create(nb, nl, x.re, lowAt);
        Value lowIm = tensor::ExtractOp::create(nb, nl, x.im, lowAt);
        auto [tRe, tIm] = complexMul(
            nb, nl, tensor::ExtractOp::create(nb, nl, x.re, highAt),
            tensor::ExtractOp::create(nb, nl, x.im, highAt),
            tensor::ExtractOp::create(nb, nl, table.first, at.offset),
            tensor::ExtractOp::create(nb, nl, table.second, at.offset));
        Value re = arith::SelectOp::create(
            nb, nl, at.isLow, arith::AddFOp::create(nb, nl, lowRe, tRe),
            arith::SubFOp::create(nb, nl, lowRe, tRe));
        Value im = arith::SelectOp::create(
            nb, nl, at.isLow, arith::AddFOp::create(nb, nl, lowIm, tIm),
            arith::SubFOp::create(nb, nl, lowIm, tIm));
        return SmallVector<Value>{re, im};
      });
  return {result[0], result[1]};
}

/// The radix-2 FFT of the planes along the last axis, of length `n`, a
/// power of two: log2(n) stages unrolled when `n` is static, an scf.for
/// over them (the stride doubling) when it is not.
static Planes buildRadix2Fft(OpBuilder &b, Location loc, Planes x,
                             OpFoldResult n, bool inverse) {
  OpFoldResult stageCount = log2Of(b, loc, n);
  Planes state = bitReverse(b, loc, x, stageCount);
  if (std::optional<int64_t> stages = getConstantIntValue(stageCount)) {
    for (int64_t stage = 0; stage < *stages; ++stage)
      state = radix2Stage(b, loc, state, b.getIndexAttr(int64_t(1) << stage),
                          inverse);
    return state;
  }
  Value stages = indexValue(b, loc, stageCount);
  SmallVector<Value> result = buildForLoop(
      b, loc, indexConstant(b, loc, 0), stages, {state.re, state.im},
      [&](OpBuilder &nb, Location nl, Value stage, ValueRange planes) {
        Value stride =
            arith::ShLIOp::create(nb, nl, indexConstant(nb, nl, 1), stage);
        Planes next =
            radix2Stage(nb, nl, {planes[0], planes[1]}, stride, inverse);
        return SmallVector<Value>{next.re, next.im};
      });
  return {result[0], result[1]};
}

/// The chirp w[k] = exp(sign i pi k^2 / n) at `k`, read from the table of
/// exp(sign 2 pi i m / (2n)), m < 2n, at k^2 mod 2n (exact in index
/// arithmetic, so the angle's rounding does not grow with k^2).
static std::pair<Value, Value> readChirp(OpBuilder &b, Location loc,
                                         std::pair<Value, Value> table, Value k,
                                         OpFoldResult n) {
  Value m =
      arith::RemUIOp::create(b, loc, arith::MulIOp::create(b, loc, k, k),
                             indexValue(b, loc, scaledSize(b, loc, n, 2)));
  return {tensor::ExtractOp::create(b, loc, table.first, m),
          tensor::ExtractOp::create(b, loc, table.second, m)};
}

/// The longest static length Bluestein's FFT takes: its padded length
/// (below) is then at most 2^62.
static constexpr int64_t kMaxBluesteinLength = int64_t(1) << 61;

/// The power of two m >= 2n - 1 that Bluestein's convolution runs at (for
/// n >= 2), static when `n` is.
static OpFoldResult paddedLength(OpBuilder &b, Location loc, OpFoldResult n) {
  if (std::optional<int64_t> value = getConstantIntValue(n))
    return b.getIndexAttr(
        static_cast<int64_t>(llvm::PowerOf2Ceil(2 * *value - 1)));
  // 2^(64 - clz(2n - 2)): the least power of two above 2n - 2.
  Type i64 = b.getI64Type();
  Value n64 = arith::IndexCastUIOp::create(b, loc, i64, indexValue(b, loc, n));
  Value span = arith::SubIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, n64,
                            arith::ConstantIntOp::create(b, loc, i64, 2)),
      arith::ConstantIntOp::create(b, loc, i64, 2));
  Value bits = arith::SubIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, i64, 64),
      math::CountLeadingZerosOp::create(b, loc, span));
  Value m = arith::ShLIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, i64, 1), bits);
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), m).getResult();
}

/// Bluestein's FFT of any length `n` in O(n log n): with the chirp
/// w[k] = exp(-+ i pi k^2 / n), n k = (n^2 + k^2 - (k - n)^2) / 2 turns the
/// DFT into X[k] = w[k] sum_j (x[j] w[j]) conj(w[k - j]), a convolution,
/// computed circularly at the power-of-two length m >= 2n - 1 by three
/// radix-2 FFTs: the zero-padded a = x w, the filter h (conj(w[j]) at j and
/// m - j), and the inverse of their product, scaled by 1/m (exact).
static Planes buildBluesteinFft(OpBuilder &b, Location loc, Planes x,
                                OpFoldResult n, bool inverse) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.re.getType());
  Type part = type.getElementType();
  int64_t rank = type.getRank();
  OpFoldResult m = paddedLength(b, loc, n);
  OpFoldResult twiceN = scaledSize(b, loc, n, 2);
  std::pair<Value, Value> chirp =
      twiddleTable(b, loc, part, twiceN, twiceN, inverse ? 1.0 : -1.0);
  Value zero = floatConstant(b, loc, part, 0.0);
  Value length = indexValue(b, loc, n);
  Value mValue = indexValue(b, loc, m);
  // The filter's mirrored half starts above m - n.
  Value highStart;
  if (std::optional<int64_t> mLength = getConstantIntValue(m))
    highStart = indexConstant(b, loc, *mLength - *getConstantIntValue(n));
  else
    highStart = arith::SubIOp::create(b, loc, mValue, length);

  // a[..., j] = x[..., j] w[j] for j < n, 0 up to m.
  SmallVector<Value> a = buildParallel(
      b, loc, sizesWithLast(b, loc, x.re, m), {part, part}, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value j = linalg::IndexOp::create(nb, nl, rank - 1);
        Value inside =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, j, length);
        Value at = arith::SelectOp::create(nb, nl, inside, j,
                                           indexConstant(nb, nl, 0));
        SmallVector<Value> indices = indicesWithLast(nb, nl, rank, at);
        auto [wRe, wIm] = readChirp(nb, nl, chirp, at, n);
        auto [re, im] = complexMul(
            nb, nl, tensor::ExtractOp::create(nb, nl, x.re, indices),
            tensor::ExtractOp::create(nb, nl, x.im, indices), wRe, wIm);
        return SmallVector<Value>{
            arith::SelectOp::create(nb, nl, inside, re, zero),
            arith::SelectOp::create(nb, nl, inside, im, zero)};
      });

  // h[j] = conj(w[j]) for j < n and conj(w[m - j]) for j > m - n, else 0:
  // the chirp is even, so the circular filter reads it at both ends.
  SmallVector<Value> h = buildParallel(
      b, loc, {m}, {part, part}, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value j = linalg::IndexOp::create(nb, nl, 0);
        Value low =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, j, length);
        Value high = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ugt, j,
                                           highStart);
        Value mirrored = arith::SubIOp::create(nb, nl, mValue, j);
        Value at = arith::SelectOp::create(
            nb, nl, low, j,
            arith::SelectOp::create(nb, nl, high, mirrored,
                                    indexConstant(nb, nl, 0)));
        Value inside = arith::OrIOp::create(nb, nl, low, high);
        auto [wRe, wIm] = readChirp(nb, nl, chirp, at, n);
        return SmallVector<Value>{
            arith::SelectOp::create(nb, nl, inside, wRe, zero),
            arith::SelectOp::create(nb, nl, inside,
                                    arith::NegFOp::create(nb, nl, wIm), zero)};
      });

  Planes spectrumA = buildRadix2Fft(b, loc, {a[0], a[1]}, m, /*inverse=*/false);
  Planes spectrumH = buildRadix2Fft(b, loc, {h[0], h[1]}, m, /*inverse=*/false);
  AffineMap identity = identityMap(ctx, rank);
  AffineMap lastOnly = projection(ctx, rank, {rank - 1});
  SmallVector<Value> product = buildParallel(
      b, loc, tensor::getMixedSizes(b, loc, spectrumA.re), {part, part},
      {spectrumA.re, spectrumA.im, spectrumH.re, spectrumH.im},
      {identity, identity, lastOnly, lastOnly},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        auto [re, im] = complexMul(nb, nl, args[0], args[1], args[2], args[3]);
        return SmallVector<Value>{re, im};
      });
  Planes convolution =
      buildRadix2Fft(b, loc, {product[0], product[1]}, m, /*inverse=*/true);

  // X[..., k] = w[k] c[..., k] / m for k < n (1/m is exact: m is a power
  // of two).
  Value inverseM;
  if (std::optional<int64_t> length = getConstantIntValue(m))
    inverseM = floatConstant(b, loc, part, 1.0 / static_cast<double>(*length));
  else
    inverseM = arith::DivFOp::create(
        b, loc, floatConstant(b, loc, part, 1.0),
        arith::UIToFPOp::create(
            b, loc, part,
            arith::IndexCastUIOp::create(b, loc, b.getI64Type(), mValue)));
  SmallVector<Value> result = buildParallel(
      b, loc, sizesWithLast(b, loc, x.re, n), {part, part}, {}, {},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value k = linalg::IndexOp::create(nb, nl, rank - 1);
        SmallVector<Value> indices = indicesWithLast(nb, nl, rank, k);
        auto [wRe, wIm] = readChirp(nb, nl, chirp, k, n);
        auto [re, im] = complexMul(
            nb, nl, tensor::ExtractOp::create(nb, nl, convolution.re, indices),
            tensor::ExtractOp::create(nb, nl, convolution.im, indices), wRe,
            wIm);
        return SmallVector<Value>{arith::MulFOp::create(nb, nl, re, inverseM),
                                  arith::MulFOp::create(nb, nl, im, inverseM)};
      });
  return {result[0], result[1]};
}

/// Lengths up to this one that are not powers of two take the direct DFT
/// (n^2 products, fewer operations than Bluestein's three FFTs of length
/// 2n or more), longer ones Bluestein's FFT.
static constexpr int64_t kMaxDirectDftLength = 16;

/// The FFT of the planes, of static length `n`: radix-2 for powers of two,
/// a DFT for other short lengths, Bluestein's FFT for other long ones.
static Planes buildFft(OpBuilder &b, Location loc, Planes x, int64_t n,
                       bool inverse) {
  if (n == 1)
    return x;
  if (llvm::isPowerOf2_64(n))
    return buildRadix2Fft(b, loc, x, b.getIndexAttr(n), inverse);
  if (n <= kMaxDirectDftLength)
    return buildDft(b, loc, x, n, inverse);
  return buildBluesteinFft(b, loc, x, b.getIndexAttr(n), inverse);
}

/// The FFT of the planes, of the dynamic length `n` (at least 1): radix-2
/// where `n` is a power of two at run time (1 included: no stage), else
/// Bluestein's FFT.
static Planes buildDynamicFft(OpBuilder &b, Location loc, Planes x, Value n,
                              bool inverse) {
  Value nMinusOne = arith::SubIOp::create(b, loc, n, indexConstant(b, loc, 1));
  Value isPowerOf2 = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      arith::AndIOp::create(b, loc, n, nMinusOne), indexConstant(b, loc, 0));
  auto branch = scf::IfOp::create(
      b, loc, isPowerOf2,
      [&](OpBuilder &nb, Location nl) {
        Planes y = buildRadix2Fft(nb, nl, x, n, inverse);
        scf::YieldOp::create(nb, nl, ValueRange{y.re, y.im});
      },
      [&](OpBuilder &nb, Location nl) {
        Planes y = buildBluesteinFft(nb, nl, x, n, inverse);
        scf::YieldOp::create(nb, nl, ValueRange{y.re, y.im});
      });
  return {branch.getResult(0), branch.getResult(1)};
}

/// The factor rlx.fft applies after the transform (RLX, not NumPy, norms)
/// in `type`, or none for 1: a constant for a static length, computed in
/// f64 from a dynamic one.
static Value fftScale(OpBuilder &b, Location loc, Type type, FftNorm norm,
                      bool inverse, OpFoldResult n) {
  if (norm == FftNorm::Backward || (norm == FftNorm::Forward && !inverse))
    return Value();
  if (std::optional<int64_t> length = getConstantIntValue(n)) {
    double size = static_cast<double>(*length);
    double scale = norm == FftNorm::Ortho ? 1.0 / std::sqrt(size) : 1.0 / size;
    if (scale == 1.0)
      return Value();
    return floatConstant(b, loc, type, scale);
  }
  Type f64 = b.getF64Type();
  Value size = arith::UIToFPOp::create(
      b, loc, f64,
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                   indexValue(b, loc, n)));
  if (norm == FftNorm::Ortho)
    size = math::SqrtOp::create(b, loc, size);
  Value scale =
      arith::DivFOp::create(b, loc, floatConstant(b, loc, f64, 1.0), size);
  return truncateTo(b, loc, type, scale);
}

/// The power |X[k]|^2 of the first `bins` frequencies of a block-layout
/// spectrum with transform length `n`, in `computeType`.
static Value buildPower(OpBuilder &b, Location loc, Value spectrum,
                        OpFoldResult n, OpFoldResult bins, Type computeType) {
  return buildOverBins(b, loc, spectrum, n, bins, {computeType},
                       [&](OpBuilder &nb, Location nl, Value re, Value im) {
                         Value r = extendTo(nb, nl, computeType, re);
                         Value i = extendTo(nb, nl, computeType, im);
                         Value sum = arith::AddFOp::create(
                             nb, nl, arith::MulFOp::create(nb, nl, r, r),
                             arith::MulFOp::create(nb, nl, i, i));
                         return SmallVector<Value>{sum};
                       })
      .front();
}

/// A contraction of `x [..., inner]` with the matrix `filters`: out[..., o] =
/// sum_i filters(o, i) x[..., i], where `transposed` reads `filters` as
/// [inner, outer] instead of [outer, inner].
static Value contractLast(OpBuilder &b, Location loc, Value x, Value filters,
                          OpFoldResult outer, bool transposed,
                          Type computeType) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> xDims, outDims;
  for (int64_t dim = 0; dim + 1 < rank; ++dim) {
    xDims.push_back(dim);
    outDims.push_back(dim);
  }
  xDims.push_back(rank);
  outDims.push_back(rank - 1);
  SmallVector<int64_t> filterDims = {rank - 1, rank};
  if (transposed)
    std::swap(filterDims[0], filterDims[1]);
  Value zero = floatConstant(b, loc, computeType, 0.0);
  Value empty = tensor::EmptyOp::create(b, loc, sizesWithLast(b, loc, x, outer),
                                        computeType);
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return buildMultiGeneric(b, loc, {x, filters}, {init},
                           {projection(ctx, rank + 1, xDims),
                            projection(ctx, rank + 1, filterDims),
                            projection(ctx, rank + 1, outDims)},
                           iterators,
                           [&](OpBuilder &nb, Location nl, ValueRange args) {
                             Value v = extendTo(nb, nl, computeType, args[0]);
                             Value f = extendTo(nb, nl, computeType, args[1]);
                             Value product =
                                 arith::MulFOp::create(nb, nl, v, f);
                             return SmallVector<Value>{arith::AddFOp::create(
                                 nb, nl, args[2], product)};
                           })
      .front();
}

namespace {
/// The Whisper log-mel pipeline up to the clamp: the mel energies, their
/// log10 (after the 1e-10 floor) and the whole-tensor max of the logs.
struct LogMelParts {
  Value mel;
  Value logs;
  Value max;
};

/// The sizes of a log-mel spectrum: n_fft and its n_fft / 2 + 1 bins.
struct SpectrumSizes {
  OpFoldResult n, bins;
};
} // namespace

static LogMelParts buildLogMelParts(OpBuilder &b, Location loc, Value spectrum,
                                    Value filterbank, SpectrumSizes sizes,
                                    Type computeType) {
  auto specType = cast<RankedTensorType>(spectrum.getType());
  OpFoldResult mels = tensor::getMixedSize(b, loc, filterbank, 0);
  int64_t rank = specType.getRank();
  Value power = buildPower(b, loc, spectrum, sizes.n, sizes.bins, computeType);
  Value mel = contractLast(b, loc, power, filterbank, mels,
                           /*transposed=*/false, computeType);
  Value floor = floatConstant(b, loc, computeType, 1e-10);
  Value logs =
      buildParallel(
          b, loc, tensor::getMixedSizes(b, loc, mel), {computeType}, mel,
          {identityMap(b.getContext(), rank)},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value clamped = arith::MaximumFOp::create(nb, nl, args[0], floor);
            return SmallVector<Value>{math::Log10Op::create(nb, nl, clamped)};
          })
          .front();
  SmallVector<int64_t> all;
  for (int64_t dim = 0; dim < rank; ++dim)
    all.push_back(dim);
  Value lowest = floatConstant(b, loc, computeType,
                               -std::numeric_limits<double>::infinity());
  Value max =
      buildReduction(b, loc, logs, all, {}, {lowest},
                     [&](OpBuilder &nb, Location nl, ValueRange args) {
                       return SmallVector<Value>{
                           arith::MaximumFOp::create(nb, nl, args[0], args[1])};
                     })
          .front();
  return {mel, logs, max};
}

namespace {

/// rlx.complex_norm_sq: re^2 + im^2 per element.
struct ComplexNormSqLowering : OpConversionPattern<ComplexNormSqOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ComplexNormSqOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value result = buildBroadcastElementwise(
        rewriter, loc, op.getType(), adaptor.getInput(),
        [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          Value re = complex::ReOp::create(nb, nl, args[0]);
          Value im = complex::ImOp::create(nb, nl, args[0]);
          return arith::AddFOp::create(nb, nl,
                                       arith::MulFOp::create(nb, nl, re, re),
                                       arith::MulFOp::create(nb, nl, im, im));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.conjugate: complex.conj per element.
struct ConjugateLowering : OpConversionPattern<ConjugateOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConjugateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value result = buildBroadcastElementwise(
        rewriter, loc, op.getType(), adaptor.getInput(),
        [](OpBuilder &nb, Location nl, ValueRange args) -> Value {
          return complex::ConjOp::create(nb, nl, args[0]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The transform length N of a dynamic last axis, checked at run time as
/// the verifier checks a static one: at least one complex value, or an
/// even real-block axis of at least 2.
static Value dynamicTransformLength(OpBuilder &b, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  Value last = tensor::DimOp::create(b, loc, input, type.getRank() - 1);
  Value zero = indexConstant(b, loc, 0), one = indexConstant(b, loc, 1);
  if (isa<ComplexType>(type.getElementType())) {
    buildShapeAssert(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, last, one),
        "the last axis must hold at least one complex value");
    return last;
  }
  Value even =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::AndIOp::create(b, loc, last, one), zero);
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, last, zero);
  buildShapeAssert(
      b, loc, arith::AndIOp::create(b, loc, even, positive),
      "the real-block layout needs an even last axis of length 2N >= 2");
  return arith::DivUIOp::create(b, loc, last, indexConstant(b, loc, 2));
}

/// n_fft and the bin count of a log-mel spectrum ([..., 2 n_fft]) and its
/// filterbank ([n_mels, n_fft / 2 + 1]): static, or from the dynamic
/// spectrum axis, checked at run time against the filterbank's bins as the
/// verifier checks static ones.
static SpectrumSizes spectrumSizes(OpBuilder &b, Location loc, Value spectrum,
                                   Value filterbank) {
  auto type = cast<RankedTensorType>(spectrum.getType());
  int64_t last = type.getShape().back();
  if (!ShapedType::isDynamic(last))
    return {b.getIndexAttr(last / 2), b.getIndexAttr(last / 2 / 2 + 1)};
  Value n = dynamicTransformLength(b, loc, spectrum);
  Value bins = arith::AddIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, n, indexConstant(b, loc, 2)),
      indexConstant(b, loc, 1));
  buildSizeCheck(b, loc, tensor::getMixedSize(b, loc, filterbank, 1), bins,
                 "the filterbank's frequency bins (dim 1) must be n_fft / 2 + "
                 "1 for the spectrum's n_fft");
  return {n, bins};
}

/// rlx.fft along the last axis, any length (static or dynamic).
struct FftLowering : OpConversionPattern<FftOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FftOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Value input = adaptor.getInput();
    int64_t last = type.getShape().back();
    bool isComplex = isa<ComplexType>(type.getElementType());
    OpFoldResult n;
    if (ShapedType::isDynamic(last)) {
      n = dynamicTransformLength(rewriter, loc, input);
    } else {
      int64_t length = isComplex ? last : last / 2;
      // Bluestein's padded length 2^ceil(log2(2N - 1)) must fit in int64.
      if (length > kMaxBluesteinLength && !llvm::isPowerOf2_64(length)) {
        op.emitOpError() << "the CPU lowering transforms lengths that are not "
                            "powers of two up to 2^61, got N = "
                         << length;
        return rewriter.notifyMatchFailure(op, "transform length too large");
      }
      n = rewriter.getIndexAttr(length);
    }
    Planes planes = splitPlanes(rewriter, loc, input, n);
    std::optional<int64_t> staticN = getConstantIntValue(n);
    Planes transformed =
        staticN ? buildFft(rewriter, loc, planes, *staticN, op.getInverse())
                : buildDynamicFft(rewriter, loc, planes, cast<Value>(n),
                                  op.getInverse());
    Type part = cast<RankedTensorType>(planes.re.getType()).getElementType();
    Value scale =
        fftScale(rewriter, loc, part, op.getNorm(), op.getInverse(), n);
    rewriter.replaceOp(op, joinPlanes(rewriter, loc, transformed, type, scale));
    return success();
  }
};

/// rlx.fft_butterfly_stage: each output element finds its butterfly and
/// reads the pair, gate, rev and twiddle with tensor.extract.
struct FftButterflyStageLowering : OpConversionPattern<FftButterflyStageOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FftButterflyStageOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value state = adaptor.getState();
    auto type = cast<RankedTensorType>(state.getType());
    Type elementType = type.getElementType();
    Type computeType = computeTypeOf(elementType);
    OpFoldResult stride = rewriter.getIndexAttr(int64_t(1) << op.getStage());
    Value result =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, state),
            {elementType}, state, {identityMap(getContext(), 3)},
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value batch = linalg::IndexOp::create(nb, nl, 0);
              Value i = linalg::IndexOp::create(nb, nl, 1);
              Value c = linalg::IndexOp::create(nb, nl, 2);
              ButterflyIndices at = butterflyIndices(nb, nl, i, stride);
              Value zeroIdx = indexConstant(nb, nl, 0);
              Value oneIdx = indexConstant(nb, nl, 1);
              auto read = [&](Value tensor, ValueRange indices) {
                return extendTo(
                    nb, nl, computeType,
                    tensor::ExtractOp::create(nb, nl, tensor, indices));
              };
              Value lowRe = read(state, {batch, at.i0, zeroIdx});
              Value lowIm = read(state, {batch, at.i0, oneIdx});
              auto [tRe, tIm] = complexMul(
                  nb, nl, read(state, {batch, at.i1, zeroIdx}),
                  read(state, {batch, at.i1, oneIdx}),
                  read(adaptor.getTwRe(), at.j), read(adaptor.getTwIm(), at.j));
              Value isRe = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::eq, c, zeroIdx);
              Value low = arith::SelectOp::create(nb, nl, isRe, lowRe, lowIm);
              Value t = arith::SelectOp::create(nb, nl, isRe, tRe, tIm);
              Value sum = arith::AddFOp::create(nb, nl, low, t);
              Value difference = arith::SubFOp::create(nb, nl, low, t);
              Value gate =
                  tensor::ExtractOp::create(nb, nl, adaptor.getGate(), at.j);
              Value rev =
                  tensor::ExtractOp::create(nb, nl, adaptor.getRev(), at.j);
              // A reversed butterfly swaps its outputs: i0 takes the
              // difference.
              Value takesSum = arith::XOrIOp::create(nb, nl, at.isLow, rev);
              Value butterfly =
                  arith::SelectOp::create(nb, nl, takesSum, sum, difference);
              Value out = arith::SelectOp::create(
                  nb, nl, gate, truncateTo(nb, nl, elementType, butterfly),
                  args[0]);
              return SmallVector<Value>{out};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.log_mel: (max(l, max(l) - 8) + 4) / 4 with l = log10(max(mel, 1e-10)).
struct LogMelLowering : OpConversionPattern<LogMelOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LogMelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elementType = type.getElementType();
    Type computeType = computeTypeOf(elementType);
    SpectrumSizes sizes = spectrumSizes(rewriter, loc, adaptor.getSpectrum(),
                                        adaptor.getFilterbank());
    LogMelParts parts =
        buildLogMelParts(rewriter, loc, adaptor.getSpectrum(),
                         adaptor.getFilterbank(), sizes, computeType);
    int64_t rank = type.getRank();
    Value eight = floatConstant(rewriter, loc, computeType, 8.0);
    Value four = floatConstant(rewriter, loc, computeType, 4.0);
    Value result =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, parts.logs),
            {elementType}, {parts.logs, parts.max},
            {identityMap(getContext(), rank),
             AffineMap::get(rank, 0, {}, getContext())},
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value threshold = arith::SubFOp::create(nb, nl, args[1], eight);
              Value clamped =
                  arith::MaximumFOp::create(nb, nl, args[0], threshold);
              Value shifted = arith::AddFOp::create(nb, nl, clamped, four);
              Value y = arith::DivFOp::create(nb, nl, shifted, four);
              return SmallVector<Value>{truncateTo(nb, nl, elementType, y)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.log_mel_backward: d_mel = dy / (4 mel ln 10) where neither the
/// 1e-10 floor nor the max - 8 clamp is active (the clamp threshold is not
/// differentiated), then d_power = filterbank^T d_mel and d_re = 2 re
/// d_power, d_im = 2 im d_power on the n_fft / 2 + 1 bins, zero elsewhere.
struct LogMelBackwardLowering : OpConversionPattern<LogMelBackwardOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LogMelBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value spectrum = adaptor.getSpectrum();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(spectrum.getType());
    Type elementType = type.getElementType();
    Type computeType = computeTypeOf(elementType);
    int64_t rank = type.getRank();
    SpectrumSizes sizes =
        spectrumSizes(rewriter, loc, spectrum, adaptor.getFilterbank());
    LogMelParts parts = buildLogMelParts(
        rewriter, loc, spectrum, adaptor.getFilterbank(), sizes, computeType);
    Value eight = floatConstant(rewriter, loc, computeType, 8.0);
    Value floor = floatConstant(rewriter, loc, computeType, 1e-10);
    Value zero = floatConstant(rewriter, loc, computeType, 0.0);
    Value scale = floatConstant(rewriter, loc, computeType, 4.0 * M_LN10);
    AffineMap identity = identityMap(getContext(), rank);
    Value dMel =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, parts.logs),
            {computeType}, {parts.mel, parts.logs, parts.max, adaptor.getDy()},
            {identity, identity, AffineMap::get(rank, 0, {}, getContext()),
             identity},
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value threshold = arith::SubFOp::create(nb, nl, args[2], eight);
              Value live = arith::AndIOp::create(
                  nb, nl,
                  arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGE,
                                        args[1], threshold),
                  arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGE,
                                        args[0], floor));
              Value dy = extendTo(nb, nl, computeType, args[3]);
              Value grad = arith::DivFOp::create(
                  nb, nl, dy, arith::MulFOp::create(nb, nl, args[0], scale));
              return SmallVector<Value>{
                  arith::SelectOp::create(nb, nl, live, grad, zero)};
            })
            .front();
    Value dPower = contractLast(rewriter, loc, dMel, adaptor.getFilterbank(),
                                sizes.bins, /*transposed=*/true, computeType);
    Value nValue = indexValue(rewriter, loc, sizes.n);
    Value binsValue = indexValue(rewriter, loc, sizes.bins);
    Value two = floatConstant(rewriter, loc, computeType, 2.0);
    Value result =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, spectrum),
            {elementType}, spectrum, {identity},
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value k = linalg::IndexOp::create(nb, nl, rank - 1);
              Value bin = arith::RemUIOp::create(nb, nl, k, nValue);
              Value inBand = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::ult, bin, binsValue);
              // Out-of-band elements read bin 0 and discard it.
              Value safeBin = arith::SelectOp::create(nb, nl, inBand, bin,
                                                      indexConstant(nb, nl, 0));
              SmallVector<Value> at = indicesWithLast(nb, nl, rank, safeBin);
              Value dp = tensor::ExtractOp::create(nb, nl, dPower, at);
              Value x = extendTo(nb, nl, computeType, args[0]);
              Value grad = arith::MulFOp::create(
                  nb, nl, arith::MulFOp::create(nb, nl, two, x), dp);
              Value out = arith::SelectOp::create(nb, nl, inBand, grad, zero);
              return SmallVector<Value>{truncateTo(nb, nl, elementType, out)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateFftToLinalgPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns
      .add<ComplexNormSqLowering, ConjugateLowering, FftLowering,
           FftButterflyStageLowering, LogMelLowering, LogMelBackwardLowering>(
          converter, patterns.getContext());
}
