//===- RLXMoEOps.td - quantized matmuls and mixture of experts --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXMOEOPS_TD
#define RLX_DIALECT_RLX_IR_RLXMOEOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// An int8 zero point.
def RLX_I8ZeroPointAttr
    : ConfinedAttr<I64Attr, [IntMinValue<-128>, IntMaxValue<127>]>;

//===----------------------------------------------------------------------===//
// rlx.dequant_matmul
//===----------------------------------------------------------------------===//

def RLX_DequantMatMulOp : RLX_InferredTypeOp<"dequant_matmul", [
    AttrSizedOperandSegments]> {
  let summary = "matmul with weights dequantized on the fly (RLX `DequantMatMul`)";
  let description = [{
    `x [M, K]` (f32) times the dequantized weight `W [K, N]`, giving
    `[M, N]` f32. The weight is never materialised in f32. `scheme` fixes
    the weight encoding and which side operands are present:

    | `scheme` | `w_q` | side operands | `W[k, n]` |
    |---|---|---|---|
    | `int8_block` | i8 `[K, N]` | `scale`, optional `zero_point` | `(q - zp) * scale[k / block_size, n]` |
    | `int8_block_asym` | i8 `[K, N]` | `scale`, `zero_point` | same |
    | `int4_block` | ui8 `[K, N/2]` | `scale`, optional `zero_point` | same, `q` an unsigned nibble |
    | `fp8_e4m3`, `fp8_e5m2` | f8E4M3FN / f8E5M2 `[K, N]` | `scale` `[N]` | `q * scale[n]` |
    | `nvfp4_block` | ui8 `[K, N/2]` (E2M1 nibbles) | `scale` ui8 `[K/16, N]` (E4M3 bytes), `global_scale` f32 `[1]` | `e2m1(q) * e4m3(scale[k/16, n]) * global_scale` |
    | `gguf_*` | ui8 `[bytes]` | none | GGUF block decoding |

    The three block schemes carry `block_size` (> 0; absent for every other
    scheme); their `scale` and `zero_point` are f32 `[ceil(K / block_size),
    N]`, and an absent `zero_point` means 0. Nibbles are packed two per byte
    along the row-major `[K, N]` order, the even element in the low nibble.
    NVFP4 groups 16 consecutive K elements (K is a multiple of 16).

    GGUF weights are `N` rows of `K` elements, each row quantized in blocks
    along `K` (32 elements for `q4_0`..`q8_0`, 256 for the K-quants), with
    the scales inside the bytes: `bytes = N * (K / block) * block_bytes`.
    `N` is inferred from the byte count.

    Example:

    ```mlir
    %y = rlx.dequant_matmul int8_block block_size = 32 %x, %w
        scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
    %z = rlx.dequant_matmul gguf_q4_0 %x, %packed : tensor<4x64xf32>, tensor<288xui8>
    // %z : tensor<4x8xf32>  (8 rows of 2 blocks of 18 bytes)
    ```
  }];

  let arguments = (ins RankedTensorOf<[F32]>:$x,
                       RankedTensorOf<[I8, UI8, F8E4M3FN, F8E5M2]>:$w_q,
                       Optional<RankedTensorOf<[F32, UI8]>>:$scale,
                       Optional<RankedTensorOf<[F32]>>:$zero_point,
                       Optional<RankedTensorOf<[F32]>>:$global_scale,
                       RLX_QuantSchemeAttr:$scheme,
                       OptionalAttr<RLX_PositiveI64Attr>:$block_size);
  let results = (outs RankedTensorOf<[F32]>:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($scheme) (`block_size` `=` $block_size^)? $x `,` $w_q
    (`scale` $scale^ `:` type($scale))?
    (`zero_point` $zero_point^ `:` type($zero_point))?
    (`global_scale` $global_scale^ `:` type($global_scale))?
    attr-dict `:` type($x) `,` type($w_q)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.q_matmul / rlx.q_conv2d
//===----------------------------------------------------------------------===//

def RLX_QMatMulOp : RLX_InferredTypeOp<"q_matmul"> {
  let summary = "int8 matmul with i32 accumulation and requantization (RLX `QMatMul`)";
  let description = [{
    Integer matmul on i8 `x [M, K]` and i8 `w [K, N]` with an i32 `bias [N]`
    in accumulator scale:

    `acc[m, n] = bias[n] + sum_k (x[m, k] - x_zp) * (w[k, n] - w_zp)`
    `out[m, n] = saturate_i8(round_half_even(acc[m, n] * mult) + out_zp)`

    `mult = x_scale * w_scale / out_scale` is positive and finite; the zero
    points lie in the i8 range. The result is i8 `[M, N]`. 2-D only.

    Example:

    ```mlir
    %y = rlx.q_matmul %x, %w, %bias {x_zp = 3 : i64, w_zp = 0 : i64,
        out_zp = -5 : i64, mult = 0.0125 : f32}
        : tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi32>
    // %y : tensor<4x8xi8>
    ```
  }];

  let arguments = (ins RankedTensorOf<[I8]>:$x,
                       RankedTensorOf<[I8]>:$w,
                       RankedTensorOf<[I32]>:$bias,
                       RLX_I8ZeroPointAttr:$x_zp,
                       RLX_I8ZeroPointAttr:$w_zp,
                       RLX_I8ZeroPointAttr:$out_zp,
                       RLX_PositiveF32Attr:$mult);
  let results = (outs RankedTensorOf<[I8]>:$result);

  let assemblyFormat = [{
    $x `,` $w `,` $bias attr-dict `:` type($x) `,` type($w) `,` type($bias)
  }];
  let hasVerifier = 1;
}

def RLX_QConv2dOp : RLX_InferredTypeOp<"q_conv2d"> {
  let summary = "int8 NCHW convolution with requantization (RLX `QConv2d`)";
  let description = [{
    Integer 2-D convolution, NCHW. `x [N, C_in, H, W]` i8, `w [C_out,
    C_in / groups, kH, kW]` i8, `bias [C_out]` i32 in accumulator scale.
    Each output element accumulates `(x - x_zp) * (w - w_zp)` over its
    window in i32, adds the bias and is requantized exactly as in
    `rlx.q_matmul`: `saturate_i8(round_half_even(acc * mult) + out_zp)`.

    `kernel_size = [kH, kW]` equals the weight's spatial dims; `stride`,
    `dilation` (>= 1) and `padding` (symmetric, >= 0) have two entries
    `[h, w]`. `groups` divides both `C_in` and `C_out`. The result is i8
    `[N, C_out, H_out, W_out]` with
    `H_out = (H + 2 * pad_h - dil_h * (kH - 1) - 1) / stride_h + 1`
    (likewise `W_out`), which must be positive.

    Example:

    ```mlir
    %y = rlx.q_conv2d %x, %w, %bias {kernel_size = array<i64: 3, 3>,
        stride = array<i64: 1, 1>, padding = array<i64: 1, 1>,
        dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64,
        w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32}
        : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
    // %y : tensor<1x4x8x8xi8>
    ```
  }];

  let arguments = (ins RankedTensorOf<[I8]>:$x,
                       RankedTensorOf<[I8]>:$w,
                       RankedTensorOf<[I32]>:$bias,
                       RLX_PositiveI64ArrayAttr:$kernel_size,
                       RLX_PositiveI64ArrayAttr:$stride,
                       RLX_NonNegativeI64ArrayAttr:$padding,
                       RLX_PositiveI64ArrayAttr:$dilation,
                       RLX_PositiveI64Attr:$groups,
                       RLX_I8ZeroPointAttr:$x_zp,
                       RLX_I8ZeroPointAttr:$w_zp,
                       RLX_I8ZeroPointAttr:$out_zp,
                       RLX_PositiveF32Attr:$mult);
  let results = (outs RankedTensorOf<[I8]>:$result);

  let assemblyFormat = [{
    $x `,` $w `,` $bias attr-dict `:` type($x) `,` type($w) `,` type($bias)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

def RLX_GroupedMatMulOp : RLX_InferredTypeOp<"grouped_matmul", [
    AllElementTypesMatch<["input", "weight", "result"]>]> {
  let summary = "per-row expert matmul (RLX `GroupedMatMul`)";
  let description = [{
    The MoE GEMM: `out[i] = input[i] @ weight[expert_idx[i]]`. `input` is
    `[M, K]`, `weight` the stacked expert weights `[E, K, N]`, `expert_idx`
    an i32 or i64 `[M]` tensor of expert ids in `[0, E)`; a row whose id is
    outside it (negative included) is zeros. The result is `[M, N]` with
    the operands' floating-point element type.

    Example:

    ```mlir
    %y = rlx.grouped_matmul %x, %w, %idx
        : tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<6xi32>
    // %y : tensor<6x32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$weight,
                       RLX_IndexTensor:$expert_idx);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $weight `,` $expert_idx attr-dict `:` type($input) `,`
    type($weight) `,` type($expert_idx)
  }];
  let hasVerifier = 1;
}

def RLX_DequantGroupedMatMulOp : RLX_PureOp<"dequant_grouped_matmul"> {
  let summary = "grouped matmul on GGUF-packed expert weights (RLX `DequantGroupedMatMul`)";
  let description = [{
    `rlx.grouped_matmul` whose weight stack is GGUF-packed: `weight` is a
    ui8 `[bytes]` tensor of `E` contiguous expert slabs (expert outermost),
    each the GGUF encoding of `N` rows of `K` elements quantized in blocks
    along `K` (see `rlx.dequant_matmul`). `scheme` is a `gguf_*` scheme.
    `input` is f32 `[M, K]` and `expert_idx` i32/i64 `[M]` (a row whose id is
    outside `[0, E)` is zeros, as in `rlx.grouped_matmul`). The result type
    `[M, N]` f32 is stated, since `N` and `E` share the byte count; the
    verifier checks that `K` is a multiple of the block size and that the
    byte count is a whole number of slabs of `N * (K / block) * block_bytes`
    bytes.

    Example:

    ```mlir
    %y = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %idx
        : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x16xf32>
    // 2 experts of 16 rows x 2 blocks x 34 bytes
    ```
  }];

  let arguments = (ins RankedTensorOf<[F32]>:$input,
                       RankedTensorOf<[UI8]>:$weight,
                       RLX_IndexTensor:$expert_idx,
                       RLX_QuantSchemeAttr:$scheme);
  let results = (outs RankedTensorOf<[F32]>:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($scheme) $input `,` $weight `,` $expert_idx attr-dict
    `:` type($input) `,` type($weight) `,` type($expert_idx) `->` type($result)
  }];
  let hasVerifier = 1;
}

def RLX_DequantMoEWeightsOp : RLX_PureOp<"dequant_moe_weights"> {
  let summary = "dequantize a GGUF-packed expert stack (RLX `DequantMoEWeights`)";
  let description = [{
    Decodes a ui8 `[bytes]` tensor of `E` GGUF-packed expert slabs (layout as
    in `rlx.dequant_grouped_matmul`) into the f32 `[E, K, N]` weight stack
    that `rlx.grouped_matmul` takes. `scheme` is a `gguf_*` scheme. The
    result type is stated; the verifier checks `K` is a multiple of the
    block size and `bytes = E * N * (K / block) * block_bytes`.

    Example:

    ```mlir
    %w = rlx.dequant_moe_weights gguf_q4_k %packed
        : tensor<1152xui8> -> tensor<2x256x4xf32>
    ```
  }];

  let arguments = (ins RankedTensorOf<[UI8]>:$packed,
                       RLX_QuantSchemeAttr:$scheme);
  let results = (outs RankedTensorOf<[F32]>:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($scheme) $packed attr-dict `:` type($packed) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXMOEOPS_TD
