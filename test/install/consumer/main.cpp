// Parses and verifies rlx IR through the C++ API of an installed RLX-MLIR.
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/InitRLX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>

static const char *kGraph = R"mlir(
func.func @f(%x: tensor<2x3xf32> {rlx.input = "x"},
             %w: tensor<3x4xf32> {rlx.param = "w"}) -> tensor<2x4xf32> {
  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = rlx.activation relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  mlir::rlx::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kGraph, &context);
  if (!module || mlir::failed(mlir::verify(*module))) {
    std::fprintf(stderr, "consumer: failed to parse or verify\n");
    return 1;
  }
  int rlxOps = 0;
  module->walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::rlx::RLXDialect>(op->getDialect()))
      ++rlxOps;
  });
  std::printf("consumer: verified %d rlx ops\n", rlxOps);
  return rlxOps == 2 ? 0 : 1;
}
