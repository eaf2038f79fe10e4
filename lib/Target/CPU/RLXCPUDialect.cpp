//===- RLXCPUDialect.cpp - the CPU target's runtime-call op ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/RLXCPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::rlx::cpu;

#include "rlx/Target/CPU/RLXCPUDialect.cpp.inc"

void RLXCPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Target/CPU/RLXCPUOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "rlx/Target/CPU/RLXCPUOps.cpp.inc"

//===----------------------------------------------------------------------===//
// OnBuffersOp
//===----------------------------------------------------------------------===//

/// The type of the body's argument for `operand`: its shape and element
/// type with the identity layout.
static MemRefType bufferTypeOf(Value operand) {
  auto type = cast<RankedTensorType>(operand.getType());
  return MemRefType::get(type.getShape(), type.getElementType());
}

void OnBuffersOp::build(OpBuilder &builder, OperationState &state,
                        ValueRange ins, ValueRange outs) {
  state.addOperands(ins);
  state.addOperands(outs);
  state.addAttribute(getOperandSegmentSizesAttrName(state.name),
                     builder.getDenseI32ArrayAttr(
                         {static_cast<int32_t>(ins.size()),
                          static_cast<int32_t>(outs.size())}));
  state.addTypes(outs.getTypes());
  // createBlock moves the insertion point into the new block: the op itself
  // goes where the caller's builder points.
  OpBuilder::InsertionGuard guard(builder);
  Region *body = state.addRegion();
  Block *block = builder.createBlock(body);
  for (Value operand : llvm::concat<const Value>(ins, outs))
    block->addArgument(bufferTypeOf(operand), operand.getLoc());
  YieldOp::create(builder, state.location);
}

MutableOperandRange OnBuffersOp::getDpsInitsMutable() {
  return getOutsMutable();
}

LogicalResult OnBuffersOp::verify() {
  Block &block = getBody().front();
  unsigned operands = getIns().size() + getOuts().size();
  if (block.getNumArguments() != operands)
    return emitOpError() << "has " << block.getNumArguments()
                         << " block arguments for " << operands
                         << " operands";
  // Compatible rather than equal: canonicalization may refine an
  // operand's `?` dims after the op was formed (a folded tensor.cast); the
  // buffer is cast back to the argument's type when bufferized.
  for (auto [operand, argument] :
       llvm::zip_equal(getOperands(), block.getArguments())) {
    auto type = dyn_cast<MemRefType>(argument.getType());
    if (!type || !type.getLayout().isIdentity() ||
        !memref::CastOp::areCastCompatible(type, bufferTypeOf(operand)))
      return emitOpError() << "block argument #" << argument.getArgNumber()
                           << " is " << argument.getType()
                           << ", expected an identity-layout memref "
                              "compatible with "
                           << bufferTypeOf(operand) << " for the operand "
                           << operand.getType();
  }
  if (getResultTypes() != getOuts().getTypes())
    return emitOpError() << "has results of other types than its outs";
  return success();
}

void OnBuffersOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // The body is library code whose effects the compiler cannot see (an
  // rlx.custom kernel that is not pure logs, draws random numbers, ...):
  // like the call it holds, the op is never erased, merged or reordered
  // across other effects. Bufferization reads its ins/outs through the
  // bufferization interface, not these effects.
  effects.emplace_back(MemoryEffects::Read::get(),
                       SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       SideEffects::DefaultResource::get());
}

bool OnBuffersOp::bufferizesToMemoryRead(
    OpOperand &operand, const bufferization::AnalysisState &) {
  // The body writes every element of each `outs` buffer without reading it.
  return !isDpsInit(&operand);
}

bool OnBuffersOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return isDpsInit(&operand);
}

bufferization::AliasingValueList
OnBuffersOp::getAliasingValues(OpOperand &operand,
                               const bufferization::AnalysisState &) {
  if (!isDpsInit(&operand))
    return {};
  return {{getTiedOpResult(&operand),
           bufferization::BufferRelation::Equivalent}};
}

LogicalResult
OnBuffersOp::bufferize(RewriterBase &rewriter,
                       const bufferization::BufferizationOptions &options,
                       bufferization::BufferizationState &state) {
  Location loc = getLoc();
  rewriter.setInsertionPoint(*this);
  // The buffer each block argument stands for: the operand's own, cast to
  // the identity layout where that is only a cast, else an identity copy
  // (an `ins` operand) or an identity buffer copied back after the body
  // (an `outs` operand).
  SmallVector<Value> arguments, results;
  SmallVector<std::pair<Value, Value>> copyBack;
  Block &block = getBody().front();
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, operand.get(), options, state);
    if (failed(buffer))
      return failure();
    auto type = cast<MemRefType>(
        block.getArgument(operand.getOperandNumber()).getType());
    Value argument = *buffer;
    if (argument.getType() != type) {
      if (memref::CastOp::areCastCompatible(argument.getType(), type)) {
        argument = memref::CastOp::create(rewriter, loc, type, argument);
      } else {
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            sizes.push_back(memref::DimOp::create(rewriter, loc, *buffer, d));
        argument = memref::AllocOp::create(rewriter, loc, type, sizes);
        if (isDpsInit(&operand))
          copyBack.emplace_back(argument, *buffer);
        else
          memref::CopyOp::create(rewriter, loc, *buffer, argument);
      }
    }
    arguments.push_back(argument);
    if (isDpsInit(&operand))
      results.push_back(*buffer);
  }
  // The body in a region of its own, which is never inlined: it is the one
  // use of every buffer that rlx-cpu-early-dealloc sees.
  auto region = scf::ExecuteRegionOp::create(rewriter, loc, TypeRange());
  region.setNoInline(true);
  Region &target = region.getRegion();
  rewriter.inlineRegionBefore(getBody(), target, target.end());
  Block &body = target.front();
  Operation *yield = body.getTerminator();
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield);
  for (auto [argument, buffer] : llvm::zip_equal(body.getArguments(),
                                                 arguments))
    rewriter.replaceAllUsesWith(argument, buffer);
  body.eraseArguments(0, body.getNumArguments());
  rewriter.setInsertionPointAfter(region);
  for (auto [identity, buffer] : copyBack)
    memref::CopyOp::create(rewriter, loc, identity, buffer);
  bufferization::replaceOpWithBufferizedValues(rewriter, *this, results);
  return success();
}
