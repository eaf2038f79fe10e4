//===- SSMToLinalg.cpp - rlx state-space recurrences to scf + linalg ------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `rlx.selective_scan` and `rlx.gated_delta_net` are recurrences over the
// sequence axis (dim 1 of every per-token operand), so each becomes one
// `scf.for` over time carrying the state and the stacked output; the work of
// a step is parallel linalg generics over batch, head/channel and state dims
// (and a reduction over one state dim). f16/bf16 operands are extended to f32
// once before the loop and the state is carried in f32, so that rounding
// does not accumulate over the sequence; results are truncated at the end.
//
// Only static shapes are lowered: the per-step slices are built with static
// sizes. An op with a dynamic dim is reported at its location.
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

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace {

SmallVector<OpFoldResult> staticSizes(OpBuilder &b, ArrayRef<int64_t> shape) {
  return llvm::map_to_vector(shape, [&](int64_t size) -> OpFoldResult {
    return b.getIndexAttr(size);
  });
}

/// Offsets, sizes and strides of the slice at time `t` (dim 1) of a tensor
/// of `type`.
struct StepSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RankedTensorType stepType;

  StepSlice(OpBuilder &b, RankedTensorType type, Value t)
      : offsets(type.getRank(), b.getIndexAttr(0)),
        sizes(staticSizes(b, type.getShape())),
        strides(type.getRank(), b.getIndexAttr(1)) {
    offsets[1] = t;
    sizes[1] = b.getIndexAttr(1);
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + 1);
    stepType = RankedTensorType::get(shape, type.getElementType());
  }
};

/// Time step `t` of `stacked` without the sequence dim.
Value stepOf(OpBuilder &b, Location loc, Value stacked, Value t) {
  StepSlice s(b, cast<RankedTensorType>(stacked.getType()), t);
  return tensor::ExtractSliceOp::create(b, loc, s.stepType, stacked, s.offsets,
                                        s.sizes, s.strides);
}

/// `stacked` with `step` written at time `t`.
Value storeStep(OpBuilder &b, Location loc, Value step, Value stacked,
                Value t) {
  StepSlice s(b, cast<RankedTensorType>(stacked.getType()), t);
  return tensor::InsertSliceOp::create(b, loc, step, stacked, s.offsets,
                                       s.sizes, s.strides);
}

/// `value` with its elements converted to `elementType` (extended or
/// truncated); `value` itself when it already has that type.
Value convertElements(OpBuilder &b, Location loc, Value value,
                      Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  bool extend = elementType.getIntOrFloatBitWidth() >
                type.getElementType().getIntOrFloatBitWidth();
  return buildBroadcastElementwise(
      b, loc, type.clone(elementType), {value},
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        return extend ? extendTo(nb, nl, elementType, v[0])
                      : truncateTo(nb, nl, elementType, v[0]);
      });
}

/// One parallel generic over `shape` with result element type `type`.
Value parallel(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type type,
               ValueRange inputs, ArrayRef<SmallVector<int64_t>> inputDims,
               ScalarBodyBuilder body) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps =
      llvm::map_to_vector(inputDims, [&](const SmallVector<int64_t> &dims) {
        return projection(ctx, shape.size(), dims);
      });
  return buildParallel(b, loc, staticSizes(b, shape), {type}, inputs, maps,
                       [&](OpBuilder &nb, Location nl, ValueRange args) {
                         return SmallVector<Value>{
                             body(nb, nl, args.take_front(inputs.size()))};
                       })
      .front();
}

/// The sum of `input` over its dim 2.
Value sumOverDim2(OpBuilder &b, Location loc, Value input) {
  Type type = cast<RankedTensorType>(input.getType()).getElementType();
  Value zero = floatConstant(b, loc, type, 0.0);
  return buildReduction(b, loc, input, {2}, {}, {zero},
                        [](OpBuilder &nb, Location nl, ValueRange v) {
                          return SmallVector<Value>{
                              arith::AddFOp::create(nb, nl, v[1], v[0])};
                        })
      .front();
}

/// Fails, with an error at the op, unless every operand has a static shape:
/// the per-step slices are built with static sizes. Like the other CPU
/// lowerings, the reason is reported besides the pass's own error.
LogicalResult requireStaticShapes(Operation *op,
                                  ConversionPatternRewriter &rewriter) {
  if (llvm::all_of(op->getOperandTypes(), [](Type type) {
        return cast<RankedTensorType>(type).hasStaticShape();
      }))
    return success();
  op->emitOpError() << "the CPU lowering needs static shapes";
  return rewriter.notifyMatchFailure(op, "dynamic shape");
}

/// rlx.selective_scan: the loop carries `h [b, h, n]` and `y [b, s, h]`.
/// Step `t` updates `h` elementwise and reduces `c[t] * h` over `n`.
struct SelectiveScanLowering : OpConversionPattern<SelectiveScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SelectiveScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto xType = cast<RankedTensorType>(adaptor.getX().getType());
    Type element = xType.getElementType();
    Type compute = computeTypeOf(element);
    SmallVector<Value> in =
        llvm::map_to_vector(adaptor.getOperands(), [&](Value v) {
          return convertElements(rewriter, loc, v, compute);
        });
    Value x = in[0], delta = in[1], a = in[2], bIn = in[3], c = in[4];
    int64_t batch = xType.getDimSize(0), length = xType.getDimSize(1),
            hidden = xType.getDimSize(2), n = op.getStateSize();
    SmallVector<int64_t> stateShape = {batch, hidden, n};

    Value h0 = buildZeros(rewriter, loc,
                          RankedTensorType::get(stateShape, compute), {});
    Value y0 =
        tensor::EmptyOp::create(rewriter, loc, xType.getShape(), compute);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    SmallVector<Value> results = buildForLoop(
        rewriter, loc, index(0), index(length), {h0, y0},
        [&](OpBuilder &b, Location l, Value t, ValueRange carried) {
          Value xt = stepOf(b, l, x, t), dt = stepOf(b, l, delta, t),
                bt = stepOf(b, l, bIn, t), ct = stepOf(b, l, c, t);
          // Iteration space (batch, channel, state).
          Value h = parallel(
              b, l, stateShape, compute, {carried[0], dt, a, bt, xt},
              {{0, 1, 2}, {0, 1}, {1, 2}, {0, 2}, {0, 1}},
              [](OpBuilder &nb, Location nl, ValueRange v) {
                Value decay = math::ExpOp::create(
                    nb, nl, arith::MulFOp::create(nb, nl, v[1], v[2]));
                Value input = arith::MulFOp::create(
                    nb, nl, arith::MulFOp::create(nb, nl, v[1], v[3]), v[4]);
                return arith::AddFOp::create(
                    nb, nl, arith::MulFOp::create(nb, nl, decay, v[0]), input);
              });
          Value product =
              parallel(b, l, stateShape, compute, {h, ct}, {{0, 1, 2}, {0, 2}},
                       [](OpBuilder &nb, Location nl, ValueRange v) -> Value {
                         return arith::MulFOp::create(nb, nl, v[0], v[1]);
                       });
          Value yt = sumOverDim2(b, l, product);
          return SmallVector<Value>{h, storeStep(b, l, yt, carried[1], t)};
        });
    rewriter.replaceOp(op, convertElements(rewriter, loc, results[1], element));
    return success();
  }
};

/// rlx.gated_delta_net: the loop carries `S [b, h, n, n]` and the output
/// `[b, s, h, n]`. The decay is applied where `S` is read rather than as its
/// own pass: `sk = exp(g) * sum_i S[i, j] k[i]` and the new state
/// `exp(g) * S + k d^T` are one generic each.
struct GatedDeltaNetLowering : OpConversionPattern<GatedDeltaNetOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GatedDeltaNetOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto qType = cast<RankedTensorType>(adaptor.getQ().getType());
    Type element = qType.getElementType();
    Type compute = computeTypeOf(element);
    auto toCompute = [&](Value v) {
      return convertElements(rewriter, loc, v, compute);
    };
    Value q = toCompute(adaptor.getQ()), k = toCompute(adaptor.getK()),
          v = toCompute(adaptor.getV()), g = toCompute(adaptor.getG()),
          beta = toCompute(adaptor.getBeta());
    int64_t batch = qType.getDimSize(0), length = qType.getDimSize(1),
            heads = qType.getDimSize(2), n = op.getStateSize();
    SmallVector<int64_t> stateShape = {batch, heads, n, n};
    SmallVector<int64_t> rowShape = {batch, heads, n};
    Value s0 = adaptor.getState()
                   ? toCompute(adaptor.getState())
                   : buildZeros(rewriter, loc,
                                RankedTensorType::get(stateShape, compute), {});
    Value o0 =
        tensor::EmptyOp::create(rewriter, loc, qType.getShape(), compute);
    double root = std::sqrt(static_cast<double>(n));
    auto index = [&](int64_t i) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, i);
    };
    SmallVector<Value> results = buildForLoop(
        rewriter, loc, index(0), index(length), {s0, o0},
        [&](OpBuilder &b, Location l, Value t, ValueRange carried) {
          Value state = carried[0];
          Value qt = stepOf(b, l, q, t), kt = stepOf(b, l, k, t),
                vt = stepOf(b, l, v, t), gt = stepOf(b, l, g, t),
                bt = stepOf(b, l, beta, t);
          auto mul = [](OpBuilder &nb, Location nl, ValueRange v) -> Value {
            return arith::MulFOp::create(nb, nl, v[0], v[1]);
          };
          // State iteration space (batch, head, i, j); rows are (batch,
          // head, j).
          Value sk =
              sumOverDim2(b, l,
                          parallel(b, l, stateShape, compute, {state, kt},
                                   {{0, 1, 2, 3}, {0, 1, 2}}, mul));
          Value d = parallel(
              b, l, rowShape, compute, {vt, sk, gt, bt},
              {{0, 1, 2}, {0, 1, 2}, {0, 1}, {0, 1}},
              [](OpBuilder &nb, Location nl, ValueRange v) -> Value {
                Value decayed = arith::MulFOp::create(
                    nb, nl, math::ExpOp::create(nb, nl, v[2]), v[1]);
                return arith::MulFOp::create(
                    nb, nl, arith::SubFOp::create(nb, nl, v[0], decayed), v[3]);
              });
          Value next = parallel(
              b, l, stateShape, compute, {state, gt, kt, d},
              {{0, 1, 2, 3}, {0, 1}, {0, 1, 2}, {0, 1, 3}},
              [](OpBuilder &nb, Location nl, ValueRange v) -> Value {
                Value decayed = arith::MulFOp::create(
                    nb, nl, math::ExpOp::create(nb, nl, v[1]), v[0]);
                return arith::AddFOp::create(
                    nb, nl, decayed, arith::MulFOp::create(nb, nl, v[2], v[3]));
              });
          Value sq = sumOverDim2(b, l,
                                 parallel(b, l, stateShape, compute, {next, qt},
                                          {{0, 1, 2, 3}, {0, 1, 2}}, mul));
          Value ot = parallel(
              b, l, rowShape, compute, {sq}, {{0, 1, 2}},
              [&](OpBuilder &nb, Location nl, ValueRange v) -> Value {
                return arith::DivFOp::create(
                    nb, nl, v[0], floatConstant(nb, nl, compute, root));
              });
          return SmallVector<Value>{next, storeStep(b, l, ot, carried[1], t)};
        });
    SmallVector<Value> replacements = {
        convertElements(rewriter, loc, results[1], element)};
    if (op.getCarryState())
      replacements.push_back(
          convertElements(rewriter, loc, results[0], element));
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void rlx::populateSSMToLinalgPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<SelectiveScanLowering, GatedDeltaNetLowering>(
      converter, patterns.getContext());
}
