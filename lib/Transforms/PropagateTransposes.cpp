//===- PropagateTransposes.cpp - transposes below elementwise ops ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A target that runs some ops in another layout (cuDNN convolutions in
// NHWC) wraps each in transposes; moving the transposes down through the
// layout-agnostic ops between two such ops lets the inverse pairs meet and
// fold, so the ops in between compute in the new layout.
//
//===----------------------------------------------------------------------===//

#include "rlx/Transforms/Transposes.h"

#include "rlx/Dialect/RLX/IR/RLXInterfaces.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXPROPAGATETRANSPOSES
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// `type` with its dims permuted: dim `i` of the result is dim `perm[i]`.
RankedTensorType permuted(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t dim : perm)
    shape.push_back(type.getDimSize(dim));
  return type.clone(shape);
}

/// `value` (of `shape` once reshaped) transposed by `perm`. When the dims
/// that are not 1 keep their order (a per-channel vector [1, C, 1, 1] to
/// [1, 1, 1, C]), the transpose moves no element and is a reshape, which
/// costs no kernel.
Value transposeSmall(PatternRewriter &rewriter, Location loc, Value value,
                     ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> permutedShape, before, after;
  for (int64_t dim : perm)
    permutedShape.push_back(shape[dim]);
  for (auto [index, extent] : llvm::enumerate(shape))
    if (extent != 1)
      before.push_back(index);
  for (int64_t dim : perm)
    if (shape[dim] != 1)
      after.push_back(dim);
  auto type = cast<RankedTensorType>(value.getType());
  if (before == after && type.hasStaticShape())
    return ReshapeOp::create(rewriter, loc, value,
                             rewriter.getDenseI64ArrayAttr(permutedShape));
  if (type.getShape() != ArrayRef(shape))
    value = ReshapeOp::create(rewriter, loc, value,
                              rewriter.getDenseI64ArrayAttr(shape));
  return TransposeOp::create(rewriter, loc, value,
                             rewriter.getDenseI64ArrayAttr(perm));
}

/// f(T(x), ...) -> T(f(x, ...)) for an elementwise f. The other operands
/// are transposes with the same permutation (which are dropped), scalars
/// (kept), or broadcast operands smaller than the result (made of the
/// result's rank and transposed by the inverse permutation, a few
/// elements' work); an operand of the result's full shape that is not such
/// a transpose stops the move.
struct ElementwiseOfTranspose
    : OpInterfaceRewritePattern<ScalarizableOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(ScalarizableOpInterface elementwise,
                                PatternRewriter &rewriter) const override {
    Operation *op = elementwise;
    if (op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || resultType.getRank() < 2)
      return failure();
    TransposeOp lead;
    for (Value operand : op->getOperands())
      if (auto transpose = operand.getDefiningOp<TransposeOp>();
          transpose &&
          transpose.getType().getShape() == resultType.getShape()) {
        lead = transpose;
        break;
      }
    if (!lead || isIdentityPermutation(lead.getPerm()))
      return failure();
    ArrayRef<int64_t> perm = lead.getPerm();
    SmallVector<int64_t> inverse = invertPermutationVector(perm);
    int64_t rank = resultType.getRank();

    // A full-size operand `o` that is not transposed can be taken only when
    // the graph already computes its transpose into the new layout (a
    // residual add's shortcut, which the next convolution transposes to
    // NHWC): that value is used, and no new full-size transpose is made.
    // Only the transposes of the lexicographically greater of a permutation
    // and its inverse do so (NHWC -> NCHW, [0, 3, 1, 2], not the other way):
    // were both to, the transpose taken by one move would lead the next,
    // which would take the first one's input back, without end.
    bool outward = std::lexicographical_compare(inverse.begin(), inverse.end(),
                                                perm.begin(), perm.end());
    auto existingTranspose = [&](Value operand) -> Value {
      if (!outward)
        return {};
      for (Operation *user : operand.getUsers())
        if (auto transpose = dyn_cast<TransposeOp>(user);
            transpose && transpose.getPerm() == ArrayRef(inverse) &&
            transpose->getBlock() == op->getBlock() &&
            transpose->isBeforeInBlock(op))
          return transpose;
      return {};
    };

    // Check every operand before changing anything.
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type)
        return failure();
      if (auto transpose = operand.getDefiningOp<TransposeOp>();
          transpose && transpose.getPerm() == perm)
        continue;
      if (type.getRank() == 0)
        continue;
      if (type.getShape() == resultType.getShape()) {
        if (!existingTranspose(operand))
          return failure();
        continue;
      }
      if (type.getRank() < rank && !type.hasStaticShape())
        return failure();
    }

    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (auto transpose = operand.getDefiningOp<TransposeOp>();
          transpose && transpose.getPerm() == perm) {
        operands.push_back(transpose.getInput());
        continue;
      }
      if (type.getRank() == 0) {
        operands.push_back(operand);
        continue;
      }
      if (type.getShape() == resultType.getShape()) {
        operands.push_back(existingTranspose(operand));
        continue;
      }
      // NumPy broadcasting aligns the trailing dims: lead with 1s.
      SmallVector<int64_t> shape(rank - type.getRank(), 1);
      llvm::append_range(shape, type.getShape());
      operands.push_back(
          transposeSmall(rewriter, loc, operand, shape, inverse));
    }
    Operation *moved = rewriter.clone(*op);
    moved->setOperands(operands);
    moved->getResult(0).setType(permuted(resultType, inverse));
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, moved->getResult(0), rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// reduce(T(x), axes) -> reduce(x, perm(axes)), transposed back with
/// `keep_dim`, or where the kept dims come out in another order.
struct ReduceOfTranspose : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto transpose = op.getInput().getDefiningOp<TransposeOp>();
    if (!transpose || isIdentityPermutation(transpose.getPerm()))
      return failure();
    ArrayRef<int64_t> perm = transpose.getPerm();
    int64_t rank = static_cast<int64_t>(perm.size());
    llvm::SmallBitVector reduced(rank);
    for (int64_t axis : op.getAxes())
      reduced.set(axis < 0 ? axis + rank : axis);
    SmallVector<int64_t> axes, kept;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (reduced.test(dim))
        axes.push_back(perm[dim]);
      else
        kept.push_back(perm[dim]);
    }
    llvm::sort(axes);
    Location loc = op.getLoc();
    Value result = ReduceOp::create(
        rewriter, loc, op.getKindAttr(), transpose.getInput(),
        rewriter.getDenseI64ArrayAttr(axes), op.getKeepDimAttr());
    SmallVector<int64_t> back;
    if (op.getKeepDim()) {
      back.assign(perm.begin(), perm.end());
    } else {
      // The new reduction keeps x's dims in x's order; the old one kept
      // them in the transpose's.
      SmallVector<int64_t> sorted = kept;
      llvm::sort(sorted);
      for (int64_t dim : kept)
        back.push_back(llvm::find(sorted, dim) - sorted.begin());
    }
    if (!isIdentityPermutation(back))
      result = TransposeOp::create(rewriter, loc, result,
                                   rewriter.getDenseI64ArrayAttr(back));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RLXPropagateTransposesPass
    : rlx::impl::RLXPropagateTransposesBase<RLXPropagateTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePropagateTransposesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void rlx::populatePropagateTransposesPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ElementwiseOfTranspose, ReduceOfTranspose>(context);
  TransposeOp::getCanonicalizationPatterns(patterns, context);
  ReshapeOp::getCanonicalizationPatterns(patterns, context);
}
