//===- RLXAttentionOps.td - attention and rotary embeddings -*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXATTENTIONOPS_TD
#define RLX_DIALECT_RLX_IR_RLXATTENTIONOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

//===----------------------------------------------------------------------===//
// rlx.attention
//===----------------------------------------------------------------------===//

def RLX_AttentionOp : RLX_PureOp<"attention", [
    AllTypesMatch<["query", "result"]>,
    AllElementTypesMatch<["query", "key", "value"]>]> {
  let summary = "scaled dot-product attention (RLX `Attention`)";
  let description = [{
    Multi-head scaled dot-product attention. For every batch `b`, head `h`,
    query position `i` and key position `j`:

    ```
    s[i, j] = scale * dot(q[b, h, i, :], k[b, h, j, :])
    s[i, j] = c * tanh(s[i, j] / c)               // iff attn_logit_softcap = c
    s[i, j] = s[i, j] + mask[b, h, i, j]          // mask_kind = bias
    s[i, j] = -inf where key j is masked out      // causal, sliding_window, custom
    out[b, h, i, :] = sum_j softmax_j(s[i, :]) * v[b, h, j, :]
    ```

    `scale` is `score_scale` when present and `1 / sqrt(head_dim)`
    otherwise. The soft cap is applied to the scaled scores before any
    mask or bias.

    **Layouts.** `query`, `key` and `value` have the same rank:
    - rank 4, `[B, H, S, D]` (native): `H = num_heads`, `D = head_dim`;
    - rank 3, `[B, S, H * D]`: the heads are packed in the last dim, head
      `h` occupying columns `[h * D, (h + 1) * D)`.

    `query` has `Sq` positions, `key` and `value` share `Sk` positions
    (`Sk` may differ from `Sq`, e.g. when decoding with a KV cache). All
    three share the batch size, `num_heads`, `head_dim` and a
    floating-point element type. The result has the type of `query`.

    **Masks** (`mask_kind`, a `#rlx.mask<...>` attribute):
    - `none`: every key is visible.
    - `causal`: key `j` is visible to query `i` iff `j <= i + (Sk - Sq)`.
    - `sliding_window`: iff `i + (Sk - Sq) - window <= j <= i + (Sk - Sq)`,
      i.e. `window + 1` keys; the `window` attribute (>= 0) is required
      with this kind and rejected with every other kind.
    - `custom`: a key-padding `mask` operand `[B, Sk]`; key `j` of batch
      `b` is visible iff `mask[b, j] >= 0.5`.
    - `bias`: an additive `mask` operand `[B, H, Sq, Sk]` added to the
      scaled (and soft-capped) scores.

    For `causal` and `sliding_window` the query positions are aligned to
    the end of the keys (offset `Sk - Sq`), which is `j <= i` when
    `Sk = Sq`; `Sk < Sq` is rejected for these kinds. The `mask` operand
    is present iff `mask_kind` is `custom` or `bias`, and has the element
    type of `query`. A query row whose keys are all masked out produces
    NaN.

    `score_scale` and `attn_logit_softcap`, when present, are finite and
    positive.

    Example:

    ```mlir
    %o = rlx.attention %q, %k, %v {head_dim = 64 : i64,
        mask_kind = #rlx.mask<causal>, num_heads = 12 : i64}
        : tensor<2x12x128x64xf32>, tensor<2x12x128x64xf32>,
          tensor<2x12x128x64xf32>
    %p = rlx.attention %q3, %k3, %v3 mask %pad : tensor<2x9xf32> {
        head_dim = 64 : i64, mask_kind = #rlx.mask<custom>,
        num_heads = 12 : i64, attn_logit_softcap = 5.0e+01 : f32}
        : tensor<2x1x768xf32>, tensor<2x9x768xf32>, tensor<2x9x768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$query,
                       RLX_FloatTensor:$key,
                       RLX_FloatTensor:$value,
                       Optional<RLX_FloatTensor>:$mask,
                       RLX_PositiveI64Attr:$num_heads,
                       RLX_PositiveI64Attr:$head_dim,
                       RLX_MaskKindAttr:$mask_kind,
                       OptionalAttr<RLX_NonNegativeI64Attr>:$window,
                       OptionalAttr<RLX_PositiveF32Attr>:$score_scale,
                       OptionalAttr<RLX_PositiveF32Attr>:$attn_logit_softcap);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^ `:` type($mask))? attr-dict
    `:` type($query) `,` type($key) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.rope
//===----------------------------------------------------------------------===//

def RLX_RopeOp : RLX_PureOp<"rope", [
    AllTypesMatch<["input", "result"]>, AllTypesMatch<["cos", "sin"]>,
    AllElementTypesMatch<["input", "cos"]>]> {
  let summary = "rotary position embedding, NeoX style (RLX `Rope`)";
  let description = [{
    Rotates the first `n_rot` dims of every head of `input` by position
    dependent angles given as `cos` and `sin` tables; the remaining
    `head_dim - n_rot` dims of each head are copied unchanged (partial
    rotary). NeoX pairing: with `r = n_rot / 2`, dim `p < r` of a head
    pairs with dim `p + r`. For sequence position `s`:

    ```
    y[p]     = x[p] * cos[s, p] - x[p + r] * sin[s, p]    // 0 <= p < r
    y[p + r] = x[p + r] * cos[s, p] + x[p] * sin[s, p]
    y[p]     = x[p]                                       // n_rot <= p
    ```

    **Layouts** of `input` (the result has the same type):
    - rank 4, `[B, H, S, head_dim]` (native attention layout);
    - rank 3, `[B, S, H * head_dim]`, heads packed in the last dim;
    - rank 2, `[S, H * head_dim]`.

    `cos` and `sin` have one type, `[S, n_rot / 2]`, one row per sequence
    position of `input` (slice a longer table with the position offset
    first). All operands share a floating-point element type. `n_rot` is
    even, positive and at most `head_dim`.

    Example:

    ```mlir
    %y = rlx.rope %q, %cos, %sin {head_dim = 128 : i64, n_rot = 64 : i64}
        : tensor<1x32x16x128xf32>, tensor<16x32xf32>, tensor<16x32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$cos,
                       RLX_FloatTensor:$sin,
                       RLX_PositiveI64Attr:$head_dim,
                       I64Attr:$n_rot);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $cos `,` $sin attr-dict `:` type($input) `,` type($cos) `,`
    type($sin)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.axial_rope2d
//===----------------------------------------------------------------------===//

def RLX_AxialRope2dOp : RLX_SameTypeOp<"axial_rope2d"> {
  let summary = "SAM2 axial 2-D rotary position embedding (RLX `AxialRope2d`)";
  let description = [{
    Applies the 2-D axial RoPE of SAM2 to `input` `[B, S, num_heads *
    head_dim]`, computing the angles from the attributes (there are no
    table operands). Token `t` sits at grid position `p = t mod (end_x *
    end_y)`, with column `px = p mod end_x` and row `py = floor(p /
    end_x)`; the `end_x * end_y` grid positions are repeated
    `repeat_factor` times along the sequence (keys attending to several
    frames), so `S = end_x * end_y * repeat_factor`.

    Each head is viewed as `head_dim / 2` adjacent pairs `(x[2m],
    x[2m + 1])` rotated as complex numbers. With `q = head_dim / 4` and the
    frequencies `f[m] = theta^(-4 m / head_dim)` for `0 <= m < q`, pair `m`
    is rotated by `px * f[m]` and pair `q + m` by `py * f[m]`:

    ```
    y[2m]     = x[2m] * cos(a) - x[2m + 1] * sin(a)
    y[2m + 1] = x[2m] * sin(a) + x[2m + 1] * cos(a)
    ```

    `head_dim` is a positive multiple of 4; `num_heads`, `end_x`, `end_y`
    and `repeat_factor` are >= 1; `theta` is finite and positive. The
    result has the type of `input` (floating point).

    Example:

    ```mlir
    %y = rlx.axial_rope2d %q {end_x = 64 : i64, end_y = 64 : i64,
        head_dim = 256 : i64, num_heads = 1 : i64, repeat_factor = 1 : i64,
        theta = 1.000000e+04 : f32} : tensor<1x4096x256xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_PositiveI64Attr:$end_x,
                       RLX_PositiveI64Attr:$end_y,
                       I64Attr:$head_dim,
                       RLX_PositiveI64Attr:$num_heads,
                       RLX_PositiveI64Attr:$repeat_factor,
                       RLX_PositiveF32Attr:$theta);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXATTENTIONOPS_TD
