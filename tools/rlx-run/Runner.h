//===- Runner.h - running a compiled graph from the command line -*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What rlx-run and rlx-run-aot share: the options that feed, time, write
// and check a graph, and the run itself. It needs the execution library's
// core only, so rlx-run-aot builds without MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TOOLS_RLX_RUN_RUNNER_H
#define RLX_TOOLS_RLX_RUN_RUNNER_H

#include "rlx/Execution/CompiledGraph.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rlxrun {

extern llvm::cl::OptionCategory runCategory;
/// --load OUT.so: a graph compiled ahead of time.
extern llvm::cl::opt<std::string> loadSharedLib;
/// --steps N: run a training step N times; 0 for one plain run.
extern llvm::cl::opt<unsigned> steps;
/// --ranks N: start N processes of this tool, one per rank (Launcher.cpp).
extern llvm::cl::opt<unsigned> ranks;

/// The name errors start with.
extern const char *toolName;

/// Reports a user error on one line and exits with code 1.
[[noreturn]] void fatal(const llvm::Twine &message);
void exitOnError(llvm::Error error);
template <typename T> T exitOnError(llvm::Expected<T> value) {
  exitOnError(value.takeError());
  return std::move(*value);
}

/// Feeds `graph` its arguments (--input, --params, --random-inputs), runs
/// or benchmarks it (--bench), prints the profile if it has one, and
/// writes, prints and checks the outputs (--output, --print, --check).
/// Returns the exit code: 1 if a check failed.
/// This process's rank and the number of ranks when a launcher (--ranks,
/// mpirun) started it, read from the launcher's environment; rank 0 of 1
/// otherwise. Rank 0 writes --output and prints progress
/// (docs/distributed.md).
struct LaunchRank {
  int64_t rank = 0, size = 1;
};
LaunchRank launchRank();

/// --ranks: starts `ranks` copies of this process with the same arguments
/// less --ranks, each told its rank (RLX_RANK, RLX_WORLD_SIZE,
/// RLX_LOCAL_RANK) and where the ranks meet (RLX_COMM_DIR), and returns
/// the exit status: the first failed rank's, after stopping the others.
int launchRanks(int argc, char **argv, unsigned ranks);

/// Loads every --plugin library, exiting with its error.
void loadPlugins();

int runGraph(const rlxrt::CompiledGraph &graph,
             std::optional<double> compileMs);

} // namespace rlxrun

#endif // RLX_TOOLS_RLX_RUN_RUNNER_H
