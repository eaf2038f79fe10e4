//===- GraphSignature.h - the interface of a graph to run -------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The names, dtypes and shapes a compiled graph exchanges, read from the
// graph function before lowering and embedded as text in every compiled
// graph (docs/abi.md).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_GRAPHSIGNATURE_H
#define RLX_EXECUTION_GRAPHSIGNATURE_H

#include "rlx/Runtime/HostTensor.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace rlxrt {

/// One argument or result of a graph.
struct TensorSpec {
  /// State: a parameter marked `rlx.state`, bound and saved like one but
  /// not trained (batch norm's running statistics).
  enum class Kind { Input, Param, Unnamed, Result, State };
  /// A `?` dim of `shape`: its size is the run's (docs/abi.md).
  static constexpr int64_t kDynamicDim = -1;
  std::string name;
  Kind kind;
  DType dtype;
  std::vector<int64_t> shape;
  /// For a result: the `rlx.param` result attribute, the name of the
  /// parameter argument it replaces in the next step of a training step
  /// (its updated value); empty otherwise.
  std::string param = {};
  /// For an argument used as the packed weight of a GGUF-scheme
  /// `rlx.dequant_matmul`, `rlx.dequant_grouped_matmul` or
  /// `rlx.dequant_moe_weights`: the GGUF type its bytes must have (`q4_0`) and
  /// the row length K, the innermost dim of the GGUF tensor (0 when
  /// dynamic). Empty when the argument has no such use, when its uses
  /// disagree, and in signatures read from shared libraries, which check
  /// only the byte count.
  std::string packedType = {};
  int64_t packedRowElements = 0;
  /// For an integer argument that indexes something (gather indices,
  /// cross-entropy labels, scatter rows, expert ids): the exclusive upper
  /// bound of the valid indices, the smallest over its uses, which random
  /// test data stays below; 0 when unknown or not an index.
  int64_t indexBound = 0;

  /// `[2, 3] f32`, `[?, 3] f32`.
  std::string describe() const;
  /// True when a dim is `?`.
  bool isDynamic() const;
  /// `input`, `parameter`, `state`, `argument` or `output`.
  std::string kindName() const;
  /// True for the arguments a parameter file binds: parameters and state.
  bool isParamOrState() const {
    return kind == Kind::Param || kind == Kind::State;
  }

  /// Fails unless `tensor` has this dtype and shape (any size for a `?`
  /// dim), naming the tensor, the
  /// expected and the actual type, and `source` (`'x.npy'`) when given.
  llvm::Error checkMatches(const HostTensor &tensor,
                           llvm::StringRef source = {}) const;
  /// The same for a tensor of a parameter file: a GGUF block-quantized
  /// tensor binds only to a ui8 `[bytes]` argument of its byte count, and,
  /// where the graph uses the argument as a GGUF weight, only with the type
  /// and row length that use decodes.
  llvm::Error checkMatches(const ParamTensor &tensor,
                           llvm::StringRef source = {}) const;
  /// A zeroed tensor of this dtype and shape, or an error naming the tensor
  /// when a dim is `?`, when its size overflows or the memory is not available
  /// (a graph's static shapes may ask for more than the machine has).
  llvm::Expected<HostTensor> allocate() const;
};

/// What a runner needs to know of a graph function: its leaves, in argument
/// order, and its outputs.
struct GraphSignature {
  std::string name;
  std::vector<TensorSpec> arguments;
  std::vector<TensorSpec> results;
  /// Multiply-adds times two of the graph's matmuls, for GFLOP/s; 0 if none.
  double flops = 0;

  /// Reads the signature of `entry` (or the module's only public function)
  /// of a module of rlx graphs. Fails for unknown entries, dynamic shapes and
  /// element types a runner cannot exchange.
  static llvm::Expected<GraphSignature> fromModule(mlir::ModuleOp module,
                                                   llvm::StringRef entry);

  /// A line-based text form, embedded in compiled graphs:
  ///   graph NAME
  ///   flops N                                    (when known)
  ///   input|parameter|argument|output NAME DTYPE DIM,DIM,...
  /// with a fifth field `param=PARAM` on an output carrying a parameter name.
  std::string serialize() const;
  static llvm::Expected<GraphSignature> parse(llvm::StringRef text);

  /// True when an output has a `?` dim: the graph then returns every output
  /// in buffers it allocates (docs/abi.md).
  bool returnsOutputs() const;

  const TensorSpec *findArgument(llvm::StringRef name) const;
  /// The index of the argument named `name`, if any.
  std::optional<size_t> findArgumentIndex(llvm::StringRef name) const;
  /// `x, w1, b1` for messages.
  std::string argumentNames() const;
};

/// The words of `rlx_graph_abi` (GraphABI.h, docs/abi.md) for a graph of
/// `signature`, whose library embeds `signatureText` as rlx_graph_signature
/// and `profileLabels` (empty: none) as rlx_graph_profile_labels: a format
/// tag, checksums of both texts, and the count, element type, rank and
/// element count of the entry's descriptors.
std::vector<uint64_t> graphABIRecord(const GraphSignature &signature,
                                     llvm::StringRef signatureText,
                                     llvm::StringRef profileLabels);

/// Checks the `rlx_graph_abi` words `record` of a library against the
/// signature parsed from its `signatureText` and against both texts'
/// checksums: an edited or damaged signature (sizes changed, say) is an
/// error saying what differs, before the graph is called.
llvm::Error checkGraphABIRecord(llvm::ArrayRef<uint64_t> record,
                                const GraphSignature &signature,
                                llvm::StringRef signatureText,
                                llvm::StringRef profileLabels);

} // namespace rlxrt

#endif // RLX_EXECUTION_GRAPHSIGNATURE_H
