//===- TargetPipelines.cpp - what every target runs first -----------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What every target runs before its code generator: the target's unfuse
// policy and the lowering to linalg with elementwise fusion, then graph
// functions with a C interface on buffers whose results are caller-owned
// out-parameters.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/Passes.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXEXPORTGRAPHFUNCTIONS
#define GEN_PASS_DEF_RLXGRAPHRESULTSTOOUTPARAMS
#include "rlx/Conversion/Passes.h.inc"
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

  /// The invariant of buffers handed to libraries (docs/architecture.md):
  /// before bufferization no buffer is taken out of a tensor. The memref of
  /// a `bufferization.to_buffer` is a use One-Shot Bufferize does not see,
  /// so it may write another value in place into that buffer while the
  /// memref is still read (a oneDNN convolution read a ReLU's result after
  /// the next ReLU had been computed into its buffer). Library calls on
  /// tensors go through an op that states its reads and writes
  /// (`rlx_cpu.on_buffers`, the `rlx_cuda` kernels).
  LogicalResult checkNoBufferEscapes() {
    WalkResult walk = getOperation().walk([](bufferization::ToBufferOp op) {
      op.emitError()
          << "rlx-export-graph-functions: a buffer is taken from a tensor "
             "before bufferization (bufferization.to_buffer), which "
             "One-Shot Bufferize cannot see as a use, so the buffer may be "
             "written in place while it is still read; a call of library "
             "code on tensors must state its reads and writes "
             "(rlx_cpu.on_buffers; docs/architecture.md, \"Buffers handed "
             "to libraries\")";
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }

  void runOnOperation() override {
    if (failed(checkNoBufferEscapes()))
      return signalPassFailure();
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
        fn.removeArgAttr(i, RLXDialect::kStateAttrName);
        // The caller's buffers are read-only: an op that updates a tensor
        // in place (dense_solve's elimination) works on a copy of an
        // argument, so a run never changes its inputs, and a repeated run
        // (--bench, a replayed CUDA graph, a caller's reused arrays) sees
        // the same ones.
        fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(&getContext(), false));
      }
      // A training step marks its updated parameters among its results.
      for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
        fn.removeResultAttr(i, RLXDialect::kParamAttrName);
    }
  }
};

struct RLXGraphResultsToOutParamsPass
    : rlx::impl::RLXGraphResultsToOutParamsBase<
          RLXGraphResultsToOutParamsPass> {
  void runOnOperation() override {
    bufferization::BufferResultsToOutParamsOpts options;
    options.modifyPublicFunctions = true;
    options.hoistStaticAllocs = true;
    // Only the graph knows the sizes of a result with `?` dims, so such a
    // function returns (and the caller frees) all its results.
    options.filterFn = [](func::FuncOp *fn) {
      return llvm::all_of(fn->getResultTypes(), [](Type type) {
        auto memref = dyn_cast<MemRefType>(type);
        return !memref || memref.hasStaticShape();
      });
    };
    if (failed(bufferization::promoteBufferResultsToOutParams(getOperation(),
                                                              options)))
      signalPassFailure();
  }
};

} // namespace

void rlx::buildRLXToLinalgPipeline(
    OpPassManager &pm, StringRef unfuseTarget,
    function_ref<void(OpPassManager &)> formTargetKernels) {
  RLXUnfuseOptions unfuse;
  unfuse.target = unfuseTarget.str();
  pm.addPass(createRLXUnfuse(unfuse));
  if (formTargetKernels)
    formTargetKernels(pm);
  pm.addPass(createConvertRLXToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createRLXFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void rlx::buildGraphBufferizationPipeline(OpPassManager &pm) {
  pm.addPass(createRLXExportGraphFunctions());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Static graph results become trailing out-parameters, so a caller owns
  // every buffer it sees; a graph with a `?` output returns its outputs.
  pm.addPass(createRLXGraphResultsToOutParams());
  bufferization::buildBufferDeallocationPipeline(pm);
  // The deallocation pipeline clones a returned view of an argument (a
  // graph that returns a reshape of its `?`-shaped input): the clone
  // becomes an allocation and a copy, which the targets lower.
  pm.addPass(createConvertBufferizationToMemRefPass());
}
