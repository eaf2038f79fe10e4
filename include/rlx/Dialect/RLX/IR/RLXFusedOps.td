//===- RLXFusedOps.td - fused composite ops ----------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Composite ops created by fusion passes. Each one has an exact decomposition
// into primitive rlx ops (used by targets without a native kernel and before
// automatic differentiation). Optional inputs are optional operands printed
// behind a keyword; the RLX `has_bias` / `has_rope` flags are implied by
// which operands are present.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXFUSEDOPS_TD
#define RLX_DIALECT_RLX_IR_RLXFUSEDOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// A fused kernel: a composite of rlx ops that the fusion passes form and the
// unfuse pass expands. Each is pure, and its verifier checks the operands as
// the composite's parts would.
class RLX_FusedOp<string mnemonic, list<Trait> traits = []>
    : RLX_PureOp<mnemonic, traits> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.fused_matmul_bias_act
//===----------------------------------------------------------------------===//

def RLX_FusedMatMulBiasActOp : RLX_FusedOp<"fused_matmul_bias_act", [
    AllElementTypesMatch<["input", "weight", "bias", "result"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "matmul + bias + optional activation (RLX `FusedMatMulBiasAct`)";
  let description = [{
    `act(input @ weight + bias)`: `input [..., M, K]` (rank >= 2) times
    `weight [K, N]`, plus `bias [N]` broadcast over the rows, then the
    optional `activation` (none: identity). The result is `[..., M, N]` with
    the operands' floating-point element type. Created from
    `rlx.matmul` -> `rlx.binary add` -> `rlx.activation`.

    Example:

    ```mlir
    %y = rlx.fused_matmul_bias_act %x, %w, %b activation gelu
        : tensor<4x128x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    // %y : tensor<4x128x3072xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$weight,
                       RLX_FloatTensor:$bias,
                       OptionalAttr<RLX_ActivationKindAttr>:$activation);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $weight `,` $bias
    (`activation` custom<EnumKeyword>($activation)^)? attr-dict
    `:` type($input) `,` type($weight) `,` type($bias)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.fused_residual_ln / rlx.fused_residual_rms_norm
//===----------------------------------------------------------------------===//

def RLX_FusedResidualLNOp : RLX_FusedOp<"fused_residual_ln", [
    AllTypesMatch<["x", "residual", "result"]>]> {
  let summary = "residual add + optional bias + layer norm (RLX `FusedResidualLN`)";
  let description = [{
    `layer_norm(x + residual [+ bias]) * gamma + beta` over the last axis:

    ```
    s = x + residual (+ bias)
    y = (s - mean(s)) / sqrt(var(s) + eps) * gamma + beta
    ```

    `x` and `residual` have one type `[..., H]`; `bias`, `gamma` and `beta`
    are `[H]`. The RLX `has_bias` flag is the presence of the `bias` operand.
    All element types are one floating-point type; the result has the type
    of `x`. `eps >= 0`.

    Example:

    ```mlir
    %y = rlx.fused_residual_ln %x, %r, %g, %b bias %bias : tensor<768xf32>
        eps = 1.0e-05 : tensor<4x128x768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$residual,
                       Optional<RLX_FloatTensor>:$bias,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $residual `,` $gamma `,` $beta
    (`bias` $bias^ `:` type($bias))? `eps` `=` $eps attr-dict
    `:` type($x) `,` type($gamma) `,` type($beta)
  }];
}

def RLX_FusedResidualRmsNormOp : RLX_FusedOp<"fused_residual_rms_norm", [
    AttrSizedOperandSegments, AllTypesMatch<["x", "residual", "result"]>]> {
  let summary = "residual add + optional bias + RMS norm "
                "(RLX `FusedResidualRmsNorm`)";
  let description = [{
    `rms_norm(x + residual [+ bias]) * gamma [+ beta]` over the last axis:

    ```
    s = x + residual (+ bias)
    y = s / sqrt(mean(s^2) + eps) * gamma (+ beta)
    ```

    `x` and `residual` have one type `[..., H]`; `bias`, `gamma` and `beta`
    are `[H]`. `bias` and `beta` are optional: the RLX `has_bias` flag is the
    presence of `bias`, and an absent `beta` is a zero shift (the common
    RMS norm without shift; RLX `RmsNorm` always passes one). All element
    types are one floating-point type; the result has the type of `x`.
    `eps >= 0`.

    Example:

    ```mlir
    %y = rlx.fused_residual_rms_norm %x, %r, %g eps = 1.0e-06
        : tensor<1x16x4096xf32>, tensor<4096xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$residual,
                       Optional<RLX_FloatTensor>:$bias,
                       RLX_FloatTensor:$gamma,
                       Optional<RLX_FloatTensor>:$beta,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $residual `,` $gamma
    (`beta` $beta^ `:` type($beta))? (`bias` $bias^ `:` type($bias))?
    `eps` `=` $eps attr-dict `:` type($x) `,` type($gamma)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.fused_swiglu
//===----------------------------------------------------------------------===//

def RLX_FusedSwiGLUOp : RLX_FusedOp<"fused_swiglu", [
    InferTypeOpAdaptor]> {
  let summary = "SwiGLU gate on a concatenated projection (RLX `FusedSwiGLU`)";
  let description = [{
    Splits the last dim of `input [..., 2F]` into two halves and returns
    `up * silu(gate)`, `[..., F]`. By default `up` is the low half
    `[..., 0, F)` and `gate` the high half `[..., F, 2F)`; `gate_first`
    swaps them. With `cast_to`, the result is converted to that
    floating-point type in the same kernel; otherwise it has the input's
    element type; `cast_to` is a float type of the dialect (`f16`, `bf16`,
    `f32`, `f64`) or an 8-bit float (`f8E4M3FN`, `f8E5M2`).

    Example:

    ```mlir
    %y = rlx.fused_swiglu %x gate_first cast_to f16 : tensor<4x128x22016xf32>
    // %y : tensor<4x128x11008xf16>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       OptionalAttr<TypeAttr>:$cast_to,
                       UnitAttr:$gate_first);
  let results = (outs RankedTensorOf<[RLX_Float, RLX_Float8]>:$result);

  let assemblyFormat = [{
    $input (`gate_first` $gate_first^)? (`cast_to` $cast_to^)? attr-dict
    `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.fused_transformer_layer
//===----------------------------------------------------------------------===//

def RLX_FusedTransformerLayerOp : RLX_FusedOp<"fused_transformer_layer", [
    AttrSizedOperandSegments, AllTypesMatch<["hidden", "result"]>]> {
  let summary = "post-LN transformer encoder layer (RLX `FusedTransformerLayer`)";
  let description = [{
    A BERT-style post-norm encoder layer, with `E = num_heads * head_dim`
    and `F = intermediate_size`:

    ```
    qkv  = hidden @ qkv_w (+ qkv_b)                    [B, S, 3E]
    q, k, v = qkv[..., 0:E], qkv[..., E:2E], qkv[..., 2E:3E]
    attn = attention(q, k, v, mask)                    [B, S, E], num_heads heads
    h1   = layer_norm(hidden + attn @ out_w (+ out_b), ln1_g, ln1_b, eps1)
    ffn  = act(h1 @ fc1_w (+ fc1_b)) @ fc2_w (+ fc2_b)
    out  = layer_norm(h1 + ffn, ln2_g, ln2_b, eps2)
    ```

    | operand | shape |
    |---------|-------|
    | `hidden` | `[B, S, E]` (the result type) |
    | `qkv_w`, `qkv_b` | `[E, 3E]`, `[3E]` |
    | `out_w`, `out_b` | `[E, E]`, `[E]` |
    | `ln1_g`, `ln1_b`, `ln2_g`, `ln2_b` | `[E]` |
    | `fc1_w`, `fc1_b` | `[E, F]`, `[F]` |
    | `fc2_w`, `fc2_b` | `[F, E]`, `[E]` |
    | `mask` | `[B, S]` key-padding mask (a key is valid iff `>= 0.5`) |

    The four projection biases are present together or not at all (RLX
    `has_bias`). The layer-norm shifts `ln1_b` and `ln2_b` are each optional;
    an absent one is zero. Without `mask` every key is valid. Weights,
    biases and norm parameters share the floating-point element type of
    `hidden`; `mask` is that type or `i1`.

    Example:

    ```mlir
    %y = rlx.fused_transformer_layer gelu %h : tensor<2x16x64xf32>
        qkv_w %wqkv : tensor<64x192xf32> out_w %wo : tensor<64x64xf32>
        ln1_g %g1 : tensor<64xf32> fc1_w %w1 : tensor<64x256xf32>
        fc2_w %w2 : tensor<256x64xf32> ln2_g %g2 : tensor<64xf32>
        mask %m : tensor<2x16xf32>
        {eps1 = 1.0e-12 : f32, eps2 = 1.0e-12 : f32, head_dim = 16 : i64,
         intermediate_size = 256 : i64, num_heads = 4 : i64}
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$hidden,
                       RLX_FloatTensor:$qkv_w,
                       Optional<RLX_FloatTensor>:$qkv_b,
                       RLX_FloatTensor:$out_w,
                       Optional<RLX_FloatTensor>:$out_b,
                       RLX_FloatTensor:$ln1_g,
                       Optional<RLX_FloatTensor>:$ln1_b,
                       RLX_FloatTensor:$fc1_w,
                       Optional<RLX_FloatTensor>:$fc1_b,
                       RLX_FloatTensor:$fc2_w,
                       Optional<RLX_FloatTensor>:$fc2_b,
                       RLX_FloatTensor:$ln2_g,
                       Optional<RLX_FloatTensor>:$ln2_b,
                       Optional<RankedTensorOf<[RLX_Float, I1]>>:$mask,
                       RLX_PositiveI64Attr:$num_heads,
                       RLX_PositiveI64Attr:$head_dim,
                       RLX_PositiveI64Attr:$intermediate_size,
                       RLX_NonNegativeF32Attr:$eps1,
                       RLX_NonNegativeF32Attr:$eps2,
                       RLX_ActivationKindAttr:$activation);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($activation) $hidden `:` type($hidden)
    `qkv_w` $qkv_w `:` type($qkv_w) (`qkv_b` $qkv_b^ `:` type($qkv_b))?
    `out_w` $out_w `:` type($out_w) (`out_b` $out_b^ `:` type($out_b))?
    `ln1_g` $ln1_g `:` type($ln1_g) (`ln1_b` $ln1_b^ `:` type($ln1_b))?
    `fc1_w` $fc1_w `:` type($fc1_w) (`fc1_b` $fc1_b^ `:` type($fc1_b))?
    `fc2_w` $fc2_w `:` type($fc2_w) (`fc2_b` $fc2_b^ `:` type($fc2_b))?
    `ln2_g` $ln2_g `:` type($ln2_g) (`ln2_b` $ln2_b^ `:` type($ln2_b))?
    (`mask` $mask^ `:` type($mask))? attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// rlx.fused_attention_block
//===----------------------------------------------------------------------===//

def RLX_FusedAttentionBlockOp : RLX_FusedOp<"fused_attention_block", [
    AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "QKV projection + attention + output projection "
                "(RLX `FusedAttentionBlock`)";
  let description = [{
    With `I = num_heads * head_dim`:

    ```
    qkv = hidden @ qkv_w (+ qkv_b)                     [B, S, 3I]
    q, k, v = split(qkv) -> [B, H, S, D] each
    q, k = rope(q), rope(k)                            if rope_cos/rope_sin
    a = attention(q, k, v, mask_kind, mask, window, score_scale)
    out = merge_heads(a) @ out_w (+ out_b)             [B, S, N]
    ```

    | operand | shape |
    |---------|-------|
    | `hidden` | `[B, S, E]` |
    | `qkv_w`, `qkv_b` | `[E, 3I]`, `[3I]` |
    | `out_w`, `out_b` | `[I, N]`, `[N]` |
    | `mask` | `custom`: `[B, S]` key-padding (valid iff `>= 0.5`); `bias`: `[B, H, S, S]` additive |
    | `rope_cos`, `rope_sin` | `[S, D/2]` NeoX tables, rotating all `D` dims |

    The result is `[B, S, N]` with the element type of `hidden`.
    `qkv_b`/`out_b` are present together or not at all (RLX `has_bias`), as
    are `rope_cos`/`rope_sin` (RLX `has_rope`; `head_dim` must then be
    even). `mask` is present exactly when `mask_kind` is `custom` or `bias`;
    `window` exactly when it is `sliding_window` (`q - window <= k <= q`).
    `score_scale` (> 0) defaults to `1/sqrt(head_dim)`.

    Example:

    ```mlir
    %y = rlx.fused_attention_block %h : tensor<1x8x64xf32>
        qkv_w %wqkv : tensor<64x192xf32> out_w %wo : tensor<64x64xf32>
        rope_cos %c : tensor<8x8xf32> rope_sin %s : tensor<8x8xf32>
        {head_dim = 16 : i64, mask_kind = #rlx.mask<causal>, num_heads = 4 : i64}
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$hidden,
                       RLX_FloatTensor:$qkv_w,
                       RLX_FloatTensor:$out_w,
                       Optional<RankedTensorOf<[RLX_Float, I1]>>:$mask,
                       Optional<RLX_FloatTensor>:$qkv_b,
                       Optional<RLX_FloatTensor>:$out_b,
                       Optional<RLX_FloatTensor>:$rope_cos,
                       Optional<RLX_FloatTensor>:$rope_sin,
                       RLX_PositiveI64Attr:$num_heads,
                       RLX_PositiveI64Attr:$head_dim,
                       DefaultValuedAttr<RLX_MaskKindAttr,
                                         "::mlir::rlx::MaskKind::None">:$mask_kind,
                       OptionalAttr<RLX_NonNegativeI64Attr>:$window,
                       OptionalAttr<RLX_PositiveF32Attr>:$score_scale);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $hidden `:` type($hidden)
    `qkv_w` $qkv_w `:` type($qkv_w) (`qkv_b` $qkv_b^ `:` type($qkv_b))?
    `out_w` $out_w `:` type($out_w) (`out_b` $out_b^ `:` type($out_b))?
    (`mask` $mask^ `:` type($mask))?
    (`rope_cos` $rope_cos^ `:` type($rope_cos))?
    (`rope_sin` $rope_sin^ `:` type($rope_sin))? attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// rlx.lora_matmul
//===----------------------------------------------------------------------===//

def RLX_LoraMatMulOp : RLX_FusedOp<"lora_matmul", [
    AllElementTypesMatch<["x", "w", "a", "b", "result"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "matmul with a low-rank adapter (RLX `LoraMatMul`)";
  let description = [{
    `x @ w + scale * (x @ a) @ b` with `x [m, k]`, `w [k, n]`, `a [k, r]`,
    `b [r, n]` (`r` is the adapter rank); the result is `[m, n]`. `scale` is
    the adapter's `alpha / rank`. All operands share one floating-point
    element type.

    Example:

    ```mlir
    %y = rlx.lora_matmul %x, %w, %a, %b scale = 2.0
        : tensor<16x768xf32>, tensor<768x768xf32>, tensor<768x8xf32>, tensor<8x768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$w,
                       RLX_FloatTensor:$a,
                       RLX_FloatTensor:$b,
                       RLX_FiniteF32Attr:$scale);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $w `,` $a `,` $b `scale` `=` $scale attr-dict
    `:` type($x) `,` type($w) `,` type($a) `,` type($b)
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXFUSEDOPS_TD
