//===- IRParserFuzzer.cpp - libFuzzer target of the IR parser and verifier ===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Feeds text to the MLIR parser with every dialect of the project loaded and
// verifies what parses. Any input must give a module or diagnostics, never a
// crash, hang, abort or sanitizer report. A verified module must also print
// and parse back (the round trip the lit tests rely on).
//
// Half the mutations are structured (IRFuzzerSupport.cpp: shapes, element
// types, attribute values), half are libFuzzer's byte mutations, which reach
// the parser's own error paths.
//
//===----------------------------------------------------------------------===//

#include "IRFuzzerSupport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  rlx_fuzz::initialize();
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  return rlx_fuzz::mutate(data, size, maxSize, seed, /*structuredPercent=*/50);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rlx_fuzz::recycleContext();
  MLIRContext &ctx = rlx_fuzz::getContext();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  StringRef text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      rlx_fuzz::parseModule(text, ctx, /*verify=*/true);
  if (!module)
    return 0;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os);
  if (!rlx_fuzz::parseModule(printed, ctx, /*verify=*/true)) {
    llvm::errs() << "a verified module does not parse back once printed:\n"
                 << printed << "\n";
    std::abort();
  }
  return 0;
}
