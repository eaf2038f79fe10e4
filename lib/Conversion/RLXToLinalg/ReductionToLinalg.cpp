//===- ReductionToLinalg.cpp - reductions, scans, softmax and top-k -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Reductions are `linalg.generic`s whose reduced dims are innermost in the
// iteration space; what is applied per element afterwards is a parallel
// generic. Scans (cumsum), top-k and scatter-add are sequential by nature:
// they are scalar `scf.for` loop nests over tensors (tensor.extract /
// tensor.insert, in place after bufferization). Slices at loop-dependent
// offsets would become strided buffers, which the affine vectorizer rejects
// with an error and the lowering of memref.copy sends to a runtime function
// the JIT does not link. f16/bf16 accumulate in f32 and round once.
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
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

static int64_t normalizedAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// A tensor of `sizes` filled with `scalar`.
static Value filledTensor(OpBuilder &b, Location loc,
                          ArrayRef<OpFoldResult> sizes, Value scalar) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, scalar.getType());
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

/// The sizes of `tensor` as index values.
static SmallVector<Value> indexSizesOf(OpBuilder &b, Location loc,
                                       Value tensor) {
  SmallVector<Value> sizes;
  for (OpFoldResult size : tensor::getMixedSizes(b, loc, tensor))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
  return sizes;
}

static Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
}

/// Like `buildParallel` over the shape of `value`, with identity maps.
static Value mapElements(OpBuilder &b, Location loc, Value value,
                         Type resultElementType,
                         function_ref<Value(OpBuilder &, Location, Value)> fn) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return buildParallel(
             b, loc, tensor::getMixedSizes(b, loc, value), {resultElementType},
             value, {AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               return SmallVector<Value>{fn(nb, nl, args[0])};
             })
      .front();
}

namespace {

//===----------------------------------------------------------------------===//
// rlx.reduce
//===----------------------------------------------------------------------===//

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    SmallVector<int64_t> axes = llvm::to_vector(op.getAxes());
    llvm::sort(axes);
    // Over no axes, or over kept static unit dims, every kind is the
    // identity (the folder would do the same).
    if (axes.empty() ||
        (op.getKeepDim() && llvm::all_of(axes, [&](int64_t axis) {
           return inputType.getDimSize(axis) == 1;
         }))) {
      rewriter.replaceOp(op, input);
      return success();
    }

    ReduceKind kind = op.getKind();
    Type elementType = inputType.getElementType();
    Type computeType = computeTypeOf(elementType);
    bool isUnsigned =
        op.getInput().getType().getElementType().isUnsignedInteger();
    Value init = identityOf(rewriter, loc, kind, computeType, isUnsigned);
    Value reduced =
        buildReduction(rewriter, loc, input, axes, {}, {init},
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value x = extendTo(b, l, computeType, args[0]);
                         return SmallVector<Value>{
                             combine(b, l, kind, args[1], x, isUnsigned)};
                       })
            .front();

    if (kind == ReduceKind::Mean) {
      Type countType = computeType;
      if (auto complexType = dyn_cast<ComplexType>(computeType))
        countType = complexType.getElementType();
      Value count = countOf(rewriter, loc, input, axes, countType);
      reduced = mapElements(
          rewriter, loc, reduced, elementType,
          [&](OpBuilder &b, Location l, Value sum) -> Value {
            if (isa<ComplexType>(computeType)) {
              Value re = arith::DivFOp::create(
                  b, l, complex::ReOp::create(b, l, sum), count);
              Value im = arith::DivFOp::create(
                  b, l, complex::ImOp::create(b, l, sum), count);
              return complex::CreateOp::create(b, l, computeType, re, im);
            }
            Value mean = arith::DivFOp::create(b, l, sum, count);
            return truncateTo(b, l, elementType, mean);
          });
    } else if (computeType != elementType) {
      reduced = mapElements(rewriter, loc, reduced, elementType,
                            [&](OpBuilder &b, Location l, Value v) {
                              return truncateTo(b, l, elementType, v);
                            });
    }

    if (op.getKeepDim())
      reduced = keepUnitDims(rewriter, loc, reduced, axes, resultType);
    rewriter.replaceOp(op, reduced);
    return success();
  }

private:
  /// The start value of a `kind` reduction.
  static Value identityOf(OpBuilder &b, Location loc, ReduceKind kind,
                          Type type, bool isUnsigned) {
    if (auto complexType = dyn_cast<ComplexType>(type)) {
      Type part = complexType.getElementType();
      double real = kind == ReduceKind::Prod ? 1.0 : 0.0;
      return complex::ConstantOp::create(
          b, loc, type,
          b.getArrayAttr(
              {b.getFloatAttr(part, real), b.getFloatAttr(part, 0.0)}));
    }
    if (isa<FloatType>(type)) {
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
        return floatConstant(b, loc, type, 0.0);
      case ReduceKind::Prod:
        return floatConstant(b, loc, type, 1.0);
      case ReduceKind::Max:
        return floatConstant(b, loc, type, -INFINITY);
      case ReduceKind::Min:
        return floatConstant(b, loc, type, INFINITY);
      }
      llvm_unreachable("unknown reduce kind");
    }
    unsigned width = type.getIntOrFloatBitWidth();
    APInt value;
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      value = APInt::getZero(width);
      break;
    case ReduceKind::Prod:
      value = APInt(width, 1);
      break;
    case ReduceKind::Max:
      value = isUnsigned ? APInt::getMinValue(width)
                         : APInt::getSignedMinValue(width);
      break;
    case ReduceKind::Min:
      value = isUnsigned ? APInt::getMaxValue(width)
                         : APInt::getSignedMaxValue(width);
      break;
    }
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  }

  /// One reduction step. Float max/min propagate NaN.
  static Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value acc,
                       Value x, bool isUnsigned) {
    Type type = acc.getType();
    if (isa<ComplexType>(type)) {
      if (kind == ReduceKind::Prod)
        return complex::MulOp::create(b, loc, acc, x);
      return complex::AddOp::create(b, loc, acc, x);
    }
    if (isa<FloatType>(type)) {
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
        return arith::AddFOp::create(b, loc, acc, x);
      case ReduceKind::Prod:
        return arith::MulFOp::create(b, loc, acc, x);
      case ReduceKind::Max:
        return arith::MaximumFOp::create(b, loc, acc, x);
      case ReduceKind::Min:
        return arith::MinimumFOp::create(b, loc, acc, x);
      }
      llvm_unreachable("unknown reduce kind");
    }
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      return arith::AddIOp::create(b, loc, acc, x);
    case ReduceKind::Prod:
      return arith::MulIOp::create(b, loc, acc, x);
    case ReduceKind::Max:
      return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, acc, x))
                        : Value(arith::MaxSIOp::create(b, loc, acc, x));
    case ReduceKind::Min:
      return isUnsigned ? Value(arith::MinUIOp::create(b, loc, acc, x))
                        : Value(arith::MinSIOp::create(b, loc, acc, x));
    }
    llvm_unreachable("unknown reduce kind");
  }

  /// Re-inserts the reduced dims (sorted `axes`) as unit dims: each one
  /// joins the reassociation group of the kept dim before it (leading ones
  /// that of the first kept dim).
  static Value keepUnitDims(OpBuilder &b, Location loc, Value reduced,
                            ArrayRef<int64_t> axes,
                            RankedTensorType resultType) {
    int64_t rank = resultType.getRank();
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices leading;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (llvm::is_contained(axes, dim)) {
        if (groups.empty())
          leading.push_back(dim);
        else
          groups.back().push_back(dim);
        continue;
      }
      ReassociationIndices group = leading;
      leading.clear();
      group.push_back(dim);
      groups.push_back(group);
    }
    // Every dim was reduced: a rank-0 tensor expands with no groups.
    return tensor::ExpandShapeOp::create(b, loc, resultType, reduced, groups);
  }
};

//===----------------------------------------------------------------------===//
// rlx.softmax
//===----------------------------------------------------------------------===//

/// exp(x - max) / sum(exp(x - max)) along the axis: a max reduction, a sum
/// reduction and one parallel generic.
struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    int64_t axis = normalizedAxis(op.getAxis(), rank);
    Type elementType = type.getElementType();
    Type computeType = computeTypeOf(elementType);

    Value max =
        buildReduction(rewriter, loc, input, {axis}, {},
                       {floatConstant(rewriter, loc, computeType, -INFINITY)},
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value x = extendTo(b, l, computeType, args[0]);
                         return SmallVector<Value>{
                             arith::MaximumFOp::create(b, l, args[1], x)};
                       })
            .front();
    Value sum =
        buildReduction(rewriter, loc, input, {axis}, {max},
                       {floatConstant(rewriter, loc, computeType, 0.0)},
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         Value x = extendTo(b, l, computeType, args[0]);
                         Value e = math::ExpOp::create(
                             b, l, arith::SubFOp::create(b, l, x, args[1]));
                         return SmallVector<Value>{
                             arith::AddFOp::create(b, l, args[2], e)};
                       })
            .front();
    SmallVector<int64_t> keptDims;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (dim != axis)
        keptDims.push_back(dim);
    AffineMap keptMap = projection(ctx, rank, keptDims);
    Value result =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, input),
            {elementType}, {input, max, sum},
            {AffineMap::getMultiDimIdentityMap(rank, ctx), keptMap, keptMap},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = extendTo(b, l, computeType, args[0]);
              Value e = math::ExpOp::create(
                  b, l, arith::SubFOp::create(b, l, x, args[1]));
              Value y = arith::DivFOp::create(b, l, e, args[2]);
              return SmallVector<Value>{truncateTo(b, l, elementType, y)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.cumsum
//===----------------------------------------------------------------------===//

/// A loop nest over the other dims with the axis innermost, carrying the
/// running sum as a scalar and storing it before (exclusive) or after
/// (inclusive) each addition.
struct CumsumLowering : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    int64_t axis = normalizedAxis(op.getAxis(), rank);
    Type elementType = type.getElementType();
    Type computeType = computeTypeOf(elementType);
    bool exclusive = op.getExclusive();
    bool isFloat = isa<FloatType>(computeType);

    SmallVector<Value> sizes = indexSizesOf(rewriter, loc, input);
    SmallVector<Value> outerBounds;
    for (int64_t dim = 0; dim < rank; ++dim)
      if (dim != axis)
        outerBounds.push_back(sizes[dim]);
    Value zero = zeroOf(rewriter, loc, computeType);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lowers(outerBounds.size(), c0);
    SmallVector<Value> steps(outerBounds.size(), c1);
    Value out = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, input),
        elementType);
    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lowers, outerBounds, steps, ValueRange{out},
        [&](OpBuilder &b, Location l, ValueRange outerIvs,
            ValueRange args) -> scf::ValueVector {
          auto scan = scf::ForOp::create(
              b, l, c0, sizes[axis], c1, ValueRange{args[0], zero},
              [&](OpBuilder &ib, Location il, Value k, ValueRange scanArgs) {
                SmallVector<Value> indices(outerIvs);
                indices.insert(indices.begin() + axis, k);
                Value x =
                    extendTo(ib, il, computeType,
                             tensor::ExtractOp::create(ib, il, input, indices));
                Value running = scanArgs[1];
                Value next =
                    isFloat ? Value(arith::AddFOp::create(ib, il, running, x))
                            : Value(arith::AddIOp::create(ib, il, running, x));
                Value stored =
                    truncateTo(ib, il, elementType, exclusive ? running : next);
                Value updated = tensor::InsertOp::create(ib, il, stored,
                                                         scanArgs[0], indices);
                scf::YieldOp::create(ib, il, ValueRange{updated, next});
              });
          return {scan.getResult(0)};
        });
    Value result = nest.results.front();
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.top_k
//===----------------------------------------------------------------------===//

/// Per row, one scan along the last axis keeping the row's k results
/// sorted: an element that comes before the current k-th (or any element
/// while fewer than k are kept) is inserted, shifting the later ones down.
/// Elements are totally ordered by (value descending, index ascending), NaN
/// above every number. Scalar loops, as for cumsum.
struct TopKLowering : OpConversionPattern<TopKOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TopKOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elementType = inputType.getElementType();
    bool isUnsigned =
        op.getInput().getType().getElementType().isUnsignedInteger();
    int64_t k = op.getK();
    Type i64 = rewriter.getI64Type();
    Type indexType = rewriter.getIndexType();

    SmallVector<Value> sizes = indexSizesOf(rewriter, loc, input);
    SmallVector<Value> rowBounds(sizes.begin(), sizes.end() - 1);
    SmallVector<OpFoldResult> outSizes =
        tensor::getMixedSizes(rewriter, loc, input);
    outSizes.back() = rewriter.getIndexAttr(k);
    Value zero = zeroOf(rewriter, loc, elementType);
    Value none = arith::ConstantOp::create(rewriter, loc, i64,
                                           rewriter.getI64IntegerAttr(-1));
    // Filled, so that no read (even a discarded one) sees undefined data.
    Value values0 = filledTensor(rewriter, loc, outSizes, zero);
    Value indices0 = filledTensor(rewriter, loc, outSizes, none);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value kValue = arith::ConstantIndexOp::create(rewriter, loc, k);
    Value lastSlot = arith::ConstantIndexOp::create(rewriter, loc, k - 1);
    SmallVector<Value> lowers(rowBounds.size(), c0);
    SmallVector<Value> steps(rowBounds.size(), c1);

    scf::LoopNest nest = scf::buildLoopNest(
        rewriter, loc, lowers, rowBounds, steps, ValueRange{values0, indices0},
        [&](OpBuilder &b, Location l, ValueRange rowIvs,
            ValueRange args) -> scf::ValueVector {
          auto at = [&](Value slot) {
            SmallVector<Value> indices(rowIvs);
            indices.push_back(slot);
            return indices;
          };
          // Carries: values, indices, number of slots filled (<= k).
          auto scan = scf::ForOp::create(
              b, l, c0, sizes.back(), c1, ValueRange{args[0], args[1], c0},
              [&](OpBuilder &sb, Location sl, Value i, ValueRange scanArgs) {
                Value values = scanArgs[0], indices = scanArgs[1];
                Value filled = scanArgs[2];
                Value x = tensor::ExtractOp::create(sb, sl, input, at(i));
                Value xIndex = arith::IndexCastOp::create(sb, sl, i64, i);
                Value full = arith::CmpIOp::create(
                    sb, sl, arith::CmpIPredicate::eq, filled, kValue);
                Value lastValue =
                    tensor::ExtractOp::create(sb, sl, values, at(lastSlot));
                Value lastIndex =
                    tensor::ExtractOp::create(sb, sl, indices, at(lastSlot));
                Value notFull = arith::CmpIOp::create(
                    sb, sl, arith::CmpIPredicate::ne, filled, kValue);
                Value keep =
                    arith::OrIOp::create(sb, sl, notFull,
                                         precedes(sb, sl, x, xIndex, lastValue,
                                                  lastIndex, isUnsigned));
                auto insert = scf::IfOp::create(
                    sb, sl, keep,
                    [&](OpBuilder &tb, Location tl) {
                      Value start = arith::SelectOp::create(tb, tl, full,
                                                            lastSlot, filled);
                      // Shift the kept results that x comes before one slot
                      // down, from `start` towards slot 0.
                      auto shift = scf::WhileOp::create(
                          tb, tl,
                          TypeRange{indexType, values.getType(),
                                    indices.getType()},
                          ValueRange{start, values, indices},
                          [&](OpBuilder &wb, Location wl, ValueRange w) {
                            Value slot = w[0];
                            Value positive = arith::CmpIOp::create(
                                wb, wl, arith::CmpIPredicate::sgt, slot, c0);
                            // Slot 0 reads slot 0, not -1; the result is
                            // then ignored.
                            Value above = arith::SelectOp::create(
                                wb, wl, positive,
                                arith::SubIOp::create(wb, wl, slot, c1)
                                    .getResult(),
                                c0);
                            Value aboveValue = tensor::ExtractOp::create(
                                wb, wl, w[1], at(above));
                            Value aboveIndex = tensor::ExtractOp::create(
                                wb, wl, w[2], at(above));
                            Value before =
                                precedes(wb, wl, x, xIndex, aboveValue,
                                         aboveIndex, isUnsigned);
                            Value move =
                                arith::AndIOp::create(wb, wl, positive, before);
                            scf::ConditionOp::create(wb, wl, move, w);
                          },
                          [&](OpBuilder &wb, Location wl, ValueRange w) {
                            Value slot = w[0];
                            Value above =
                                arith::SubIOp::create(wb, wl, slot, c1);
                            Value movedValue = tensor::InsertOp::create(
                                wb, wl,
                                tensor::ExtractOp::create(wb, wl, w[1],
                                                          at(above)),
                                w[1], at(slot));
                            Value movedIndex = tensor::InsertOp::create(
                                wb, wl,
                                tensor::ExtractOp::create(wb, wl, w[2],
                                                          at(above)),
                                w[2], at(slot));
                            scf::YieldOp::create(
                                wb, wl,
                                ValueRange{above, movedValue, movedIndex});
                          });
                      Value slot = shift.getResult(0);
                      Value newValues = tensor::InsertOp::create(
                          tb, tl, x, shift.getResult(1), at(slot));
                      Value newIndices = tensor::InsertOp::create(
                          tb, tl, xIndex, shift.getResult(2), at(slot));
                      Value newFilled = arith::SelectOp::create(
                          tb, tl, full, filled,
                          arith::AddIOp::create(tb, tl, filled, c1)
                              .getResult());
                      scf::YieldOp::create(
                          tb, tl, ValueRange{newValues, newIndices, newFilled});
                    },
                    [&](OpBuilder &eb, Location el) {
                      scf::YieldOp::create(eb, el,
                                           ValueRange{values, indices, filled});
                    });
                scf::YieldOp::create(sb, sl, insert.getResults());
              });
          return {scan.getResult(0), scan.getResult(1)};
        });
    rewriter.replaceOp(op, nest.results);
    return success();
  }

private:
  /// Whether (a, ai) comes before (c, ci): a larger value, or an equal value
  /// at a smaller index. NaN is larger than every number and equal to NaN.
  static Value precedes(OpBuilder &b, Location loc, Value a, Value ai, Value c,
                        Value ci, bool isUnsigned) {
    Value greater, equal;
    if (isa<FloatType>(a.getType())) {
      Type wide = computeTypeOf(a.getType());
      a = extendTo(b, loc, wide, a);
      c = extendTo(b, loc, wide, c);
      Value aNaN =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a);
      Value cNumber =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, c, c);
      Value cNaN =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, c, c);
      greater = arith::OrIOp::create(
          b, loc, arith::AndIOp::create(b, loc, aNaN, cNumber),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, c));
      equal = arith::OrIOp::create(
          b, loc, arith::AndIOp::create(b, loc, aNaN, cNaN),
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a, c));
    } else {
      greater = arith::CmpIOp::create(b, loc,
                                      isUnsigned ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt,
                                      a, c);
      equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
    }
    Value smallerIndex =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ai, ci);
    return arith::OrIOp::create(
        b, loc, greater, arith::AndIOp::create(b, loc, equal, smallerIndex));
  }
};

//===----------------------------------------------------------------------===//
// rlx.scatter_add
//===----------------------------------------------------------------------===//

/// A loop over the update rows: row u is added, element by element, to row
/// indices[u] of the zero-initialized result when that index is in
/// [0, out_dim), in order of u, so repeated indices accumulate. f16/bf16
/// accumulate in f32 and round once. Scalar loops, as for cumsum.
struct ScatterAddLowering : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ScatterAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getResult().getType()));
    if (resultType.isDynamicDim(0))
      return op.emitOpError()
             << "cannot be lowered with a dynamic out_dim: the result size "
                "is not determined by the operands";
    Value updates = adaptor.getUpdates();
    Value indices = adaptor.getIndices();
    Type elementType = resultType.getElementType();
    Type computeType = computeTypeOf(elementType);
    bool isFloat = isa<FloatType>(computeType);
    int64_t outDim = resultType.getDimSize(0);
    SmallVector<Value> updateSizes = indexSizesOf(rewriter, loc, updates);
    OpFoldResult columns =
        resultType.isDynamicDim(1)
            ? OpFoldResult(updateSizes[1])
            : OpFoldResult(rewriter.getIndexAttr(resultType.getDimSize(1)));
    Value init = filledTensor(
        rewriter, loc, {OpFoldResult(rewriter.getIndexAttr(outDim)), columns},
        zeroOf(rewriter, loc, computeType));
    Type i64 = rewriter.getI64Type();
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value zeroIndex = arith::ConstantOp::create(rewriter, loc, i64,
                                                rewriter.getI64IntegerAttr(0));
    Value outDimIndex = arith::ConstantOp::create(
        rewriter, loc, i64, rewriter.getI64IntegerAttr(outDim));
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, updateSizes[0], c1, ValueRange{init},
        [&](OpBuilder &b, Location l, Value u, ValueRange args) {
          Value index = tensor::ExtractOp::create(b, l, indices, u);
          if (index.getType() != i64)
            index = arith::ExtSIOp::create(b, l, i64, index);
          Value inRange = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, index,
                                    zeroIndex),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index,
                                    outDimIndex));
          Value acc = args[0];
          auto ifOp = scf::IfOp::create(
              b, l, inRange,
              [&](OpBuilder &tb, Location tl) {
                Value row = arith::IndexCastOp::create(
                    tb, tl, tb.getIndexType(), index);
                auto columnLoop = scf::ForOp::create(
                    tb, tl, c0, updateSizes[1], c1, ValueRange{acc},
                    [&](OpBuilder &cb, Location cl, Value t,
                        ValueRange columnArgs) {
                      Value update =
                          extendTo(cb, cl, computeType,
                                   tensor::ExtractOp::create(cb, cl, updates,
                                                             ValueRange{u, t}));
                      Value current = tensor::ExtractOp::create(
                          cb, cl, columnArgs[0], ValueRange{row, t});
                      Value sum = isFloat ? Value(arith::AddFOp::create(
                                                cb, cl, current, update))
                                          : Value(arith::AddIOp::create(
                                                cb, cl, current, update));
                      scf::YieldOp::create(
                          cb, cl,
                          tensor::InsertOp::create(cb, cl, sum, columnArgs[0],
                                                   ValueRange{row, t})
                              .getResult());
                    });
                scf::YieldOp::create(tb, tl, columnLoop.getResult(0));
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, acc);
              });
          scf::YieldOp::create(b, l, ifOp.getResult(0));
        });
    Value result = loop.getResult(0);
    if (computeType != elementType)
      result = mapElements(rewriter, loc, result, elementType,
                           [&](OpBuilder &b, Location l, Value v) {
                             return truncateTo(b, l, elementType, v);
                           });
    if (result.getType() != resultType)
      result = tensor::CastOp::create(rewriter, loc, resultType, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.softmax_cross_entropy_with_logits / rlx.softmax_cross_entropy_backward
//===----------------------------------------------------------------------===//

/// The row max, the row sum of exp(x - max) and the logit at the label of
/// `logits` [N, C] (in `computeType`): a max reduction, then one reduction
/// carrying the sum and the picked logit, which compares the class index
/// with the label. A label outside [0, C) picks nothing: NaN.
static SmallVector<Value> buildCrossEntropyStats(OpBuilder &b, Location loc,
                                                 Value logits, Value labels,
                                                 Type computeType) {
  auto type = cast<RankedTensorType>(logits.getType());
  bool unitClasses = type.getDimSize(1) == 1;
  Value max =
      buildReduction(b, loc, logits, {1}, {},
                     {floatConstant(b, loc, computeType, -INFINITY)},
                     [&](OpBuilder &nb, Location l, ValueRange args) {
                       Value x = extendTo(nb, l, computeType, args[0]);
                       return SmallVector<Value>{
                           arith::MaximumFOp::create(nb, l, args[1], x)};
                     })
          .front();
  SmallVector<Value> stats = buildReduction(
      b, loc, logits, {1}, {max, labels},
      {floatConstant(b, loc, computeType, 0.0),
       floatConstant(b, loc, computeType, NAN)},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = extendTo(nb, l, computeType, args[0]);
        Value e = math::ExpOp::create(nb, l,
                                      arith::SubFOp::create(nb, l, x, args[1]));
        Value sum = arith::AddFOp::create(nb, l, args[3], e);
        Value c = unitClasses ? Value(arith::ConstantIndexOp::create(nb, l, 0))
                              : Value(linalg::IndexOp::create(nb, l, 1));
        Value label =
            arith::IndexCastOp::create(nb, l, nb.getIndexType(), args[2]);
        Value hit =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, c, label);
        Value picked = arith::SelectOp::create(nb, l, hit, x, args[4]);
        return SmallVector<Value>{sum, picked};
      });
  return {max, stats[0], stats[1]};
}

/// Whether the integer `label` lies in `[0, classes)` (`classes` an index).
static Value labelInRange(OpBuilder &b, Location loc, Value label,
                          Value classes) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value low =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero);
  Value high =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, classes);
  return arith::AndIOp::create(b, loc, low, high);
}

/// loss[n] = max + log(sum) - logits[n, label[n]]; 0 for an ignored row.
struct SoftmaxCrossEntropyLowering
    : OpConversionPattern<SoftmaxCrossEntropyWithLogitsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyWithLogitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value logits = adaptor.getLogits();
    Type elementType =
        cast<RankedTensorType>(logits.getType()).getElementType();
    Type computeType = computeTypeOf(elementType);
    Value labels = adaptor.getLabels();
    SmallVector<Value> stats =
        buildCrossEntropyStats(rewriter, loc, logits, labels, computeType);
    Value classes = tensor::DimOp::create(rewriter, loc, logits, 1);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<Value> operands(stats);
    operands.push_back(labels);
    Value loss =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, stats[0]),
            {elementType}, operands, {identity, identity, identity, identity},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value lse = arith::AddFOp::create(
                  b, l, args[0], math::LogOp::create(b, l, args[1]));
              Value y = arith::SubFOp::create(b, l, lse, args[2]);
              // An ignored row (label outside [0, C)) has loss 0.
              y = arith::SelectOp::create(
                  b, l, labelInRange(b, l, args[3], classes), y,
                  floatConstant(b, l, computeType, 0.0));
              return SmallVector<Value>{truncateTo(b, l, elementType, y)};
            })
            .front();
    rewriter.replaceOp(op, loss);
    return success();
  }
};

/// result[n, c] = (exp(x - max) / sum - (c == label ? 1 : 0)) * d_loss[n].
struct SoftmaxCrossEntropyBackwardLowering
    : OpConversionPattern<SoftmaxCrossEntropyBackwardOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value logits = adaptor.getLogits();
    Value labels = adaptor.getLabels();
    Type elementType =
        cast<RankedTensorType>(logits.getType()).getElementType();
    Type computeType = computeTypeOf(elementType);
    SmallVector<Value> stats =
        buildCrossEntropyStats(rewriter, loc, logits, labels, computeType);
    Value classes = tensor::DimOp::create(rewriter, loc, logits, 1);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap rowMap = projection(ctx, 2, {0});
    Value result =
        buildParallel(
            rewriter, loc, tensor::getMixedSizes(rewriter, loc, logits),
            {elementType},
            {logits, stats[0], stats[1], labels, adaptor.getDLoss()},
            {identity, rowMap, rowMap, rowMap, rowMap},
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value x = extendTo(b, l, computeType, args[0]);
              Value e = math::ExpOp::create(
                  b, l, arith::SubFOp::create(b, l, x, args[1]));
              Value p = arith::DivFOp::create(b, l, e, args[2]);
              Value c = linalg::IndexOp::create(b, l, 1);
              Value label =
                  arith::IndexCastOp::create(b, l, b.getIndexType(), args[3]);
              Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                                c, label);
              Value target = arith::SelectOp::create(
                  b, l, hit, floatConstant(b, l, computeType, 1.0),
                  floatConstant(b, l, computeType, 0.0));
              Value diff = arith::SubFOp::create(b, l, p, target);
              Value g = extendTo(b, l, computeType, args[4]);
              Value y = arith::MulFOp::create(b, l, diff, g);
              // An ignored row (label outside [0, C)) has gradient 0.
              y = arith::SelectOp::create(
                  b, l, labelInRange(b, l, args[3], classes), y,
                  floatConstant(b, l, computeType, 0.0));
              return SmallVector<Value>{truncateTo(b, l, elementType, y)};
            })
            .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateReductionToLinalgPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, SoftmaxLowering, CumsumLowering, TopKLowering,
               ScatterAddLowering, SoftmaxCrossEntropyLowering,
               SoftmaxCrossEntropyBackwardLowering>(converter,
                                                    patterns.getContext());
}
