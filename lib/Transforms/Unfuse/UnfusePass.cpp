//===- UnfusePass.cpp - rlx-unfuse and its per-target policies ------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <deque>
#include <mutex>

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXUNFUSE
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

struct RLXUnfusePass : rlx::impl::RLXUnfuseBase<RLXUnfusePass> {
  using RLXUnfuseBase::RLXUnfuseBase;

  void runOnOperation() override {
    const UnfusePolicy *policy = UnfusePolicy::lookup(target);
    if (!policy) {
      getOperation().emitError()
          << "rlx-unfuse: unknown target '" << target
          << "' (expected one of: " << UnfusePolicy::targetNames() << ")";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    populateUnfusePatterns(patterns, *policy);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// The registered policies, in registration order, and the lock that lets
/// pipelines be built (and so targets register) from several threads. A
/// deque keeps the policies handed out in place while others are added.
/// Autodiff's own policy is there from the start: autodiff differentiates
/// primitives; custom_fn carries its own rules. The backward ops it emits go
/// into the new function, which the policy does not touch; only a copy
/// being differentiated again has its backward ops decomposed.
struct PolicyRegistry {
  std::mutex mutex;
  std::deque<UnfusePolicy> policies;
};

using D = Decomposition;

/// The fused ops and dot_general: every target without a kernel of its own
/// for them, autodiff included, runs what they are defined by.
constexpr Decomposition kFusedOps[] = {D::FusedMatMulBiasAct,
                                       D::FusedResidualLayerNorm,
                                       D::FusedResidualRmsNorm,
                                       D::FusedSwiGLU,
                                       D::LoraMatMul,
                                       D::FusedAttentionBlock,
                                       D::FusedTransformerLayer,
                                       D::DotGeneral};

/// The backward kernel ops whose decompositions define their derivatives:
/// the linalg lowering decomposes them, and so does autodiff where it
/// differentiates a gradient (second order).
constexpr Decomposition kBackwardKernels[] = {
    D::LayerNormBackward, D::RmsNormBackward,
    D::GroupNormBackward, D::BatchNormInferenceBackward,
    D::RopeBackward,      D::CumsumBackward,
    D::GatherBackward,    D::ComplexNormSqBackward,
    D::Conv2dBackward,    D::MaxPool2dBackward,
    D::AttentionBackward};

/// `kFusedOps`, then `middle`, then `kBackwardKernels`.
SmallVector<Decomposition>
withFusedAndBackward(ArrayRef<Decomposition> middle) {
  SmallVector<Decomposition> all(std::begin(kFusedOps), std::end(kFusedOps));
  llvm::append_range(all, middle);
  llvm::append_range(all, kBackwardKernels);
  return all;
}

SmallVector<Decomposition> autodiffDecompositions() {
  return withFusedAndBackward({D::Rank3Attention, D::SelectiveScanToScan,
                               D::GatedDeltaNetToScan, D::IfToWhere,
                               D::UnrollWhile, D::ElementwiseRegion,
                               D::TransformRegion, D::BatchElementwiseRegion});
}

PolicyRegistry &registry() {
  static PolicyRegistry instance{
      {},
      {{"autodiff",
        "autodiff differentiates primitives and emits the backward ops "
        "itself; the state-space scans become rlx.scan, whose rule "
        "differentiates the body; if and bounded while become straight-line "
        "selects; custom_fn carries its own rules; the backward ops are "
        "decomposed where a graph that holds them (a gradient) is "
        "differentiated again, except those with rules of their own (relu, "
        "activation, softmax cross-entropy)",
        autodiffDecompositions()}}};
  return instance;
}

const UnfusePolicy &allPolicy() {
  static const UnfusePolicy all = {
      "all", "every decomposition: the graph in primitives only",
      SmallVector<Decomposition>(allDecompositions())};
  return all;
}
} // namespace

ArrayRef<Decomposition> rlx::allDecompositions() {
  static const Decomposition all[] = {
#define RLX_DECOMPOSITION(name, summary) Decomposition::name,
#include "rlx/Transforms/UnfuseDecompositions.def"
  };
  return all;
}

ArrayRef<Decomposition> rlx::getLinalgLoweringDecompositions() {
  static const SmallVector<Decomposition> decompositions =
      withFusedAndBackward({D::InlineCustomFn, D::TransformRegion,
                            D::ReluBackward, D::ActivationBackward});
  return decompositions;
}

StringRef rlx::getDecompositionSummary(Decomposition d) {
  switch (d) {
#define RLX_DECOMPOSITION(name, summary)                                       \
  case Decomposition::name:                                                    \
    return summary;
#include "rlx/Transforms/UnfuseDecompositions.def"
  }
  llvm_unreachable("unknown decomposition");
}

void rlx::registerUnfusePolicy(UnfusePolicy policy) {
  assert(policy.target != "all" && "the `all` policy is derived");
  PolicyRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  if (llvm::none_of(reg.policies, [&](const UnfusePolicy &existing) {
        return existing.target == policy.target;
      }))
    reg.policies.push_back(std::move(policy));
}

SmallVector<const UnfusePolicy *> rlx::getRegisteredUnfusePolicies() {
  PolicyRegistry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  SmallVector<const UnfusePolicy *> policies;
  for (const UnfusePolicy &policy : reg.policies)
    policies.push_back(&policy);
  policies.push_back(&allPolicy());
  return policies;
}

const UnfusePolicy *UnfusePolicy::lookup(StringRef target) {
  for (const UnfusePolicy *policy : getRegisteredUnfusePolicies())
    if (policy->target == target)
      return policy;
  return nullptr;
}

std::string UnfusePolicy::targetNames() {
  std::string names;
  for (const UnfusePolicy *policy : getRegisteredUnfusePolicies())
    names += (names.empty() ? "" : ", ") + policy->target;
  return names;
}

void rlx::printUnfusePolicyTable(raw_ostream &os) {
  SmallVector<const UnfusePolicy *> policies = getRegisteredUnfusePolicies();
  os << "| decomposition |";
  for (const UnfusePolicy *policy : policies)
    os << " " << policy->target << " |";
  os << "\n|---|";
  for (size_t i = 0; i < policies.size(); ++i)
    os << "---|";
  os << "\n";
  for (Decomposition d : allDecompositions()) {
    os << "| " << getDecompositionSummary(d) << " |";
    for (const UnfusePolicy *policy : policies)
      os << (policy->wants(d) ? " yes |" : " native |");
    os << "\n";
  }
  os << "\nWhy each target keeps what it keeps:\n\n";
  for (const UnfusePolicy *policy : policies)
    os << "- `" << policy->target << "`: " << policy->rationale << ".\n";
}

void rlx::populateUnfusePatterns(RewritePatternSet &patterns,
                                 const UnfusePolicy &policy) {
  populateFusedDecompositions(patterns, policy);
  populateLayoutDecompositions(patterns, policy);
  populateSSMDecompositions(patterns, policy);
  populateControlFlowDecompositions(patterns, policy);
  populateBackwardDecompositions(patterns, policy);
}
