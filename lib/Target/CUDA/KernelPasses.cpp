//===- KernelPasses.cpp - dedicated kernels in and out
//---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "KernelOps.h"

#include "rlx/Conversion/GemmCalls.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CUDA/Passes.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"
#include "rlx/Transforms/Transposes.h"
#include "rlx/Transforms/Unfuse.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDAFORMKERNELS
#define GEN_PASS_DEF_RLXCUDALOWERKERNELS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

std::optional<StringRef> rlx::gemmTypeSuffix(Type elementType) {
  if (elementType.isF32())
    return StringRef("f32");
  if (elementType.isF64())
    return StringRef("f64");
  if (elementType.isF16())
    return StringRef("f16");
  if (elementType.isBF16())
    return StringRef("bf16");
  return std::nullopt;
}

void rlx::createDeviceRuntimeCall(OpBuilder &b, Location loc, ModuleOp module,
                                  StringRef name, ValueRange buffers,
                                  ArrayRef<int32_t> flags) {
  SmallVector<Value> operands;
  for (Value buffer : buffers) {
    auto type = cast<MemRefType>(buffer.getType());
    operands.push_back(memref::CastOp::create(
        b, loc,
        getFullyDynamicStridedType(type.getElementType(), type.getRank()),
        buffer));
  }
  for (int32_t flag : flags)
    operands.push_back(
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), flag));
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        b, module.getLoc(), name,
        b.getFunctionType(ValueRange(operands).getTypes(), {}));
    callee.setPrivate();
    callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    callee->setAttr(kDeviceBuffersAttrName, b.getUnitAttr());
  }
  func::CallOp::create(b, loc, callee, operands);
}

MemRefType rlx::workgroupBufferType(MLIRContext *context,
                                    ArrayRef<int64_t> shape, Type elementType) {
  return MemRefType::get(
      shape, elementType, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
}

gpu::LaunchOp rlx::createGuardedLaunch(OpBuilder &b, Location loc, Value blocks,
                                       int64_t threads,
                                       ArrayRef<MemRefType> shared,
                                       int64_t dynamicSharedBytes,
                                       int64_t clusterBlocks) {
  KernelBuilder host{b, loc};
  Value one = host.index(1);
  Value dynamicShared;
  if (dynamicSharedBytes > 0)
    dynamicShared = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                 dynamicSharedBytes);
  Value clusterX, clusterY, clusterZ;
  if (clusterBlocks > 1)
    clusterX = host.index(clusterBlocks), clusterY = one, clusterZ = one;
  auto launch = gpu::LaunchOp::create(
      b, loc, host.maxIndex(blocks, host.index(clusterBlocks)), one, one,
      host.index(threads), one, one, dynamicShared, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
      /*privateAttributions=*/{}, clusterX, clusterY, clusterZ);
  // The builder gives the body only the 12 block and thread arguments; with
  // clusters, the 6 cluster ids and sizes follow them.
  if (clusterBlocks > 1)
    for (int64_t i = 0; i < 6; ++i)
      launch.getBody().front().insertArgument(
          gpu::LaunchOp::kNumConfigRegionAttributes, b.getIndexType(), loc);
  for (MemRefType type : shared)
    launch.addWorkgroupAttribution(type, loc);
  Block &body = launch.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  auto active = scf::IfOp::create(
      b, loc,
      host.cmp(arith::CmpIPredicate::ult, launch.getBlockIds().x, blocks),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(active.thenBlock());
  return launch;
}

/// Where each tile of dynamicSharedBytes's layout starts.
static SmallVector<int64_t> dynamicSharedOffsets(ArrayRef<MemRefType> tiles,
                                                 int64_t &total) {
  constexpr int64_t kAlignment = 128;
  SmallVector<int64_t> offsets;
  total = 0;
  for (MemRefType tile : tiles) {
    offsets.push_back(total);
    int64_t bytes = tile.getNumElements() *
                    llvm::divideCeil(tile.getElementTypeBitWidth(), 8);
    total = llvm::alignTo(total + bytes, kAlignment);
  }
  return offsets;
}

int64_t rlx::dynamicSharedBytes(ArrayRef<MemRefType> tiles) {
  int64_t total;
  dynamicSharedOffsets(tiles, total);
  return total;
}

SmallVector<Value> rlx::sharedTilesInDynamicMemory(OpBuilder &b, Location loc,
                                                   ArrayRef<MemRefType> tiles) {
  int64_t total;
  SmallVector<int64_t> offsets = dynamicSharedOffsets(tiles, total);
  auto workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                   MemRefLayoutAttrInterface(), workgroup);
  Value memory = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
  KernelBuilder k{b, loc};
  SmallVector<Value> views;
  for (auto [tile, offset] : llvm::zip_equal(tiles, offsets))
    views.push_back(memref::ViewOp::create(b, loc, tile, memory,
                                           k.index(offset), ValueRange{}));
  return views;
}

Value rlx::viewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

Value rlx::narrowAsView(RewriterBase &rewriter, NarrowOp narrow) {
  auto type = cast<RankedTensorType>(narrow.getType());
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(narrow);
  SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
  offsets[narrow.getAxis()] = rewriter.getIndexAttr(narrow.getStart());
  SmallVector<OpFoldResult> sizes,
      strides(type.getRank(), rewriter.getIndexAttr(1));
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    sizes.push_back(
        type.isDynamicDim(dim)
            ? OpFoldResult(tensor::DimOp::create(rewriter, narrow.getLoc(),
                                                 narrow.getInput(), dim)
                               .getResult())
            : OpFoldResult(rewriter.getIndexAttr(type.getDimSize(dim))));
  return tensor::ExtractSliceOp::create(rewriter, narrow.getLoc(), type,
                                        narrow.getInput(), offsets, sizes,
                                        strides);
}

/// Whether every use of `value` is an operand that the kernels generated
/// here or the attention kernel read, whatever its strides: elementwise ops
/// and rotary embeddings (linalg.generic kernels), attention's query, key
/// and value, and reshapes, transposes and narrows whose results are read
/// so too (a reshape that a view cannot take is copied by bufferization).
static bool onlyKernelsRead(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isa<ReshapeOp, TransposeOp, NarrowOp>(user))
      return onlyKernelsRead(user->getResult(0));
    if (auto attention = dyn_cast<cuda::FlashAttentionOp>(user))
      return use.get() != attention.getInit() &&
             use.get() != attention.getMask();
    return isa<RopeOp, WhereOp, BinaryOp, ActivationOp, CastOp, CompareOp>(
        user);
  });
}

void rlx::viewNarrows(RewriterBase &rewriter, Operation *root) {
  SmallVector<NarrowOp> narrows;
  root->walk([&](NarrowOp narrow) {
    auto type = cast<RankedTensorType>(narrow.getType());
    if (static_cast<int64_t>(narrow.getAxis()) == type.getRank() - 1 &&
        narrow.getInput().getType() != type &&
        isa<func::FuncOp>(narrow->getParentOp()) &&
        onlyKernelsRead(narrow.getResult()))
      narrows.push_back(narrow);
  });
  for (NarrowOp narrow : narrows)
    rewriter.replaceOp(narrow, narrowAsView(rewriter, narrow));
}

Value rlx::createEmptyLike(OpBuilder &b, Location loc, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(tensor::DimOp::create(b, loc, like, dim));
  return tensor::EmptyOp::create(b, loc, type, sizes);
}

/// Whether every value of `sizes` (indices) is a multiple of `bytes`,
/// computed on the host; true for none.
static Value allMultiplesOf(KernelBuilder &host, ArrayRef<Value> sizes,
                            int64_t bytes) {
  Value all;
  for (Value size : sizes) {
    Value ok = host.cmp(arith::CmpIPredicate::eq,
                        host.rem(size, host.index(bytes)), host.index(0));
    all =
        all ? arith::AndIOp::create(host.b, host.loc, all, ok).getResult() : ok;
  }
  return all;
}

Value rlx::buffersAligned(OpBuilder &b, Location loc, ArrayRef<Value> buffers,
                          int64_t bytes) {
  KernelBuilder host{b, loc};
  SmallVector<Value> addresses;
  for (Value buffer : buffers)
    addresses.push_back(
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
  return allMultiplesOf(host, addresses, bytes);
}

Value rlx::rowsAligned(OpBuilder &b, Location loc, ArrayRef<Value> buffers,
                       int64_t bytes) {
  KernelBuilder host{b, loc};
  // Each row's first byte: the address of the first element, and every
  // outer stride in bytes.
  SmallVector<Value> rowStarts;
  for (Value buffer : buffers) {
    auto type = cast<MemRefType>(buffer.getType());
    Value elementBytes = host.index(type.getElementTypeBitWidth() / 8);
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    Value address =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
    rowStarts.push_back(
        host.add(address, host.mul(metadata.getOffset(), elementBytes)));
    for (Value stride : metadata.getStrides().drop_back())
      rowStarts.push_back(host.mul(stride, elementBytes));
  }
  return allMultiplesOf(host, rowStarts, bytes);
}

namespace {

struct RLXCUDAFormKernelsPass
    : rlx::impl::RLXCUDAFormKernelsBase<RLXCUDAFormKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!llvm::is_contained({"auto", "nchw", "nhwc"}, cudnnLayout)) {
      getOperation().emitError() << "cudnn-layout is '" << cudnnLayout
                                 << "'; expected auto, nchw or nhwc";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<AttentionOp> attentions;
    SmallVector<MatMulOp> matmuls;
    SmallVector<Operation *> rowOps;
    SmallVector<ActivationBackwardOp> activationGradients;
    SmallVector<Operation *> convolutions;
    SmallVector<Operation *> collectives;
    SmallVector<DequantMatMulOp> quantized;
    getOperation().walk([&](Operation *op) {
      if (isCollective(op))
        collectives.push_back(op);
      if (auto dequant = dyn_cast<DequantMatMulOp>(op))
        quantized.push_back(dequant);
      if (isa<ConvOp, Conv2dBackwardInputOp, Conv2dBackwardWeightOp>(op))
        convolutions.push_back(op);
      if (auto attention = dyn_cast<AttentionOp>(op))
        attentions.push_back(attention);
      else if (auto matmul = dyn_cast<MatMulOp>(op))
        matmuls.push_back(matmul);
      else if (auto gradient = dyn_cast<ActivationBackwardOp>(op))
        activationGradients.push_back(gradient);
      else if (isa<SoftmaxOp, LayerNormOp, RmsNormOp, LayerNormBackwardInputOp>(
                   op))
        rowOps.push_back(op);
    });
    bool collectivesFailed = false;
    for (Operation *op : collectives)
      collectivesFailed |= failed(formCollective(rewriter, op));
    if (collectivesFailed)
      return signalPassFailure();
    for (AttentionOp op : attentions)
      formFlashAttention(rewriter, op);
    // Before the forward GEMMs: a backward GEMM may read a forward one's
    // pre-activation, and takes its matmul out of the list below.
    DenseSet<Operation *> taken;
    for (ActivationBackwardOp op : activationGradients) {
      Operation *dy = op.getDy().getDefiningOp();
      if (formMatmulDgelu(rewriter, op))
        taken.insert(dy);
    }
    for (MatMulOp op : matmuls)
      if (!taken.contains(op))
        formMatmulBias(rewriter, op);
    for (Operation *op : rowOps)
      formRowKernel(rewriter, op);
    for (DequantMatMulOp op : quantized)
      formQuantGemv(rewriter, op);
    bool formedChannelsLast = false;
    if (cudnnConvolutions)
      for (Operation *op : convolutions) {
        bool channelsLast =
            isa<ConvOp>(op) &&
            isChannelsLastConvolution(
                cudnnLayout, getElementTypeOrSelf(op->getResult(0).getType()));
        if (formCudnnConvolution(rewriter, op, cudnnMinBatch, channelsLast))
          formedChannelsLast |= channelsLast;
      }
    // Channels-last convolutions come wrapped in transposes; moved down
    // through the elementwise ops between convolutions, inverse pairs meet
    // and cancel, and the ops in between compute in NHWC.
    if (formedChannelsLast) {
      RewritePatternSet patterns(&getContext());
      populatePropagateTransposesPatterns(patterns);
      if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // Last: the kernel ops above decide who reads each narrow.
    viewNarrows(rewriter, getOperation());

    // The CUDA unfuse policy keeps the layer norm's, the activations' and
    // the convolution's backward ops for the kernels above; those they did
    // not take (other axes, f64, other activations, convolutions without
    // cuDNN) and the gamma gradients become primitives as on the CPU.
    UnfusePolicy leftovers{"cuda-kernel-leftovers",
                           "",
                           {Decomposition::LayerNormBackward,
                            Decomposition::ActivationBackward,
                            Decomposition::Conv2dBackward}};
    RewritePatternSet patterns(&getContext());
    populateUnfusePatterns(patterns, leftovers);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

struct RLXCUDALowerKernelsPass
    : rlx::impl::RLXCUDALowerKernelsBase<RLXCUDALowerKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> kernels;
    getOperation().walk([&](Operation *op) {
      if (isa<cuda::FlashAttentionOp, cuda::MatmulBiasOp,
              cuda::MatmulBiasGeluAuxOp, cuda::MatmulDgeluOp, cuda::SoftmaxOp,
              cuda::NormOp, cuda::NormBackwardInputOp, cuda::Conv2dOp,
              cuda::Conv2dBackwardDataOp, cuda::Conv2dBackwardFilterOp,
              cuda::CollectiveOp, cuda::QuantGemvOp>(op))
        kernels.push_back(op);
    });
    DominanceInfo dominance(getOperation());
    int32_t collectives = 0;
    for (Operation *op : kernels) {
      if (!cast<DestinationStyleOpInterface>(op).hasPureBufferSemantics()) {
        op->emitOpError() << "is lowered on buffers; bufferize first";
        return signalPassFailure();
      }
      if (auto collective = dyn_cast<cuda::CollectiveOp>(op)) {
        if (failed(lowerCollective(rewriter, collective, collectives++)))
          return signalPassFailure();
      } else if (auto attention = dyn_cast<cuda::FlashAttentionOp>(op))
        lowerFlashAttention(rewriter, attention, allowTf32);
      else if (auto gemv = dyn_cast<cuda::QuantGemvOp>(op))
        lowerQuantGemv(rewriter, gemv, dominance);
      else if (auto matmul = dyn_cast<cuda::MatmulBiasOp>(op))
        lowerMatmulBias(rewriter, matmul, allowTf32);
      else if (auto aux = dyn_cast<cuda::MatmulBiasGeluAuxOp>(op))
        lowerMatmulBiasGeluAux(rewriter, aux, allowTf32);
      else if (auto dgelu = dyn_cast<cuda::MatmulDgeluOp>(op))
        lowerMatmulDgelu(rewriter, dgelu, allowTf32);
      else if (isa<cuda::Conv2dOp, cuda::Conv2dBackwardDataOp,
                   cuda::Conv2dBackwardFilterOp>(op)) {
        if (failed(lowerCudnnConvolution(rewriter, op, allowTf32)))
          return signalPassFailure();
      } else
        lowerRowKernel(rewriter, op);
    }
  }
};

} // namespace
