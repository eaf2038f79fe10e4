//===- LowerConvolutions.cpp - f32 convolutions as oneDNN runtime calls ---===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.conv and its two gradients, on f32, become calls of the CPU runtime's
// oneDNN convolutions (lib/Runtime/CPU/DnnlConvolution.cpp), which run
// 2-4x faster than im2col plus a GEMM. Every geometry the ops accept goes
// there (groups, stride, padding, dilation). f16 and bf16 ones call the
// same f32 convolution on f32 copies of their operands (rlx.cast) and round
// its result once: the f32 accumulation the linalg lowering of f16/bf16
// has, at oneDNN's speed. f64, and channel or spatial dims that are not
// static, keep the linalg lowering.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"
#include "rlx/Conversion/GemmCalls.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CPU/Passes.h"
#include "rlx/Target/CPU/RLXCPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPULOWERCONVOLUTIONS
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// One runtime call: the callee, its two operands and the geometry of the
/// forward convolution. The result has the type of `op`'s result and takes
/// its batch size from `batchSource` (dim 0) when that is dynamic.
struct ConvCall {
  StringRef callee;
  Value operands[2];
  Value batchSource;
  ArrayRef<int64_t> stride, padding, dilation;
  int64_t groups;
};

std::optional<ConvCall> describe(Operation *op) {
  if (auto conv = dyn_cast<ConvOp>(op))
    return ConvCall{"rlx_rt_conv2d_forward_f32",
                    {conv.getInput(), conv.getWeight()},
                    conv.getInput(),
                    conv.getStride(),
                    conv.getPadding(),
                    conv.getDilation(),
                    static_cast<int64_t>(conv.getGroups())};
  if (auto grad = dyn_cast<Conv2dBackwardInputOp>(op))
    return ConvCall{"rlx_rt_conv2d_backward_data_f32",
                    {grad.getDy(), grad.getWeight()},
                    grad.getDy(),
                    grad.getStride(),
                    grad.getPadding(),
                    grad.getDilation(),
                    static_cast<int64_t>(grad.getGroups())};
  if (auto grad = dyn_cast<Conv2dBackwardWeightOp>(op))
    return ConvCall{"rlx_rt_conv2d_backward_weights_f32",
                    {grad.getX(), grad.getDy()},
                    Value(),
                    grad.getStride(),
                    grad.getPadding(),
                    grad.getDilation(),
                    static_cast<int64_t>(grad.getGroups())};
  return std::nullopt;
}

/// Whether the runtime takes `op`: f32 tensors (or f16 / bf16 ones, cast
/// to f32) whose dims other than the batch (dim 0 of an activation) are
/// static. The runtime reads every size from the buffers, but the linalg
/// lowering has the same limit and the verifiers check the shapes only
/// where they are known.
bool isSupported(Operation *op) {
  Type elementType =
      cast<ShapedType>(op->getResult(0).getType()).getElementType();
  auto staticBeyondBatch = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.getRank() == 4 &&
           tensor.getElementType() == elementType &&
           (elementType.isF32() || elementType.isF16() ||
            elementType.isBF16()) &&
           llvm::none_of(tensor.getShape().drop_front(), ShapedType::isDynamic);
  };
  return llvm::all_of(op->getOperandTypes(), staticBeyondBatch) &&
         staticBeyondBatch(op->getResult(0).getType()) &&
         // A weight gradient's dim 0 is C_out.
         (!isa<Conv2dBackwardWeightOp>(op) ||
          cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape());
}

void lower(ModuleOp module, Operation *op, const ConvCall &call) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  // f16 / bf16 operands as f32 copies.
  Type elementType = resultType.getElementType();
  Type f32 = b.getF32Type();
  SmallVector<Value, 2> operands;
  for (Value operand : call.operands)
    operands.push_back(
        elementType.isF32()
            ? operand
            : Value(CastOp::create(b, loc, operand, TypeAttr::get(f32))));
  SmallVector<Value> dynamicSizes;
  if (resultType.isDynamicDim(0))
    dynamicSizes.push_back(tensor::DimOp::create(b, loc, call.batchSource, 0));
  Value init =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), f32, dynamicSizes);
  // The call reads the operands' buffers and writes the result's: stated to
  // bufferization by rlx_cpu.on_buffers.
  auto onBuffers = cpu::OnBuffersOp::create(b, loc, ValueRange(operands), init);
  b.setInsertionPointToStart(&onBuffers.getBody().front());
  MemRefType argType = getFullyDynamicStridedType(b.getF32Type(), 4);
  SmallVector<Value> args;
  for (BlockArgument buffer : onBuffers.getBody().getArguments())
    args.push_back(memref::CastOp::create(b, loc, argType, buffer));
  for (int64_t value :
       {call.stride[0], call.stride[1], call.padding[0], call.padding[1],
        call.dilation[0], call.dilation[1], call.groups})
    args.push_back(arith::ConstantIntOp::create(b, loc, b.getI64Type(), value));
  func::FuncOp callee =
      getOrDeclareRuntime(module, call.callee, ValueRange(args).getTypes());
  func::CallOp::create(b, loc, callee, args);
  Value result = onBuffers.getResult(0);
  if (!elementType.isF32()) {
    b.setInsertionPointAfter(onBuffers);
    result = CastOp::create(b, loc, result, TypeAttr::get(elementType));
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct RLXCPULowerConvolutionsPass
    : rlx::impl::RLXCPULowerConvolutionsBase<RLXCPULowerConvolutionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> convolutions;
    module.walk([&](Operation *op) {
      if (describe(op) && isSupported(op))
        convolutions.push_back(op);
    });
    // Described only when lowered: lowering a convolution replaces its
    // result, which a later one may take as an operand.
    for (Operation *op : convolutions)
      lower(module, op, *describe(op));
  }
};

} // namespace
