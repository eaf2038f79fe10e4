//===- GraphSignature.h - the interface of a graph to run -------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TOOLS_RLXRUN_GRAPHSIGNATURE_H
#define RLX_TOOLS_RLXRUN_GRAPHSIGNATURE_H

#include "rlx/Runtime/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace rlxrt {

/// One argument or result of a graph.
struct TensorSpec {
  enum class Kind { Input, Param, Unnamed, Result };
  std::string name;
  Kind kind;
  DType dtype;
  std::vector<int64_t> shape;

  /// `[2, 3] f32`.
  std::string describe() const;
  /// `input`, `parameter`, `argument` or `output`.
  std::string kindName() const;
};

/// What a runner needs to know of a graph function: its leaves, in argument
/// order, and its outputs.
struct GraphSignature {
  std::string name;
  std::vector<TensorSpec> arguments;
  std::vector<TensorSpec> results;
  /// Multiply-adds times two of the graph's matmuls, for GFLOP/s; 0 if none.
  double flops = 0;

  /// Reads the signature of `entry` (or the module's only public function).
  /// Fails with a message for unknown entries, dynamic shapes and element
  /// types a runner cannot exchange.
  static std::optional<GraphSignature>
  fromModule(mlir::ModuleOp module, llvm::StringRef entry, std::string &error);

  /// A line-based text form, embedded in ahead-of-time compiled graphs:
  ///   graph NAME
  ///   flops N                                    (when known)
  ///   input|parameter|argument|output NAME DTYPE DIM,DIM,...
  std::string serialize() const;
  static std::optional<GraphSignature> parse(const std::string &text,
                                             std::string &error);

  const TensorSpec *findArgument(const std::string &name) const;
  /// `x, w1, b1` for messages.
  std::string argumentNames() const;
};

} // namespace rlxrt

#endif // RLX_TOOLS_RLXRUN_GRAPHSIGNATURE_H
