//===- LayoutDecompositions.cpp - dot_general, rank-3 attention -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Ops whose general form is a primitive op plus layout changes.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include <numeric>

using namespace mlir;
using namespace mlir::rlx;

namespace {

bool isIdentityPerm(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

/// The product of `shape`'s `dims` (it fits in int64 for the operands of
/// an op findUncountableType passes).
int64_t product(ArrayRef<int64_t> dims, ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= shape[d];
  return n;
}

/// XLA DotGeneral as transposes, reshapes and one batched matmul:
///   lhs -> [batch..., lhs_free..., contracting...] -> [batch..., M, K]
///   rhs -> [batch..., contracting..., rhs_free...] -> [batch..., K, N]
///   matmul -> [batch..., M, N] -> [batch..., lhs_free..., rhs_free...]
/// Contracting and batch dims keep their pairing order, so the flattened
/// K indices of both sides match.
struct UnfuseDotGeneral : OpRewritePattern<DotGeneralOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DotGeneralOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsType = op.getLhs().getType();
    auto rhsType = op.getRhs().getType();
    if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    // M, N and K are products of the operands' dims.
    if (findUncountableType(op))
      return rewriter.notifyMatchFailure(
          op, "a type whose dims multiply past int64");
    ArrayRef<int64_t> lhsShape = lhsType.getShape();
    ArrayRef<int64_t> rhsShape = rhsType.getShape();
    ArrayRef<int64_t> lhsBatch = op.getLhsBatch(), rhsBatch = op.getRhsBatch();
    ArrayRef<int64_t> lhsContract = op.getLhsContracting();
    ArrayRef<int64_t> rhsContract = op.getRhsContracting();
    auto freeDims = [](int64_t rank, ArrayRef<int64_t> batch,
                       ArrayRef<int64_t> contract) {
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < rank; ++d)
        if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
          dims.push_back(d);
      return dims;
    };
    SmallVector<int64_t> lhsFree =
        freeDims(lhsType.getRank(), lhsBatch, lhsContract);
    SmallVector<int64_t> rhsFree =
        freeDims(rhsType.getRank(), rhsBatch, rhsContract);

    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<int64_t> batchShape;
    for (int64_t d : lhsBatch)
      batchShape.push_back(lhsShape[d]);
    int64_t m = product(lhsFree, lhsShape), n = product(rhsFree, rhsShape);
    int64_t k = product(lhsContract, lhsShape);

    auto arrange = [&](Value value, ArrayRef<int64_t> shape,
                       SmallVector<int64_t> perm, int64_t rows, int64_t cols) {
      if (!isIdentityPerm(perm))
        value = p.transpose(value, perm);
      SmallVector<int64_t> target(batchShape);
      target.push_back(rows);
      target.push_back(cols);
      return p.reshape(value, target);
    };
    SmallVector<int64_t> lhsPerm(lhsBatch);
    llvm::append_range(lhsPerm, lhsFree);
    llvm::append_range(lhsPerm, lhsContract);
    SmallVector<int64_t> rhsPerm(rhsBatch);
    llvm::append_range(rhsPerm, rhsContract);
    llvm::append_range(rhsPerm, rhsFree);
    Value lhs = arrange(op.getLhs(), lhsShape, lhsPerm, m, k);
    Value rhs = arrange(op.getRhs(), rhsShape, rhsPerm, k, n);
    Value product = p.matmul(lhs, rhs);
    rewriter.replaceOp(op, p.reshape(product, op.getType().getShape()));
    return success();
  }
};

/// `[B, S, H*D]` attention as `[B, H, S, D]` attention between head
/// splits and merges. Masks are layout independent (`[B, Sk]` key padding,
/// `[B, H, Sq, Sk]` bias); every attribute is kept.
struct UnfuseRank3Attention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto kType = cast<RankedTensorType>(op.getKey().getType());
    if (qType.getRank() != 3)
      return failure();
    if (qType.isDynamicDim(1) || kType.isDynamicDim(1))
      return rewriter.notifyMatchFailure(op, "dynamic sequence length");
    int64_t heads = op.getNumHeads(), dim = op.getHeadDim();
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    auto toHeads = [&](Value t, int64_t seq) {
      return p.transpose(p.reshape(t, {-1, seq, heads, dim}), {0, 2, 1, 3});
    };
    int64_t sq = qType.getDimSize(1), sk = kType.getDimSize(1);
    Value attended = AttentionOp::create(
        rewriter, p.loc, toHeads(op.getQuery(), sq), toHeads(op.getKey(), sk),
        toHeads(op.getValue(), sk), op.getMask(), op.getNumHeadsAttr(),
        op.getHeadDimAttr(), op.getMaskKindAttr(), op.getWindowAttr(),
        op.getScoreScaleAttr(), op.getAttnLogitSoftcapAttr());
    rewriter.replaceOp(op, p.reshape(p.transpose(attended, {0, 2, 1, 3}),
                                     {-1, sq, heads * dim}));
    return success();
  }
};

} // namespace

void rlx::populateLayoutDecompositions(RewritePatternSet &patterns,
                                       const UnfusePolicy &policy) {
  MLIRContext *ctx = patterns.getContext();
  if (policy.wants(Decomposition::DotGeneral))
    patterns.add<UnfuseDotGeneral>(ctx);
  if (policy.wants(Decomposition::Rank3Attention))
    patterns.add<UnfuseRank3Attention>(ctx);
}
