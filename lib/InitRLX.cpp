//===- InitRLX.cpp - register everything an rlx tool needs ----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/InitRLX.h"
#include "rlx/Conversion/Passes.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Target/CPU/Passes.h"
#include "rlx/Target/CPU/RLXCPUDialect.h"
#include "rlx/Target/CUDA/Passes.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"
#include "rlx/Transforms/Passes.h"
#include "rlx/Transforms/Sharding.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::rlx::registerAllDialects(DialectRegistry &registry) {
  registry.insert<RLXDialect, cpu::RLXCPUDialect, cuda::RLXCUDADialect>();
  // The pipelines reach linalg, tensor, bufferization, gpu, nvvm and llvm;
  // registering all upstream dialects keeps every intermediate stage
  // printable and re-parsable.
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates kernels to LLVM IR inside a pass.
  mlir::registerAllToLLVMIRTranslations(registry);
  // rlx ops under upstream sharding-propagation and shard-partition.
  registerShardingInterfaceModels(registry);
}

void mlir::rlx::registerAllPasses() {
  mlir::registerAllPasses();
  registerRLXConversionPasses();
  registerCPUTargetPassesAndPipeline();
  registerCUDATargetPassesAndPipeline();
  registerRLXTransformsPasses();
}
