//===- CUDAPipeline.cpp - rlx-cuda-pipeline -------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/Passes.h"
#include "rlx/Target/CUDA/Passes.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ComplexToStandard/ComplexToStandard.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace mlir::rlx;

void rlx::buildRLXCUDAPipeline(OpPassManager &pm,
                               const CUDAPipelineOptions &options) {
  // The same target-independent front half as the CPU: composite ops the
  // generic kernels do not cover become primitives, rlx -> linalg on
  // tensors, elementwise fusion (one kernel per fused chain), buffers. The
  // ops with dedicated kernels (attention) step aside as rlx_cuda ops
  // before the generic lowering and become launches on buffers.
  // Locations name their rlx ops first, so that the runtime's errors and
  // profile can name the op each piece of host work came from.
  pm.addPass(createRLXTagOpLocations());
  registerCUDAUnfusePolicy();
  RLXCUDAFormKernelsOptions form;
  form.cudnnConvolutions = options.cudnn;
  form.cudnnMinBatch = options.cudnnMinBatch;
  form.cudnnLayout = options.cudnnLayout;
  buildRLXToLinalgPipeline(pm, "cuda", [&](OpPassManager &nested) {
    nested.addPass(createRLXCUDAFormKernels(form));
  });
  // Gradients' transposed weights and activations are read in place by
  // cuBLAS instead of copied for each product.
  pm.addNestedPass<func::FuncOp>(createRLXTransposedGemmOperands());
  buildGraphBufferizationPipeline(pm);
  RLXCUDALowerKernelsOptions kernels;
  kernels.allowTf32 = options.allowTf32;
  pm.addPass(createRLXCUDALowerKernels(kernels));

  // Buffers -> kernels: GEMMs call cuBLAS, everything else becomes
  // kernels. What stays on the host allocates, frees, launches and calls;
  // the linalg ops left inside one-thread kernels become loops.
  RLXCUDALinalgToCuBLASOptions gemm;
  gemm.allowTf32 = options.allowTf32;
  pm.addPass(createRLXCUDALinalgToCuBLAS(gemm));
  if (options.overlapCollectives)
    pm.addPass(createRLXCUDAOverlapCollectives());
  // Constants are read from device copies the runtime uploads once, not
  // copied to the device on every run.
  pm.addPass(createRLXCUDAResidentConstants());
  RLXCUDAMapToGPUOptions map;
  map.blockSize = options.blockSize;
  map.vectorize = options.vectorize;
  pm.addNestedPass<func::FuncOp>(createRLXCUDAMapToGPU(map));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertComplexToStandardPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createRLXExpandArith());
  pm.addPass(createCanonicalizerPass());

  // Kernels into gpu.module functions; the host side becomes one chain of
  // asynchronous operations on a stream (the upstream lowering of host GPU
  // ops handles only the asynchronous forms), waited for at the end.
  pm.addPass(createConvertNVGPUToNVVMPass());
  // Constants and index computations the canonicalizer hoisted out of the
  // launches go back in: outlined, they would be kernel parameters, held in
  // registers and opaque to the device compiler (a multiply by a constant
  // stays a multiply, a division a division).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createRLXCUDADropHostWaits());
  pm.addPass(createRLXCUDAOpMarkers());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  std::string libdevice = options.libdevice;
#ifdef RLX_DEFAULT_LIBDEVICE
  if (libdevice.empty() && llvm::sys::fs::exists(RLX_DEFAULT_LIBDEVICE))
    libdevice = RLX_DEFAULT_LIBDEVICE;
#endif
  if (!libdevice.empty())
    target.linkLibs.push_back(libdevice);
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addNestedPass<gpu::GPUModuleOp>(createRLXCUDADeviceLibCalls());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Device code -> NVVM.
  pm.addNestedPass<gpu::GPUModuleOp>(createStripDebugInfoPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(LLVM::createNVVMOptimizeForTargetPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());

  // Host code -> LLVM (launches through the mgpu* entry points); device
  // code -> cubins embedded in gpu.binary ops.
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(rlx::createRLXCUDAModuleToBinary());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void rlx::registerCUDATargetPassesAndPipeline() {
  registerRLXCUDATargetPasses();
  registerCUDAUnfusePolicy();
  PassPipelineRegistration<CUDAPipelineOptions>(
      "rlx-cuda-pipeline",
      "Lower rlx for NVIDIA GPUs: rlx -> linalg -> buffers -> kernels -> "
      "NVVM cubins (gpu.binary) and host code in the LLVM dialect calling "
      "librlx_cuda_runtime.so",
      buildRLXCUDAPipeline);
}
