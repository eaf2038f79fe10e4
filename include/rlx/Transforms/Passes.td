//===- Passes.td - rlx graph transformations ---------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_PASSES_TD
#define RLX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXUnfuse : Pass<"rlx-unfuse", "ModuleOp"> {
  let summary = "Decompose composite rlx ops into primitives, per target";
  let description = [{
    Rewrites composite ops into the primitive rlx ops they are defined by.
    Which decompositions run is a per-target policy (a table in
    `UnfusePolicy.cpp`, listed by `docs/passes.md`):

    | target | decomposes | keeps native |
    |--------|------------|--------------|
    | `cpu` | every fused op, `lora_matmul`, `dot_general` | rank-3 attention (lowered directly) |
    | `cuda` | `fused_swiglu`, `lora_matmul`, `fused_attention_block`, `fused_transformer_layer`, `dot_general`, rank-3 `attention` (to rank 4) | `fused_matmul_bias_act`, `fused_residual_ln`, `fused_residual_rms_norm`, rank-4 attention |
    | `autodiff`, `all` | everything above | nothing |

    Every decomposition preserves the composite op's semantics exactly
    (attention keeps `score_scale`, softcap, window and its mask; broadcasts
    keep their dtype) and gives the new ops a fused location naming the
    composite op. A composite op whose shapes a decomposition cannot express
    (for instance a dynamic sequence length where heads are split) is left
    in place.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"all\"",
           "Target whose policy to apply: cpu, cuda, autodiff or all">,
  ];
}

#endif // RLX_TRANSFORMS_PASSES_TD
