//===- TransposedGemmOperands.cpp - matmuls read transposed operands ------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Gradients multiply by transposed matrices: `dx = dy w^T` and
// `dw = x^T dy` for every linear layer. Lowered as written, each transpose
// is a copy of the matrix (a strided pass over a weight, as long as the
// product itself for a layer on one sequence), made only for the product,
// although BLAS reads a transposed operand at no cost. This pass folds such
// copies into the products' indexing maps; the targets' library calls
// (rlx-linalg-to-blas, rlx-cuda-linalg-to-cublas) pass the operand as a
// transposed view.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXTRANSPOSEDGEMMOPERANDS
#include "rlx/Conversion/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// Whether `perm` swaps the last two dims and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
    return false;
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

template <typename GemmOp>
struct FoldTransposedOperand : OpRewritePattern<GemmOp> {
  using OpRewritePattern<GemmOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<Value> inputs(op.getDpsInputs());
    bool changed = false;
    for (unsigned i : {0u, 1u}) {
      auto transpose = inputs[i].getDefiningOp<linalg::TransposeOp>();
      if (!transpose || !swapsLastTwo(transpose.getPermutation()))
        continue;
      inputs[i] = transpose.getInput();
      maps[i] = swapLastTwoResults(maps[i]);
      changed = true;
    }
    if (!changed)
      return failure();
    SmallVector<Attribute> mapAttrs;
    for (AffineMap map : maps)
      mapAttrs.push_back(AffineMapAttr::get(map));
    rewriter.replaceOpWithNewOp<GemmOp>(
        op, op->getResultTypes(), inputs, op.getDpsInits(),
        ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
            "indexing_maps", rewriter.getArrayAttr(mapAttrs))});
    return success();
  }
};

struct RLXTransposedGemmOperandsPass
    : rlx::impl::RLXTransposedGemmOperandsBase<RLXTransposedGemmOperandsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposedOperand<linalg::MatmulOp>,
                 FoldTransposedOperand<linalg::BatchMatmulOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
