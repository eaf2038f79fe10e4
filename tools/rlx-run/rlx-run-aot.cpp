//===- rlx-run-aot.cpp - run a graph compiled ahead of time ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-run-aot --load GRAPH.so [--input NAME=FILE.npy ...] [--params F]
//             [--random-inputs --seed S] [--output DIR] [--print]
//             [--bench N] [--check NAME=REF.npy --rtol R --atol A]
//             [--steps N [--batched NAME,...]] [--profile]
//
// The --load path of rlx-run without the compiler: it links no MLIR and
// LLVM's Support library statically, so it runs graphs compiled by
// `rlx-run --emit-shared-lib` (any target) on machines where LLVM is not
// installed, such as a GPU machine, next to the target's runtime library.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "llvm/Support/InitLLVM.h"

static llvm::cl::opt<bool> profile(
    "profile",
    llvm::cl::desc("Time each op with the timers compiled into the library "
                   "(rlx-run --profile --emit-shared-lib on the cpu target; "
                   "always there for cuda) and print the time per op, "
                   "largest first, after the runs (the --bench runs if "
                   "given)"),
    llvm::cl::cat(rlxrun::runCategory));

using namespace rlxrt;
using namespace rlxrun;
namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  toolName = "rlx-run-aot";
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "rlx-run-aot: run an rlx graph compiled ahead of time "
      "(rlx-run --emit-shared-lib)\n\n"
      "Inputs and parameters are matched by their rlx.input / rlx.param "
      "names.\nOutputs are named output_0, output_1, ... in result order.\n");
  if (ranks > 0)
    return launchRanks(argc, argv, ranks);
  if (loadSharedLib.empty())
    fatal("give the graph library with --load GRAPH.so");
  loadPlugins();
  std::unique_ptr<CompiledGraph> graph =
      exitOnError(CompiledGraph::load(loadSharedLib));
  if (profile)
    exitOnError(graph->bindLibraryProfile());
  return runGraph(*graph, std::nullopt);
}
