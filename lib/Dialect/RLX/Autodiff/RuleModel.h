//===- RuleModel.h - how a family's rules become an op interface ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each family file writes its rules as overloads
//
//   LogicalResult vjpRule(XOp op, PrimitiveBuilder &p, ValueRange dys,
//                         MutableArrayRef<Value> dxs);
//   LogicalResult jvpRule(XOp op, PrimitiveBuilder &p, ValueRange txs,
//                         MutableArrayRef<Value> tys);
//
// (static, in namespace mlir::rlx) and attaches them with
// `attachRules<XOp, ...>(ctx)`; an op linear in its float operands attaches
// its `vjpRule` with `attachLinearRules` (its JVP is the op on the
// tangents), an op nothing flows through with `attachNoDerivatives`.
// `dxs` / `tys` come in sized and null; a rule fills the entries that
// receive something. An op with a VJP but no `jvpRule` yet gets the
// forward-mode diagnostic below.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_DIALECT_RLX_AUTODIFF_RULEMODEL_H
#define RLX_LIB_DIALECT_RLX_AUTODIFF_RULEMODEL_H

#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace rlx {

/// The static shape of `v`'s ranked tensor type.
inline ArrayRef<int64_t> shapeOf(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getShape();
}
inline Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// Whether every value a rule reads the shape of is static; otherwise the
/// rule reports `op` and fails.
LogicalResult requireStaticShapes(Operation *op, ValueRange values,
                                  StringRef pass);

/// `t`, or zeros of `like`'s type where the tangent is null.
inline Value orZeros(PrimitiveBuilder &p, Value t, Value like) {
  return t ? t : p.zerosLike(like);
}

/// `value` where `lo <= v <= hi`, zeros of its element type elsewhere: the
/// straight-through derivative of a clamp to `[lo, hi]` (or of a saturating
/// rounding, with the bounds half a step outside).
inline Value insideRange(PrimitiveBuilder &p, Value v, double lo, double hi,
                         Value value) {
  Type et = elementTypeOf(v);
  Value zero = p.scalar(elementTypeOf(value), 0.0);
  Value below = p.compare(CompareKind::Ge, v, p.scalar(et, lo));
  Value above = p.compare(CompareKind::Le, v, p.scalar(et, hi));
  return p.where(below, p.where(above, value, zero), zero);
}

/// The sum of `term(i, t_i)` over the operands `i` that have a tangent
/// `t_i`: the JVP of an op with a term per operand (null when none has).
inline Value sumOverTangents(PrimitiveBuilder &p, ValueRange txs,
                             function_ref<Value(unsigned, Value)> term) {
  Value sum;
  for (auto [i, t] : llvm::enumerate(txs)) {
    if (!t)
      continue;
    Value next = term(i, t);
    sum = sum ? p.add(sum, next) : next;
  }
  return sum;
}

/// The JVP of an op that is linear in its `linear` operands: the op itself
/// applied to their tangents (zeros for the null ones), its other operands
/// kept.
inline Value applyToTangents(Operation *op, PrimitiveBuilder &p, ValueRange txs,
                             ArrayRef<unsigned> linear) {
  IRMapping mapping;
  for (unsigned i : linear)
    mapping.map(op->getOperand(i), orZeros(p, txs[i], op->getOperand(i)));
  Operation *clone = p.b.clone(*op, mapping);
  clone->setLoc(p.loc);
  return clone->getResult(0);
}

/// The forward-mode fallback: a diagnostic naming the op.
template <typename OpT>
LogicalResult jvpRule(OpT op, PrimitiveBuilder &, ValueRange,
                      MutableArrayRef<Value>) {
  return op->emitError() << "rlx-jvp: no forward-mode rule for '"
                         << op->getName() << "' yet";
}

/// How an op's forward mode is derived.
enum class JVPKind {
  /// Its own `jvpRule` (or the fallback diagnostic).
  Rule,
  /// The op is linear in every floating-point operand (its other operands
  /// are indices): the JVP is the op applied to the tangents.
  Linear,
};

template <typename OpT, JVPKind Kind>
struct DerivativeRuleModel
    : DifferentiableOpInterface::ExternalModel<DerivativeRuleModel<OpT, Kind>,
                                               OpT> {
  LogicalResult buildVJP(Operation *op, OpBuilder &b, ValueRange dys,
                         SmallVectorImpl<Value> &dxs) const {
    dxs.assign(op->getNumOperands(), Value());
    PrimitiveBuilder p(b, op->getLoc());
    return vjpRule(llvm::cast<OpT>(op), p, dys, dxs);
  }
  LogicalResult buildJVP(Operation *op, OpBuilder &b, ValueRange txs,
                         SmallVectorImpl<Value> &tys) const {
    tys.assign(op->getNumResults(), Value());
    PrimitiveBuilder p(b, op->getLoc());
    if constexpr (Kind == JVPKind::Linear) {
      SmallVector<unsigned> linear;
      for (auto [i, operand] : llvm::enumerate(op->getOperands()))
        if (llvm::isa<FloatType>(elementTypeOf(operand)))
          linear.push_back(i);
      tys[0] = applyToTangents(op, p, txs, linear);
      return success();
    } else {
      return jvpRule(llvm::cast<OpT>(op), p, txs, tys);
    }
  }
};

/// Ops nothing flows through in either mode (compare, stop_gradient,
/// sample): their results are constants of the differentiation.
template <typename OpT>
struct NoDerivativeModel
    : DifferentiableOpInterface::ExternalModel<NoDerivativeModel<OpT>, OpT> {
  LogicalResult buildVJP(Operation *op, OpBuilder &, ValueRange,
                         SmallVectorImpl<Value> &dxs) const {
    dxs.assign(op->getNumOperands(), Value());
    return success();
  }
  LogicalResult buildJVP(Operation *op, OpBuilder &, ValueRange,
                         SmallVectorImpl<Value> &tys) const {
    tys.assign(op->getNumResults(), Value());
    return success();
  }
};

/// Attaches the `vjpRule` / `jvpRule` overloads of each op.
template <typename... OpTs> void attachRules(MLIRContext *ctx) {
  (OpTs::template attachInterface<DerivativeRuleModel<OpTs, JVPKind::Rule>>(
       *ctx),
   ...);
}
/// Attaches the `vjpRule` of each op, with the JVP of a linear op.
template <typename... OpTs> void attachLinearRules(MLIRContext *ctx) {
  (OpTs::template attachInterface<DerivativeRuleModel<OpTs, JVPKind::Linear>>(
       *ctx),
   ...);
}
template <typename... OpTs> void attachNoDerivatives(MLIRContext *ctx) {
  (OpTs::template attachInterface<NoDerivativeModel<OpTs>>(*ctx), ...);
}

/// The registration of each family's rules.
void attachElementwiseRules(MLIRContext *ctx);
void attachLinalgRules(MLIRContext *ctx);
void attachReductionRules(MLIRContext *ctx);
void attachShapeRules(MLIRContext *ctx);
void attachNormalizationRules(MLIRContext *ctx);
void attachAttentionRules(MLIRContext *ctx);
void attachConvPoolRules(MLIRContext *ctx);
void attachBackwardRules(MLIRContext *ctx);
void attachControlFlowRules(MLIRContext *ctx);
void attachQuantizationRules(MLIRContext *ctx);
void attachMoERules(MLIRContext *ctx);
void attachSignalRules(MLIRContext *ctx);
void attachCollectiveRules(MLIRContext *ctx);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_DIALECT_RLX_AUTODIFF_RULEMODEL_H
