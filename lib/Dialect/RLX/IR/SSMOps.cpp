//===- SSMOps.cpp - state-space and linear-attention recurrences ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerSSMOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXSSMOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Checks `actual` against `expected` dim by dim (dynamic dims match
/// anything) and reports `name` with both shapes and the layout.
static LogicalResult expectShape(Operation *op, StringRef name,
                                 StringRef layout, ArrayRef<int64_t> actual,
                                 ArrayRef<int64_t> expected) {
  bool ok = actual.size() == expected.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = dimsCompatible(actual[i], expected[i]);
  if (!ok)
    return op->emitOpError()
           << name << " must have shape " << formatShape(expected) << " ("
           << layout << "), got " << formatShape(actual);
  return success();
}

//===----------------------------------------------------------------------===//
// SelectiveScanOp
//===----------------------------------------------------------------------===//

LogicalResult SelectiveScanOp::verify() {
  int64_t n = getStateSize();
  ArrayRef<int64_t> x = getX().getType().getShape();
  if (x.size() != 3)
    return emitOpError() << "x must have rank 3 ([b, s, h]), got "
                         << formatShape(x);
  if (failed(expectShape(*this, "delta", "[b, s, h]",
                         getDelta().getType().getShape(), x)) ||
      failed(expectShape(*this, "a", "[h, state_size]",
                         getA().getType().getShape(), {x[2], n})) ||
      failed(expectShape(*this, "b", "[b, s, state_size]",
                         getB().getType().getShape(), {x[0], x[1], n})) ||
      failed(expectShape(*this, "c", "[b, s, state_size]",
                         getC().getType().getShape(), {x[0], x[1], n})))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// GatedDeltaNetOp
//===----------------------------------------------------------------------===//

LogicalResult
GatedDeltaNetOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferredReturnTypes) {
  Type qType = adaptor.getQ().getType();
  inferredReturnTypes.push_back(qType);
  if (adaptor.getCarryState()) {
    if (Value state = adaptor.getState()) {
      inferredReturnTypes.push_back(state.getType());
    } else if (auto q = dyn_cast<RankedTensorType>(qType);
               q && q.getRank() == 4) {
      int64_t n = q.getDimSize(3);
      inferredReturnTypes.push_back(RankedTensorType::get(
          {q.getDimSize(0), q.getDimSize(2), n, n}, q.getElementType()));
    } else {
      inferredReturnTypes.push_back(qType);
    }
  }
  return success();
}

LogicalResult GatedDeltaNetOp::verify() {
  int64_t n = getStateSize();
  RankedTensorType qType = getQ().getType();
  ArrayRef<int64_t> q = qType.getShape();
  if (q.size() != 4)
    return emitOpError() << "q must have rank 4 ([b, s, h, state_size]), got "
                         << formatShape(q);
  if (!dimsCompatible(q[3], n))
    return emitOpError() << "q " << formatShape(q) << " has head size " << q[3]
                         << " but state_size is " << n;
  SmallVector<int64_t> qkv = {q[0], q[1], q[2], n};
  SmallVector<int64_t> gate = {q[0], q[1], q[2]};
  if (failed(expectShape(*this, "k", "[b, s, h, state_size]",
                         getK().getType().getShape(), qkv)) ||
      failed(expectShape(*this, "v", "[b, s, h, state_size]",
                         getV().getType().getShape(), qkv)) ||
      failed(expectShape(*this, "g", "[b, s, h]", getG().getType().getShape(),
                         gate)) ||
      failed(expectShape(*this, "beta", "[b, s, h]",
                         getBeta().getType().getShape(), gate)))
    return failure();
  Type element = qType.getElementType();
  for (auto [name, value] :
       {std::pair{"k", getK()}, std::pair{"v", getV()}, std::pair{"g", getG()},
        std::pair{"beta", getBeta()}})
    if (value.getType().getElementType() != element)
      return emitOpError() << name << " element type "
                           << value.getType().getElementType()
                           << " differs from q element type " << element;
  Value state = getState();
  if (getCarryState() && !state)
    return emitOpError() << "carry_state requires a state operand "
                            "[b, h, state_size, state_size]";
  if (!getCarryState() && state)
    return emitOpError() << "a state operand requires carry_state";
  if (state) {
    auto stateType = cast<RankedTensorType>(state.getType());
    if (failed(expectShape(*this, "state", "[b, h, state_size, state_size]",
                           stateType.getShape(), {q[0], q[2], n, n})))
      return failure();
    if (stateType.getElementType() != element)
      return emitOpError() << "state element type "
                           << stateType.getElementType()
                           << " differs from q element type " << element;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXSSMOps.cpp.inc"
