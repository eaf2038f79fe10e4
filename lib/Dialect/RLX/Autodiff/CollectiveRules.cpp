//===- CollectiveRules.cpp - derivatives of the collectives ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each rank holds its own cotangent of a collective's result; the VJP is the
// adjoint collective: all_reduce sum with itself, all_gather with
// reduce_scatter sum, broadcast with reduce_to_root sum, all_to_all with the
// all_to_all of the swapped dims. mean scales by 1 / group size; max and min
// route the summed cotangent to the ranks holding the extremum, split
// evenly between ties (as rlx.reduce's rule does along axes).
//
//===----------------------------------------------------------------------===//

#include "RuleModel.h"

using namespace mlir;
using namespace mlir::rlx;

namespace mlir {
namespace rlx {

/// The share of the extremum `yLikeX` (the reduced value at the position of
/// each element of `x`) that each rank's element of `x` takes: 1 / (number
/// of ranks holding it) where it holds it, 0 elsewhere.
static Value extremumShare(PrimitiveBuilder &p, Value x, Value yLikeX,
                           GroupAttr group) {
  Type et = elementTypeOf(x);
  Value hits = p.cast(p.compare(CompareKind::Eq, x, yLikeX), et);
  Value ties =
      AllReduceOp::create(p.b, p.loc, CollectiveKind::Sum, hits, group);
  return p.div(hits, p.binary(BinaryKind::Max, ties, p.scalar(et, 1.0)));
}

static Value scaleByGroup(PrimitiveBuilder &p, Value v, GroupAttr group) {
  return p.div(v, p.scalar(elementTypeOf(v), double(group.getGroupSize())));
}

/// The VJP of a reducing collective: `spread` is the VJP of its sum (the
/// adjoint collective applied to the cotangent), `gatherResult` brings the
/// result to the input's layout for max/min.
static Value reducingVJP(CollectiveKind kind, Value x, Value dy,
                         GroupAttr group, PrimitiveBuilder &p,
                         function_ref<Value(Value)> spread,
                         function_ref<Value()> gatherResult) {
  switch (kind) {
  case CollectiveKind::Sum:
    return spread(dy);
  case CollectiveKind::Mean:
    return scaleByGroup(p, spread(dy), group);
  case CollectiveKind::Max:
  case CollectiveKind::Min:
    return p.mul(spread(dy), extremumShare(p, x, gatherResult(), group));
  }
  llvm_unreachable("unknown collective kind");
}

/// The JVP of a reducing collective: `sum` applies its sum to a tangent.
static Value reducingJVP(CollectiveKind kind, Value x, Value tx,
                         GroupAttr group, PrimitiveBuilder &p,
                         function_ref<Value(Value)> sum,
                         function_ref<Value()> gatherResult) {
  switch (kind) {
  case CollectiveKind::Sum:
    return sum(tx);
  case CollectiveKind::Mean:
    return scaleByGroup(p, sum(tx), group);
  case CollectiveKind::Max:
  case CollectiveKind::Min:
    return sum(p.mul(tx, extremumShare(p, x, gatherResult(), group)));
  }
  llvm_unreachable("unknown collective kind");
}

//===----------------------------------------------------------------------===//
// all_reduce
//===----------------------------------------------------------------------===//

static Value allReduceSum(PrimitiveBuilder &p, Value v, GroupAttr group) {
  return AllReduceOp::create(p.b, p.loc, CollectiveKind::Sum, v, group);
}

static LogicalResult vjpRule(AllReduceOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  GroupAttr group = op.getGroup();
  dxs[0] = reducingVJP(
      op.getKind(), op.getInput(), dys[0], group, p,
      [&](Value dy) { return allReduceSum(p, dy, group); },
      [&] { return op.getResult(); });
  return success();
}

static LogicalResult jvpRule(AllReduceOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (!txs[0])
    return success();
  GroupAttr group = op.getGroup();
  tys[0] = reducingJVP(
      op.getKind(), op.getInput(), txs[0], group, p,
      [&](Value t) { return allReduceSum(p, t, group); },
      [&] { return op.getResult(); });
  return success();
}

//===----------------------------------------------------------------------===//
// all_gather, reduce_scatter
//===----------------------------------------------------------------------===//

static LogicalResult vjpRule(AllGatherOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = ReduceScatterOp::create(p.b, p.loc, CollectiveKind::Sum, dys[0],
                                   op.getDim(), op.getGroup());
  return success();
}

static LogicalResult vjpRule(ReduceScatterOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  GroupAttr group = op.getGroup();
  auto gather = [&](Value v) -> Value {
    return AllGatherOp::create(p.b, p.loc, v, op.getDim(), group);
  };
  dxs[0] = reducingVJP(op.getKind(), op.getInput(), dys[0], group, p, gather,
                       [&] { return gather(op.getResult()); });
  return success();
}

static LogicalResult jvpRule(ReduceScatterOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (!txs[0])
    return success();
  GroupAttr group = op.getGroup();
  tys[0] = reducingJVP(
      op.getKind(), op.getInput(), txs[0], group, p,
      [&](Value t) -> Value {
        return ReduceScatterOp::create(p.b, p.loc, CollectiveKind::Sum, t,
                                       op.getDim(), group);
      },
      [&]() -> Value {
        return AllGatherOp::create(p.b, p.loc, op.getResult(), op.getDim(),
                                   group);
      });
  return success();
}

//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

static LogicalResult vjpRule(AllToAllOp op, PrimitiveBuilder &p, ValueRange dys,
                             MutableArrayRef<Value> dxs) {
  dxs[0] = AllToAllOp::create(p.b, p.loc, dys[0], op.getConcatDim(),
                              op.getSplitDim(), op.getGroup());
  return success();
}

//===----------------------------------------------------------------------===//
// broadcast, reduce_to_root
//===----------------------------------------------------------------------===//

static LogicalResult vjpRule(BroadcastOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  dxs[0] = ReduceToRootOp::create(p.b, p.loc, CollectiveKind::Sum, dys[0],
                                  op.getRoot(), op.getGroup());
  return success();
}

static LogicalResult vjpRule(ReduceToRootOp op, PrimitiveBuilder &p,
                             ValueRange dys, MutableArrayRef<Value> dxs) {
  GroupAttr group = op.getGroup();
  auto fromRoot = [&](Value v) -> Value {
    return BroadcastOp::create(p.b, p.loc, v, op.getRoot(), group);
  };
  dxs[0] = reducingVJP(op.getKind(), op.getInput(), dys[0], group, p, fromRoot,
                       [&] { return fromRoot(op.getResult()); });
  return success();
}

static LogicalResult jvpRule(ReduceToRootOp op, PrimitiveBuilder &p,
                             ValueRange txs, MutableArrayRef<Value> tys) {
  if (!txs[0])
    return success();
  GroupAttr group = op.getGroup();
  tys[0] = reducingJVP(
      op.getKind(), op.getInput(), txs[0], group, p,
      [&](Value t) -> Value {
        return ReduceToRootOp::create(p.b, p.loc, CollectiveKind::Sum, t,
                                      op.getRoot(), group);
      },
      [&]() -> Value {
        return BroadcastOp::create(p.b, p.loc, op.getResult(), op.getRoot(),
                                   group);
      });
  return success();
}

void attachCollectiveRules(MLIRContext *ctx) {
  attachRules<AllReduceOp, ReduceScatterOp, ReduceToRootOp>(ctx);
  attachLinearRules<AllGatherOp, AllToAllOp, BroadcastOp>(ctx);
}

} // namespace rlx
} // namespace mlir
