//===- RLXQuantizationOps.td - quantization and fake quantization --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXQUANTIZATIONOPS_TD
#define RLX_DIALECT_RLX_IR_RLXQUANTIZATIONOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// A quantization kernel. Its verifier checks the per-channel operands and
// `axis` against the input shape.
class RLX_QuantizationOp<string mnemonic, list<Trait> traits = []>
    : RLX_PureOp<mnemonic, traits> {
  let hasVerifier = 1;
}

// The bit width of the fake-quantize ops.
def RLX_QuantBitsAttr : ConfinedAttr<I64Attr, [IntIsOneOf<[2, 4, 8]>]>;
// The weight of the running scale in an exponential moving average.
def RLX_EmaDecayAttr : RLX_F32AttrIn<"> 0.0f", "< 1.0f", "(0, 1)">;

//===----------------------------------------------------------------------===//
// rlx.quantize / rlx.dequantize
//===----------------------------------------------------------------------===//

def RLX_QuantizeOp : RLX_QuantizationOp<"quantize", [
    InferTypeOpAdaptor]> {
  let summary = "static affine int8 quantization (RLX `Quantize`)";
  let description = [{
    Quantizes an f32 tensor to i8 with calibrated scales and zero points:

    `q[i] = saturate_i8(round_half_even(x[i] / scales[c]) + zero_points[c])`

    where `saturate_i8` clamps to `[-128, 127]`. Without `axis` the op is
    per-tensor and `c = 0`. With `axis = d` it is per-channel and `c` is the
    index of element `i` along dimension `d` (a negative `axis` counts from
    the end). `scales` and `zero_points` each hold either one entry (shared
    by every channel) or `dim(axis)` entries. Scales are positive and
    finite; zero points lie in the i8 range. The result has the input's
    shape and element type `i8`.

    Example:

    ```mlir
    %q = rlx.quantize %x axis = 1 scales = [0.5, 0.25] zero_points = [0, -3]
        : tensor<8x2xf32>
    // %q : tensor<8x2xi8>
    ```
  }];

  let arguments = (ins RankedTensorOf<[F32]>:$input,
                       OptionalAttr<I64Attr>:$axis,
                       DenseF32ArrayAttr:$scales,
                       DenseI32ArrayAttr:$zero_points);
  let results = (outs RankedTensorOf<[I8]>:$result);

  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? `scales` `=` $scales
    `zero_points` `=` $zero_points attr-dict `:` type($input)
  }];
}

def RLX_DequantizeOp : RLX_QuantizationOp<"dequantize", [
    InferTypeOpAdaptor]> {
  let summary = "static affine int8 dequantization (RLX `Dequantize`)";
  let description = [{
    The inverse of `rlx.quantize`: `x[i] = (q[i] - zero_points[c]) *
    scales[c]`, with the channel `c` chosen by `axis` exactly as in
    `rlx.quantize` (per-tensor without `axis`). `scales` and `zero_points`
    hold one entry or `dim(axis)` entries each. The result has the input's
    shape and element type `f32`.

    Example:

    ```mlir
    %x = rlx.dequantize %q scales = [0.5] zero_points = [0] : tensor<8x2xi8>
    // %x : tensor<8x2xf32>
    ```
  }];

  let arguments = (ins RankedTensorOf<[I8]>:$input,
                       OptionalAttr<I64Attr>:$axis,
                       DenseF32ArrayAttr:$scales,
                       DenseI32ArrayAttr:$zero_points);
  let results = (outs RankedTensorOf<[F32]>:$result);

  let assemblyFormat = [{
    $input (`axis` `=` $axis^)? `scales` `=` $scales
    `zero_points` `=` $zero_points attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.fake_quantize
//===----------------------------------------------------------------------===//

def RLX_FakeQuantizeOp : RLX_QuantizationOp<"fake_quantize", [
    InferTypeOpAdaptor]> {
  let summary = "symmetric quantize-dequantize for QAT (RLX `FakeQuantize`)";
  let description = [{
    Quantization-aware training: rounds `input` onto a symmetric grid of
    `bits` bits and maps it back to the float domain,

    `output[i] = clamp(round_half_even(x[i] / s[c]), -q_max, q_max) * s[c]`

    with `q_max = 2^(bits-1) - 1` (127, 7 and 1 for `bits` 8, 4 and 2) and
    zero point 0. Without `axis` there is one scale (`c = 0`); with
    `axis = d` one scale per index along dimension `d` (negative axes count
    from the end). The scale source is `scale_mode`:

    | `scale_mode` | scale `s[c]` | `state` operand | results |
    |---|---|---|---|
    | `per_batch` (default) | `max(max_abs[c] / q_max, 1e-12)` of this input | absent | `output` |
    | `ema` | `decay * state[c] + (1 - decay) * cur[c]`, or `cur[c]` where `state[c] <= 0` (cold start) | present | `output`, `updated_state` |
    | `fixed` | `max(state[c], 1e-12)` | present | `output` |

    `cur[c]` is the `per_batch` scale and `decay` the `ema_decay` attribute,
    which is present iff `scale_mode` is `ema` and lies in `(0, 1)`. The
    `state` holds one scale per channel: shape `[dim(axis)]`, or `[1]`
    without `axis`, with the input's element type. Values are immutable, so
    with `ema` the blended scales are returned as the second result
    `updated_state` (the state's type) instead of being written in place.

    `ste` selects the straight-through estimator used by the gradient
    (`rlx.fake_quantize_backward`); it does not change the forward value.

    Example:

    ```mlir
    %y = rlx.fake_quantize %w bits = 4 axis = 0 : tensor<64x32xf32>
    %z, %s1 = rlx.fake_quantize %x bits = 8 state %s : tensor<1xf32>
        {scale_mode = #rlx.scale_mode<ema>, ema_decay = 0.99 : f32,
         ste = #rlx.ste<clipped_identity>} : tensor<16x64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       Optional<RLX_FloatTensor>:$state,
                       RLX_QuantBitsAttr:$bits,
                       OptionalAttr<I64Attr>:$axis,
                       DefaultValuedAttr<RLX_SteKindAttr,
                         "::mlir::rlx::SteKind::Identity">:$ste,
                       DefaultValuedAttr<RLX_ScaleModeAttr,
                         "::mlir::rlx::ScaleMode::PerBatch">:$scale_mode,
                       OptionalAttr<RLX_EmaDecayAttr>:$ema_decay);
  let results = (outs RLX_FloatTensor:$output,
                      Optional<RLX_FloatTensor>:$updated_state);

  let assemblyFormat = [{
    $input `bits` `=` $bits (`axis` `=` $axis^)?
    (`state` $state^ `:` type($state))? attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// LSQ fake quantization
//===----------------------------------------------------------------------===//

def RLX_FakeQuantizeLSQOp : RLX_QuantizationOp<"fake_quantize_lsq", [
    AllTypesMatch<["input", "result"]>]> {
  let summary = "fake quantization with a learned scale (RLX `FakeQuantizeLSQ`)";
  let description = [{
    Learned Step Size Quantization (Esser et al. 2020). The forward value is
    that of `rlx.fake_quantize` with the scale taken from the `scale`
    operand:

    `output[i] = clamp(round_half_even(x[i] / scale[c]), -q_max, q_max) * scale[c]`

    `q_max = 2^(bits-1) - 1` with `bits` in {2, 4, 8}. With `axis = d`,
    `scale` has shape `[dim(d)]` and `c` is the index along `d`; without
    `axis` it has shape `[1]`. `scale` has the input's element type; the
    result has the input's type.

    Example:

    ```mlir
    %y = rlx.fake_quantize_lsq %w, %s bits = 2 axis = 0
        : tensor<64x32xf32>, tensor<64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$scale,
                       RLX_QuantBitsAttr:$bits,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $scale `bits` `=` $bits (`axis` `=` $axis^)? attr-dict `:`
    type($input) `,` type($scale)
  }];
}

def RLX_FakeQuantizeLSQBackwardXOp
    : RLX_QuantizationOp<"fake_quantize_lsq_backward_x", [
        AllTypesMatch<["input", "result"]>]> {
  let summary = "input gradient of LSQ fake quantization (RLX `FakeQuantizeLSQBackwardX`)";
  let description = [{
    Straight-through gradient of `rlx.fake_quantize_lsq` with respect to
    its input: with `z = x[i] / scale[c]`, `dx[i] = dy[i]` where
    `|z| <= q_max` and `0` where the clamp saturated. Operands are the
    forward's `x` and `scale` and the upstream gradient `dy` (the type of
    `x`); `bits` and `axis` must match the forward op. The result has the
    type of `x`.

    Example:

    ```mlir
    %dx = rlx.fake_quantize_lsq_backward_x %x, %s, %dy bits = 8
        : tensor<16x8xf32>, tensor<1xf32>, tensor<16x8xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$scale,
                       RLX_FloatTensor:$dy,
                       RLX_QuantBitsAttr:$bits,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $scale `,` $dy `bits` `=` $bits (`axis` `=` $axis^)? attr-dict
    `:` type($input) `,` type($scale) `,` type($dy)
  }];
}

def RLX_FakeQuantizeLSQBackwardScaleOp
    : RLX_QuantizationOp<"fake_quantize_lsq_backward_scale", [
    AllTypesMatch<["scale", "result"]>]> {
  let summary = "scale gradient of LSQ fake quantization (RLX `FakeQuantizeLSQBackwardScale`)";
  let description = [{
    Closed-form gradient of `rlx.fake_quantize_lsq` with respect to its
    scale:

    `dscale[c] = sum over i in channel c of psi(x[i] / scale[c]) * dy[i]`

    with `psi(z) = round_half_even(z) - z` where `|z| <= q_max` and
    `sign(z) * q_max` otherwise. Operands as for
    `rlx.fake_quantize_lsq_backward_x`; the result has the type of `scale`.

    Example:

    ```mlir
    %ds = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 4 axis = 1
        : tensor<16x8xf32>, tensor<8xf32>, tensor<16x8xf32>
    // %ds : tensor<8xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$scale,
                       RLX_FloatTensor:$dy,
                       RLX_QuantBitsAttr:$bits,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $scale `,` $dy `bits` `=` $bits (`axis` `=` $axis^)? attr-dict
    `:` type($input) `,` type($scale) `,` type($dy)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.fake_quantize_backward
//===----------------------------------------------------------------------===//

def RLX_FakeQuantizeBackwardOp : RLX_QuantizationOp<"fake_quantize_backward", [
    AllTypesMatch<["input", "result"]>]> {
  let summary = "STE gradient of fake quantization (RLX `FakeQuantizeBackward`)";
  let description = [{
    Gradient of `rlx.fake_quantize` (per-batch scales) with respect to its
    input under the straight-through estimator `ste`. The op recomputes the
    forward scale `s[c] = max(max_abs[c] / q_max, 1e-12)` from `input` and
    attenuates the upstream gradient `dy`:

    | `ste` | `dx[i]` |
    |---|---|
    | `identity` | `dy[i]` |
    | `clipped_identity` | `dy[i]` where `abs(x[i]) <= q_max * s[c]`, else 0 |
    | `tanh` | `dy[i] * (1 - tanh(x[i] / s[c])^2)` |
    | `hard_tanh` | `dy[i] * max(0, 1 - abs(x[i] / (q_max * s[c])))` |

    `bits`, `axis` and `ste` must match the forward op; `dy` and the result
    have the type of `input`. With `ste = identity` the op folds to `dy`.

    Example:

    ```mlir
    %dx = rlx.fake_quantize_backward %x, %dy bits = 2 ste = hard_tanh
        : tensor<16x8xf32>, tensor<16x8xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$dy,
                       RLX_QuantBitsAttr:$bits,
                       OptionalAttr<I64Attr>:$axis,
                       RLX_SteKindAttr:$ste);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $dy `bits` `=` $bits (`axis` `=` $axis^)? `ste` `=`
    custom<EnumKeyword>($ste) attr-dict `:` type($input) `,` type($dy)
  }];
  let hasFolder = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXQUANTIZATIONOPS_TD
