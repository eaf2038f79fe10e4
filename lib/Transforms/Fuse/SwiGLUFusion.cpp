//===- SwiGLUFusion.cpp - rlx-fuse: SwiGLU --------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `mul(silu(gate), up)` -> rlx.fused_swiglu, where gate and up are either
// the two halves of one value's last axis (the inverse of UnfuseSwiGLU) or
// two projections of one input (fused into one projection of twice the
// width). A `cast` of the result then folds into `cast_to`.
//
//===----------------------------------------------------------------------===//

#include "FusionPatterns.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kFusedSwiGLU = "rlx.fused_swiglu";

/// `mul(silu(gate), up)` in either operand order, with gate and up produced
/// by `ProducerOp`. Subclasses check that the two producers are the halves
/// of one `[..., 2H]` value and build that value.
template <typename ProducerOp>
struct FuseGatedProduct : FusionPattern<BinaryOp> {
  FuseGatedProduct(MLIRContext *ctx, bool report, StringRef part)
      : FusionPattern(ctx, report), part(part) {}

  /// Why `gate` and `up` are not two halves of one value, or "".
  virtual StringRef whyNotHalves(ProducerOp gate, ProducerOp up) const = 0;
  /// The `[..., 2H]` value and whether the gate is its low half.
  virtual std::pair<Value, bool> buildInput(PatternRewriter &rewriter,
                                            Location loc, ProducerOp gate,
                                            ProducerOp up) const = 0;

  LogicalResult matchAndRewrite(BinaryOp mul,
                                PatternRewriter &rewriter) const override {
    if (mul.getKind() != BinaryKind::Mul)
      return failure();
    for (int i = 0; i < 2; ++i) {
      auto act = mul->getOperand(i).getDefiningOp<ActivationOp>();
      auto up = mul->getOperand(1 - i).getDefiningOp<ProducerOp>();
      auto gate =
          act ? act.getInput().getDefiningOp<ProducerOp>() : ProducerOp();
      if (!gate || !up)
        continue;
      std::string why = whyNot(mul, act, gate, up);
      if (!why.empty())
        return nearMiss(mul, rewriter, kFusedSwiGLU, why);
      Location loc = rewriter.getFusedLoc(
          {gate.getLoc(), up.getLoc(), act.getLoc(), mul.getLoc()});
      rewriter.setInsertionPoint(mul);
      auto [input, gateFirst] = buildInput(rewriter, loc, gate, up);
      rewriter.replaceOp(mul, FusedSwiGLUOp::create(rewriter, loc, input,
                                                    TypeAttr(), gateFirst));
      rewriter.eraseOp(act);
      rewriter.eraseOp(gate);
      rewriter.eraseOp(up);
      return success();
    }
    return failure();
  }

private:
  std::string whyNot(BinaryOp mul, ActivationOp act, ProducerOp gate,
                     ProducerOp up) const {
    if (act.getKind() != ActivationKind::Silu)
      return "the activation is not silu";
    if (StringRef why = whyNotHalves(gate, up); !why.empty())
      return why.str();
    // Swallowing a value with other uses would compute it twice.
    if (!gate->hasOneUse())
      return ("the gate " + part + " has other uses").str();
    if (!act->hasOneUse())
      return "the silu result has other uses";
    if (!up->hasOneUse())
      return ("the up " + part + " has other uses").str();
    // The verifier gives silu a float type of the ones fused_swiglu takes;
    // the three values must share it (no broadcast, no type change).
    Type type = up.getType();
    if (gate.getType() != type || mul.getType() != type)
      return "gate, up and the product do not have one type";
    return "";
  }

  StringRef part;
};

/// up = narrow(x, last, 0, H), gate = narrow(x, last, H, H) (or the halves
/// swapped: gate_first), x's last dim 2H.
struct FuseNarrowSwiGLU : FuseGatedProduct<NarrowOp> {
  FuseNarrowSwiGLU(MLIRContext *ctx, bool report)
      : FuseGatedProduct(ctx, report, "half") {}

  StringRef whyNotHalves(NarrowOp gate, NarrowOp up) const override {
    Value x = gate.getInput();
    if (up.getInput() != x)
      return "the narrows split different tensors";
    auto type = cast<RankedTensorType>(x.getType());
    int64_t last = type.getRank() - 1, width = type.getDimSize(last);
    int64_t half = width / 2;
    auto isHalf = [&](NarrowOp narrow, int64_t start) {
      int64_t axis = narrow.getAxisAttr().getInt();
      return (axis == -1 || axis == last) &&
             narrow.getStartAttr().getInt() == start &&
             narrow.getLenAttr().getInt() == half;
    };
    bool halves = !type.isDynamicDim(last) && width % 2 == 0 && half > 0 &&
                  ((isHalf(up, 0) && isHalf(gate, half)) ||
                   (isHalf(gate, 0) && isHalf(up, half)));
    return halves ? "" : "not split in halves of the last axis";
  }

  std::pair<Value, bool> buildInput(PatternRewriter &, Location, NarrowOp gate,
                                    NarrowOp) const override {
    return {gate.getInput(), gate.getStartAttr().getInt() == 0};
  }
};

/// silu(x @ Wg) * (x @ Wu) -> fused_swiglu(x @ concat(Wu, Wg)). One GEMM of
/// width 2H instead of two of width H reads x once and gives the GEMM kernel
/// a wider N to tile (one call, better cache reuse of x's rows); the SwiGLU
/// epilogue then reads both halves from the one result. The weight concat
/// does not depend on x, so constant weights fold it once.
struct FuseDualMatMulSwiGLU : FuseGatedProduct<MatMulOp> {
  FuseDualMatMulSwiGLU(MLIRContext *ctx, bool report)
      : FuseGatedProduct(ctx, report, "projection") {}

  StringRef whyNotHalves(MatMulOp gate, MatMulOp up) const override {
    if (gate.getLhs() != up.getLhs())
      return "the matmuls read different inputs";
    auto type = gate.getRhs().getType();
    if (type.getRank() != 2 || up.getRhs().getType() != type ||
        type.isDynamicDim(1))
      return "the weights are not two [K, H] matrices of one type";
    return "";
  }

  std::pair<Value, bool> buildInput(PatternRewriter &rewriter, Location loc,
                                    MatMulOp gate, MatMulOp up) const override {
    // Up in the low half and gate in the high half: the default layout.
    Value weight =
        ConcatOp::create(rewriter, loc, ValueRange{up.getRhs(), gate.getRhs()},
                         rewriter.getI64IntegerAttr(1));
    return {MatMulOp::create(rewriter, loc, gate.getLhs(), weight), false};
  }
};

/// cast(fused_swiglu) -> fused_swiglu cast_to: the op's cast_to is defined
/// as this cast of its result.
struct FuseSwiGLUCast : FusionPattern<CastOp> {
  using FusionPattern::FusionPattern;
  LogicalResult matchAndRewrite(CastOp castOp,
                                PatternRewriter &rewriter) const override {
    auto swiglu = castOp.getInput().getDefiningOp<FusedSwiGLUOp>();
    if (!swiglu || swiglu.getCastTo())
      return failure();
    if (!swiglu->hasOneUse())
      return nearMiss(castOp, rewriter, kFusedSwiGLU,
                      "the pre-cast result has other uses");
    Type to = castOp.getTo();
    if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type,
             Float8E4M3FNType, Float8E5M2Type>(to))
      return nearMiss(castOp, rewriter, kFusedSwiGLU,
                      "the cast target is not a float type cast_to takes");
    Location loc = rewriter.getFusedLoc({swiglu.getLoc(), castOp.getLoc()});
    rewriter.replaceOp(castOp, FusedSwiGLUOp::create(
                                   rewriter, loc, swiglu.getInput(),
                                   TypeAttr::get(to), swiglu.getGateFirst()));
    rewriter.eraseOp(swiglu);
    return success();
  }
};

} // namespace

void rlx::populateSwiGLUFusionPatterns(RewritePatternSet &patterns,
                                       bool report) {
  patterns.add<FuseNarrowSwiGLU, FuseDualMatMulSwiGLU, FuseSwiGLUCast>(
      patterns.getContext(), report);
}
