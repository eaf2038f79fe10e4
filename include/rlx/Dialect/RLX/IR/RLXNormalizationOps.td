//===- RLXNormalizationOps.td - normalization and resize ---*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXNORMALIZATIONOPS_TD
#define RLX_DIALECT_RLX_IR_RLXNORMALIZATIONOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// A normalisation of `input` by statistics over some of its axes, scaled by
// `gamma` and shifted by `beta` (and any further per-feature `params`); the
// result has the input's type.
class RLX_NormalizationOp<string mnemonic, list<string> params = []>
    : RLX_PureOp<mnemonic, [
          AllTypesMatch<["input", "result"]>,
          AllElementTypesMatch<!listconcat(["input", "gamma", "beta"],
                                           params)>]> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.layer_norm
//===----------------------------------------------------------------------===//

def RLX_LayerNormOp : RLX_NormalizationOp<"layer_norm"> {
  let summary = "layer normalization along one axis (RLX `LayerNorm`)";
  let description = [{
    Normalizes `input` along the single axis `axis` (negative values count
    from the end, `-1` is the last axis; any axis is allowed):

    ```
    mean = mean(x, axis)
    var  = mean((x - mean)^2, axis)          // biased variance
    y    = (x - mean) / sqrt(var + eps) * gamma + beta
    ```

    `gamma` and `beta` are rank-1 `[C]` with `C = dim(input, axis)`; element
    `c` scales and shifts every element whose coordinate along `axis` is
    `c`. All operands share one floating-point element type. `eps` is a
    finite non-negative `f32`. The result has the type of `input`.

    Example:

    ```mlir
    %y = rlx.layer_norm %x, %gamma, %beta {axis = -1 : i64, eps = 1.0e-05 : f32}
        : tensor<4x128x768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       I64Attr:$axis,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
    `,` type($beta)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.rms_norm
//===----------------------------------------------------------------------===//

def RLX_RmsNormOp : RLX_NormalizationOp<"rms_norm"> {
  let summary = "RMS normalization with scale and shift (RLX `RmsNorm`)";
  let description = [{
    Normalizes `input` by its root mean square along the single axis `axis`
    (negative values count from the end; any axis is allowed). No mean is
    subtracted. Unlike many frameworks, RLX's RMS norm has a shift input:

    ```
    y = x / sqrt(mean(x^2, axis) + eps) * gamma + beta
    ```

    `gamma` and `beta` are rank-1 `[C]` with `C = dim(input, axis)`. All
    operands share one floating-point element type; `eps` is a finite
    non-negative `f32`. The result has the type of `input`.

    Example:

    ```mlir
    %y = rlx.rms_norm %x, %gamma, %beta {axis = -1 : i64, eps = 1.0e-06 : f32}
        : tensor<1x16x2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       I64Attr:$axis,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
    `,` type($beta)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.group_norm
//===----------------------------------------------------------------------===//

def RLX_GroupNormOp : RLX_NormalizationOp<"group_norm"> {
  let summary = "group normalization of an NCHW tensor (RLX `GroupNorm`)";
  let description = [{
    `input` is NCHW `[N, C, H, W]`. The `C` channels are split into
    `num_groups` contiguous groups of `C / num_groups` channels; each
    (sample, group) slice of `(C / num_groups) * H * W` elements is
    normalized to zero mean and unit (biased) variance, then every channel
    `c` is scaled by `gamma[c]` and shifted by `beta[c]`:

    ```
    y[n, c, h, w] = (x - mean[n, g(c)]) / sqrt(var[n, g(c)] + eps)
                    * gamma[c] + beta[c]
    ```

    `num_groups` is at least 1 and divides `C`. `gamma` and `beta` are
    `[C]`. All operands share one floating-point element type; `eps` is a
    finite non-negative `f32`. The result has the type of `input`.

    Example:

    ```mlir
    %y = rlx.group_norm %x, %gamma, %beta {eps = 1.0e-05 : f32, num_groups = 32 : i64}
        : tensor<2x320x64x64xf32>, tensor<320xf32>, tensor<320xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       RLX_PositiveI64Attr:$num_groups,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
    `,` type($beta)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.layer_norm2d
//===----------------------------------------------------------------------===//

def RLX_LayerNorm2dOp : RLX_NormalizationOp<"layer_norm2d"> {
  let summary = "per-pixel channel normalization of an NCHW tensor "
                "(RLX `LayerNorm2d`)";
  let description = [{
    `input` is NCHW `[N, C, H, W]`. At every pixel `(n, h, w)` the `C`
    channel values are normalized to zero mean and unit (biased) variance,
    then channel `c` is scaled by `gamma[c]` and shifted by `beta[c]`. This
    is the channel-wise `LayerNorm2d` of SAM and candle, not a
    normalization over `H x W`:

    ```
    mean[n, h, w] = mean_c x[n, c, h, w]
    var[n, h, w]  = mean_c (x[n, c, h, w] - mean[n, h, w])^2
    y[n, c, h, w] = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]
    ```

    `gamma` and `beta` are `[C]`. All operands share one floating-point
    element type; `eps` is a finite non-negative `f32`. The result has the
    type of `input`.

    Example:

    ```mlir
    %y = rlx.layer_norm2d %x, %gamma, %beta {eps = 1.0e-06 : f32}
        : tensor<1x256x64x64xf32>, tensor<256xf32>, tensor<256xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $gamma `,` $beta attr-dict `:` type($input) `,` type($gamma)
    `,` type($beta)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.batch_norm_inference
//===----------------------------------------------------------------------===//

def RLX_BatchNormInferenceOp
    : RLX_NormalizationOp<"batch_norm_inference",
                          ["running_mean", "running_var"]> {
  let summary = "batch normalization with frozen statistics "
                "(RLX `BatchNormInference`)";
  let description = [{
    Normalizes with frozen running statistics. The feature (channel) axis is
    the **last** axis of `input` (`[..., C]`, NHWC-like; this is not NCHW):

    ```
    y[..., c] = (x[..., c] - running_mean[c]) / sqrt(running_var[c] + eps)
                * gamma[c] + beta[c]
    ```

    `input` has rank >= 1. `gamma`, `beta`, `running_mean` and
    `running_var` are `[C]` with `C = dim(input, -1)`. All operands share
    one floating-point element type; `eps` is a finite non-negative `f32`.
    The result has the type of `input`.

    Example:

    ```mlir
    %y = rlx.batch_norm_inference %x, %gamma, %beta, %mean, %var {eps = 1.0e-05 : f32}
        : tensor<8x32x32x64xf32>, tensor<64xf32>, tensor<64xf32>,
          tensor<64xf32>, tensor<64xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$gamma,
                       RLX_FloatTensor:$beta,
                       RLX_FloatTensor:$running_mean,
                       RLX_FloatTensor:$running_var,
                       RLX_NonNegativeF32Attr:$eps);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `,` $running_mean `,` $running_var attr-dict
    `:` type($input) `,` type($gamma) `,` type($beta) `,`
    type($running_mean) `,` type($running_var)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.resize_nearest2x
//===----------------------------------------------------------------------===//

def RLX_ResizeNearest2xOp : RLX_InferredTypeOp<"resize_nearest2x", [
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "nearest-neighbour 2x upsampling of an NCHW tensor "
                "(RLX `ResizeNearest2x`)";
  let description = [{
    `input` is NCHW `[N, C, H, W]`; the result is `[N, C, 2H, 2W]` with the
    same element type (any rlx element type), each input pixel repeated
    into a 2 x 2 block:

    ```
    y[n, c, h, w] = x[n, c, floor(h / 2), floor(w / 2)]
    ```

    A dynamic `H` or `W` gives a dynamic result dimension.

    Example:

    ```mlir
    %y = rlx.resize_nearest2x %x : tensor<1x256x32x32xf32>
    // %y : tensor<1x256x64x64xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.resize
//===----------------------------------------------------------------------===//

def RLX_ResizeOp : RLX_InferredTypeOp<"resize", [
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "nearest, (multi)linear or cubic resize of the trailing "
                "dims";
  let description = [{
    Resizes the last `k = len(sizes)` dims of `input` (1 to 3: the spatial
    dims of NCW / NCHW / NCDHW tensors) to `sizes`; the leading dims are
    kept. It is PyTorch's `F.interpolate` in modes `nearest`,
    `nearest-exact`, `linear` / `bilinear` / `trilinear` and `bicubic`,
    with the same index and weight rules. Along a resized dim of input
    size `I` and output size `O`, output position `o` reads:

    ```
    scale = align_corners ? (O > 1 ? (I - 1) / (O - 1) : 0)
          : scales given  ? 1 / scales[d]
          :                 I / O
    nearest:        x[min(floor(o * scale), I - 1)]
    nearest_exact:  x[min(floor((o + 0.5) * scale), I - 1)]
    linear:         src = align_corners ? o * scale
                                        : max((o + 0.5) * scale - 0.5, 0)
                    i = min(floor(src), I - 1), j = min(i + 1, I - 1)
                    t = src - i
                    x[i] * (1 - t) + x[j] * t
    cubic:          src = align_corners ? o * scale : (o + 0.5) * scale - 0.5
                    i = floor(src), t = src - i
                    sum_{k=0..3} x[clamp(i - 1 + k, 0, I - 1)] * w_k(t)
                    w_0 = c2(t + 1), w_1 = c1(t), w_2 = c1(1 - t),
                    w_3 = c2(2 - t), with A = -0.75 and
                    c1(d) = ((A + 2) d - (A + 3)) d^2 + 1,
                    c2(d) = ((A d - 5A) d + 8A) d - 4A
    ```

    Several resized dims combine as a product (bilinear, trilinear,
    bicubic). `scales` (optional, one positive factor per resized dim) is
    the `scale_factor` PyTorch was given; without it the scale is `I / O`.
    `align_corners` applies to `linear` and `cubic`. The resized input
    dims must be static and positive; leading dims may be dynamic.
    `nearest` takes any element type, `linear` and `cubic` a
    floating-point one (computed in f32, or f64 for f64). The gradient is
    `rlx.resize_backward`.

    Example:

    ```mlir
    %y = rlx.resize linear %x to [64, 64] {align_corners}
           : tensor<1x3x32x32xf32>
    // %y : tensor<1x3x64x64xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input,
                       RLX_ResizeModeAttr:$mode,
                       DenseI64ArrayAttr:$sizes,
                       UnitAttr:$align_corners,
                       OptionalAttr<DenseF64ArrayAttr>:$scales);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($mode) $input `to` $sizes attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXNORMALIZATIONOPS_TD
