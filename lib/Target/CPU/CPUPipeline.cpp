//===- CPUPipeline.cpp - rlx-cpu-pipeline ---------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/Passes.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Target/CPU/Passes.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {
/// Appends an upstream pipeline given in textual form. The strings are
/// fixed, so a parse failure is a build defect, reported loudly.
void addTextualPipeline(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("rlx-cpu-pipeline: invalid upstream pipeline");
}
} // namespace

void rlx::buildRLXCPUPipeline(OpPassManager &pm,
                              const CPUPipelineOptions &options) {
  // Composite ops the CPU has no direct lowering for become primitives;
  // then rlx -> linalg on tensors, then elementwise fusion. Profiling names
  // locations first, so timers can say which of the user's ops ran.
  if (options.profile)
    pm.addPass(createRLXTagOpLocations());
  registerCPUUnfusePolicy();
  // Collectives call the runtime, which calls MPI.
  pm.addPass(createRLXCPULowerCollectives());
  // rlx.custom calls its registered kernel through the runtime.
  pm.addPass(createRLXCPULowerCustomOps());
  // The Gaussian splat ops call their tile kernels in the runtime.
  pm.addPass(createRLXCPULowerGaussianSplat());
  // f32 convolutions and their gradients call oneDNN, before the unfuse
  // policy would decompose the gradients.
  if (options.dnnlConvolutions)
    pm.addPass(createRLXCPULowerConvolutions());
  // Quantized GEMMs of the formats the runtime decodes per tile.
  if (options.quantGemmKernel)
    pm.addPass(createRLXCPULowerQuantMatMul());
  buildRLXToLinalgPipeline(pm, "cpu");
  if (options.useBlas)
    pm.addNestedPass<func::FuncOp>(createRLXTransposedGemmOperands());

  buildGraphBufferizationPipeline(pm);
  // Deallocs come at the end of the graph; each goes to its buffer's last
  // use, once canonicalization has unwrapped them from `scf.if true`.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createRLXCPUEarlyDealloc());
  if (options.useBlas) {
    RLXLinalgToBLASOptions blas;
    blas.minFlops = options.blasMinFlops;
    blas.f32Library = options.f32Library;
    blas.matmulPrecision = options.matmulPrecision;
    pm.addPass(createRLXLinalgToBLAS(blas));
  }
  if (options.profile)
    pm.addPass(createRLXCPUProfile());

  // Buffers -> loops: each linalg op becomes an affine loop nest whose
  // outermost parallel loop runs on OpenMP threads and whose innermost loop
  // is vectorized (masked at the edges).
  pm.addNestedPass<func::FuncOp>(createRLXCPUDynamicLoopBodiesToSCF());
  addTextualPipeline(pm, "func.func(convert-linalg-to-affine-loops)");
  if (options.parallel)
    addTextualPipeline(pm, "func.func(affine-parallelize{max-nested=1})");
  if (options.vectorWidth > 1) {
    RLXCPUVectorizeOptions vectorize;
    vectorize.vectorSize = options.vectorWidth;
    pm.addNestedPass<func::FuncOp>(createRLXCPUVectorize(vectorize));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createRLXCPUMathApproximation());

  // Loops -> LLVM dialect; the run-time shape checks of `?` dims call the
  // runtime.
  pm.addPass(createRLXCPULowerShapeChecks());
  addTextualPipeline(pm, "lower-affine,"
                         "convert-scf-to-openmp,"
                         "canonicalize,"
                         "convert-vector-to-scf,"
                         "expand-strided-metadata,"
                         "lower-affine,"
                         "convert-scf-to-cf,"
                         "convert-complex-to-standard");
  pm.addPass(createRLXExpandArith());
  addTextualPipeline(pm, "convert-math-to-llvm,"
                         "convert-math-to-libm,"
                         "convert-vector-to-llvm,"
                         "convert-complex-to-llvm,"
                         "finalize-memref-to-llvm{use-generic-functions},"
                         "convert-arith-to-llvm,"
                         "convert-cf-to-llvm,"
                         "convert-openmp-to-llvm,"
                         "convert-func-to-llvm,"
                         "convert-index-to-llvm,"
                         "convert-ub-to-llvm,"
                         "reconcile-unrealized-casts");
  // A failed runtime call (allocation, shape check, custom op) ends the run
  // with its error, not the process: the code returns after it.
  pm.addPass(createRLXCPUReturnOnFailure());
}

void rlx::registerCPUTargetPassesAndPipeline() {
  registerRLXCPUTargetPasses();
  registerCPUUnfusePolicy();
  PassPipelineRegistration<CPUPipelineOptions>(
      "rlx-cpu-pipeline",
      "Lower rlx to the LLVM dialect for the CPU: rlx -> linalg -> "
      "bufferized loops and OpenBLAS calls -> LLVM",
      buildRLXCPUPipeline);
}
