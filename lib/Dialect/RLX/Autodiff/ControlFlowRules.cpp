//===- ControlFlowRules.cpp - derivatives of the region ops ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.scan differentiates its body recursively (the sweeps of Sweep.h on a
// copy of it); rlx.custom_fn applies its own vjp / jvp bodies. rlx.if and
// rlx.while reach the rules only where the autodiff unfuse policy could not
// turn them into straight-line selects, and rlx.custom has no way to carry a
// derivative: their rules say why.
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"
#include "rlx/Dialect/RLX/Autodiff/Sweep.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// Clones the ops of `body` at `b`'s insertion point with its arguments bound
/// to `args`; returns what its terminator yields.
static SmallVector<Value> inlineBody(OpBuilder &b, Block &body,
                                     ValueRange args) {
  IRMapping mapping;
  mapping.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  return llvm::map_to_vector(body.getTerminator()->getOperands(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}

static StringRef passOf(bool reverse) {
  return reverse ? "rlx-autodiff" : "rlx-jvp";
}

//===----------------------------------------------------------------------===//
// rlx.if, rlx.while, rlx.custom: diagnostics
//===----------------------------------------------------------------------===//

/// The autodiff policy turns every `rlx.if` without side effects into a
/// select of both branches; the others stay.
static LogicalResult cannotDifferentiate(IfOp op, bool reverse) {
  return op.emitError() << passOf(reverse) << ": cannot differentiate '"
                        << op->getName()
                        << "': a branch has side effects, so it is not "
                           "turned into a select of both branches";
}

/// The autodiff policy unrolls every side-effect-free `rlx.while` with a
/// `max_iterations` bound it accepts; the others stay.
static LogicalResult cannotDifferentiate(WhileOp op, bool reverse) {
  InFlightDiagnostic diag = op.emitError()
                            << passOf(reverse) << ": cannot differentiate '"
                            << op->getName() << "': ";
  if (std::optional<uint64_t> bound = op.getMaxIterations(); !bound)
    diag << "it has no max_iterations, and only a loop with a static trip "
            "bound is unrolled for differentiation";
  else if (!isMemoryEffectFree(op))
    diag << "the loop has side effects, so it is not unrolled";
  else
    diag << "max_iterations = " << *bound
         << " is more iterations than are unrolled for differentiation";
  return diag;
}

static LogicalResult cannotDifferentiate(CustomOp op, bool reverse) {
  return op.emitError() << passOf(reverse) << ": no derivative for '"
                        << op->getName() << "' \"" << op.getName()
                        << "\": the custom op registry carries shape functions "
                           "and CPU kernels, not derivatives (wrap the op in "
                           "rlx.custom_fn with vjp/jvp bodies)";
}

#define RLX_NO_DERIVATIVE_RULES(OpT)                                           \
  static LogicalResult vjpRule(OpT op, PrimitiveBuilder &, ValueRange,         \
                               MutableArrayRef<Value>) {                       \
    return cannotDifferentiate(op, /*reverse=*/true);                          \
  }                                                                            \
  static LogicalResult jvpRule(OpT op, PrimitiveBuilder &, ValueRange,         \
                               MutableArrayRef<Value>) {                       \
    return cannotDifferentiate(op, /*reverse=*/false);                         \
  }
RLX_NO_DERIVATIVE_RULES(IfOp)
RLX_NO_DERIVATIVE_RULES(WhileOp)
RLX_NO_DERIVATIVE_RULES(CustomOp)
#undef RLX_NO_DERIVATIVE_RULES

//===----------------------------------------------------------------------===//
// rlx.custom_fn
//===----------------------------------------------------------------------===//

/// The `vjp` body on `[inputs..., primal output, d_output]`. A custom_fn
/// without one was replaced by its forward body before the sweep.
static LogicalResult vjpRule(CustomFnOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (op.getVjpBody().empty())
    return op.emitError() << "rlx-autodiff: '" << op->getName()
                          << "' has no vjp body";
  SmallVector<Value> args(op.getInputs());
  args.push_back(op.getResult());
  args.push_back(dys[0]);
  llvm::copy(inlineBody(p.b, op.getVjpBody().front(), args), dxs.begin());
  return success();
}

/// The `jvp` body on `[inputs..., tangents... (zeros where none) [, primal
/// output]]`.
static LogicalResult jvpRule(CustomFnOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (op.getJvpBody().empty())
    return op.emitError() << "rlx-jvp: '" << op->getName()
                          << "' has no jvp body";
  Block &body = op.getJvpBody().front();
  SmallVector<Value> args(op.getInputs());
  for (auto [input, t] : llvm::zip_equal(op.getInputs(), txs))
    args.push_back(orZeros(p, t, input));
  if (body.getNumArguments() > args.size())
    args.push_back(op.getResult());
  tys[0] = inlineBody(p.b, body, args).front();
  return success();
}

//===----------------------------------------------------------------------===//
// rlx.scan
//===----------------------------------------------------------------------===//

/// `v` of shape `s` as `[1, *s]`.
static Value asRow(PrimitiveBuilder &p, Value v) {
  SmallVector<int64_t> shape = {1};
  llvm::append_range(shape, shapeOf(v));
  return p.reshape(v, shape);
}

/// Fills `region` with the VJP of the scan body `forward`: block arguments
/// `[carry, x_t..., d_output]` (a broadcast operand is a per-step input of
/// the backward ops), the body recomputed on them, its reverse sweep seeded
/// with `d_output`, yielding `[dcarry, dx_t...]` (zeros where nothing
/// flows).
static LogicalResult buildBodyVJP(Block &forward, Region &region,
                                  Location loc) {
  OpBuilder b(loc.getContext());
  Block *block = b.createBlock(&region);
  for (BlockArgument arg : forward.getArguments())
    block->addArgument(arg.getType(), loc);
  Value dOutput = block->addArgument(forward.getArgument(0).getType(), loc);
  ValueRange inputs = block->getArguments().drop_back();
  Value output = inlineBody(b, forward, inputs).front();
  auto yield = YieldOp::create(b, loc);
  b.setInsertionPoint(yield);
  SmallVector<Value> wrt = llvm::filter_to_vector(inputs, isDifferentiable);
  FailureOr<SmallVector<Value>> grads =
      reverseSweep(*block, b, output, dOutput, wrt, "rlx-autodiff");
  if (failed(grads))
    return failure();
  PrimitiveBuilder p(b, loc);
  SmallVector<Value> results;
  auto grad = grads->begin();
  for (Value input : inputs) {
    Value g = isDifferentiable(input) ? *grad++ : Value();
    results.push_back(orZeros(p, g, input));
  }
  yield->setOperands(results);
  eraseDeadOps(*block);
  return success();
}

/// Reverse mode by the dialect's backward ops: `rlx.scan_backward` for the
/// initial carry, one `rlx.scan_backward_xs` per float per-step or broadcast
/// operand, each running the body's VJP (built recursively) from the last
/// step to the first over the carries the forward scan saved. A broadcast
/// operand is expanded to a per-step input for them and its gradient summed
/// over the steps. With checkpoints the forward body travels along to
/// recompute the carries between them, and the cotangent of the saved rows
/// is spread to their steps.
static LogicalResult vjpRule(ScanOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  if (failed(requireStaticShapes(op, op->getOperands(), "rlx-autodiff")) ||
      failed(requireStaticShapes(op, op.getResult(), "rlx-autodiff")))
    return failure();
  if (!op.getSaveTrajectory())
    return op.emitError() << "rlx-autodiff: '" << op->getName()
                          << "' must save its trajectory to be differentiated";
  int64_t length = op.getLength(), rows = shapeOf(op.getResult())[0];
  ArrayRef<int64_t> carry = shapeOf(op.getInit());
  SmallVector<Value> steps;
  for (Value bcast : op.getBcasts()) {
    SmallVector<int64_t> shape = {length};
    llvm::append_range(shape, shapeOf(bcast));
    steps.push_back(p.broadcastTo(asRow(p, bcast), shape));
  }
  llvm::append_range(steps, op.getXs());
  // The cotangent of every step's carry; rows that were not kept get none.
  Value upstream = dys[0];
  if (rows < length) {
    SmallVector<Value> pieces;
    for (int64_t t = 0; t < rows; ++t) {
      pieces.push_back(p.narrow(dys[0], 0, t, 1));
      int64_t next = t + 1 < rows ? (t + 1) * length / rows : length;
      int64_t gap = next - t * length / rows - 1;
      if (gap == 0)
        continue;
      SmallVector<int64_t> shape = {gap};
      llvm::append_range(shape, carry);
      pieces.push_back(p.splat(shape, elementTypeOf(op.getInit()), 0.0));
    }
    upstream = ConcatOp::create(p.b, p.loc, pieces, p.b.getI64IntegerAttr(0));
  }
  Block &forward = op.getBody().front();
  Region *bodyVJP = nullptr;
  auto attach = [&](Operation *backward) -> LogicalResult {
    Region &region = backward->getRegion(0);
    if (bodyVJP) {
      IRMapping mapping;
      bodyVJP->cloneInto(&region, region.end(), mapping);
    } else if (failed(buildBodyVJP(forward, region, op.getLoc())))
      return failure();
    bodyVJP = &region;
    if (rows < length) {
      IRMapping mapping;
      op.getBody().cloneInto(&backward->getRegion(1), mapping);
    }
    return success();
  };
  auto checkpoints = op.getNumCheckpointsAttr();
  UnitAttr saved = p.b.getUnitAttr();
  if (isDifferentiable(op.getInit())) {
    auto backward = ScanBackwardOp::create(
        p.b, p.loc, op.getInit().getType(), op.getInit(), op.getResult(),
        upstream, steps, op.getLengthAttr(), saved, checkpoints);
    if (failed(attach(backward)))
      return failure();
    dxs[0] = backward;
  }
  unsigned numBcast = op.getNumBcast();
  for (auto [i, step] : llvm::enumerate(steps)) {
    if (!isDifferentiable(step))
      continue;
    auto backward = ScanBackwardXsOp::create(
        p.b, p.loc, step.getType(), op.getInit(), op.getResult(), upstream,
        steps, op.getLengthAttr(), saved, checkpoints,
        p.b.getI64IntegerAttr(i));
    if (failed(attach(backward)))
      return failure();
    dxs[1 + i] = i < numBcast ? p.reduce(ReduceKind::Sum, backward, {0},
                                         /*keepDim=*/false)
                              : Value(backward);
  }
  return success();
}

/// Forward mode: one scan over the pair `[carry, tangent]` stacked on a new
/// leading axis, reading the operands' tangents as extra broadcast and
/// per-step inputs; its body is the forward body followed by its JVP (built
/// recursively). The tangent is the second half of the result (of every
/// saved row).
static LogicalResult jvpRule(ScanOp op, PrimitiveBuilder &p, ValueRange txs,
                             MutableArrayRef<Value> tys) {
  if (failed(requireStaticShapes(op, op.getInit(), "rlx-jvp")) ||
      failed(requireStaticShapes(op, op.getResult(), "rlx-jvp")))
    return failure();
  Value init = op.getInit();
  ArrayRef<int64_t> carry = shapeOf(init);
  unsigned numBcast = op.getNumBcast();
  SmallVector<Value> tangents(txs);
  ArrayRef<Value> bcastTangents = ArrayRef(tangents).slice(1, numBcast),
                  xsTangents = ArrayRef(tangents).drop_front(1 + numBcast);
  SmallVector<Value> bcasts(op.getBcasts()), xs(op.getXs());
  for (Value t : bcastTangents)
    if (t)
      bcasts.push_back(t);
  for (Value t : xsTangents)
    if (t)
      xs.push_back(t);
  Value pair = ConcatOp::create(
      p.b, p.loc,
      ValueRange{asRow(p, init), asRow(p, orZeros(p, txs[0], init))},
      p.b.getI64IntegerAttr(0));
  SmallVector<int64_t> resultShape = {2};
  llvm::append_range(resultShape, carry);
  if (op.getSaveTrajectory())
    resultShape.insert(resultShape.begin(), shapeOf(op.getResult())[0]);
  auto scan =
      ScanOp::create(p.b, p.loc, op.getResult().getType().clone(resultShape),
                     pair, bcasts, xs, op.getLengthAttr(),
                     op.getSaveTrajectoryAttr(), op.getNumCheckpointsAttr());

  // The body: [pair, bcasts..., their tangents..., x_t..., their
  // tangents...].
  Block &forward = op.getBody().front();
  OpBuilder b(op.getContext());
  Block *block = b.createBlock(&scan.getBody());
  Location loc = op.getLoc();
  block->addArgument(pair.getType(), loc);
  for (Value v : bcasts)
    block->addArgument(v.getType(), loc);
  for (Value v : xs)
    block->addArgument(llvm::cast<RankedTensorType>(v.getType())
                           .clone(shapeOf(v).drop_front()),
                       loc);
  PrimitiveBuilder q(b, loc);
  Value c = q.reshape(q.narrow(block->getArgument(0), 0, 0, 1), carry);
  Value tc = q.reshape(q.narrow(block->getArgument(0), 0, 1, 1), carry);
  SmallVector<Value> args = {c};
  DenseMap<Value, Value> bodyTangents;
  unsigned next = 1;
  for (unsigned i = 0; i < numBcast; ++i)
    args.push_back(block->getArgument(next++));
  SmallVector<Value> tangentArgs = {tc};
  for (Value t : bcastTangents)
    tangentArgs.push_back(t ? block->getArgument(next++) : Value());
  for (unsigned i = 0; i < op.getNumXs(); ++i)
    args.push_back(block->getArgument(next++));
  for (Value t : xsTangents)
    tangentArgs.push_back(t ? block->getArgument(next++) : Value());
  Value output = inlineBody(b, forward, args).front();
  auto yield = YieldOp::create(b, loc);
  // Map the forward body's arguments' copies to their tangents.
  for (auto [arg, t] : llvm::zip_equal(args, tangentArgs))
    if (t && isDifferentiable(arg))
      bodyTangents[arg] = t;
  if (failed(forwardSweep(*block, bodyTangents, "rlx-jvp")))
    return failure();
  b.setInsertionPoint(yield);
  Value tOutput = orZeros(q, bodyTangents.lookup(output), output);
  yield->setOperands(
      ConcatOp::create(b, loc, ValueRange{asRow(q, output), asRow(q, tOutput)},
                       b.getI64IntegerAttr(0))
          .getResult());
  eraseDeadOps(*block);

  int64_t axis = op.getSaveTrajectory() ? 1 : 0;
  tys[0] = p.reshape(p.narrow(scan, axis, 1, 1), shapeOf(op.getResult()));
  return success();
}

void attachControlFlowRules(MLIRContext *ctx) {
  attachRules<IfOp, WhileOp, CustomOp, CustomFnOp, ScanOp>(ctx);
}

} // namespace rlx
} // namespace mlir
