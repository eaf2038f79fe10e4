//===- MoEToLinalg.cpp - mixture of experts and int8 matmul ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.grouped_matmul is one `linalg.generic` over (m, k, n) that reads each
// row's expert weight with tensor.extract: the op does not sort rows by
// expert, so there are no dense per-expert groups to hand to a named
// matmul, and gathering an [M, K, N] weight copy would cost M times the
// weight memory. The generic carries kGroupedMatMulAttrName, so that the
// CPU's rlx-linalg-to-blas can replace it, on buffers, by a runtime call
// that groups the rows by expert and runs one GEMM per expert. An expert id
// outside [0, E) gives a zero row (as rlx.gather does) instead of reading
// out of bounds.
//
// rlx.q_matmul accumulates in i32 (wrapping, like the i32 accumulator it
// specifies) starting from the bias, then requantizes in f64, where the
// product `acc * mult` is rounded once before `math.roundeven`.
//
// The quantized-weight ops and rlx.q_conv2d are in DequantToLinalg.cpp.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "QuantLowering.h"
#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

/// Iterators of a contraction over (m, k, n): n innermost, so the [K, N]
/// weight is read along its contiguous rows rather than down its columns.
static SmallVector<utils::IteratorType> contractionIterators() {
  return {utils::IteratorType::parallel, utils::IteratorType::reduction,
          utils::IteratorType::parallel};
}

/// The dynamic sizes of an [M, N] result whose M is dim 0 of `rows` and N
/// dim `nDim` of `cols`.
static SmallVector<Value> rowColSizes(OpBuilder &b, Location loc, Value rows,
                                      Value cols, int64_t nDim) {
  SmallVector<Value> sizes;
  for (Value size :
       {dynamicDimOf(b, loc, rows, 0), dynamicDimOf(b, loc, cols, nDim)})
    if (size)
      sizes.push_back(size);
  return sizes;
}

namespace {

/// rlx.grouped_matmul -> out[m, n] = sum_k input[m, k] * weight[e(m), k, n]
/// with e(m) read from expert_idx. f16/bf16 accumulate in f32 and round
/// once at the end, as rlx.matmul does.
struct GroupedMatMulLowering : OpConversionPattern<GroupedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GroupedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    Value idx = adaptor.getExpertIdx();
    auto weightType = cast<RankedTensorType>(weight.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type accType = computeTypeOf(elementType);
    auto accResultType = RankedTensorType::get(resultType.getShape(), accType);

    Value init =
        buildZeros(rewriter, loc, accResultType,
                   rowColSizes(rewriter, loc, input, weight, /*nDim=*/2));
    Value experts = dimSizeOf(rewriter, loc, weight, 0);
    bool mayBeEmpty =
        weightType.isDynamicDim(0) || weightType.getDimSize(0) == 0;

    AffineExpr m = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx),
               n = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {m, k}, ctx),
                                   AffineMap::get(3, 0, {m}, ctx),
                                   AffineMap::get(3, 0, {m, n}, ctx)};
    auto contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{accResultType}, ValueRange{input, idx},
        ValueRange{init}, maps, contractionIterators(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          // linalg.index must stay in the generic's body, not in an
          // scf.if of buildExpertTerm.
          Value kIndex = linalg::IndexOp::create(b, l, 1);
          Value nIndex = linalg::IndexOp::create(b, l, 2);
          Value term = buildExpertTerm(
              b, l, args[1], experts, mayBeEmpty, accType,
              [&](OpBuilder &pb, Location pl, Value expert) -> Value {
                Value w = tensor::ExtractOp::create(
                    pb, pl, weight, ValueRange{expert, kIndex, nIndex});
                return arith::MulFOp::create(pb, pl,
                                             extendTo(pb, pl, accType, args[0]),
                                             extendTo(pb, pl, accType, w));
              });
          linalg::YieldOp::create(
              b, l, arith::AddFOp::create(b, l, args[2], term).getResult());
        });
    contraction->setAttr(kGroupedMatMulAttrName, rewriter.getUnitAttr());
    Value acc = contraction.getResult(0);
    if (accType != elementType)
      acc = buildBroadcastElementwise(
          rewriter, loc, resultType, acc,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return truncateTo(b, l, elementType, args[0]);
          });
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// rlx.q_matmul -> an i32 (m, k, n) contraction seeded with the bias, then
/// an elementwise requantization to i8.
struct QMatMulLowering : OpConversionPattern<QMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getX(), w = adaptor.getW(), bias = adaptor.getBias();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type i32 = rewriter.getI32Type();
    auto accType = RankedTensorType::get(resultType.getShape(), i32);
    SmallVector<Value> sizes = rowColSizes(rewriter, loc, x, w, /*nDim=*/1);

    // The accumulator starts as the bias broadcast over the rows.
    Value empty = tensor::EmptyOp::create(rewriter, loc, accType, sizes);
    Value seeded =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{accType}, ValueRange{bias},
            ValueRange{empty},
            SmallVector<AffineMap>{projection(ctx, 2, {1}),
                                   AffineMap::getMultiDimIdentityMap(2, ctx)},
            SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);

    int64_t xZp = op.getXZp(), wZp = op.getWZp();
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{accType}, ValueRange{x, w},
            ValueRange{seeded},
            SmallVector<AffineMap>{projection(ctx, 3, {0, 1}),
                                   projection(ctx, 3, {1, 2}),
                                   projection(ctx, 3, {0, 2})},
            contractionIterators(),
            [&](OpBuilder &b, Location l, ValueRange args) {
              auto centered = [&](Value v, int64_t zp) -> Value {
                Value wide = arith::ExtSIOp::create(b, l, i32, v);
                if (zp == 0)
                  return wide;
                return arith::SubIOp::create(
                    b, l, wide, arith::ConstantIntOp::create(b, l, i32, zp));
              };
              Value prod = arith::MulIOp::create(b, l, centered(args[0], xZp),
                                                 centered(args[1], wZp));
              linalg::YieldOp::create(
                  b, l, arith::AddIOp::create(b, l, args[2], prod).getResult());
            })
            .getResult(0);

    double mult = static_cast<double>(op.getMult().convertToFloat());
    // I64Attr getters return uint64_t; the zero point is signed.
    int64_t outZp = static_cast<int64_t>(op.getOutZp());
    Value result = buildBroadcastElementwise(
        rewriter, loc, resultType, acc,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return buildRequantizeToI8(b, l, args[0], mult, outZp);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateMoEToLinalgPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<GroupedMatMulLowering, QMatMulLowering>(converter,
                                                       patterns.getContext());
}
