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
    | `cpu` | every fused op, `lora_matmul`, `dot_general`, `if`, bounded `while`, `custom_fn`, `transform_region` | rank-3 attention, `elementwise_region`, `batch_elementwise_region` (lowered directly) |
    | `cuda` | `fused_swiglu`, `lora_matmul`, `fused_attention_block`, `fused_transformer_layer`, `dot_general`, rank-3 `attention` (to rank 4), `if`, bounded `while`, `custom_fn`, `transform_region` | `fused_matmul_bias_act`, `fused_residual_ln`, `fused_residual_rms_norm`, rank-4 attention, `elementwise_region`, `batch_elementwise_region` |
    | `autodiff` | every fused op, `lora_matmul`, `dot_general`, rank-3 `attention`, the three region ops | `if`, `while` and `custom_fn` (differentiated as such) |
    | `all` | everything above | nothing |

    Control flow and regions: `rlx.if` runs both branches and selects each
    result with `rlx.where` (an eager select; an `if` whose branches have
    side effects stays, one without results and effects is erased).
    `rlx.while` with `max_iterations = n` (n <= 4096) becomes n copies of
    cond + body that update each carried value with `where(running, body,
    carried)`, `running` being the i1 conjunction of the predicates so far;
    the body always runs n times. A `while` without `max_iterations` stays.
    `custom_fn` becomes its forward body (its derivative rules are dropped)
    and `transform_region` its geometry chain. The scalar body of
    `elementwise_region` / `batch_elementwise_region` becomes one rlx
    elementwise op per scalar op (a prologue input an explicit
    `resize_nearest2x`), only where an rlx op has exactly the scalar op's
    semantics (`docs/passes.md` lists them); any other body op leaves the
    region in place.

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

def RLXFuse : Pass<"rlx-fuse", "func::FuncOp"> {
  let summary = "Fuse chains of primitive rlx ops into fused ops";
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::complex::ComplexDialect",
                           "::mlir::math::MathDialect"];
  let description = [{
    Greedy rewrite patterns, each selectable by an option (all on by
    default), matched by dataflow (never by position). Each checks what
    makes the rewrite valid: the intermediates it swallows have one use,
    shapes of bias/gamma/beta, axes, element types.

    | option | rewrite |
    |--------|---------|
    | `matmul-bias-act` | `matmul` + `add` of a `[N]` bias (+ `activation`) -> `rlx.fused_matmul_bias_act` |
    | `residual-norm` | `add(x, residual)` (+ `add` of a `[D]` bias) + `layer_norm` / `rms_norm` over the last axis -> `rlx.fused_residual_ln` / `rlx.fused_residual_rms_norm` |
    | `lora` | `x @ W + (x @ A) @ B * s` (splat constant `s`) -> `rlx.lora_matmul` |
    | `elementwise-region` | maximal chains of `activation`, `binary`, `compare`, `where`, `cast` (with broadcasting inputs) -> one `rlx.elementwise_region` whose scalar body uses the same per-op definitions as the linalg lowering; a producer joins only if its one use is in the chain and it has the result's shape, so no work is duplicated (runs after the other patterns) |

    With `report=true` every near miss (a candidate that fails one check)
    emits a remark at the op saying why it was not fused.
  }];
  let options = [
    Option<"matmulBiasAct", "matmul-bias-act", "bool", /*default=*/"true",
           "Fuse matmul + bias (+ activation)">,
    Option<"residualNorm", "residual-norm", "bool", /*default=*/"true",
           "Fuse residual add (+ bias) + layer_norm / rms_norm">,
    Option<"lora", "lora", "bool", /*default=*/"true",
           "Fuse LoRA matmuls">,
    Option<"swiglu", "swiglu", "bool", /*default=*/"true",
           "Fuse SwiGLU (narrow-split and dual-matmul forms)">,
    Option<"attentionBlock", "attention-block", "bool", /*default=*/"true",
           "Fuse the QKV-projection .. out-projection attention chain">,
    Option<"transformerLayer", "transformer-layer", "bool",
           /*default=*/"true", "Fuse whole post-LN encoder layers">,
    Option<"elementwiseRegion", "elementwise-region", "bool",
           /*default=*/"true",
           "Fuse chains of elementwise ops into rlx.elementwise_region">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each near miss saying why it did not fuse">,
  ];
}

#endif // RLX_TRANSFORMS_PASSES_TD
