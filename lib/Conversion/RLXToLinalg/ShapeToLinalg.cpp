//===- ShapeToLinalg.cpp - shape manipulation and indexing ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/TransposeForms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <functional>

using namespace mlir;
using namespace mlir::rlx;

/// `lhs + rhs` on sizes, folded when both are static.
static OpFoldResult addSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                             OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs);
  std::optional<int64_t> r = getConstantIntValue(rhs);
  if (l && r)
    return b.getIndexAttr(*l + *r);
  return arith::AddIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, lhs),
                               getValueOrCreateConstantIndexOp(b, loc, rhs))
      .getResult();
}

/// A zero scalar of `type` (false for i1). 8-bit floats are built from
/// their bits: LLVM has no constants of those types.
static Value zeroScalar(OpBuilder &b, Location loc, Type type) {
  if (auto complexType = dyn_cast<ComplexType>(type)) {
    Attribute zero = b.getZeroAttr(complexType.getElementType());
    return complex::ConstantOp::create(b, loc, complexType,
                                       b.getArrayAttr({zero, zero}));
  }
  if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return arith::BitcastOp::create(
        b, loc, type,
        arith::ConstantOp::create(b, loc, b.getI8Type(),
                                  b.getI8IntegerAttr(0)));
  return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
}

namespace {

//===----------------------------------------------------------------------===//
// rlx.reshape
//===----------------------------------------------------------------------===//

/// rlx.reshape -> tensor.collapse_shape or tensor.expand_shape when the
/// reshape only merges or only splits adjacent dims; otherwise a collapse
/// to one dim followed by an expand (both row-major, so the element order
/// is kept).
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  /// Expands `src` to `type` by `reassociation`; the one dynamic dim a
  /// group may have is the group's source size over its static sizes.
  static Value expand(OpBuilder &b, Location loc, Value src,
                      RankedTensorType type,
                      ArrayRef<ReassociationIndices> reassociation) {
    SmallVector<OpFoldResult> outputShape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      outputShape.push_back(b.getIndexAttr(type.getDimSize(d)));
    for (auto [srcDim, group] : llvm::enumerate(reassociation)) {
      int64_t staticProduct = 1;
      std::optional<int64_t> dynamicDim;
      for (int64_t d : group) {
        if (type.isDynamicDim(d))
          dynamicDim = d;
        else
          staticProduct *= type.getDimSize(d);
      }
      if (!dynamicDim)
        continue;
      // A zero-sized static part makes the group empty whatever the rest.
      if (staticProduct == 0) {
        outputShape[*dynamicDim] = b.getIndexAttr(0);
        continue;
      }
      Value size = tensor::DimOp::create(b, loc, src, srcDim);
      if (staticProduct != 1)
        size = arith::DivUIOp::create(
            b, loc, size,
            arith::ConstantIndexOp::create(b, loc, staticProduct));
      outputShape[*dynamicDim] = size;
    }
    return tensor::ExpandShapeOp::create(b, loc, type, src, reassociation,
                                         outputShape);
  }

  /// Whether `reassociation` between `srcType` and `type` gives a valid
  /// tensor.collapse_shape / expand_shape: each group is dynamic on its
  /// expanded side exactly when its collapsed dim is (a `?` reshaped to
  /// static sizes needs the general path's cast).
  static bool isConsistent(RankedTensorType srcType, RankedTensorType type,
                           ArrayRef<ReassociationIndices> reassociation) {
    bool collapsing = srcType.getRank() > type.getRank();
    RankedTensorType expanded = collapsing ? srcType : type;
    RankedTensorType collapsed = collapsing ? type : srcType;
    for (auto [dim, group] : llvm::enumerate(reassociation)) {
      bool anyDynamic = llvm::any_of(
          group, [&](int64_t d) { return expanded.isDynamicDim(d); });
      if (anyDynamic != collapsed.isDynamicDim(dim))
        return false;
    }
    return true;
  }

  /// With a `?` input dim the verifier could not compare element counts:
  /// checks at run time that the input has as many elements as the result
  /// (a multiple of the result's static sizes when it has a `?` dim).
  static void checkElementCount(OpBuilder &b, Location loc, Value src,
                                RankedTensorType type) {
    auto srcType = cast<RankedTensorType>(src.getType());
    if (srcType.hasStaticShape())
      return;
    Value numel = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < srcType.getRank(); ++d)
      numel = arith::MulIOp::create(b, loc, numel, dimSizeOf(b, loc, src, d));
    int64_t staticProduct = 1;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!type.isDynamicDim(d))
        staticProduct *= type.getDimSize(d);
    if (type.hasStaticShape() || staticProduct == 0) {
      buildSizeCheck(b, loc, numel, b.getIndexAttr(staticProduct),
                     "the input's element count differs from the " +
                         Twine(staticProduct) + " of new_shape");
      return;
    }
    int64_t srcStaticProduct = 1;
    for (int64_t d = 0; d < srcType.getRank(); ++d)
      if (!srcType.isDynamicDim(d))
        srcStaticProduct *= srcType.getDimSize(d);
    if (srcStaticProduct % staticProduct == 0)
      return;
    Value divisor = arith::ConstantIndexOp::create(b, loc, staticProduct);
    Value whole = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, numel, divisor), divisor);
    buildSizeCheck(b, loc, numel, whole,
                   "the input's element count is not a multiple of " +
                       Twine(staticProduct) +
                       ", the product of new_shape's other sizes");
  }

  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getInput();
    auto srcType = cast<RankedTensorType>(src.getType());
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    if (srcType == type) {
      rewriter.replaceOp(op, src);
      return success();
    }
    checkElementCount(rewriter, loc, src, type);
    int64_t srcRank = srcType.getRank(), rank = type.getRank();
    if (srcRank != rank) {
      if (std::optional<SmallVector<ReassociationIndices>> reassociation =
              getReassociationIndicesForReshape(srcType, type);
          reassociation && isConsistent(srcType, type, *reassociation)) {
        if (srcRank > rank)
          rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, type, src,
                                                               *reassociation);
        else
          rewriter.replaceOp(op,
                             expand(rewriter, loc, src, type, *reassociation));
        return success();
      }
    }
    // A rank-0 end: every dim is 1 (dynamic ones too, as the element counts
    // agree), so the other end is collapsed or expanded with no groups.
    if (rank == 0) {
      auto ones = RankedTensorType::get(SmallVector<int64_t>(srcRank, 1),
                                        srcType.getElementType());
      Value unit =
          srcType == ones
              ? src
              : tensor::CastOp::create(rewriter, loc, ones, src).getResult();
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          op, type, unit, ArrayRef<ReassociationIndices>{});
      return success();
    }
    if (srcRank == 0) {
      rewriter.replaceOp(op, expand(rewriter, loc, src, type, {}));
      return success();
    }
    // General case: [n] in between.
    Value flat = src;
    if (srcRank != 1) {
      ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(srcRank));
      int64_t numel = srcType.hasStaticShape() ? srcType.getNumElements()
                                               : ShapedType::kDynamic;
      flat = tensor::CollapseShapeOp::create(
          rewriter, loc,
          RankedTensorType::get({numel}, srcType.getElementType()), src,
          ArrayRef<ReassociationIndices>{all});
    }
    // `?` elements reshaped to static sizes: the count was checked above.
    if (type.hasStaticShape() &&
        cast<RankedTensorType>(flat.getType()).isDynamicDim(0))
      flat = tensor::CastOp::create(
          rewriter, loc,
          RankedTensorType::get({type.getNumElements()},
                                srcType.getElementType()),
          flat);
    if (rank == 1) {
      auto flatType = cast<RankedTensorType>(flat.getType());
      rewriter.replaceOp(
          op,
          flatType == type
              ? flat
              : tensor::CastOp::create(rewriter, loc, type, flat).getResult());
      return success();
    }
    ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(rank));
    rewriter.replaceOp(op, expand(rewriter, loc, flat, type, {all}));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.transpose
//===----------------------------------------------------------------------===//

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getInput();
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    ArrayRef<int64_t> perm = op.getPerm();
    // Moving only unit dims is a reshape (what canonicalization makes of
    // it): no copy.
    if (isTransposeOfUnitDims(cast<RankedTensorType>(src.getType()), perm)) {
      rewriter.replaceOpWithNewOp<ReshapeOp>(op, src,
                                             llvm::to_vector(type.getShape()));
      return success();
    }
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(
            tensor::DimOp::create(rewriter, loc, src, perm[d]));
    Value init = tensor::EmptyOp::create(rewriter, loc, type, dynamicSizes);
    auto transpose =
        linalg::TransposeOp::create(rewriter, loc, src, init, perm);
    rewriter.replaceOp(op, transpose->getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.narrow
//===----------------------------------------------------------------------===//

/// rlx.narrow -> a linalg.generic over the result reading the input through
/// an offset indexing map (`d_axis + start`). Unlike a tensor.extract_slice,
/// which bufferizes to a strided subview, the generic keeps every buffer
/// contiguous and fuses with its consumers like any elementwise op.
struct NarrowLowering : OpConversionPattern<NarrowOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(NarrowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getInput();
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    if (src.getType() == type) {
      rewriter.replaceOp(op, src);
      return success();
    }
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(d == axis ? getAffineDimExpr(d, ctx) + op.getStart()
                                : getAffineDimExpr(d, ctx));
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, src, d));
    Value init = tensor::EmptyOp::create(rewriter, loc, type, dynamicSizes);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    linalg::GenericOp generic;
    if (op.getStart() != 0) {
      generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{type}, ValueRange{src}, ValueRange{init},
          ArrayRef<AffineMap>{AffineMap::get(rank, 0, exprs, ctx), identity},
          iterators, [](OpBuilder &b, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(b, nestedLoc, args[0]);
          });
    } else {
      // With `start = 0` the map would be the identity, which claims the
      // input's (larger) size for the loop: read with tensor.extract.
      generic = linalg::GenericOp::create(
          rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
          ArrayRef<AffineMap>{identity}, iterators,
          [&](OpBuilder &b, Location nestedLoc, ValueRange) {
            SmallVector<Value> indices;
            for (int64_t d = 0; d < rank; ++d)
              indices.push_back(linalg::IndexOp::create(b, nestedLoc, d));
            linalg::YieldOp::create(
                b, nestedLoc,
                tensor::ExtractOp::create(b, nestedLoc, src, indices)
                    .getResult());
          });
    }
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.concat
//===----------------------------------------------------------------------===//

/// rlx.concat -> one linalg.generic over the result; along the axis, a
/// chain of scf.if picks the input whose range holds the index and reads it
/// with tensor.extract at the index minus the input's offset. (Inserting
/// each input with tensor.insert_slice would write through strided
/// subviews; see rlx.narrow.)
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    SmallVector<Value> inputs = llvm::to_vector(adaptor.getInputs());
    if (inputs.size() == 1 && inputs.front().getType() == type) {
      rewriter.replaceOp(op, inputs.front());
      return success();
    }

    // Offsets along the axis: where each input starts, and the total.
    SmallVector<OpFoldResult> offsets;
    OpFoldResult total = rewriter.getIndexAttr(0);
    for (Value input : inputs) {
      offsets.push_back(total);
      total = addSizes(rewriter, loc, total,
                       tensor::getMixedSize(rewriter, loc, input, axis));
    }
    // Result sizes: the total along the axis; elsewhere any input's size
    // (they agree), preferring a static one.
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d == axis) {
        dynamicSizes.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, total));
        continue;
      }
      Value from = inputs.front();
      for (Value input : inputs)
        if (!cast<RankedTensorType>(input.getType()).isDynamicDim(d))
          from = input;
      dynamicSizes.push_back(getValueOrCreateConstantIndexOp(
          rewriter, loc, tensor::getMixedSize(rewriter, loc, from, d)));
    }
    SmallVector<Value> offsetValues;
    for (OpFoldResult offset : offsets)
      offsetValues.push_back(
          getValueOrCreateConstantIndexOp(rewriter, loc, offset));

    Value init = tensor::EmptyOp::create(rewriter, loc, type, dynamicSizes);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        iterators, [&](OpBuilder &b, Location nestedLoc, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < rank; ++d)
            indices.push_back(linalg::IndexOp::create(b, nestedLoc, d));
          Value position = indices[axis];
          // Reads input `k`, or decides between it and the later ones.
          std::function<Value(OpBuilder &, size_t)> read =
              [&](OpBuilder &builder, size_t k) -> Value {
            SmallVector<Value> coords = indices;
            coords[axis] = arith::SubIOp::create(builder, nestedLoc, position,
                                                 offsetValues[k]);
            if (k + 1 == inputs.size())
              return tensor::ExtractOp::create(builder, nestedLoc, inputs[k],
                                               coords);
            Value inside = arith::CmpIOp::create(builder, nestedLoc,
                                                 arith::CmpIPredicate::ult,
                                                 position, offsetValues[k + 1]);
            auto ifOp = scf::IfOp::create(
                builder, nestedLoc, inside,
                [&](OpBuilder &then, Location thenLoc) {
                  Value value = tensor::ExtractOp::create(then, thenLoc,
                                                          inputs[k], coords);
                  scf::YieldOp::create(then, thenLoc, value);
                },
                [&](OpBuilder &otherwise, Location elseLoc) {
                  scf::YieldOp::create(otherwise, elseLoc,
                                       read(otherwise, k + 1));
                });
            return ifOp.getResult(0);
          };
          linalg::YieldOp::create(b, nestedLoc, read(b, 0));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.expand
//===----------------------------------------------------------------------===//

/// rlx.expand -> a linalg.generic copying the input with broadcasting
/// indexing maps. A dynamic input dim under a static target size other than
/// 1 is 1 or that size only at run time; such an expand reads the input with
/// tensor.extract at an index chosen at run time instead (`i < size ? i : 0`).
struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getInput();
    auto srcType = cast<RankedTensorType>(src.getType());
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    int64_t rank = type.getRank();
    int64_t offset = rank - srcType.getRank();
    bool runtimeBroadcast = false;
    for (int64_t d = 0; d < srcType.getRank(); ++d)
      if (srcType.isDynamicDim(d) && !type.isDynamicDim(offset + d) &&
          type.getDimSize(offset + d) != 1)
        runtimeBroadcast = true;
    if (!runtimeBroadcast) {
      Value result = buildBroadcastElementwise(
          rewriter, loc, type, src,
          [](OpBuilder &, Location, ValueRange args) { return args[0]; });
      rewriter.replaceOp(op, result);
      return success();
    }

    // Per input dim: nothing (index 0), or the dynamic size to test for 1.
    SmallVector<Value> srcSizes;
    for (int64_t d = 0; d < srcType.getRank(); ++d)
      srcSizes.push_back(dynamicDimOf(rewriter, loc, src, d));
    Value init = buildBroadcastEmpty(rewriter, loc, type, src);
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
        iterators, [&](OpBuilder &b, Location nestedLoc, ValueRange) {
          Value zero = arith::ConstantIndexOp::create(b, nestedLoc, 0);
          SmallVector<Value> indices;
          for (int64_t d = 0; d < srcType.getRank(); ++d) {
            int64_t resultSize = type.getDimSize(offset + d);
            if (srcType.getDimSize(d) == 1 && resultSize != 1) {
              indices.push_back(zero);
              continue;
            }
            Value index = linalg::IndexOp::create(b, nestedLoc, offset + d);
            if (srcSizes[d] && !type.isDynamicDim(offset + d) &&
                resultSize != 1) {
              // Index `i` where the input has it (size = target), else 0
              // (size 1). An input violating the precondition is still
              // read in bounds.
              Value inside = arith::CmpIOp::create(
                  b, nestedLoc, arith::CmpIPredicate::ult, index, srcSizes[d]);
              index =
                  arith::SelectOp::create(b, nestedLoc, inside, index, zero);
            }
            indices.push_back(index);
          }
          Value value = tensor::ExtractOp::create(b, nestedLoc, src, indices);
          linalg::YieldOp::create(b, nestedLoc, value);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rlx.gather
//===----------------------------------------------------------------------===//

/// rlx.gather -> a linalg.generic over the result that reads each index and
/// extracts the table element with tensor.extract. An index outside
/// `[0, table.shape[axis])` yields zero (see the op description); the read
/// itself always stays in bounds.
struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value table = adaptor.getTable();
    Value indices = adaptor.getIndices();
    auto tableType = cast<RankedTensorType>(table.getType());
    auto indicesType = cast<RankedTensorType>(indices.getType());
    auto type =
        cast<RankedTensorType>(getTypeConverter()->convertType(op.getType()));
    Type elementType = type.getElementType();
    int64_t axis = op.getAxis();
    int64_t indexRank = indicesType.getRank();
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();

    // Result dim d comes from table dim d (d < axis), indices dim d - axis,
    // or table dim d - indexRank + 1.
    auto source = [&](int64_t d) -> std::pair<Value, int64_t> {
      if (d < axis)
        return {table, d};
      if (d < axis + indexRank)
        return {indices, d - axis};
      return {table, d - indexRank + 1};
    };
    SmallVector<Value> dynamicSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      auto [value, dim] = source(d);
      dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, value, dim));
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, type, dynamicSizes);

    int64_t axisSize = tableType.getDimSize(axis);
    Value axisSizeValue =
        tableType.isDynamicDim(axis)
            ? tensor::DimOp::create(rewriter, loc, table, axis).getResult()
            : arith::ConstantIndexOp::create(rewriter, loc, axisSize)
                  .getResult();

    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(axis + d, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, indexExprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{indices}, ValueRange{init},
        maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value zero = zeroScalar(b, nestedLoc, elementType);
          if (axisSize == 0) {
            // Every index is out of range of an empty axis.
            linalg::YieldOp::create(b, nestedLoc, zero);
            return;
          }
          Value index = arith::IndexCastOp::create(b, nestedLoc,
                                                   b.getIndexType(), args[0]);
          // Unsigned: a negative index is huge, so out of range too.
          Value inBounds = arith::CmpIOp::create(
              b, nestedLoc, arith::CmpIPredicate::ult, index, axisSizeValue);
          Value zeroIndex = arith::ConstantIndexOp::create(b, nestedLoc, 0);
          Value safeIndex =
              arith::SelectOp::create(b, nestedLoc, inBounds, index, zeroIndex);
          SmallVector<Value> coords;
          for (int64_t d = 0; d < tableType.getRank(); ++d) {
            if (d == axis)
              coords.push_back(safeIndex);
            else
              coords.push_back(linalg::IndexOp::create(
                  b, nestedLoc, d < axis ? d : d + indexRank - 1));
          }
          Value result;
          if (tableType.isDynamicDim(axis)) {
            // The axis may be empty at run time: read only when in range.
            auto ifOp = scf::IfOp::create(
                b, nestedLoc, inBounds,
                [&](OpBuilder &then, Location thenLoc) {
                  Value value =
                      tensor::ExtractOp::create(then, thenLoc, table, coords);
                  scf::YieldOp::create(then, thenLoc, value);
                },
                [&](OpBuilder &otherwise, Location elseLoc) {
                  scf::YieldOp::create(otherwise, elseLoc, zero);
                });
            result = ifOp.getResult(0);
          } else {
            Value value =
                tensor::ExtractOp::create(b, nestedLoc, table, coords);
            result =
                arith::SelectOp::create(b, nestedLoc, inBounds, value, zero);
          }
          linalg::YieldOp::create(b, nestedLoc, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void rlx::populateShapeToLinalgPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, TransposeLowering, NarrowLowering,
               ConcatLowering, ExpandLowering, GatherLowering>(
      converter, patterns.getContext());
}
