//===- LowerQuantMatMul.cpp - quantized GEMMs as calls of the runtime -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.dequant_matmul of the formats the CPU runtime decodes per tile
// becomes a call of rlx_rt_quant_matmul (lib/Runtime/CPU/QuantGemm.cpp),
// so that the f32 weight is never held whole; the other formats keep the
// target-independent lowering (decode, then rlx.matmul).
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Runtime/QuantGemm.h"
#include "rlx/Target/CPU/RLXCPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPULOWERQUANTMATMUL
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;
using rlxrt::QuantGemmFormat;

namespace {

constexpr StringLiteral kCalleeName = RLX_RT_QUANT_MATMUL_NAME;

/// The runtime's format for `op`, or none where the op keeps the
/// whole-weight lowering: another scheme, a dynamic K or N, or a weight or
/// scale of `?` dims (that lowering checks their sizes at run time; the
/// runtime reads what the static shapes say).
std::optional<QuantGemmFormat> runtimeFormat(DequantMatMulOp op) {
  if (ShapedType::isDynamic(op.getX().getType().getDimSize(1)) ||
      op.getType().isDynamicDim(1))
    return std::nullopt;
  for (Value operand : {op.getWQ(), op.getScale(), op.getZeroPoint()})
    if (operand && !cast<RankedTensorType>(operand.getType()).hasStaticShape())
      return std::nullopt;
  switch (op.getScheme()) {
  case QuantScheme::Int8Block:
  case QuantScheme::Int8BlockAsym:
    return QuantGemmFormat::Int8Block;
  case QuantScheme::Int4Block:
    return QuantGemmFormat::Int4Block;
  case QuantScheme::GgufQ4_0:
    return QuantGemmFormat::GgufQ4_0;
  case QuantScheme::GgufQ8_0:
    return QuantGemmFormat::GgufQ8_0;
  default:
    return std::nullopt;
  }
}

func::FuncOp declareCallee(ModuleOp module, Location loc) {
  if (auto callee = module.lookupSymbol<func::FuncOp>(kCalleeName))
    return callee;
  OpBuilder top(module.getBodyRegion());
  SmallVector<Type> args(10, top.getI64Type());
  auto callee = func::FuncOp::create(top, loc, kCalleeName,
                                     top.getFunctionType(args, {}));
  callee.setPrivate();
  return callee;
}

void lower(ModuleOp module, DequantMatMulOp op, QuantGemmFormat format) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  Type i64 = b.getI64Type();
  func::FuncOp callee = declareCallee(module, loc);
  auto signless = [&](Value tensor) -> Value {
    if (!tensor)
      return {};
    auto type = cast<RankedTensorType>(tensor.getType());
    // convert-rlx-to-linalg gives ui8 tensors their signless type, and
    // meets this cast with its own ui8 one: the round trip folds away in
    // the canonicalization after it, and the buffer is the i8 tensor's.
    auto intType = dyn_cast<IntegerType>(type.getElementType());
    if (!intType || intType.isSignless())
      return tensor;
    type = type.clone(b.getIntegerType(intType.getWidth()));
    return UnrealizedConversionCastOp::create(b, loc, type, tensor)
        .getResult(0);
  };
  RankedTensorType resultType = op.getType();
  SmallVector<Value> dynamicSizes;
  if (resultType.isDynamicDim(0))
    dynamicSizes.push_back(tensor::DimOp::create(b, loc, op.getX(), 0));
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       b.getF32Type(), dynamicSizes);
  // The operands that are there (scale and zero point are optional), read
  // by the call; the result written (rlx_cpu.on_buffers tells
  // bufferization both).
  SmallVector<Value> ins;
  for (Value operand :
       {op.getX(), op.getWQ(), op.getScale(), op.getZeroPoint()})
    if (operand)
      ins.push_back(signless(operand));
  auto onBuffers = cpu::OnBuffersOp::create(b, loc, ins, init);
  Block &body = onBuffers.getBody().front();
  b.setInsertionPointToStart(&body);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto pointer = [&](Value memref) -> Value {
    if (!memref)
      return constant(0);
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::IndexCastOp::create(b, loc, i64, index);
  };
  // The block's buffers in operand order, the absent operands null.
  unsigned next = 0;
  auto buffer = [&](Value operand) -> Value {
    return operand ? body.getArgument(next++) : Value();
  };
  Value x = buffer(op.getX());
  Value w = buffer(op.getWQ());
  Value scale = buffer(op.getScale());
  Value zeroPoint = buffer(op.getZeroPoint());
  Value out = body.getArgument(next);
  Value m = resultType.isDynamicDim(0)
                ? arith::IndexCastOp::create(
                      b, loc, i64, memref::DimOp::create(b, loc, out, 0))
                      .getResult()
                : constant(resultType.getDimSize(0));
  SmallVector<Value> args = {constant(static_cast<int64_t>(format)),
                             pointer(x),
                             pointer(w),
                             pointer(scale),
                             pointer(zeroPoint),
                             pointer(out),
                             m,
                             constant(resultType.getDimSize(1)),
                             constant(op.getX().getType().getDimSize(1)),
                             constant(op.getBlockSize().value_or(0))};
  func::CallOp::create(b, loc, callee, args);
  op.getResult().replaceAllUsesWith(onBuffers.getResult(0));
  op.erase();
}

struct RLXCPULowerQuantMatMulPass
    : rlx::impl::RLXCPULowerQuantMatMulBase<RLXCPULowerQuantMatMulPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<DequantMatMulOp, QuantGemmFormat>> routed;
    module.walk([&](DequantMatMulOp op) {
      if (std::optional<QuantGemmFormat> format = runtimeFormat(op))
        routed.emplace_back(op, *format);
    });
    for (auto [op, format] : routed)
      lower(module, op, format);
  }
};

} // namespace
