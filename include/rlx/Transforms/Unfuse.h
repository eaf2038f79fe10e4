//===- Unfuse.h - decompositions of composite rlx ops -----------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_UNFUSE_H
#define RLX_TRANSFORMS_UNFUSE_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {

/// The decompositions rlx-unfuse knows, one per composite op (or op form).
enum class Decomposition {
#define RLX_DECOMPOSITION(name, summary) name,
#include "rlx/Transforms/UnfuseDecompositions.def"
};

/// Every decomposition, in declaration order.
ArrayRef<Decomposition> allDecompositions();

/// The composite ops `convert-rlx-to-linalg` does not lower directly (the
/// fused ops, the backward kernel ops, custom functions and transform
/// regions): a target whose code generator starts from that lowering
/// decomposes at least these.
ArrayRef<Decomposition> getLinalgLoweringDecompositions();

/// What `d` rewrites into what (for docs and diagnostics).
StringRef getDecompositionSummary(Decomposition d);

/// Which decompositions a target wants; what it does not list stays native
/// because its lowering handles it directly. Each target keeps its policy
/// beside its own code and registers it; the `all` policy (every
/// decomposition) is derived, not listed.
struct UnfusePolicy {
  std::string target;
  /// Why the target keeps what it keeps, one sentence.
  std::string rationale;
  SmallVector<Decomposition> decompose;

  bool wants(Decomposition d) const { return llvm::is_contained(decompose, d); }

  /// The policy registered as `target`, `all`, or nullptr.
  static const UnfusePolicy *lookup(StringRef target);
  /// The registered target names in registration order, then `all`.
  static std::string targetNames();
};

/// Registers `policy` under its target name. Thread-safe and idempotent: a
/// name already registered keeps its first policy.
void registerUnfusePolicy(UnfusePolicy policy);

/// The registered policies in registration order, then the derived `all`.
SmallVector<const UnfusePolicy *> getRegisteredUnfusePolicies();

/// Prints the policy table as Markdown: one row per decomposition, one
/// column per registered policy ("yes" or "native").
void printUnfusePolicyTable(raw_ostream &os);

/// Adds the decomposition patterns `policy` enables.
void populateUnfusePatterns(RewritePatternSet &patterns,
                            const UnfusePolicy &policy);

} // namespace rlx
} // namespace mlir

#endif // RLX_TRANSFORMS_UNFUSE_H
