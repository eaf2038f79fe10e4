//===- RLXCUDADialect.cpp - the CUDA target's kernel ops ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::cuda;

#include "rlx/Target/CUDA/RLXCUDADialect.cpp.inc"

void RLXCUDADialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Target/CUDA/RLXCUDAOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "rlx/Target/CUDA/RLXCUDAOps.cpp.inc"

//===----------------------------------------------------------------------===//
// FlashAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult FlashAttentionOp::verify() {
  auto queryType = cast<ShapedType>(getQuery().getType());
  bool onTensors = isa<RankedTensorType>(queryType);
  SmallVector<std::pair<StringRef, Value>> operands = {{"query", getQuery()},
                                                       {"key", getKey()},
                                                       {"value", getValue()},
                                                       {"init", getInit()}};
  if (getMask())
    operands.push_back({"mask", getMask()});
  for (auto [name, value] : operands) {
    auto type = cast<ShapedType>(value.getType());
    if (isa<RankedTensorType>(type) != onTensors)
      return emitOpError() << "operands are all tensors or all buffers, but "
                           << name << " is " << type;
    if (type.getElementType() != queryType.getElementType())
      return emitOpError() << name << " has element type "
                           << type.getElementType() << ", query "
                           << queryType.getElementType();
  }
  if (!isa<Float32Type, Float16Type, BFloat16Type>(queryType.getElementType()))
    return emitOpError() << "supports f32, f16 and bf16, not "
                         << queryType.getElementType();
  int64_t rank = queryType.getRank();
  if (rank != 3 && rank != 4)
    return emitOpError() << "query has rank " << rank << "; expected 3 or 4";
  for (Value value : {getKey(), getValue(), getInit()})
    if (cast<ShapedType>(value.getType()).getRank() != rank)
      return emitOpError() << "query, key, value and init share one rank";
  if (failed(verifyCompatibleShape(getInit().getType(), queryType)))
    return emitOpError() << "init " << getInit().getType()
                         << " does not have the shape of query " << queryType;
  int64_t headDim = getHeadDim();
  if (headDim > kMaxHeadDim)
    return emitOpError() << "head_dim " << headDim << " exceeds "
                         << kMaxHeadDim;
  MaskKind kind = getMaskKind();
  bool needsMask = kind == MaskKind::Custom || kind == MaskKind::Bias;
  if (needsMask != static_cast<bool>(getMask()))
    return emitOpError() << "mask_kind " << stringifyMaskKind(kind)
                         << (needsMask ? " needs" : " takes no")
                         << " mask operand";
  if ((kind == MaskKind::SlidingWindow) != getWindow().has_value())
    return emitOpError() << "window is given iff mask_kind is sliding_window";
  if (!(getScoreScale().convertToFloat() > 0.0f))
    return emitOpError() << "score_scale must be positive";
  if (onTensors) {
    if (getNumResults() != 1 || getResult()[0].getType() != getInit().getType())
      return emitOpError() << "on tensors returns one result of init's type";
  } else if (getNumResults() != 0) {
    return emitOpError() << "on buffers has no results";
  }
  return success();
}

MutableOperandRange FlashAttentionOp::getDpsInitsMutable() {
  return getInitMutable();
}

void FlashAttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On tensors the op is pure; on buffers it reads its inputs and writes
  // (only writes) init.
  if (!isa<MemRefType>(getInit().getType()))
    return;
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    if (&operand == &getInitMutable())
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

bool FlashAttentionOp::bufferizesToMemoryRead(
    OpOperand &operand, const bufferization::AnalysisState &) {
  // Every element of init is overwritten without being read.
  return &operand != &getInitMutable();
}

bool FlashAttentionOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return &operand == &getInitMutable();
}

bufferization::AliasingValueList
FlashAttentionOp::getAliasingValues(OpOperand &operand,
                                    const bufferization::AnalysisState &) {
  if (&operand != &getInitMutable() || getNumResults() == 0)
    return {};
  return {{getResult()[0], bufferization::BufferRelation::Equivalent}};
}

LogicalResult
FlashAttentionOp::bufferize(RewriterBase &rewriter,
                            const bufferization::BufferizationOptions &options,
                            bufferization::BufferizationState &state) {
  SmallVector<Value> buffers;
  for (Value operand : getOperands()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, operand, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  Value mask = getMask() ? buffers[3] : Value();
  Value init = buffers.back();
  rewriter.setInsertionPoint(*this);
  FlashAttentionOp::create(
      rewriter, getLoc(), TypeRange(), buffers[0], buffers[1], buffers[2], mask,
      init, getNumHeadsAttr(), getHeadDimAttr(), getMaskKindAttr(),
      getWindowAttr(), getScoreScaleAttr(), getAttnLogitSoftcapAttr());
  bufferization::replaceOpWithBufferizedValues(rewriter, *this, init);
  return success();
}
