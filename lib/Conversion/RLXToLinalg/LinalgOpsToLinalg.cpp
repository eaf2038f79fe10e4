//===- LinalgOpsToLinalg.cpp - matmul and linear algebra ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// rlx.matmul -> a named linalg contraction where the shapes allow (these
/// are what the BLAS rewrite later recognises), else a broadcasting
/// `linalg.generic`:
///   [M,K] x [K,N]                       -> linalg.matmul
///   [B..,M,K] x [K,N]                   -> collapse rows, linalg.matmul
///   [B..,M,K] x [B..,K,N] (equal batch) -> collapse batch dims,
///                                          linalg.batch_matmul
///   anything else                       -> linalg.generic
/// f16/bf16 accumulate in f32 and round once at the end.
struct MatMulLowering : OpConversionPattern<MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type accType = elementType.getIntOrFloatBitWidth() < 32
                       ? Type(rewriter.getF32Type())
                       : elementType;
    auto accTypeOf = [&](RankedTensorType t) {
      return RankedTensorType::get(t.getShape(), accType);
    };

    // `?` sizes the verifier could not compare: the contracted K, and the
    // batch dims both operands have (right-aligned, neither a static 1).
    int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();
    buildSizeCheck(
        rewriter, loc, tensor::getMixedSize(rewriter, loc, rhs, rhsRank - 2),
        tensor::getMixedSize(rewriter, loc, lhs, lhsRank - 1),
        "the rhs's K (dim " + Twine(rhsRank - 2) +
            ") differs from the lhs's K (dim " + Twine(lhsRank - 1) + ")");
    for (int64_t i = 1; i <= std::min(lhsRank, rhsRank) - 2; ++i) {
      int64_t lhsDim = lhsRank - 2 - i, rhsDim = rhsRank - 2 - i;
      if (lhsType.getDimSize(lhsDim) == 1 || rhsType.getDimSize(rhsDim) == 1)
        continue;
      buildSizeCheck(rewriter, loc,
                     tensor::getMixedSize(rewriter, loc, rhs, rhsDim),
                     tensor::getMixedSize(rewriter, loc, lhs, lhsDim),
                     "the rhs's batch dim " + Twine(rhsDim) +
                         " differs from the lhs's dim " + Twine(lhsDim) +
                         " (a `?` dim must match, it is never broadcast)");
    }

    // Rows of lhs's leading dims are collapsed into one GEMM and expanded
    // back, which (in expand-strided-metadata) takes at most one `?` dim
    // per group: more run as a loop nest.
    bool collapsibleRows = llvm::count_if(lhsType.getShape().drop_back(),
                                          ShapedType::isDynamic) <= 1 ||
                           lhsRank == 2;
    Value acc;
    if (lhsType.getRank() >= 2 && rhsType.getRank() == 2 && collapsibleRows) {
      acc =
          lowerRowsTimesMatrix(rewriter, loc, lhs, rhs, accTypeOf(resultType));
    } else if (haveEqualStaticBatch(lhsType, rhsType)) {
      acc = lowerBatched(rewriter, loc, lhs, rhs, accTypeOf(resultType));
    } else {
      acc = lowerGeneric(rewriter, loc, lhs, rhs, accTypeOf(resultType));
    }
    if (accType != elementType)
      acc = buildBroadcastElementwise(
          rewriter, loc, resultType, acc,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return arith::TruncFOp::create(b, l, elementType, args[0]);
          });
    rewriter.replaceOp(op, acc);
    return success();
  }

private:
  /// [B..,M,K] x [K,N]: every batch row is a row of one big GEMM.
  static Value lowerRowsTimesMatrix(OpBuilder &b, Location loc, Value lhs,
                                    Value rhs, RankedTensorType resultType) {
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    int64_t rank = lhsType.getRank();
    Value rows = lhs;
    SmallVector<ReassociationIndices> reassociation;
    if (rank > 2) {
      ReassociationIndices leading;
      for (int64_t i = 0; i < rank - 1; ++i)
        leading.push_back(i);
      reassociation = {leading, {rank - 1}};
      rows = tensor::CollapseShapeOp::create(b, loc, lhs, reassociation);
    }
    auto rowsType = cast<RankedTensorType>(rows.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto flatType =
        RankedTensorType::get({rowsType.getDimSize(0), rhsType.getDimSize(1)},
                              resultType.getElementType());
    Value product =
        buildZeroedProduct<linalg::MatmulOp>(b, loc, rows, rhs, flatType);
    if (rank == 2)
      return product;
    // Sizes of `?` dims: the batch rows are lhs's, N the product's.
    SmallVector<OpFoldResult> outputShape;
    for (int64_t i = 0; i < rank - 1; ++i)
      outputShape.push_back(tensor::getMixedSize(b, loc, lhs, i));
    outputShape.push_back(tensor::getMixedSize(b, loc, product, 1));
    return tensor::ExpandShapeOp::create(b, loc, resultType, product,
                                         reassociation, outputShape);
  }

  /// `OpTy(lhs, rhs)` accumulated into zeros of `type`, whose rows and
  /// columns take lhs's and rhs's sizes where they are dynamic (the batch
  /// dim of a batched product is static).
  template <typename OpTy>
  static Value buildZeroedProduct(OpBuilder &b, Location loc, Value lhs,
                                  Value rhs, RankedTensorType type) {
    int64_t lhsRank = cast<RankedTensorType>(lhs.getType()).getRank();
    int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
    SmallVector<Value> sizes;
    for (Value size : {dynamicDimOf(b, loc, lhs, lhsRank - 2),
                       dynamicDimOf(b, loc, rhs, rhsRank - 1)})
      if (size)
        sizes.push_back(size);
    Value init = buildZeros(b, loc, type, sizes);
    return OpTy::create(b, loc, TypeRange{type}, ValueRange{lhs, rhs}, init)
        .getResult(0);
  }

  /// Whether both operands have the same static batch dims (rank 3 or more,
  /// no broadcast between them).
  static bool haveEqualStaticBatch(RankedTensorType lhs, RankedTensorType rhs) {
    if (lhs.getRank() < 3 || lhs.getRank() != rhs.getRank())
      return false;
    ArrayRef<int64_t> lhsBatch = lhs.getShape().drop_back(2);
    return lhsBatch == rhs.getShape().drop_back(2) &&
           llvm::none_of(lhsBatch, ShapedType::isDynamic);
  }

  /// [B..,M,K] x [B..,K,N] with equal batch dims: one linalg.batch_matmul
  /// over the batch dims collapsed into one (a BLAS call per matrix later),
  /// the result expanded back.
  static Value lowerBatched(OpBuilder &b, Location loc, Value lhs, Value rhs,
                            RankedTensorType resultType) {
    int64_t rank = resultType.getRank();
    SmallVector<ReassociationIndices> reassociation;
    if (rank > 3) {
      ReassociationIndices batch;
      for (int64_t i = 0; i < rank - 2; ++i)
        batch.push_back(i);
      reassociation = {batch, {rank - 2}, {rank - 1}};
      lhs = tensor::CollapseShapeOp::create(b, loc, lhs, reassociation);
      rhs = tensor::CollapseShapeOp::create(b, loc, rhs, reassociation);
    }
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto flatType = RankedTensorType::get(
        {lhsType.getDimSize(0), lhsType.getDimSize(1), rhsType.getDimSize(2)},
        resultType.getElementType());
    Value product =
        buildZeroedProduct<linalg::BatchMatmulOp>(b, loc, lhs, rhs, flatType);
    if (rank == 3)
      return product;
    SmallVector<OpFoldResult> outputShape;
    for (int64_t i = 0; i < rank - 2; ++i)
      outputShape.push_back(b.getIndexAttr(resultType.getDimSize(i)));
    outputShape.push_back(tensor::getMixedSize(b, loc, product, 1));
    outputShape.push_back(tensor::getMixedSize(b, loc, product, 2));
    return tensor::ExpandShapeOp::create(b, loc, resultType, product,
                                         reassociation, outputShape);
  }

  /// General broadcast-batch contraction.
  static Value lowerGeneric(OpBuilder &b, Location loc, Value lhs, Value rhs,
                            RankedTensorType resultType) {
    MLIRContext *ctx = b.getContext();
    int64_t rank = resultType.getRank();
    int64_t batchRank = rank - 2;
    // Iteration space: batch dims, m, n, then the reduction dim k.
    AffineExpr m = getAffineDimExpr(batchRank, ctx);
    AffineExpr n = getAffineDimExpr(batchRank + 1, ctx);
    AffineExpr k = getAffineDimExpr(batchRank + 2, ctx);
    auto operandMap = [&](RankedTensorType type, AffineExpr row,
                          AffineExpr col) {
      int64_t operandBatch = type.getRank() - 2;
      int64_t offset = batchRank - operandBatch;
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < operandBatch; ++i) {
        bool broadcast =
            type.getDimSize(i) == 1 && resultType.getDimSize(offset + i) != 1;
        exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(offset + i, ctx));
      }
      exprs.push_back(row);
      exprs.push_back(col);
      return AffineMap::get(rank + 1, 0, exprs, ctx);
    };
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {operandMap(lhsType, m, k),
                                   operandMap(rhsType, k, n),
                                   AffineMap::get(rank + 1, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    // Batch dims follow broadcasting; M comes from lhs and N from rhs.
    SmallVector<Value> sizes;
    for (int64_t i = 0; i < rank; ++i) {
      if (!resultType.isDynamicDim(i))
        continue;
      if (i == rank - 2) {
        sizes.push_back(
            tensor::DimOp::create(b, loc, lhs, lhsType.getRank() - 2));
      } else if (i == rank - 1) {
        sizes.push_back(
            tensor::DimOp::create(b, loc, rhs, rhsType.getRank() - 1));
      } else {
        for (Value operand : {lhs, rhs}) {
          auto type = cast<RankedTensorType>(operand.getType());
          int64_t dim = i - (batchRank - (type.getRank() - 2));
          if (dim >= 0 && type.isDynamicDim(dim)) {
            sizes.push_back(tensor::DimOp::create(b, loc, operand, dim));
            break;
          }
        }
      }
    }
    Value init = buildZeros(b, loc, resultType, sizes);
    Type accType = resultType.getElementType();
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, ValueRange{lhs, rhs},
               ValueRange{init}, maps, iterators,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value a = args[0], c = args[1];
                 if (a.getType() != accType) {
                   a = arith::ExtFOp::create(nb, nl, accType, a);
                   c = arith::ExtFOp::create(nb, nl, accType, c);
                 }
                 Value prod = arith::MulFOp::create(nb, nl, a, c);
                 Value sum = arith::AddFOp::create(nb, nl, args[2], prod);
                 linalg::YieldOp::create(nb, nl, sum);
               })
        .getResult(0);
  }
};

} // namespace

void rlx::populateLinalgOpsToLinalgPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<MatMulLowering>(converter, patterns.getContext());
}
