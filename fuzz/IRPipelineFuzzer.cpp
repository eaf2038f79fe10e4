//===- IRPipelineFuzzer.cpp - libFuzzer target of one pass pipeline -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Runs one pass pipeline (RLX_FUZZ_PIPELINE, a textual pipeline fixed when
// the target is built) on every input that parses and verifies. The
// pipeline is fixed per binary, not chosen by the input, so that each
// pipeline has its own corpus and coverage feedback: a corpus grown for
// rlx-fuse says nothing about the CPU lowering, and scripts/fuzz.sh runs
// and reports each pipeline on its own.
//
// What the pipeline must do on any verified input:
//  - no crash, hang, abort (LLVM ERROR, assertion) or sanitizer report;
//  - a failure comes with at least one error diagnostic (a message for the
//    user), and a success with none (`error:` printed but exit code 0);
//  - with RLX_FUZZ_STRICT_IR=1 in the environment, every pass that succeeds
//    also leaves valid IR. Without it, invalid IR after a pass is what the
//    user would see: a verifier error, which counts as a diagnostic. The
//    strict mode finds lowerings that emit invalid IR (a confusing message
//    for the user, not a crash); docs/security.md lists the known ones.
// Diagnostics are swallowed: a diagnostic is the expected outcome for much
// of what the mutator makes.
//
//===----------------------------------------------------------------------===//

#include "IRFuzzerSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#ifndef RLX_FUZZ_PIPELINE
#error "RLX_FUZZ_PIPELINE must name the pass pipeline to fuzz"
#endif

using namespace mlir;

namespace {
/// Verifies the IR after every pass that succeeded; invalid IR is a defect
/// of that pass, reported with its name.
struct VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "pass '" << pass->getArgument()
                 << "' succeeded but left invalid IR\n";
    std::abort();
  }
};
} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  rlx_fuzz::initialize();
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  return rlx_fuzz::mutate(data, size, maxSize, seed, /*structuredPercent=*/90);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rlx_fuzz::recycleContext();
  MLIRContext &ctx = rlx_fuzz::getContext();
  unsigned errors = 0;
  ScopedDiagnosticHandler count(&ctx, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    return success();
  });
  StringRef text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      rlx_fuzz::parseModule(text, ctx, /*verify=*/true);
  if (!module)
    return -1; // Not a pipeline input: keep it out of the corpus.

  PassManager pm(&ctx, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  if (failed(parsePassPipeline(RLX_FUZZ_PIPELINE, pm, llvm::errs()))) {
    llvm::errs() << "invalid pipeline '" RLX_FUZZ_PIPELINE "'\n";
    std::abort();
  }
  static const bool strictIR = std::getenv("RLX_FUZZ_STRICT_IR") != nullptr;
  if (strictIR) {
    pm.enableVerifier(false);
    pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  }
  errors = 0;
  LogicalResult result = pm.run(*module);
  if (failed(result) && errors == 0) {
    llvm::errs() << "'" RLX_FUZZ_PIPELINE "' failed without an error\n";
    std::abort();
  }
  if (succeeded(result) && errors != 0) {
    llvm::errs() << "'" RLX_FUZZ_PIPELINE "' reported " << errors
                 << " error(s) but succeeded\n";
    std::abort();
  }
  return 0;
}
