//===- rlx-opt.cpp - the rlx optimizer driver -----------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt style driver: parses rlx (and upstream) IR, runs rlx passes and
// pipelines as well as the upstream passes those pipelines are built from,
// and prints the result.
//
//===----------------------------------------------------------------------===//

#include "rlx/InitRLX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::rlx::registerAllDialects(registry);
  mlir::rlx::registerAllPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "RLX optimizer driver: rlx dialect passes and pipelines\n",
      registry));
}
