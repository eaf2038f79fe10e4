//===- TrainingSteps.h - running a training step repeatedly -----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A training step (rlx-autodiff's @f_train_step) returns its updated
// parameters and optimizer state as results marked `{rlx.param = name}`.
// These helpers run such a graph several times on any target, feeding each
// marked result back into the argument of that name and giving inputs that
// change per step their slice of a batched tensor.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_TRAININGSTEPS_H
#define RLX_EXECUTION_TRAININGSTEPS_H

#include "rlx/Execution/CompiledGraph.h"

#include <functional>

namespace rlxrt {

/// Result `result` of a training step becomes argument `argument` of the
/// next step.
struct ParamFeedback {
  size_t result;
  size_t argument;
};

/// Every result of `signature` that carries a parameter name, paired with
/// the parameter argument of that name. Fails when no result carries one,
/// a name matches no parameter argument, or a result's dtype or shape
/// differs from its argument's (naming both).
llvm::Expected<std::vector<ParamFeedback>>
findParamFeedback(const GraphSignature &signature);

/// Whether argument `index` holds optimizer state by rlx-autodiff's names
/// (docs/autodiff.md): `adam.step`, or `<p>.momentum`, `<p>.adam_m`,
/// `<p>.adam_v` for a parameter argument `<p>`. Such state starts at zeros.
bool isOptimizerState(const GraphSignature &signature, size_t index);

/// An argument that takes a different value each step: slice `s` of
/// `batches` along its leading axis in step `s` (counted from 0).
struct BatchedArgument {
  size_t argument;
  HostTensor batches;
};

/// Checks that `batches`, read from `source`, holds at least `steps` slices
/// of argument `name`'s dtype and shape, and pairs it with that argument.
llvm::Expected<BatchedArgument>
makeBatchedArgument(const GraphSignature &signature, llvm::StringRef name,
                    HostTensor batches, unsigned steps, llvm::StringRef source);

struct StepOptions {
  unsigned steps = 1;
  std::vector<BatchedArgument> batched;
  /// Called after each step with its index (from 0) and its outputs.
  std::function<void(unsigned step, llvm::ArrayRef<HostTensor> outputs)>
      afterStep;
  /// The outputs afterStep reads (empty: all of them). Where the target
  /// keeps the data between steps (a GPU's memory), only these come back
  /// each step, and the others hold an earlier step's values until the end.
  std::vector<size_t> watchedOutputs;
};

/// What runSteps measured.
struct StepResult {
  unsigned steps = 0;
  /// Wall time of the graph's runs, on the host's clock.
  double totalMs = 0;
  /// Each step's part of totalMs. Where the target keeps the data between
  /// steps, a step runs from the end of the last one (its loss read back)
  /// to its own end, so the first also holds the arguments' copy.
  std::vector<double> stepMs;
};

/// Runs `graph` `options.steps` times. `arguments` hold the first step's
/// arguments (a batched argument's tensor is overwritten by its slice) and,
/// on return, the arguments of a step after the last one: every parameter
/// as trained. `outputs` (as from allocateOutputs) hold the last step's
/// results. A graph with its own steps entry (CompiledGraph::hasOwnSteps)
/// runs them there, the parameters staying on the target between steps.
llvm::Expected<StepResult> runSteps(const CompiledGraph &graph,
                                    llvm::MutableArrayRef<HostTensor> arguments,
                                    llvm::MutableArrayRef<HostTensor> outputs,
                                    const StepOptions &options);

} // namespace rlxrt

#endif // RLX_EXECUTION_TRAININGSTEPS_H
