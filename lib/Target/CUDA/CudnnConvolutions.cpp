//===- CudnnConvolutions.cpp - convolutions as cuDNN calls ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The generic lowering runs a convolution as a linalg convolution mapped to
// one thread per output element: every thread re-reads its window from
// global memory and nothing uses tensor cores, so a CNN's convolutions run
// at a small fraction of the GPU's arithmetic rate. cuDNN's implicit-GEMM
// and Winograd kernels tile windows through shared memory onto tensor
// cores. The forward convolution and both of its gradients therefore step
// aside as rlx_cuda ops on tensors and become calls of the CUDA runtime's
// cuDNN entry points on buffers (lib/Runtime/CUDA/Cudnn.cpp, which opens
// cuDNN at run time like the other toolkit libraries).
//
//===----------------------------------------------------------------------===//

#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

/// Whether cuDNN takes convolutions of `type`'s elements and the op is a
/// graph function's own (not nested in an rlx region, whose body the
/// generic lowering runs element by element).
static bool isCudnnConvolution(Operation *op, Type type) {
  return isa<Float32Type, Float16Type, BFloat16Type>(
             getElementTypeOrSelf(type)) &&
         isa<func::FuncOp>(op->getParentOp());
}

bool rlx::isChannelsLastConvolution(StringRef layout, Type elementType) {
  if (layout == "nhwc")
    return true;
  return layout == "auto" && isa<Float16Type, BFloat16Type>(elementType);
}

/// The forward convolution `conv` as an rlx_cuda.conv2d on NHWC: the input
/// and filter transposed to NHWC and KRSC, the result transposed back.
static Value formChannelsLastConvolution(RewriterBase &rewriter, ConvOp conv,
                                         RankedTensorType type,
                                         ValueRange sizes) {
  Location loc = conv.getLoc();
  auto toNHWC = rewriter.getDenseI64ArrayAttr({0, 2, 3, 1});
  Value input = TransposeOp::create(rewriter, loc, conv.getInput(), toNHWC);
  Value filter = TransposeOp::create(rewriter, loc, conv.getWeight(), toNHWC);
  auto nhwc = type.clone({type.getDimSize(0), type.getDimSize(2),
                          type.getDimSize(3), type.getDimSize(1)});
  Value init = tensor::EmptyOp::create(rewriter, loc, nhwc, sizes);
  Value result = cuda::Conv2dOp::create(
                     rewriter, loc, TypeRange{nhwc}, input, filter, init,
                     conv.getStride(), conv.getPadding(), conv.getDilation(),
                     conv.getGroups(), /*channels_last=*/true)
                     ->getResult(0);
  return TransposeOp::create(rewriter, loc, result,
                             rewriter.getDenseI64ArrayAttr({0, 3, 1, 2}));
}

bool rlx::formCudnnConvolution(RewriterBase &rewriter, Operation *op,
                               int64_t minBatch, bool channelsLast) {
  if (!isCudnnConvolution(op, op->getResult(0).getType()))
    return false;
  // The batch: the input's (forward, filter gradient) or the output
  // gradient's (input gradient) leading extent.
  int64_t batch =
      cast<RankedTensorType>(op->getOperand(0).getType()).getShape()[0];
  if (!ShapedType::isDynamic(batch) && batch < minBatch)
    return false;
  // The destination's only dynamic extent may be the leading one: the batch
  // (of the input, or of the output gradient), or, for the filter gradient,
  // the output channels of the output gradient. Other dynamic extents stay
  // with the generic lowering.
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  for (int64_t dim = 1; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      return false;
  rewriter.setInsertionPoint(op);
  Location loc = op->getLoc();
  SmallVector<Value> sizes;
  if (type.isDynamicDim(0)) {
    bool filterGradient = isa<Conv2dBackwardWeightOp>(op);
    Value source = op->getOperand(filterGradient ? 1 : 0);
    sizes.push_back(
        tensor::DimOp::create(rewriter, loc, source, filterGradient ? 1 : 0));
  }
  if (auto conv = dyn_cast<ConvOp>(op); conv && channelsLast) {
    rewriter.replaceOp(
        op, formChannelsLastConvolution(rewriter, conv, type, sizes));
    return true;
  }
  Value init = tensor::EmptyOp::create(rewriter, loc, type, sizes);
  Operation *formed = nullptr;
  if (auto conv = dyn_cast<ConvOp>(op))
    formed = cuda::Conv2dOp::create(rewriter, loc, TypeRange{type},
                                    conv.getInput(), conv.getWeight(), init,
                                    conv.getStride(), conv.getPadding(),
                                    conv.getDilation(), conv.getGroups());
  else if (auto data = dyn_cast<Conv2dBackwardInputOp>(op))
    formed = cuda::Conv2dBackwardDataOp::create(
        rewriter, loc, TypeRange{type}, data.getDy(), data.getWeight(), init,
        data.getStride(), data.getPadding(), data.getDilation(),
        data.getGroups());
  else if (auto filter = dyn_cast<Conv2dBackwardWeightOp>(op))
    formed = cuda::Conv2dBackwardFilterOp::create(
        rewriter, loc, TypeRange{type}, filter.getX(), filter.getDy(), init,
        filter.getStride(), filter.getPadding(), filter.getDilation(),
        filter.getGroups());
  else
    return false;
  rewriter.replaceOp(op, formed->getResults());
  return true;
}

/// A call of the runtime's `base`_<type>(input, filter, output, padding,
/// stride, dilation, flags) for one of the three convolution ops.
template <typename ConvolutionOp>
static LogicalResult lowerConvolution(RewriterBase &rewriter, ConvolutionOp op,
                                      StringRef base, bool allowTf32) {
  auto [input, filter, output] = op.getConvolutionOperands();
  Type elementType = getElementTypeOrSelf(input.getType());
  SmallVector<int32_t> flags;
  for (ArrayRef<int64_t> pair :
       {op.getPadding(), op.getStride(), op.getDilation()})
    for (int64_t value : pair) {
      if (value > std::numeric_limits<int32_t>::max())
        return op.emitOpError() << "geometry entry " << value
                                << " is beyond what cuDNN takes (int32)";
      flags.push_back(static_cast<int32_t>(value));
    }
  flags.push_back((allowTf32 ? RLX_CUDA_GEMM_ALLOW_TF32 : 0) |
                  (op.getChannelsLast() ? RLX_CUDA_CONV_CHANNELS_LAST : 0));
  rewriter.setInsertionPoint(op);
  // The verifier admits f32, f16 and bf16, which all have entry points.
  std::string name = (base + "_" + *gemmTypeSuffix(elementType)).str();
  createDeviceRuntimeCall(rewriter, op.getLoc(),
                          op->template getParentOfType<ModuleOp>(), name,
                          {input, filter, output}, flags);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult rlx::lowerCudnnConvolution(RewriterBase &rewriter, Operation *op,
                                         bool allowTf32) {
  if (auto conv = dyn_cast<cuda::Conv2dOp>(op))
    return lowerConvolution(rewriter, conv, "rlx_cuda_conv2d", allowTf32);
  if (auto data = dyn_cast<cuda::Conv2dBackwardDataOp>(op))
    return lowerConvolution(rewriter, data, "rlx_cuda_conv2d_backward_data",
                            allowTf32);
  return lowerConvolution(rewriter, cast<cuda::Conv2dBackwardFilterOp>(op),
                          "rlx_cuda_conv2d_backward_filter", allowTf32);
}
