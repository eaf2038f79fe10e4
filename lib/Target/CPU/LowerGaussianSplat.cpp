//===- LowerGaussianSplat.cpp - splat ops as calls of the CPU runtime -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The rlx.gaussian_splat_* ops bin, sort and walk data-dependent per-tile
// lists with early termination, which linalg does not express; each becomes
// a call of the CPU runtime's rlx_rt_gaussian_splat
// (lib/Runtime/CPU/GaussianSplat.cpp), the one definition of their math.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CPU/RLXCPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

#include <limits>

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPULOWERGAUSSIANSPLAT
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kCalleeName = "rlx_rt_gaussian_splat";

/// The runtime's stage numbers (RlxSplatStage in GaussianSplat.cpp).
enum class Stage : int64_t {
  Render = 0,
  Prepare = 1,
  Rasterize = 2,
  Backward = 3
};

/// Words of the prepare buffer's header and of one splat record; the
/// packing is written down in the op's description.
constexpr int64_t kHeaderWords = 8;
constexpr int64_t kRecordWords = 10;

/// The settings every stage passes; unused ones keep their defaults.
struct SplatCall {
  Stage stage;
  int64_t width = 1, height = 1, tileSize = 1, maxSteps = 1, maxList = 1;
  float radiusScale = 1, alphaCutoff = 0, transmittanceThreshold = 0;
  float lossGradClip = 1, maxAnisotropy = 1;
  int64_t shBand = 0;
  int64_t n = 0, shCount = 0;
  /// Scene operands (7), or for rasterize none.
  SmallVector<Value> scene;
  Value meta, extra;

  /// The image's tiles: ceil(width / tileSize) * ceil(height / tileSize)
  /// (width and height at most 2^31 - 1, checkCall's first check).
  int64_t tileCount() const {
    return ((width + tileSize - 1) / tileSize) *
           ((height + tileSize - 1) / tileSize);
  }
};

template <typename OpT> void readSettings(OpT op, SplatCall &call) {
  call.width = op.getWidth();
  call.height = op.getHeight();
  call.tileSize = op.getTileSize();
  call.maxSteps = op.getMaxSplatSteps();
  call.maxList = op.getMaxListEntries();
  call.alphaCutoff = op.getAlphaCutoff().convertToFloat();
  call.transmittanceThreshold = op.getTransmittanceThreshold().convertToFloat();
}

int64_t staticLength(Value v) {
  return cast<RankedTensorType>(v.getType()).getDimSize(0);
}

/// Checks what the runtime needs to know when compiling: static scene
/// sizes, a spherical-harmonic count of 0, 3, 8 or 15 per splat, and
/// counts that the prepare buffer's 32-bit words hold.
LogicalResult checkCall(Operation *op, SplatCall &call) {
  const int64_t int32Max = std::numeric_limits<int32_t>::max();
  if (!call.scene.empty()) {
    for (Value v : call.scene)
      if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
        return op->emitOpError()
               << "has a scene operand of dynamic length (" << v.getType()
               << "); the CPU lowering needs the splat count when compiling";
    call.n = staticLength(call.scene[3]);
    int64_t sh = staticLength(call.scene[5]);
    call.shCount = call.n == 0 ? 0 : sh / (3 * call.n);
    if (call.shCount != 0 && call.shCount != 3 && call.shCount != 8 &&
        call.shCount != 15)
      return op->emitOpError()
             << "has " << call.shCount
             << " spherical-harmonic coefficients per splat; the CPU kernel "
                "takes 0, 3, 8 or 15 (bands 1 to 0, 1, 2 or 3)";
  }
  // The sizes first: the tile counts below are computed from them.
  bool fits = call.n <= int32Max && call.maxList <= int32Max &&
              call.width <= int32Max && call.height <= int32Max;
  if (!fits || call.tileCount() > int32Max / 2)
    return op->emitOpError()
           << "has a splat count, max_list_entries, image size or tile "
              "count above 2^31 - 1, which the CPU kernel's 32-bit list "
              "indices do not hold";
  return success();
}

int64_t packedLength(const SplatCall &call) {
  return kHeaderWords + kRecordWords * call.n + 2 * call.tileCount() +
         call.maxList;
}

func::FuncOp declareCallee(ModuleOp module, Location loc) {
  if (auto callee = module.lookupSymbol<func::FuncOp>(kCalleeName))
    return callee;
  OpBuilder top(module.getBodyRegion());
  Type i64 = top.getI64Type(), f32 = top.getF32Type();
  SmallVector<Type> args(18, i64); // stage, 9 pointers, n .. max_list
  args.append({f32, f32, f32, f32, i64, f32});
  auto callee = func::FuncOp::create(top, loc, kCalleeName,
                                     top.getFunctionType(args, {}));
  callee.setPrivate();
  return callee;
}

/// Replaces `op` by the runtime call writing a fresh `resultType` buffer.
void lower(ModuleOp module, Operation *op, const SplatCall &call,
           RankedTensorType resultType, int64_t resultLength) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  Type i64 = b.getI64Type();
  func::FuncOp callee = declareCallee(module, loc);
  // The kernel reads the scene (or meta) and extra buffers and writes the
  // result's (rlx_cpu.on_buffers states both to bufferization); the
  // pointers and the call sit in its body.
  SmallVector<Value> ins(call.scene);
  if (call.scene.empty())
    ins.push_back(call.meta);
  if (call.extra)
    ins.push_back(call.extra);
  auto outTensorType = RankedTensorType::get({resultLength}, b.getF32Type());
  Value init = tensor::EmptyOp::create(b, loc, outTensorType.getShape(),
                                       outTensorType.getElementType());
  auto onBuffers = cpu::OnBuffersOp::create(b, loc, ins, init);
  Block *body = &onBuffers.getBody().front();
  b.setInsertionPointToStart(body);
  SmallVector<Value> inputs(body->getArguments().take_front(call.scene.size()));
  Value meta = call.scene.empty() ? body->getArgument(0) : Value();
  Value extra = call.extra ? body->getArgument(ins.size() - 1) : Value();
  Value out = body->getArguments().back();
  auto i64c = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  auto f32c = [&](float v) -> Value {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(), APFloat(v));
  };
  auto pointer = [&](Value memref) -> Value {
    if (!memref)
      return i64c(0);
    Value index =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return arith::IndexCastOp::create(b, loc, i64, index);
  };
  SmallVector<Value> args = {i64c(static_cast<int64_t>(call.stage))};
  for (int i = 0; i < 6; ++i)
    args.push_back(pointer(inputs.empty() ? Value() : inputs[i]));
  args.push_back(pointer(inputs.empty() ? meta : inputs[6]));
  args.push_back(pointer(extra));
  args.push_back(pointer(out));
  // The prep buffer's length: prepare's result, rasterize's operand.
  Value prepLength = i64c(0);
  if (call.stage == Stage::Prepare)
    prepLength = i64c(resultLength);
  if (call.stage == Stage::Rasterize)
    prepLength = arith::IndexCastOp::create(
        b, loc, i64, memref::DimOp::create(b, loc, extra, 0));
  args.append({i64c(call.n), i64c(call.shCount), prepLength, i64c(call.width),
               i64c(call.height), i64c(call.tileSize), i64c(call.maxSteps),
               i64c(call.maxList), f32c(call.radiusScale),
               f32c(call.alphaCutoff), f32c(call.transmittanceThreshold),
               f32c(call.lossGradClip), i64c(call.shBand),
               f32c(call.maxAnisotropy)});
  func::CallOp::create(b, loc, callee, args);

  b.setInsertionPointAfter(onBuffers);
  Value result = onBuffers.getResult(0);
  if (result.getType() != resultType)
    result = tensor::CastOp::create(b, loc, resultType, result);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct RLXCPULowerGaussianSplatPass
    : rlx::impl::RLXCPULowerGaussianSplatBase<RLXCPULowerGaussianSplatPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Operands are read when lowering: lowering a prepare replaces the
    // rasterize's prep operand.
    struct Pending {
      Operation *op;
      RankedTensorType type;
      int64_t length;
    };
    SmallVector<Pending> pending;
    bool failedAny = false;
    module.walk([&](Operation *op) {
      std::optional<SplatCall> call = describe(op);
      if (!call)
        return;
      if (failed(checkCall(op, *call))) {
        failedAny = true;
        return;
      }
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      int64_t length = type.getDimSize(0);
      if (call->stage == Stage::Prepare) {
        int64_t packed = packedLength(*call);
        if (!type.isDynamicDim(0) && length != packed) {
          op->emitOpError()
              << "result has " << length
              << " elements; the CPU packing of this scene and these "
                 "settings has "
              << packed
              << " (8 + 10 N + 2 * tiles + max_list_entries), or "
                 "declare it tensor<?xf32>";
          failedAny = true;
          return;
        }
        length = packed;
      }
      pending.push_back({op, type, length});
    });
    if (failedAny)
      return signalPassFailure();
    for (Pending &p : pending) {
      SplatCall call = *describe(p.op);
      (void)checkCall(p.op, call); // Succeeded above; fills n and C.
      lower(module, p.op, call, p.type, p.length);
    }
  }

  std::optional<SplatCall> describe(Operation *op) {
    SplatCall call;
    if (auto render = dyn_cast<GaussianSplatRenderOp>(op)) {
      call.stage = Stage::Render;
      readSettings(render, call);
      call.radiusScale = render.getRadiusScale().convertToFloat();
      call.scene = llvm::to_vector(op->getOperands());
      return call;
    }
    if (auto prepare = dyn_cast<GaussianSplatPrepareOp>(op)) {
      call.stage = Stage::Prepare;
      readSettings(prepare, call);
      call.radiusScale = prepare.getRadiusScale().convertToFloat();
      call.scene = llvm::to_vector(op->getOperands());
      return call;
    }
    if (auto rasterize = dyn_cast<GaussianSplatRasterizeOp>(op)) {
      call.stage = Stage::Rasterize;
      readSettings(rasterize, call);
      call.meta = rasterize.getMeta();
      call.extra = rasterize.getPrep();
      return call;
    }
    if (auto backward = dyn_cast<GaussianSplatRenderBackwardOp>(op)) {
      call.stage = Stage::Backward;
      readSettings(backward, call);
      call.radiusScale = backward.getRadiusScale().convertToFloat();
      call.lossGradClip = backward.getLossGradClip().convertToFloat();
      call.shBand = backward.getShBand();
      call.maxAnisotropy = backward.getMaxAnisotropy().convertToFloat();
      call.scene = llvm::to_vector(op->getOperands().take_front(7));
      call.extra = backward.getDLossRgba();
      return call;
    }
    return std::nullopt;
  }
};

} // namespace
