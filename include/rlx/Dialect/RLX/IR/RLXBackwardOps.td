//===- RLXBackwardOps.td - closed-form backward kernels ----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Gradient kernels emitted by reverse-mode differentiation, plus the fused
// softmax cross-entropy loss. Each kernel recomputes what it needs (argmax,
// normalisation statistics, softmax) from the forward operands instead of
// reading saved intermediates. All operate on floating-point tensors; index
// operands are i32/i64 tensors.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXBACKWARDOPS_TD
#define RLX_DIALECT_RLX_IR_RLXBACKWARDOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// A gradient kernel. Each is pure and has a verifier that checks its operands
// against the forward op's shapes.
class RLX_BackwardOp<string mnemonic, list<Trait> traits = []>
    : RLX_PureOp<mnemonic, traits> {
  let hasVerifier = 1;
}

// A gradient kernel whose result type is computed from operand shapes and
// attributes (see RLX_InferredTypeOp).
class RLX_InferredBackwardOp<string mnemonic, list<Trait> traits = []>
    : RLX_BackwardOp<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])>;

//===----------------------------------------------------------------------===//
// Elementwise activations
//===----------------------------------------------------------------------===//

def RLX_ReluBackwardOp : RLX_BackwardOp<"relu_backward", [
    AllElementTypesMatch<["x", "dy", "result"]>,
    AllTypesMatch<["x", "result"]>]> {
  let summary = "gradient of relu (RLX `ReluBackward`)";
  let description = [{
    `result = x > 0 ? dy : 0` element by element, where `x` is the forward
    input of `rlx.activation relu` and `dy` the gradient of its output.
    `x` and `dy` have the same shape; the result has `x`'s type.

    Example:

    ```mlir
    %dx = rlx.relu_backward %x, %dy : tensor<4x8xf32>, tensor<4x8xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x, RLX_FloatTensor:$dy);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $dy attr-dict `:` type($x) `,` type($dy)
  }];
}

def RLX_ActivationBackwardOp : RLX_BackwardOp<"activation_backward", [
    AllElementTypesMatch<["x", "dy", "result"]>,
    AllTypesMatch<["x", "result"]>]> {
  let summary = "gradient of a unary activation (RLX `ActivationBackward`)";
  let description = [{
    `result = f'(x) * dy` element by element, where `f` is the activation
    `kind`, `x` its forward input and `dy` the gradient of its output. `x`
    and `dy` have the same shape and floating-point element type; the result
    has `x`'s type. The closed forms of `f'(x)` (`s = sigmoid(x)`,
    `Phi`/`phi` the standard normal cdf/pdf, `u = sqrt(2/pi) (x + 0.044715 x^3)`):

    | kind | f'(x) |
    |------|-------|
    | `gelu` | `Phi(x) + x phi(x)` |
    | `gelu_approx` | `0.5 (1 + tanh(u)) + 0.5 x (1 - tanh(u)^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)` |
    | `silu` | `s (1 + x (1 - s))` |
    | `relu` | `1` if `x > 0`, else `0` |
    | `sigmoid` | `s (1 - s)` |
    | `tanh` | `1 - tanh(x)^2` |
    | `exp` | `exp(x)` |
    | `log` | `1 / x` |
    | `sqrt` | `0.5 / sqrt(x)` |
    | `rsqrt` | `-0.5 x^(-3/2)` |
    | `neg` | `-1` |
    | `abs` | `sign(x)`, `0` at `x = 0` |
    | `sin` | `cos(x)` |
    | `cos` | `-sin(x)` |
    | `tan` | `1 + tan(x)^2` |
    | `atan` | `1 / (1 + x^2)` |
    | `round` | `1` (straight-through estimator: the gradient passes unchanged) |

    Example:

    ```mlir
    %dx = rlx.activation_backward gelu %x, %dy
            : tensor<4x128x768xf32>, tensor<4x128x768xf32>
    ```
  }];

  let arguments = (ins RLX_ActivationKindAttr:$kind,
                       RLX_FloatTensor:$x,
                       RLX_FloatTensor:$dy);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $x `,` $dy attr-dict `:` type($x) `,` type($dy)
  }];
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

def RLX_LayerNormBackwardInputOp : RLX_BackwardOp<"layer_norm_backward_input", [
    AllElementTypesMatch<["x", "gamma", "dy", "result"]>,
    AllTypesMatch<["x", "result"]>]> {
  let summary = "layer norm gradient w.r.t. the input (RLX `LayerNormBackwardInput`)";
  let description = [{
    Gradient of `y = gamma * xhat + beta` with
    `xhat = (x - mean(x)) / sqrt(var(x) + eps)`, the statistics taken over
    the feature axis `axis` (negative counts from the end). With
    `g = dy * gamma` and `inv_std = 1 / sqrt(var(x) + eps)`, recomputed from
    `x`:

    ```
    result = inv_std * (g - mean(g) - xhat * mean(g * xhat))   (means over axis)
    ```

    `x` and `dy` have the same shape; `gamma` is `[D]` with `D` the extent of
    `x` along `axis` (it broadcasts along that axis). The result has `x`'s
    type.

    Example:

    ```mlir
    %dx = rlx.layer_norm_backward_input %x, %gamma, %dy {axis = -1 : i64, eps = 1.0e-05 : f32}
            : tensor<4x128x768xf32>, tensor<768xf32>, tensor<4x128x768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$dy,
                       I64Attr:$axis,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $gamma `,` $dy attr-dict `:` type($x) `,` type($gamma) `,`
    type($dy)
  }];
}

def RLX_LayerNormBackwardGammaOp
    : RLX_InferredBackwardOp<"layer_norm_backward_gamma", [
        AllElementTypesMatch<["x", "dy", "result"]>]> {
  let summary = "layer norm gradient w.r.t. gamma (RLX `LayerNormBackwardGamma`)";
  let description = [{
    `result[d] = sum over every axis but axis of dy * xhat`, with `xhat` the
    normalised input of `rlx.layer_norm_backward_input` recomputed from `x`.
    `x` and `dy` have the same shape; the result is `[D]`, the extent of `x`
    along `axis` (gamma's shape).

    Example:

    ```mlir
    %dgamma = rlx.layer_norm_backward_gamma %x, %dy {axis = -1 : i64, eps = 1.0e-05 : f32}
                : tensor<4x128x768xf32>, tensor<4x128x768xf32>
    // %dgamma : tensor<768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$dy,
                       I64Attr:$axis,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $dy attr-dict `:` type($x) `,` type($dy)
  }];
}

//===----------------------------------------------------------------------===//
// RMS norm
//===----------------------------------------------------------------------===//

// `operand` is the operand the gradient is taken with respect to; the result
// has its type.
class RLX_RmsNormBackwardOp<string mnemonic, string wrt, string operand>
    : RLX_BackwardOp<mnemonic, [
        AllElementTypesMatch<["x", "gamma", "beta", "dy", "result"]>,
        AllTypesMatch<[operand, "result"]>]> {
  let summary = "rms norm gradient w.r.t. " # wrt;
  let description = [{
    Gradient of RLX's RMS norm `y = gamma * x * r + beta` with
    `r = 1 / sqrt(mean(x^2) + eps)`, the mean taken over the feature axis
    `axis` (negative counts from the end) and `r` recomputed from `x`. With
    `g = dy * gamma`:

    ```
    d_x     = r * (g - x * r^2 * mean(g * x))        (mean over axis)
    d_gamma = sum over every axis but axis of dy * x * r
    d_beta  = sum over every axis but axis of dy
    ```

    All three kernels take the same operands `x, gamma, beta, dy`: `x` and
    `dy` have the same shape, `gamma` and `beta` are `[D]` with `D` the
    extent of `x` along `axis`.

    This op computes `d_}] # operand # [{`; the result has
    `}] # operand # [{`'s type.

    Example:

    ```mlir
    %d = rlx.}] # mnemonic # [{ %x, %gamma, %beta, %dy {axis = -1 : i64, eps = 1.0e-06 : f32}
           : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2x16x512xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       RLX_FloatTensor:$dy,
                       I64Attr:$axis,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $gamma `,` $beta `,` $dy attr-dict `:` type($x) `,` type($gamma)
    `,` type($beta) `,` type($dy)
  }];
}

def RLX_RmsNormBackwardInputOp : RLX_RmsNormBackwardOp<
    "rms_norm_backward_input", "the input (RLX `RmsNormBackwardInput`)", "x">;
def RLX_RmsNormBackwardGammaOp : RLX_RmsNormBackwardOp<
    "rms_norm_backward_gamma", "gamma (RLX `RmsNormBackwardGamma`)", "gamma">;
def RLX_RmsNormBackwardBetaOp : RLX_RmsNormBackwardOp<
    "rms_norm_backward_beta", "beta (RLX `RmsNormBackwardBeta`)", "beta">;

//===----------------------------------------------------------------------===//
// RoPE
//===----------------------------------------------------------------------===//

def RLX_RopeBackwardOp : RLX_BackwardOp<"rope_backward", [
    AllElementTypesMatch<["dy", "cos", "sin", "result"]>,
    AllTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of rotary position embedding (RLX `RopeBackward`)";
  let description = [{
    The forward `rlx.rope` rotates, in every head of width `head_dim`, the
    first `n_rot` dims as NeoX pairs `(i, i + n_rot/2)`, `i < n_rot/2`, by
    the angle of position `s` (`c = cos[s, i]`, `t = sin[s, i]`), and copies
    the remaining `head_dim - n_rot` dims. A rotation's adjoint is the
    rotation by the negated angle, so:

    ```
    result[.., i]          = dy[.., i] * c + dy[.., i + n_rot/2] * t
    result[.., i + n_rot/2] = dy[.., i + n_rot/2] * c - dy[.., i] * t
    result[.., j]          = dy[.., j]          for n_rot <= j < head_dim
    ```

    `dy` is `[B, S, H * head_dim]` or `[B, H, S, head_dim]`; `cos` and `sin`
    are `[S, n_rot / 2]` tables (the same shape). `n_rot` is even, positive
    and at most `head_dim`. The result has `dy`'s type.

    Example:

    ```mlir
    %dx = rlx.rope_backward %dy, %cos, %sin {head_dim = 64 : i64, n_rot = 64 : i64}
            : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$dy,
                       RLX_FloatTensor:$cos,
                       RLX_FloatTensor:$sin,
                       RLX_PositiveI64Attr:$head_dim,
                       I64Attr:$n_rot);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $dy `,` $cos `,` $sin attr-dict `:` type($dy) `,` type($cos) `,`
    type($sin)
  }];
}

//===----------------------------------------------------------------------===//
// Group norm
//===----------------------------------------------------------------------===//

def RLX_GroupNormBackwardInputOp : RLX_BackwardOp<"group_norm_backward_input", [
    AllElementTypesMatch<["x", "gamma", "beta", "dy", "result"]>,
    AllTypesMatch<["x", "result"]>]> {
  let summary = "group norm gradient w.r.t. the input (RLX `GroupNormBackwardInput`)";
  let description = [{
    Gradient of NCHW group norm `y[n, c] = gamma[c] * xhat[n, c] + beta[c]`,
    where `xhat` normalises each of the `num_groups` channel groups of each
    sample over its `(C / num_groups) * H * W` elements with
    `inv_std = 1 / sqrt(var + eps)`. With `g = dy * gamma[c]`, statistics
    recomputed from `x` and means over the elements of a group:

    ```
    result = inv_std * (g - mean(g) - xhat * mean(g * xhat))
    ```

    `x` and `dy` are `[N, C, H, W]` of the same shape, `gamma` and `beta`
    are `[C]`, and `num_groups` divides `C`. `beta` does not enter the
    gradient; it is an operand so the kernel's inputs mirror the forward op.
    The result has `x`'s type.

    Example:

    ```mlir
    %dx = rlx.group_norm_backward_input %x, %gamma, %beta, %dy {eps = 1.0e-05 : f32, num_groups = 8 : i64}
            : tensor<2x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<2x32x16x16xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       RLX_FloatTensor:$dy,
                       RLX_PositiveI64Attr:$num_groups,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $gamma `,` $beta `,` $dy attr-dict `:` type($x) `,` type($gamma)
    `,` type($beta) `,` type($dy)
  }];
}

class RLX_GroupNormBackwardParamOp<string mnemonic, string wrt, string rule>
    : RLX_InferredBackwardOp<mnemonic, [
        AllElementTypesMatch<["x", "dy", "result"]>]> {
  let summary = "group norm gradient w.r.t. " # wrt;
  let description = [{
    Per-channel parameter gradient of NCHW group norm (see
    `rlx.group_norm_backward_input`):

    ```
  }] # rule # [{
    ```

    `x` and `dy` are `[N, C, H, W]` of the same shape and `num_groups`
    divides `C`. The result is `[C]`.

    Example:

    ```mlir
    %d = rlx.}] # mnemonic # [{ %x, %dy {eps = 1.0e-05 : f32, num_groups = 8 : i64}
           : tensor<2x32x16x16xf32>, tensor<2x32x16x16xf32>
    // %d : tensor<32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$dy,
                       RLX_PositiveI64Attr:$num_groups,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $dy attr-dict `:` type($x) `,` type($dy)
  }];
}

def RLX_GroupNormBackwardGammaOp : RLX_GroupNormBackwardParamOp<
    "group_norm_backward_gamma", "gamma (RLX `GroupNormBackwardGamma`)",
    "  result[c] = sum over n, h, w of dy[n, c, h, w] * xhat[n, c, h, w]">;
def RLX_GroupNormBackwardBetaOp : RLX_GroupNormBackwardParamOp<
    "group_norm_backward_beta", "beta (RLX `GroupNormBackwardBeta`)",
    "  result[c] = sum over n, h, w of dy[n, c, h, w]   (x only fixes the geometry)">;

//===----------------------------------------------------------------------===//
// Batch norm (inference statistics)
//===----------------------------------------------------------------------===//

def RLX_BatchNormInferenceBackwardInputOp
    : RLX_BackwardOp<"batch_norm_inference_backward_input", [
        AllElementTypesMatch<["x", "gamma", "mean", "var", "dy", "result"]>,
        AllTypesMatch<["x", "result"]>]> {
  let summary = "batch norm (frozen statistics) gradient w.r.t. the input "
                "(RLX `BatchNormInferenceBackwardInput`)";
  let description = [{
    Gradient of `y = gamma * (x - mean) / sqrt(var + eps) + beta` with frozen
    running statistics, the feature axis being the **last** axis of `x`:

    ```
    result[..., c] = dy[..., c] * gamma[c] / sqrt(var[c] + eps)
    ```

    `x` and `dy` have the same shape `[..., C]` (rank >= 1); `gamma`, `mean`
    and `var` are `[C]`. `x` and `mean` do not enter this gradient; they are
    operands so the kernel's inputs mirror the forward op. The result has
    `x`'s type.

    Example:

    ```mlir
    %dx = rlx.batch_norm_inference_backward_input %x, %gamma, %mean, %var, %dy {eps = 1.0e-05 : f32}
            : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x16x64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$mean,
                       RLX_FloatTensor:$var,
                       RLX_FloatTensor:$dy,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $gamma `,` $mean `,` $var `,` $dy attr-dict `:` type($x) `,`
    type($gamma) `,` type($mean) `,` type($var) `,` type($dy)
  }];
}

def RLX_BatchNormInferenceBackwardGammaOp
    : RLX_InferredBackwardOp<"batch_norm_inference_backward_gamma", [
        AllElementTypesMatch<["x", "mean", "var", "dy", "result"]>]> {
  let summary = "batch norm (frozen statistics) gradient w.r.t. gamma "
                "(RLX `BatchNormInferenceBackwardGamma`)";
  let description = [{
    ```
    result[c] = sum over every leading index of dy[..., c] * (x[..., c] - mean[c]) / sqrt(var[c] + eps)
    ```

    The feature axis is the last axis: `x` and `dy` have the same shape
    `[..., C]` (rank >= 1), `mean` and `var` are `[C]`. The result is `[C]`.

    Example:

    ```mlir
    %dgamma = rlx.batch_norm_inference_backward_gamma %x, %mean, %var, %dy {eps = 1.0e-05 : f32}
                : tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x64xf32>
    // %dgamma : tensor<64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$mean,
                       RLX_FloatTensor:$var,
                       RLX_FloatTensor:$dy,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $mean `,` $var `,` $dy attr-dict `:` type($x) `,` type($mean) `,`
    type($var) `,` type($dy)
  }];
}

def RLX_BatchNormInferenceBackwardBetaOp
    : RLX_InferredBackwardOp<"batch_norm_inference_backward_beta", [
        AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "batch norm (frozen statistics) gradient w.r.t. beta "
                "(RLX `BatchNormInferenceBackwardBeta`)";
  let description = [{
    `result[c] = sum over every leading index of dy[..., c]`. The feature
    axis is the last axis: `dy` is `[..., C]` (rank >= 1) and the result is
    `[C]`.

    Example:

    ```mlir
    %dbeta = rlx.batch_norm_inference_backward_beta %dy : tensor<8x16x16x64xf32>
    // %dbeta : tensor<64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$dy);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = "$dy attr-dict `:` type($dy)";
}

//===----------------------------------------------------------------------===//
// Scans and gathers
//===----------------------------------------------------------------------===//

def RLX_CumsumBackwardOp : RLX_BackwardOp<"cumsum_backward", [
    SameOperandsAndResultType]> {
  let summary = "gradient of a cumulative sum (RLX `CumsumBackward`)";
  let description = [{
    The adjoint of `rlx.cumsum` along `axis` (negative counts from the end):
    a reversed cumulative sum of `dy`. With `n` the extent along `axis`:

    ```
    result[i] = sum_{i <= j < n} dy[j]      (inclusive forward scan)
    result[i] = sum_{i <  j < n} dy[j]      (with `exclusive`)
    ```

    The result has `dy`'s type (the forward input's type).

    Example:

    ```mlir
    %dx = rlx.cumsum_backward %dy {axis = 1 : i64, exclusive} : tensor<4x16xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$dy,
                       I64Attr:$axis,
                       UnitAttr:$exclusive);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = "$dy attr-dict `:` type($dy)";
}

def RLX_GatherBackwardOp : RLX_BackwardOp<"gather_backward", [
    AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of a gather: scatter-add into the table (RLX `GatherBackward`)";
  let description = [{
    The forward `rlx.gather` along `axis` reads
    `out[p..., j..., q...] = table[p..., indices[j...], q...]`, so its output
    shape is `table[:axis] ++ indices.shape ++ table[axis+1:]`. This op
    starts from a zero tensor of the table's shape and adds every element of
    `dy` (the gradient of that output) back at the row it was read from;
    rows read several times accumulate:

    ```
    result[p..., indices[j...], q...] += dy[p..., j..., q...]
    ```

    The table's extent along `axis` cannot be derived from `dy`, so the
    result type is stated; it must be the table's type: `dy`'s shape with
    the `indices` dims replaced by one dim, and `dy`'s element type. `axis`
    counts in the result's rank (negative from the end). `indices` is an
    i32/i64 tensor of indices in `[0, table extent)`; an index outside it
    (the forward gather read zeros there) adds nothing.

    Example:

    ```mlir
    %dtable = rlx.gather_backward %dy, %ids {axis = 0 : i64}
                : tensor<4x16x768xf32>, tensor<4x16xi64> -> tensor<50257x768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$dy,
                       RLX_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $dy `,` $indices attr-dict `:` type($dy) `,` type($indices) `->`
    type($result)
  }];
}

def RLX_ResizeBackwardOp : RLX_InferredBackwardOp<"resize_backward", [
    AllElementTypesMatch<["dy", "result"]>]> {
  let summary = "gradient of rlx.resize: its adjoint";
  let description = [{
    `dy` is the gradient of an `rlx.resize` output; `sizes` are that
    resize's input sizes along its resized (trailing) dims, and `mode`,
    `align_corners` and `scales` are its attributes. The result has `dy`'s
    shape with the trailing dims replaced by `sizes`: every element of
    `dy` is added, times its interpolation weight, to each input position
    the forward read it from:

    ```
    result[..., i] = sum over o with a tap (i, w) of w * dy[..., o]
    ```

    (per resized dim; several dims compose). It is linear in `dy`, and its
    own gradient is the forward `rlx.resize`. The resized dims of `dy` must
    be static.

    Example:

    ```mlir
    %dx = rlx.resize_backward linear %dy to [32, 32] {align_corners}
            : tensor<1x3x64x64xf32>
    // %dx : tensor<1x3x32x32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$dy,
                       RLX_ResizeModeAttr:$mode,
                       DenseI64ArrayAttr:$sizes,
                       UnitAttr:$align_corners,
                       OptionalAttr<DenseF64ArrayAttr>:$scales);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($mode) $dy `to` $sizes attr-dict `:` type($dy)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling and convolution
//===----------------------------------------------------------------------===//

def RLX_MaxPool2dBackwardOp : RLX_BackwardOp<"max_pool2d_backward", [
    AllElementTypesMatch<["x", "dy", "result"]>,
    AllTypesMatch<["x", "result"]>]> {
  let summary = "gradient of 2-D max pooling (RLX `MaxPool2dBackward`)";
  let description = [{
    Routes each element of `dy` to the position of its window's maximum in
    `x`, recomputing the argmax from `x` (no saved indices); positions that
    are the maximum of several windows accumulate, all others get zero. A
    window with several equal maxima sends the gradient to the first in
    row-major order. Padded positions (`-inf`) are never the maximum.

    `x` is `[N, C, H, W]`, `kernel_size`, `stride` and `padding` are the
    forward `rlx.pool max` geometry and `dy` must have that pool's output
    shape `[N, C, H_out, W_out]`. The result has `x`'s type.

    Example:

    ```mlir
    %dx = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2],
            padding = [0, 0] : tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$dy,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $dy `kernel_size` `=` $kernel_size `,` `stride` `=` $stride `,`
    `padding` `=` $padding attr-dict `:` type($x) `,` type($dy)
  }];
}

def RLX_Conv2dBackwardInputOp : RLX_BackwardOp<"conv2d_backward_input", [
    AllElementTypesMatch<["dy", "weight", "result"]>]> {
  let summary = "convolution gradient w.r.t. the input (RLX `Conv2dBackwardInput`)";
  let description = [{
    The gradient of `rlx.conv` with respect to its input: the transposed
    convolution of `dy` `[N, C_out, H_out, W_out]` with the forward weight
    `[C_out, C_in / groups, kH, kW]`, scattering
    `dy[n, co, oh, ow] * weight[co, ci, kh, kw]` into
    `result[n, g * C_in/groups + ci, oh * sH - pH + kh * dH, ow * sW - pW + kw * dW]`,
    where `g = co / (C_out / groups)` is the group of output channel `co`;
    positions in the padding are dropped.

    `kernel_size`, `stride`, `padding`, `dilation` and `groups` are the
    **forward** convolution's. With a stride above 1 several input sizes
    give the same output size, so the result type `[N, C_in, H, W]` (the
    forward input's) is stated. It must be consistent: `groups` divides
    `C_in` and `C_out`, `weight[1] = C_in / groups`, `weight[0] = C_out`,
    `kernel_size` matches the weight, and a forward `rlx.conv` of the result
    shape gives `dy`'s shape.

    Example:

    ```mlir
    %dx = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2],
            padding = [1, 1], dilation = [1, 1], groups = 1
            : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$dy,
                       RLX_FloatTensor:$weight,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       I64Attr:$groups);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $dy `,` $weight `kernel_size` `=` $kernel_size `,` `stride` `=` $stride
    `,` `padding` `=` $padding `,` `dilation` `=` $dilation `,` `groups` `=`
    $groups attr-dict `:` type($dy) `,` type($weight) `->` type($result)
  }];
}

def RLX_Conv2dBackwardWeightOp
    : RLX_InferredBackwardOp<"conv2d_backward_weight", [
        AllElementTypesMatch<["x", "dy", "result"]>]> {
  let summary = "convolution gradient w.r.t. the weight (RLX `Conv2dBackwardWeight`)";
  let description = [{
    The gradient of `rlx.conv` with respect to its weight:

    ```
    result[co, ci, kh, kw] = sum_{n, oh, ow} dy[n, co, oh, ow]
        * x[n, g * C_in/groups + ci, oh * sH - pH + kh * dH, ow * sW - pW + kw * dW]
    ```

    with `g` the group of output channel `co` and out-of-bounds `x` reading
    as zero. `x` is the forward input `[N, C_in, H, W]`, `dy` the gradient
    of the forward output `[N, C_out, H_out, W_out]`; the attributes are the
    forward convolution's. `groups` divides `C_in` and `C_out`, and `dy`'s
    spatial extents are those `rlx.conv` computes for `x`. The result is the
    weight shape `[C_out, C_in / groups, kH, kW]`.

    Example:

    ```mlir
    %dw = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2],
            padding = [1, 1], dilation = [1, 1], groups = 1
            : tensor<8x3x224x224xf32>, tensor<8x64x112x112xf32>
    // %dw : tensor<64x3x3x3xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$dy,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       I64Attr:$groups);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $dy `kernel_size` `=` $kernel_size `,` `stride` `=` $stride `,`
    `padding` `=` $padding `,` `dilation` `=` $dilation `,` `groups` `=`
    $groups attr-dict `:` type($x) `,` type($dy)
  }];
}

//===----------------------------------------------------------------------===//
// Softmax cross-entropy
//===----------------------------------------------------------------------===//

def RLX_SoftmaxCrossEntropyWithLogitsOp
    : RLX_InferredBackwardOp<"softmax_cross_entropy_with_logits", [
        AllElementTypesMatch<["logits", "result"]>]> {
  let summary = "fused softmax cross-entropy loss per row "
                "(RLX `SoftmaxCrossEntropyWithLogits`)";
  let description = [{
    `result[n] = -log(softmax(logits[n])[labels[n]])
               = logsumexp(logits[n, :]) - logits[n, labels[n]]`,
    computed without materialising the softmax. `logits` is `[N, C]`
    (floating point), `labels` is `[N]` of i32/i64 class indices in
    `[0, C)`. The result is the per-row loss `[N]`; a mean over the batch is
    a separate `rlx.reduce mean`. A label outside `[0, C)` ignores its row,
    as PyTorch's `ignore_index` does (its default, -100, is such a label):
    the row's loss is 0 and so is its gradient; the other rows are
    unaffected. A mean over the batch still counts the ignored rows, where
    PyTorch's `reduction="mean"` divides by the rows it kept.

    Example:

    ```mlir
    %loss = rlx.softmax_cross_entropy_with_logits %logits, %labels
              : tensor<32x10xf32>, tensor<32xi64>
    // %loss : tensor<32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$logits, RLX_IndexTensor:$labels);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $logits `,` $labels attr-dict `:` type($logits) `,` type($labels)
  }];
}

def RLX_SoftmaxCrossEntropyBackwardOp
    : RLX_BackwardOp<"softmax_cross_entropy_backward", [
        AllElementTypesMatch<["logits", "d_loss", "result"]>,
        AllTypesMatch<["logits", "result"]>]> {
  let summary = "gradient of the fused softmax cross-entropy w.r.t. the logits "
                "(RLX `SoftmaxCrossEntropyBackward`)";
  let description = [{
    `result[n, c] = (softmax(logits[n])[c] - (c == labels[n] ? 1 : 0)) * d_loss[n]`,
    recomputing the softmax. `logits` is `[N, C]`, `labels` `[N]` (i32/i64
    in `[0, C)`), `d_loss` `[N]` the gradient of the per-row loss. The
    result has `logits`' type. Labels get no gradient. A row whose label is
    outside `[0, C)` is ignored (its loss is 0): its result is 0.

    Example:

    ```mlir
    %dlogits = rlx.softmax_cross_entropy_backward %logits, %labels, %dloss
                 : tensor<32x10xf32>, tensor<32xi64>, tensor<32xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$logits,
                       RLX_IndexTensor:$labels,
                       RLX_FloatTensor:$d_loss);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $logits `,` $labels `,` $d_loss attr-dict `:` type($logits) `,`
    type($labels) `,` type($d_loss)
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def RLX_AttentionBackwardOp : RLX_InferredBackwardOp<"attention_backward", [
    AllElementTypesMatch<["q", "k", "v", "dy", "result"]>]> {
  let summary = "gradient of scaled dot-product attention w.r.t. one input "
                "(RLX `AttentionBackward`)";
  let description = [{
    Recomputes the forward `rlx.attention` per batch and head,

    ```
    s = score_scale * q k^T                  (default scale 1 / sqrt(head_dim))
    s = c * tanh(s / c)                      (if attn_logit_softcap = c is set)
    s = mask(s)                              (mask_kind, below)
    p = softmax(s) over keys;   out = p v
    ```

    and returns the gradient of `out` (upstream `dy`) with respect to the
    input selected by `wrt`:

    ```
    dV = p^T dy
    dS = p * (dy v^T - rowsum(p * (dy v^T)))
    dS = dS * (1 - tanh(s_scaled / c)^2)     (with softcap, s_scaled before capping)
    dQ = score_scale * dS k;   dK = score_scale * dS^T q
    ```

    Unlike the original RLX kernel, the op carries `score_scale` and
    `attn_logit_softcap` and honours them exactly as the forward op does.

    Masks (`mask_kind`), as in `rlx.attention`: `none`; `causal` keeps key
    `j` for query `i` iff `j <= i + (Sk - Sq)`; `sliding_window` iff
    `i + (Sk - Sq) - window <= j <= i + (Sk - Sq)` (queries aligned to the
    end of the keys, so `j <= i` when `Sk == Sq`; the `window` attribute is
    required for it and only for it); `custom` takes a key
    padding `mask` operand `[B, Sk]` (a key is kept iff its value is
    `>= 0.5`); `bias` adds a `mask` operand `[B, H, Sq, Sk]` to the scaled,
    soft-capped scores. The `mask` operand is present exactly for `custom`
    and `bias`.

    Layouts: `q` is `[B, H, Sq, D]` (native) or `[B, Sq, H * D]`; `k` and
    `v` have the same layout and shape as each other, `[B, H, Sk, D]` or
    `[B, Sk, H * D]`, with `H = num_heads` and `D = head_dim`. `dy` has
    `q`'s shape. The result has the shape of `q`, `k` or `v` according to
    `wrt`; all share one floating-point element type.

    Example:

    ```mlir
    %dq = rlx.attention_backward %q, %k, %v, %dy
            {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 8 : i64,
             wrt = #rlx.wrt<query>}
            : tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>,
              tensor<2x8x128x64xf32>
    %dk = rlx.attention_backward %q, %k, %v, %dy mask %pad : tensor<2x128xf32>
            {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 8 : i64,
             score_scale = 1.250000e-01 : f32, wrt = #rlx.wrt<key>}
            : tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>, tensor<2x8x128x64xf32>,
              tensor<2x8x128x64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$q,
                       RLX_FloatTensor:$k,
                       RLX_FloatTensor:$v,
                       RLX_FloatTensor:$dy,
                       Optional<RLX_FloatTensor>:$mask,
                       RLX_PositiveI64Attr:$num_heads,
                       RLX_PositiveI64Attr:$head_dim,
                       RLX_MaskKindAttr:$mask_kind,
                       OptionalAttr<RLX_NonNegativeI64Attr>:$window,
                       OptionalAttr<RLX_PositiveF32Attr>:$score_scale,
                       OptionalAttr<RLX_PositiveF32Attr>:$attn_logit_softcap,
                       RLX_AttentionBwdWrtAttr:$wrt);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $dy (`mask` $mask^ `:` type($mask))? attr-dict `:`
    type($q) `,` type($k) `,` type($v) `,` type($dy)
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXBACKWARDOPS_TD
