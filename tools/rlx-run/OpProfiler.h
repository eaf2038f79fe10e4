//===- OpProfiler.h - rlx-run --profile ------------------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Reads the per-op timers of a graph compiled with rlx-cpu-profile from the
// CPU runtime and prints where the time went.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TOOLS_RLX_RUN_OPPROFILER_H
#define RLX_TOOLS_RLX_RUN_OPPROFILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

class OpProfiler {
public:
  /// Takes the timer labels from the compiled `module`.
  explicit OpProfiler(mlir::ModuleOp module);

  /// Finds the timer entry points in the runtime library at `runtimePath`
  /// (the one the compiled graph calls). False with `error` set if absent.
  bool bind(const std::string &runtimePath, std::string &error);

  /// Forgets the time measured so far.
  void reset();

  /// Prints one line per timer, largest total first: the time per run, its
  /// share of `wallMs` (the wall time of the `runs` profiled runs), and the
  /// calls per run.
  void print(llvm::raw_ostream &os, unsigned runs, double wallMs) const;

private:
  std::vector<std::string> labels;
  long long (*read)(long long id, double *totalMs) = nullptr;
  void (*resetTimers)() = nullptr;
};

#endif // RLX_TOOLS_RLX_RUN_OPPROFILER_H
