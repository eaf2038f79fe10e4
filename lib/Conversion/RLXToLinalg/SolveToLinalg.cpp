//===- SolveToLinalg.cpp - rlx.dense_solve and batched_dense_solve --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The dense solves are Gaussian elimination with partial pivoting (the LU
// factorisation applied to the right-hand sides as it is built) and back
// substitution, as scf loops over scalar tensor.extract / tensor.insert on
// tensors: pivoting is data-dependent control flow, which linalg ops cannot
// express, and the systems an rlx graph solves are small.
//
// f16 and bf16 are solved in f32 and rounded once. The pivot is the first
// entry of largest magnitude in its column (LAPACK's choice). A singular
// matrix is not reported: a zero pivot divides by zero, so the affected
// entries of the result are inf or NaN.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// One solve problem seen as `A [B, N, N]` and `X [B, N, K]` whatever the
/// operand ranks: the index lists drop the batch dim of an unbatched solve
/// and the column dim of a one-column right-hand side.
struct SolveLayout {
  bool batched;
  bool columns;
  Value batch, n, k;

  SmallVector<Value> aIndex(Value bi, Value row, Value col) const {
    SmallVector<Value> index;
    if (batched)
      index.push_back(bi);
    index.append({row, col});
    return index;
  }
  SmallVector<Value> xIndex(Value bi, Value row, Value col) const {
    SmallVector<Value> index;
    if (batched)
      index.push_back(bi);
    index.push_back(row);
    if (columns)
      index.push_back(col);
    return index;
  }
};

Value extract(OpBuilder &b, Location loc, Value tensor, ArrayRef<Value> index) {
  return tensor::ExtractOp::create(b, loc, tensor, index);
}

Value insert(OpBuilder &b, Location loc, Value value, Value tensor,
             ArrayRef<Value> index) {
  return tensor::InsertOp::create(b, loc, value, tensor, index);
}

/// `value` converted elementwise to `elementType` (extending or rounding).
Value convertTensor(OpBuilder &b, Location loc, Value value, Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  bool widen = elementType.getIntOrFloatBitWidth() >
               type.getElementType().getIntOrFloatBitWidth();
  return buildBroadcastElementwise(
      b, loc, type.clone(elementType), {value},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return widen ? extendTo(nb, nl, elementType, args[0])
                     : truncateTo(nb, nl, elementType, args[0]);
      });
}

/// The row `r >= c` whose entry in column `c` has the largest magnitude
/// (the first such row on ties).
Value findPivot(OpBuilder &b, Location loc, const SolveLayout &layout, Value a,
                Value bi, Value c) {
  auto magnitude = [&](OpBuilder &nb, Location nl, Value row) {
    return math::AbsFOp::create(nb, nl,
                                extract(nb, nl, a, layout.aIndex(bi, row, c)));
  };
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value next = arith::AddIOp::create(b, loc, c, one);
  return buildForLoop(
             b, loc, next, layout.n, {c, magnitude(b, loc, c)},
             [&](OpBuilder &nb, Location nl, Value row, ValueRange best) {
               Value value = magnitude(nb, nl, row);
               Value larger = arith::CmpFOp::create(
                   nb, nl, arith::CmpFPredicate::OGT, value, best[1]);
               return SmallVector<Value>{
                   arith::SelectOp::create(nb, nl, larger, row, best[0]),
                   arith::SelectOp::create(nb, nl, larger, value, best[1])};
             })
      .front();
}

/// `tensor` with the entries at `index(r1, j)` and `index(r2, j)` swapped
/// for `j < width`.
Value swapRows(OpBuilder &b, Location loc, Value tensor, Value width, Value r1,
               Value r2, function_ref<SmallVector<Value>(Value, Value)> index) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return buildForLoop(
             b, loc, zero, width, {tensor},
             [&](OpBuilder &nb, Location nl, Value j, ValueRange args) {
               Value first = extract(nb, nl, args[0], index(r1, j));
               Value second = extract(nb, nl, args[0], index(r2, j));
               Value swapped = insert(nb, nl, second, args[0], index(r1, j));
               swapped = insert(nb, nl, first, swapped, index(r2, j));
               return SmallVector<Value>{swapped};
             })
      .front();
}

/// `tensor[index(row, j)] -= factor * tensor'[index(pivot, j)]` for
/// `from <= j < to`, reading the pivot row from `source` (the same tensor
/// or the factored matrix).
Value subtractRow(OpBuilder &b, Location loc, Value tensor, Value from,
                  Value to, Value row, Value pivot, Value factor,
                  function_ref<SmallVector<Value>(Value, Value)> index) {
  return buildForLoop(
             b, loc, from, to, {tensor},
             [&](OpBuilder &nb, Location nl, Value j, ValueRange args) {
               Value target = extract(nb, nl, args[0], index(row, j));
               Value source = extract(nb, nl, args[0], index(pivot, j));
               Value product = arith::MulFOp::create(nb, nl, factor, source);
               Value result = arith::SubFOp::create(nb, nl, target, product);
               return SmallVector<Value>{
                   insert(nb, nl, result, args[0], index(row, j))};
             })
      .front();
}

/// Eliminates column `c` of batch entry `bi` below the diagonal after
/// swapping the pivot row up, in `a` and in the right-hand sides `x`.
std::pair<Value, Value> eliminateColumn(OpBuilder &b, Location loc,
                                        const SolveLayout &layout, Value a,
                                        Value x, Value bi, Value c) {
  auto aRow = [&](Value row, Value col) { return layout.aIndex(bi, row, col); };
  auto xRow = [&](Value row, Value col) { return layout.xIndex(bi, row, col); };
  Value pivot = findPivot(b, loc, layout, a, bi, c);
  a = swapRows(b, loc, a, layout.n, c, pivot, aRow);
  x = swapRows(b, loc, x, layout.k, c, pivot, xRow);
  Value diagonal = extract(b, loc, a, aRow(c, c));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value next = arith::AddIOp::create(b, loc, c, one);
  SmallVector<Value> results = buildForLoop(
      b, loc, next, layout.n, {a, x},
      [&](OpBuilder &nb, Location nl, Value row, ValueRange args) {
        Value factor = arith::DivFOp::create(
            nb, nl, extract(nb, nl, args[0], aRow(row, c)), diagonal);
        Value nextCol = arith::AddIOp::create(nb, nl, c, one);
        Value newA = subtractRow(nb, nl, args[0], nextCol, layout.n, row, c,
                                 factor, aRow);
        Value newX =
            subtractRow(nb, nl, args[1], zero, layout.k, row, c, factor, xRow);
        return SmallVector<Value>{newA, newX};
      });
  return {results[0], results[1]};
}

/// Back substitution on the upper-triangular `a` of batch entry `bi`:
/// rows `N - 1 .. 0` of `x` become the solution.
Value backSubstitute(OpBuilder &b, Location loc, const SolveLayout &layout,
                     Value a, Value x, Value bi) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, layout.n, one);
  auto perRow = [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
    Value row = arith::SubIOp::create(b, loc, last, i);
    Value next = arith::AddIOp::create(b, loc, row, one);
    Value diagonal = extract(b, loc, a, layout.aIndex(bi, row, row));
    auto perColumn = [&](OpBuilder &b, Location loc, Value j, ValueRange args) {
      Value sum = extract(b, loc, args[0], layout.xIndex(bi, row, j));
      sum = buildForLoop(
                b, loc, next, layout.n, {sum},
                [&](OpBuilder &b, Location loc, Value m, ValueRange acc) {
                  Value product = arith::MulFOp::create(
                      b, loc, extract(b, loc, a, layout.aIndex(bi, row, m)),
                      extract(b, loc, args[0], layout.xIndex(bi, m, j)));
                  return SmallVector<Value>{
                      arith::SubFOp::create(b, loc, acc[0], product)};
                })
                .front();
      Value solved = arith::DivFOp::create(b, loc, sum, diagonal);
      return SmallVector<Value>{
          insert(b, loc, solved, args[0], layout.xIndex(bi, row, j))};
    };
    return buildForLoop(b, loc, zero, layout.k, {args[0]}, perColumn);
  };
  return buildForLoop(b, loc, zero, layout.n, {x}, perRow).front();
}

/// Solves every batch entry of `a x = b` (both already in the compute
/// type) and returns `x`.
Value solve(OpBuilder &b, Location loc, const SolveLayout &layout, Value a,
            Value x) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto perEntry = [&](OpBuilder &b, Location loc, Value bi, ValueRange args) {
    SmallVector<Value> factored = buildForLoop(
        b, loc, zero, layout.n, {args[0], args[1]},
        [&](OpBuilder &b, Location loc, Value c, ValueRange state) {
          auto [newA, newX] =
              eliminateColumn(b, loc, layout, state[0], state[1], bi, c);
          return SmallVector<Value>{newA, newX};
        });
    Value solved = backSubstitute(b, loc, layout, factored[0], factored[1], bi);
    return SmallVector<Value>{factored[0], solved};
  };
  return buildForLoop(b, loc, zero, layout.batch, {a, x}, perEntry)[1];
}

template <typename OpT> struct DenseSolveLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  static constexpr bool kBatched = std::is_same_v<OpT, BatchedDenseSolveOp>;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = adaptor.getA(), rhs = adaptor.getB();
    Type elementType = cast<RankedTensorType>(a.getType()).getElementType();
    Type computeType = computeTypeOf(elementType);
    int64_t lead = kBatched ? 1 : 0;
    SolveLayout layout;
    layout.batched = kBatched;
    layout.columns =
        cast<RankedTensorType>(rhs.getType()).getRank() == 2 + lead;
    layout.batch = kBatched ? dimSizeOf(rewriter, loc, a, 0)
                            : arith::ConstantIndexOp::create(rewriter, loc, 1);
    layout.n = dimSizeOf(rewriter, loc, rhs, lead);
    layout.k = layout.columns
                   ? dimSizeOf(rewriter, loc, rhs, lead + 1)
                   : arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value x = solve(rewriter, loc, layout,
                    convertTensor(rewriter, loc, a, computeType),
                    convertTensor(rewriter, loc, rhs, computeType));
    rewriter.replaceOp(op, convertTensor(rewriter, loc, x, elementType));
    return success();
  }
};

} // namespace

void rlx::populateSolveToLinalgPatterns(const TypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<DenseSolveLowering<DenseSolveOp>,
               DenseSolveLowering<BatchedDenseSolveOp>>(converter,
                                                        patterns.getContext());
}
