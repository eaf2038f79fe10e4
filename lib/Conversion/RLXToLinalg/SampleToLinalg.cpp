//===- SampleToLinalg.cpp - rlx.sample to scf loops -----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.sample follows its description step by step, one row per iteration of
// an scf.for, in scalar scf loops on tensors (sorting and prefix scans do
// not fit linalg):
//
// 1. z = logits / temperature for the whole tensor (a linalg.generic), in
//    f32 for f16/bf16 logits, else in their type;
// 2. the ids of the row sorted by (z descending, id ascending) with a
//    bottom-up merge sort; the first top_k (or all) are kept;
// 3. p = exp(z - max) / sum over the kept ids, summed in that order;
// 4. the kept ids sorted again by (p descending, id ascending), the order
//    the description defines (equal p with different z is possible after
//    rounding); with top_p < 1 the prefix is cut where the running sum of
//    p first reaches top_p (all kept ids if rounding never gets there) and
//    its probabilities are divided by that sum;
// 5. u = w * 2^-32 from Philox-4x32-10 (key = the seed, low word first;
//    seed 0 means 0xDEADBEEF; counter (row, 0, 0, 0)); the result is the
//    first id of the prefix whose running sum of probabilities, compared in
//    f64, exceeds u, or the last one if rounding keeps every sum below u.
//
// The two sorts cost O(vocab log vocab) comparisons per row.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

Value index(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value i32Constant(OpBuilder &b, Location loc, uint32_t value) {
  return arith::ConstantOp::create(
      b, loc, b.getI32IntegerAttr(static_cast<int32_t>(value)));
}

/// The high and low 32 bits of the 64-bit product `multiplier * x`.
std::pair<Value, Value> mulHiLo(OpBuilder &b, Location loc, uint32_t multiplier,
                                Value x) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  Value product = arith::MulIOp::create(
      b, loc, arith::ExtUIOp::create(b, loc, i64, x),
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(multiplier)));
  Value high = arith::ShRUIOp::create(
      b, loc, product,
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32)));
  return {arith::TruncIOp::create(b, loc, i32, high),
          arith::TruncIOp::create(b, loc, i32, product)};
}

/// The first output word of Philox-4x32-10 for counter `(row, 0, 0, 0)`
/// and the 64-bit `key` (Salmon et al., SC'11); the round keys are
/// constants.
Value philoxFirstWord(OpBuilder &b, Location loc, Value row, uint64_t key) {
  constexpr uint32_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57;
  constexpr uint32_t kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  Value rowI64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), row);
  Value zero = i32Constant(b, loc, 0);
  Value c[4] = {arith::TruncIOp::create(b, loc, b.getI32Type(), rowI64), zero,
                zero, zero};
  uint32_t k0 = static_cast<uint32_t>(key), k1 = key >> 32;
  for (int round = 0; round < 10; ++round) {
    auto [hi0, lo0] = mulHiLo(b, loc, kM0, c[0]);
    auto [hi1, lo1] = mulHiLo(b, loc, kM1, c[2]);
    Value next0 =
        arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, hi1, c[1]),
                              i32Constant(b, loc, k0));
    Value next2 =
        arith::XOrIOp::create(b, loc, arith::XOrIOp::create(b, loc, hi0, c[3]),
                              i32Constant(b, loc, k1));
    c[0] = next0;
    c[1] = lo1;
    c[2] = next2;
    c[3] = lo0;
    k0 += kW0;
    k1 += kW1;
  }
  return c[0];
}

/// u = w * 2^-32 in [0, 1), exact in f64.
Value uniformOf(OpBuilder &b, Location loc, Value word) {
  Type f64 = b.getF64Type();
  Value asFloat = arith::UIToFPOp::create(b, loc, f64, word);
  return arith::MulFOp::create(b, loc, asFloat,
                               floatConstant(b, loc, f64, 0x1p-32));
}

/// `!value` for an i1.
Value negate(OpBuilder &b, Location loc, Value value) {
  return arith::XOrIOp::create(
      b, loc, value, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
}

/// `condition && !found`: the first position of a scan where it holds.
Value firstHit(OpBuilder &b, Location loc, Value condition, Value found) {
  return arith::AndIOp::create(b, loc, condition, negate(b, loc, found));
}

/// True when id `a` sorts before id `b` (both i64).
using Before = function_ref<Value(OpBuilder &, Location, Value, Value)>;

/// `(keyA > keyB) || (keyA == keyB && a < b)`: descending keys, ties by
/// smaller id.
Value descendingThenById(OpBuilder &b, Location loc, Value keyA, Value keyB,
                         Value a, Value bId) {
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, keyA, keyB);
  Value equal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, keyA, keyB);
  Value smallerId =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, bId);
  return arith::OrIOp::create(b, loc, greater,
                              arith::AndIOp::create(b, loc, equal, smallerId));
}

Value minIndex(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::MinUIOp::create(b, loc, lhs, rhs);
}

Value extractAt(OpBuilder &b, Location loc, Value tensor, Value position) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{position});
}

/// Merges the sorted runs `src[lo, mid)` and `src[mid, hi)` into
/// `dst[lo, hi)`. Indices past a run are clamped to a valid position and
/// their reads ignored.
Value mergeRuns(OpBuilder &b, Location loc, Value src, Value dst, Value lo,
                Value mid, Value hi, Value last, Before before) {
  Value one = index(b, loc, 1);
  return buildForLoop(
             b, loc, lo, hi, {lo, mid, dst},
             [&](OpBuilder &b, Location loc, Value k, ValueRange state) {
               Value i = state[0], j = state[1];
               Value left = extractAt(b, loc, src, minIndex(b, loc, i, last));
               Value right = extractAt(b, loc, src, minIndex(b, loc, j, last));
               Value leftLive = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::ult, i, mid);
               Value rightDone = arith::CmpIOp::create(
                   b, loc, arith::CmpIPredicate::uge, j, hi);
               Value rightFirst = before(b, loc, right, left);
               Value takeLeft = arith::AndIOp::create(
                   b, loc, leftLive,
                   arith::OrIOp::create(b, loc, rightDone,
                                        negate(b, loc, rightFirst)));
               Value taken =
                   arith::SelectOp::create(b, loc, takeLeft, left, right);
               Value written = tensor::InsertOp::create(b, loc, taken, state[2],
                                                        ValueRange{k});
               Value nextI = arith::SelectOp::create(
                   b, loc, takeLeft, arith::AddIOp::create(b, loc, i, one), i);
               Value nextJ = arith::SelectOp::create(
                   b, loc, takeLeft, j, arith::AddIOp::create(b, loc, j, one));
               return SmallVector<Value>{nextI, nextJ, written};
             })
      .back();
}

/// `ids[0, length)` sorted by `before` (bottom-up merge sort; the entries
/// from `length` on are not kept).
Value mergeSort(OpBuilder &b, Location loc, Value ids, Value length,
                Before before) {
  auto type = cast<RankedTensorType>(ids.getType());
  SmallVector<Value> dynamicSizes;
  if (Value size = dynamicDimOf(b, loc, ids, 0))
    dynamicSizes.push_back(size);
  Value scratch = tensor::EmptyOp::create(b, loc, type, dynamicSizes);
  Value one = index(b, loc, 1);
  Value last = arith::SubIOp::create(
      b, loc, arith::MaxUIOp::create(b, loc, length, one), one);
  Type indexType = b.getIndexType();
  SmallVector<Type> types = {indexType, type, type};
  auto loop = scf::WhileOp::create(
      b, loc, types, ValueRange{one, ids, scratch},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           args[0], length);
        scf::ConditionOp::create(b, loc, more, args);
      },
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value width = args[0];
        Value span = arith::AddIOp::create(b, loc, width, width);
        Value zero = index(b, loc, 0);
        Value runs =
            arith::CeilDivUIOp::create(b, loc, length, span); // run pairs
        Value merged =
            buildForLoop(
                b, loc, zero, runs, {args[2]},
                [&](OpBuilder &b, Location loc, Value pair, ValueRange dst) {
                  Value lo = arith::MulIOp::create(b, loc, pair, span);
                  Value mid = minIndex(
                      b, loc, arith::AddIOp::create(b, loc, lo, width), length);
                  Value hi = minIndex(
                      b, loc, arith::AddIOp::create(b, loc, lo, span), length);
                  return SmallVector<Value>{mergeRuns(
                      b, loc, args[1], dst[0], lo, mid, hi, last, before)};
                })
                .front();
        scf::YieldOp::create(b, loc, ValueRange{span, merged, args[1]});
      });
  return loop.getResult(1);
}

/// The probability at sorted position `q`.
using ProbabilityAt = function_ref<Value(OpBuilder &, Location, Value)>;

/// The length of the shortest prefix of the `kept` sorted probabilities
/// whose running sum reaches `topP`, and that sum; all of them and their
/// sum when rounding keeps the sum below `topP`.
std::pair<Value, Value> topPPrefix(OpBuilder &b, Location loc, Value kept,
                                   Type computeType, double topP,
                                   ProbabilityAt pAt) {
  Value zero = index(b, loc, 0), one = index(b, loc, 1);
  Value threshold = floatConstant(b, loc, computeType, topP);
  Value zeroSum = floatConstant(b, loc, computeType, 0.0);
  Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  SmallVector<Value> scan = buildForLoop(
      b, loc, zero, kept, {zeroSum, kept, zeroSum, falseValue},
      [&](OpBuilder &b, Location loc, Value q, ValueRange state) {
        Value cumulative =
            arith::AddFOp::create(b, loc, state[0], pAt(b, loc, q));
        Value reaches = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE,
                                              cumulative, threshold);
        Value hit = firstHit(b, loc, reaches, state[3]);
        Value length = arith::AddIOp::create(b, loc, q, one);
        return SmallVector<Value>{
            cumulative, arith::SelectOp::create(b, loc, hit, length, state[1]),
            arith::SelectOp::create(b, loc, hit, cumulative, state[2]),
            arith::OrIOp::create(b, loc, state[3], hit)};
      });
  Value mass = arith::SelectOp::create(b, loc, scan[3], scan[2], scan[0]);
  return {scan[1], mass};
}

/// The attributes of the op, as the row loop needs them.
struct SampleParams {
  Type computeType;
  int64_t topK;
  double topP;
  uint64_t key;
};

/// The id drawn for row `row` of `z` (logits / temperature, `[B, V]`).
Value sampleRow(OpBuilder &b, Location loc, Value z, Value row, Value vocab,
                const SampleParams &params) {
  Type ct = params.computeType, i64 = b.getI64Type();
  Value zero = index(b, loc, 0), one = index(b, loc, 1);
  auto toIndex = [&](OpBuilder &b, Location loc, Value id) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), id);
  };
  auto zOf = [&](OpBuilder &b, Location loc, Value id) -> Value {
    return tensor::ExtractOp::create(b, loc, z,
                                     ValueRange{row, toIndex(b, loc, id)});
  };

  // Step 2: the ids by descending z.
  SmallVector<Value> dynamicSizes;
  if (Value size = dynamicDimOf(b, loc, z, 1))
    dynamicSizes.push_back(size);
  auto idsType = RankedTensorType::get(
      {cast<RankedTensorType>(z.getType()).getDimSize(1)}, i64);
  Value ids = tensor::EmptyOp::create(b, loc, idsType, dynamicSizes);
  ids = buildForLoop(b, loc, zero, vocab, {ids},
                     [&](OpBuilder &b, Location loc, Value i, ValueRange acc) {
                       Value id = arith::IndexCastOp::create(b, loc, i64, i);
                       return SmallVector<Value>{tensor::InsertOp::create(
                           b, loc, id, acc[0], ValueRange{i})};
                     })
            .front();
  Value byZ = mergeSort(
      b, loc, ids, vocab, [&](OpBuilder &b, Location loc, Value l, Value r) {
        return descendingThenById(b, loc, zOf(b, loc, l), zOf(b, loc, r), l, r);
      });
  Value kept = vocab;
  if (params.topK > 0) {
    // The verifier bounds top_k by a static vocab only.
    std::optional<int64_t> staticVocab = getConstantIntValue(vocab);
    kept = staticVocab ? index(b, loc, std::min(params.topK, *staticVocab))
                       : minIndex(b, loc, index(b, loc, params.topK), vocab);
  }

  // Step 3: softmax over the kept ids.
  Value max = zOf(b, loc, extractAt(b, loc, byZ, zero));
  auto expOf = [&](OpBuilder &b, Location loc, Value q) -> Value {
    Value shifted = arith::SubFOp::create(
        b, loc, zOf(b, loc, extractAt(b, loc, byZ, q)), max);
    return math::ExpOp::create(b, loc, shifted);
  };
  Value sum =
      buildForLoop(b, loc, zero, kept, {floatConstant(b, loc, ct, 0.0)},
                   [&](OpBuilder &b, Location loc, Value q, ValueRange acc) {
                     return SmallVector<Value>{arith::AddFOp::create(
                         b, loc, acc[0], expOf(b, loc, q))};
                   })
          .front();
  auto probsType = RankedTensorType::get(idsType.getShape(), ct);
  Value probs = tensor::EmptyOp::create(b, loc, probsType, dynamicSizes);
  probs =
      buildForLoop(b, loc, zero, kept, {probs},
                   [&](OpBuilder &b, Location loc, Value q, ValueRange acc) {
                     Value p =
                         arith::DivFOp::create(b, loc, expOf(b, loc, q), sum);
                     Value at = toIndex(b, loc, extractAt(b, loc, byZ, q));
                     return SmallVector<Value>{tensor::InsertOp::create(
                         b, loc, p, acc[0], ValueRange{at})};
                   })
          .front();
  auto pOf = [&](OpBuilder &b, Location loc, Value id) -> Value {
    return tensor::ExtractOp::create(b, loc, probs,
                                     ValueRange{toIndex(b, loc, id)});
  };

  // Step 4: the kept ids by descending p, and the top_p prefix.
  Value byP = mergeSort(
      b, loc, byZ, kept, [&](OpBuilder &b, Location loc, Value l, Value r) {
        return descendingThenById(b, loc, pOf(b, loc, l), pOf(b, loc, r), l, r);
      });
  auto pAt = [&](OpBuilder &b, Location loc, Value q) {
    return pOf(b, loc, extractAt(b, loc, byP, q));
  };
  Value prefix = kept, mass = floatConstant(b, loc, ct, 1.0);
  if (params.topP < 1.0)
    std::tie(prefix, mass) = topPPrefix(b, loc, kept, ct, params.topP, pAt);

  // Step 5: inverse CDF over the prefix.
  Value u = uniformOf(b, loc, philoxFirstWord(b, loc, row, params.key));
  Value lastOfPrefix = arith::SubIOp::create(b, loc, prefix, one);
  Value falseValue = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  SmallVector<Value> chosen = buildForLoop(
      b, loc, zero, prefix,
      {floatConstant(b, loc, ct, 0.0), lastOfPrefix, falseValue},
      [&](OpBuilder &b, Location loc, Value q, ValueRange state) {
        Value p = arith::DivFOp::create(b, loc, pAt(b, loc, q), mass);
        Value cumulative = arith::AddFOp::create(b, loc, state[0], p);
        Value exceeds = arith::CmpFOp::create(
            b, loc, arith::CmpFPredicate::OGT,
            extendTo(b, loc, b.getF64Type(), cumulative), u);
        Value hit = firstHit(b, loc, exceeds, state[2]);
        return SmallVector<Value>{
            cumulative, arith::SelectOp::create(b, loc, hit, q, state[1]),
            arith::OrIOp::create(b, loc, state[2], hit)};
      });
  return extractAt(b, loc, byP, chosen[1]);
}

struct SampleLowering : OpConversionPattern<SampleOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits();
    auto logitsType = cast<RankedTensorType>(logits.getType());
    // There is no id to draw from an empty row.
    if (logitsType.getDimSize(1) == 0)
      return rewriter.notifyMatchFailure(op, "empty vocabulary");
    SampleParams params;
    params.computeType = computeTypeOf(logitsType.getElementType());
    params.topK = op.getTopK();
    params.topP = op.getTopP().convertToDouble();
    // seed 0 is the fixed default key, not fresh randomness.
    params.key =
        op.getSeed() == 0 ? 0xDEADBEEFull : static_cast<uint64_t>(op.getSeed());
    Type ct = params.computeType;
    Value temperature =
        floatConstant(rewriter, loc, ct, op.getTemperature().convertToDouble());
    Value z = buildBroadcastElementwise(
        rewriter, loc, logitsType.clone(ct), {logits},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::DivFOp::create(b, loc, extendTo(b, loc, ct, args[0]),
                                       temperature);
        });

    Value batch = dimSizeOf(rewriter, loc, logits, 0);
    Value vocab = dimSizeOf(rewriter, loc, logits, 1);
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<Value> dynamicSizes;
    if (Value size = dynamicDimOf(rewriter, loc, logits, 0))
      dynamicSizes.push_back(size);
    Value result =
        tensor::EmptyOp::create(rewriter, loc, resultType, dynamicSizes);
    result = buildForLoop(
                 rewriter, loc, index(rewriter, loc, 0), batch, {result},
                 [&](OpBuilder &b, Location loc, Value row, ValueRange acc) {
                   Value id = sampleRow(b, loc, z, row, vocab, params);
                   return SmallVector<Value>{tensor::InsertOp::create(
                       b, loc, id, acc[0], ValueRange{row})};
                 })
                 .front();
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateSampleToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<SampleLowering>(converter, patterns.getContext());
}
