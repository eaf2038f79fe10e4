//===- GraphSteps.h - repeated training steps kept on a target --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The plan a runner hands to a compiled graph's optional `rlx_graph_steps`
// entry (docs/abi.md): run a training step many times with its parameters
// and optimizer state kept where the target computes (a GPU's memory), only
// the batches going in and the watched outputs (the loss) coming out each
// step. Plain C, shared by the execution library and the target runtimes.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_GRAPHSTEPS_H
#define RLX_RUNTIME_GRAPHSTEPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `rlx_graph_steps(descriptors, plan)` runs the graph `steps` times on the
/// host buffers of `descriptors` (those of rlx_graph_run). Indices count the
/// graph's arguments from 0, and its outputs from 0. Before step `s` (from
/// 0), each batched argument takes the bytes at its `batchedData` plus `s`
/// times its size; after it, each fed-back output becomes its argument for
/// the next step, each watched output is copied to its host buffer and
/// `afterStep(context, s)` is called. On return every output's host buffer
/// holds the last step's value and every fed-back argument's the value the
/// next step would take; the other host buffers are unchanged.
typedef struct rlx_graph_step_plan {
  int32_t steps;
  int32_t feedbackCount;
  const int32_t *feedbackOutputs;
  const int32_t *feedbackArguments;
  int32_t batchedCount;
  const int32_t *batchedArguments;
  const void *const *batchedData;
  int32_t watchedCount;
  const int32_t *watchedOutputs;
  /// Optional (null: nothing to call).
  void (*afterStep)(void *context, int32_t step);
  void *context;
} rlx_graph_step_plan;

#ifdef __cplusplus
} // extern "C"
#endif

#endif // RLX_RUNTIME_GRAPHSTEPS_H
