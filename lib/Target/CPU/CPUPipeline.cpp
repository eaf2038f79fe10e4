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

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXEXPORTGRAPHFUNCTIONS
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {
struct RLXExportGraphFunctionsPass
    : rlx::impl::RLXExportGraphFunctionsBase<RLXExportGraphFunctionsPass> {
  /// Each output is written to its own out-parameter buffer, so a value
  /// returned twice (or a graph input returned as is) gets a copy: the
  /// result-to-out-parameter rewrite needs one distinct producer per result.
  static void giveEachResultItsOwnValue(func::FuncOp fn) {
    fn.walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallPtrSet<Value, 8> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        bool isArgument = isa<BlockArgument>(value);
        if (seen.insert(value).second && !isArgument)
          continue;
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type)
          continue;
        SmallVector<Value> sizes;
        for (int64_t dim = 0; dim < type.getRank(); ++dim)
          if (type.isDynamicDim(dim))
            sizes.push_back(tensor::DimOp::create(b, ret.getLoc(), value, dim));
        Value init = tensor::EmptyOp::create(b, ret.getLoc(), type, sizes);
        operand.set(
            linalg::CopyOp::create(b, ret.getLoc(), value, init).getResult(0));
      }
    });
  }

  void runOnOperation() override {
    UnitAttr unit = UnitAttr::get(&getContext());
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (!fn.isPublic() || fn.isExternal())
        continue;
      fn->setAttr("llvm.emit_c_interface", unit);
      giveEachResultItsOwnValue(fn);
      // Leaf names are for runners that read the graph before compiling;
      // LLVM has no use for them.
      for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
        fn.removeArgAttr(i, RLXDialect::kInputAttrName);
        fn.removeArgAttr(i, RLXDialect::kParamAttrName);
      }
    }
  }
};

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
  RLXUnfuseOptions unfuse;
  unfuse.target = "cpu";
  pm.addPass(createRLXUnfuse(unfuse));
  pm.addPass(createConvertRLXToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createRLXFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // Tensors -> buffers. Graph results become trailing out-parameters so a
  // caller owns every buffer it sees.
  pm.addPass(createRLXExportGraphFunctions());
  addTextualPipeline(pm,
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map "
                     "allow-return-allocs-from-loops},"
                     "buffer-results-to-out-params{modify-public-functions "
                     "hoist-static-allocs},"
                     "buffer-deallocation-pipeline");
  if (options.useBlas) {
    RLXLinalgToBLASOptions blas;
    blas.minFlops = options.blasMinFlops;
    pm.addPass(createRLXLinalgToBLAS(blas));
  }
  if (options.profile)
    pm.addPass(createRLXCPUProfile());

  // Buffers -> loops: each linalg op becomes an affine loop nest whose
  // outermost parallel loop runs on OpenMP threads and whose innermost loop
  // is vectorized (masked at the edges).
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

  // Loops -> LLVM dialect.
  addTextualPipeline(pm, "lower-affine,"
                         "convert-scf-to-openmp,"
                         "canonicalize,"
                         "convert-vector-to-scf,"
                         "expand-strided-metadata,"
                         "lower-affine,"
                         "convert-scf-to-cf,"
                         "convert-complex-to-standard");
  pm.addPass(createRLXCPUExpandArith());
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
