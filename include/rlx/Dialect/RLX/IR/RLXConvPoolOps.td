//===- RLXConvPoolOps.td - convolution and pooling (NCHW) --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXCONVPOOLOPS_TD
#define RLX_DIALECT_RLX_IR_RLXCONVPOOLOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// A sliding-window op over NCHW tensors. The result shape follows from the
// input shape and the window attributes (kernel, stride, padding, dilation)
// in C++, and the verifier checks the window against the input.
class RLX_WindowOp<string mnemonic, list<string> sameElementType>
    : RLX_InferredTypeOp<mnemonic, [AllElementTypesMatch<sameElementType>]> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.conv
//===----------------------------------------------------------------------===//

def RLX_ConvOp : RLX_WindowOp<"conv", ["input", "weight", "result"]> {
  let summary = "2-D grouped, strided, dilated convolution on NCHW (RLX `Conv`)";
  let description = [{
    Cross-correlates `input` `[N, C_in, H, W]` with `weight`
    `[C_out, C_in / groups, kH, kW]`:

    ```
    result[n, co, oh, ow] = sum_{ci, kh, kw}
        input[n, g * C_in/groups + ci, oh * sH - pH + kh * dH, ow * sW - pW + kw * dW]
        * weight[co, ci, kh, kw]        with g = co / (C_out / groups)
    ```

    Positions outside the input read as zero (zero padding of `padding`
    rows/columns on both sides). There is no bias operand: a bias is a
    separate broadcasting `rlx.binary add`.

    `kernel_size`, `stride`, `padding` and `dilation` each hold two entries,
    `[H, W]`. `kernel_size` must equal the weight's `[kH, kW]`; `groups`
    must divide both `C_in` and `C_out`. The result is
    `[N, C_out, H_out, W_out]` with

    ```
    H_out = floor((H + 2 pH - dH (kH - 1) - 1) / sH) + 1   (W likewise)
    ```

    and every static output extent must be at least 1. Operands and result
    share one floating-point element type (integer convolution is
    `rlx.q_conv2d`).

    Example:

    ```mlir
    %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [2, 2],
           padding = [1, 1], dilation = [1, 1], groups = 1
           : tensor<8x3x224x224xf32>, tensor<64x3x3x3xf32>
    // %y : tensor<8x64x112x112xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$weight,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       I64Attr:$groups);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $weight `kernel_size` `=` $kernel_size `,` `stride` `=` $stride
    `,` `padding` `=` $padding `,` `dilation` `=` $dilation `,` `groups` `=`
    $groups attr-dict `:` type($input) `,` type($weight)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.im2col
//===----------------------------------------------------------------------===//

def RLX_Im2ColOp : RLX_WindowOp<"im2col", ["input", "result"]> {
  let summary = "unfold NCHW convolution windows into matrix rows (RLX `Im2Col`)";
  let description = [{
    Lays out every convolution window of `input` `[N, C, H, W]` as one row,
    so that a convolution becomes a matrix product:

    ```
    result[(n * H_out + oh) * W_out + ow, (c * kH + kh) * kW + kw]
        = input[n, c, oh * sH - pH + kh * dH, ow * sW - pW + kw * dW]
    ```

    Out-of-bounds positions read as zero. `kernel_size`, `stride`, `padding`
    and `dilation` hold `[H, W]` entries; `H_out` and `W_out` follow the
    `rlx.conv` rule and must be at least 1. The result is
    `[N * H_out * W_out, C * kH * kW]` (a row count with a dynamic factor is
    dynamic) with the input's element type.

    Example:

    ```mlir
    %cols = rlx.im2col %x kernel_size = [3, 3], stride = [1, 1],
              padding = [1, 1], dilation = [1, 1] : tensor<2x4x8x8xf32>
    // %cols : tensor<128x36xf32>
    ```
  }];

  let arguments = (ins RLX_NumericTensor:$input,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation);
  let results = (outs RLX_NumericTensor:$result);

  let assemblyFormat = [{
    $input `kernel_size` `=` $kernel_size `,` `stride` `=` $stride `,`
    `padding` `=` $padding `,` `dilation` `=` $dilation attr-dict `:`
    type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.conv_transpose2d
//===----------------------------------------------------------------------===//

def RLX_ConvTranspose2dOp : RLX_WindowOp<"conv_transpose2d",
    ["input", "weight", "result"]> {
  let summary = "2-D transposed convolution on NCHW (RLX `ConvTranspose2d`)";
  let description = [{
    The adjoint of `rlx.conv` with the same geometry, as PyTorch's
    `conv_transpose2d`: every input element scatters `input[n, ci, ih, iw] *
    weight[ci, co, kh, kw]` into
    `result[n, g * C_out/groups + co, ih * sH - pH + kh * dH, iw * sW - pW + kw * dW]`
    (positions outside the result are dropped), where `g` is the group of
    input channel `ci`.

    `input` is `[N, C_in, H, W]`, `weight` is `[C_in, C_out / groups, kH, kW]`
    (PyTorch layout). `groups` must divide `C_in` (and so `C_out`);
    `kernel_size` must equal the weight's `[kH, kW]`. The result is
    `[N, C_out, H_out, W_out]` with

    ```
    H_out = (H - 1) sH - 2 pH + dH (kH - 1) + opH + 1   (W likewise)
    ```

    where `output_padding` `[opH, opW]` extends one side of the result to
    pick among the input sizes a strided convolution maps to the same
    output size. As in PyTorch, each `output_padding` entry must be smaller
    than the stride or the dilation of its dimension. Every static output
    extent must be at least 1.

    Example:

    ```mlir
    %y = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2],
           padding = [1, 1], dilation = [1, 1], output_padding = [1, 1],
           groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
    // %y : tensor<1x4x16x16xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input,
                       RLX_FloatTensor:$weight,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DenseI64ArrayAttr:$output_padding,
                       I64Attr:$groups);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $input `,` $weight `kernel_size` `=` $kernel_size `,` `stride` `=` $stride
    `,` `padding` `=` $padding `,` `dilation` `=` $dilation `,`
    `output_padding` `=` $output_padding `,` `groups` `=` $groups attr-dict
    `:` type($input) `,` type($weight)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.pool
//===----------------------------------------------------------------------===//

def RLX_PoolOp : RLX_WindowOp<"pool", ["input", "result"]> {
  let summary = "2-D window reduction on NCHW (RLX `Pool`)";
  let description = [{
    Reduces every `kH x kW` window of `input` `[N, C, H, W]`, channel by
    channel, with the reduction `kind`:

    | kind | result of a window |
    |------|--------------------|
    | `max` | the largest element |
    | `min` | the smallest element |
    | `sum` | the sum of the elements |
    | `prod` | the product of the elements |
    | `mean` | the sum of the elements divided by `kH * kW` |

    Padding adds `padding` `[pH, pW]` rows/columns on both sides. Padded
    positions hold the identity of the reduction (`-inf`, or the smallest
    integer, for `max`; `+inf`, or the largest integer, for `min`; 0 for
    `sum` and `mean`; 1 for `prod`), so they never change a result. `mean` always divides by the full window size `kH * kW`, padded
    positions included (PyTorch's `count_include_pad = True`). Each padding
    entry must be at most half its kernel extent, so every window overlaps
    the input.

    The result is `[N, C, H_out, W_out]` with
    `H_out = floor((H + 2 pH - kH) / sH) + 1` (W likewise; no dilation), which
    must be at least 1. `max`, `min`, `sum` and `prod` accept floating-point
    and signed integer tensors, `mean` needs a floating-point element type.

    Example:

    ```mlir
    %y = rlx.pool max %x kernel_size = [2, 2], stride = [2, 2],
           padding = [0, 0] : tensor<8x64x112x112xf32>
    // %y : tensor<8x64x56x56xf32>
    ```
  }];

  let arguments = (ins RLX_ReduceKindAttr:$kind,
                       RankedTensorOf<[RLX_Float, RLX_SignedInt]>:$input,
                       DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding);
  let results = (outs RankedTensorOf<[RLX_Float, RLX_SignedInt]>:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `kernel_size` `=` $kernel_size `,`
    `stride` `=` $stride `,` `padding` `=` $padding attr-dict `:`
    type($input)
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXCONVPOOLOPS_TD
