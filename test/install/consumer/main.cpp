// Compiles and runs a graph through the C++ API of an installed RLX-MLIR:
// parse and verify rlx IR, compile it with the `cpu` execution target, run
// it on host tensors and check the result. The passes are deliberately not
// registered: building the CPU pipeline must not depend on it.
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Execution/CompiledGraph.h"
#include "rlx/Execution/ExecutionTarget.h"
#include "rlx/InitRLX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

static const char *kGraph = R"mlir(
func.func @f(%x: tensor<2x3xf32> {rlx.input = "x"},
             %w: tensor<3x4xf32> {rlx.param = "w"}) -> tensor<2x4xf32> {
  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = rlx.activation relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
)mlir";

static int fail(const char *what, llvm::Error error) {
  llvm::errs() << "consumer: " << what << ": "
               << llvm::toString(std::move(error)) << "\n";
  return 1;
}

int main() {
  mlir::DialectRegistry registry;
  mlir::rlx::registerAllDialects(registry);
  mlir::rlx::registerAllExecutionTargets();
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
  if (rlxOps != 2)
    return 1;

  auto target = rlxrt::lookupExecutionTarget("cpu");
  if (!target)
    return fail("no cpu target", target.takeError());
  rlxrt::CompileOptions options;
  // The installed runtime, from the package's RLX::rlx_cpu_runtime target
  // (a program outside PREFIX/bin has no PREFIX/lib beside it to default to).
  options.runtimeLibrary = RLX_CPU_RUNTIME_LIBRARY;
  auto graph = (*target)->compile(*module, "f", options);
  if (!graph)
    return fail("compile", graph.takeError());

  rlxrt::HostTensor x(rlxrt::DType::F32, {2, 3}), w(rlxrt::DType::F32, {3, 4});
  for (int i = 0; i < 6; ++i)
    x.dataAs<float>()[i] = static_cast<float>(i) - 2.5f;
  for (int i = 0; i < 12; ++i)
    w.dataAs<float>()[i] = 0.25f * static_cast<float>(i % 5) - 0.5f;
  std::vector<rlxrt::HostTensor> arguments;
  arguments.push_back(std::move(x));
  arguments.push_back(std::move(w));
  auto outputs = (*graph)->run(arguments);
  if (!outputs)
    return fail("run", outputs.takeError());
  const float *xs = arguments[0].dataAs<float>();
  const float *ws = arguments[1].dataAs<float>();
  const float *y = (*outputs)[0].dataAs<float>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      float expected = 0;
      for (int k = 0; k < 3; ++k)
        expected += xs[i * 3 + k] * ws[k * 4 + j];
      expected = expected > 0 ? expected : 0;
      if (std::fabs(y[i * 4 + j] - expected) > 1e-5f) {
        std::fprintf(stderr, "consumer: y[%d][%d] = %g, expected %g\n", i, j,
                     y[i * 4 + j], expected);
        return 1;
      }
    }
  std::printf("consumer: compiled and ran @f through the C++ API: OK\n");
  return 0;
}
