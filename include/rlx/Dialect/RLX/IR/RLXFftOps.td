//===- RLXFftOps.td - FFT, complex helpers and audio features --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXFFTOPS_TD
#define RLX_DIALECT_RLX_IR_RLXFFTOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

def RLX_FftTensor : RankedTensorOf<[F32, F64, RLX_Complex]>;
def RLX_ComplexTensor : RankedTensorOf<[RLX_Complex]>;

//===----------------------------------------------------------------------===//
// rlx.fft
//===----------------------------------------------------------------------===//

def RLX_FftOp : RLX_SameTypeOp<"fft"> {
  let summary = "1-D discrete Fourier transform along the last axis (RLX `Fft`)";
  let description = [{
    Transforms every vector along the last axis:
    `X[k] = sum_n x[n] * exp(-2 pi i n k / N)` forward and
    `x[n] = sum_k X[k] * exp(+2 pi i n k / N)` with `inverse`, then scales
    by `norm` (RLX semantics, not NumPy's): `backward` (default) scales
    neither direction, so `ifft(fft(x)) = N x`; `forward` scales the
    inverse by `1/N`; `ortho` scales both directions by `1/sqrt(N)`.

    Layouts: `complex<f32>` tensors hold one complex value per element, so
    `N` is the last dim. `f32` / `f64` tensors use the real-block layout:
    the last axis is `2N` long, `[re_0 .. re_(N-1), im_0 .. im_(N-1)]`, and
    must be even and positive. The result has the input's type.

    Lowering (`convert-rlx-to-linalg`): any `N` runs in O(N log N)
    (radix-2 for powers of two, Bluestein's FFT for other lengths above
    16, a direct DFT below); batch dims may be dynamic. A dynamic transform
    length (`?` last axis) compiles once for every length: the run checks
    the axis as the verifier checks a static one (an odd or empty
    real-block axis is the run's error, naming the op), then takes radix-2
    where `N` is a power of two and Bluestein's FFT for every other `N`
    (including those up to 16). On the CPU the loops of a dynamic-length
    transform run sequentially (not OpenMP-parallel or vectorized).

    Example:

    ```mlir
    %X = rlx.fft %x : tensor<4x512xf32>               // N = 256
    %y = rlx.fft inverse %X {norm = #rlx.fft_norm<ortho>} : tensor<4x256xcomplex<f32>>
    ```
  }];

  let arguments = (ins RLX_FftTensor:$input,
                       UnitAttr:$inverse,
                       DefaultValuedAttr<RLX_FftNormAttr,
                         "::mlir::rlx::FftNorm::Backward">:$norm);
  let results = (outs RLX_FftTensor:$result);

  let assemblyFormat = [{
    (`inverse` $inverse^)? $input attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.fft_butterfly_stage
//===----------------------------------------------------------------------===//

def RLX_FftButterflyStageOp : RLX_PureOp<"fft_butterfly_stage", [
    AllTypesMatch<["state", "result"]>, AllTypesMatch<["tw_re", "tw_im"]>,
    AllTypesMatch<["gate", "rev"]>]> {
  let summary = "one pruned radix-2 FFT butterfly stage (RLX `FftButterflyStage`)";
  let description = [{
    One decimation stage of a radix-2 FFT on interleaved complex state
    `[batch, n_fft, 2]` (`re`, `im` on the last axis). With
    `stride = 2^stage`, butterfly `j` (of `half = n_fft / 2`) pairs
    `i0 = (j / stride) * 2 * stride + j % stride` and `i1 = i0 + stride`:

    ```
    t       = state[i1] * (tw_re[j] + i tw_im[j])
    out[i0] = state[i0] + t
    out[i1] = state[i0] - t
    ```

    Where `gate[j]` is false the pair is copied unchanged (no twiddle
    math); where `gate[j]` and `rev[j]` are both true the two outputs are
    swapped. Every element not touched by a gated butterfly is copied.

    `n_fft` is a power of two >= 2 and equals the state's middle dim;
    `stage` lies in `[0, log2(n_fft))`. `gate` and `rev` are i1 `[half]`;
    `tw_re` and `tw_im` are `[half]` with the state's floating-point
    element type. The result has the state's type.

    Example:

    ```mlir
    %s1 = rlx.fft_butterfly_stage %s0, %gate, %rev, %twr, %twi stage = 0
        n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<4xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$state,
                       RLX_BoolTensor:$gate,
                       RLX_BoolTensor:$rev,
                       RLX_FloatTensor:$tw_re,
                       RLX_FloatTensor:$tw_im,
                       I64Attr:$stage,
                       ConfinedAttr<I64Attr,
                                    [IntMinValue<2>, IntPowerOf2]>:$n_fft);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $state `,` $gate `,` $rev `,` $tw_re `,` $tw_im `stage` `=` $stage
    `n_fft` `=` $n_fft attr-dict `:` type($state) `,` type($gate) `,`
    type($tw_re)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.log_mel / rlx.log_mel_backward
//===----------------------------------------------------------------------===//

def RLX_LogMelOp : RLX_InferredTypeOp<"log_mel", [
    AllElementTypesMatch<["spectrum", "filterbank", "result"]>]> {
  let summary = "Whisper log-mel features from a block-layout spectrum (RLX `LogMel`)";
  let description = [{
    `spectrum [..., 2 * n_fft]` is an `rlx.fft` output in real-block layout
    (`re` plane, then `im` plane). For each leading index the op takes the
    power `|X[k]|^2` of the `n_bins = n_fft / 2 + 1` non-negative
    frequencies, applies `filterbank [n_mels, n_bins]`, and compresses as
    Whisper does: `l = log10(max(mel, 1e-10))`, then
    `l = max(l, max(l) - 8)` with the maximum over the whole tensor, then
    `(l + 4) / 4`. The result is `[..., n_mels]`. `n_fft >= 1` and
    `n_fft / 2` rounds down; both operands share a floating-point element
    type.

    Example:

    ```mlir
    %m = rlx.log_mel %spec, %fb : tensor<3000x800xf32>, tensor<80x201xf32>
    // %m : tensor<3000x80xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$spectrum, RLX_FloatTensor:$filterbank);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $spectrum `,` $filterbank attr-dict `:` type($spectrum) `,`
    type($filterbank)
  }];
  let hasVerifier = 1;
}

def RLX_LogMelBackwardOp : RLX_PureOp<"log_mel_backward", [
    AllElementTypesMatch<["spectrum", "filterbank", "dy", "result"]>,
    AllTypesMatch<["spectrum", "result"]>]> {
  let summary = "gradient of rlx.log_mel with respect to the spectrum (RLX `LogMelBackward`)";
  let description = [{
    Given the forward's `spectrum [..., 2 * n_fft]` and
    `filterbank [n_mels, n_fft / 2 + 1]` and the upstream gradient
    `dy [..., n_mels]`, returns `d_spectrum`, which has the spectrum's type
    (block layout; the gradient of the clamped entries is zero). The
    filterbank gets no gradient.

    Example:

    ```mlir
    %ds = rlx.log_mel_backward %spec, %fb, %dy
        : tensor<10x16xf32>, tensor<4x5xf32>, tensor<10x4xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$spectrum,
                       RLX_FloatTensor:$filterbank,
                       RLX_FloatTensor:$dy);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $spectrum `,` $filterbank `,` $dy attr-dict `:` type($spectrum) `,`
    type($filterbank) `,` type($dy)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Complex helpers
//===----------------------------------------------------------------------===//

def RLX_ComplexNormSqOp : RLX_InferredTypeOp<"complex_norm_sq", [
    SameOperandsAndResultShape]> {
  let summary = "elementwise squared magnitude of a complex tensor (RLX `ComplexNormSq`)";
  let description = [{
    `|z|^2 = re(z)^2 + im(z)^2` per element. The input is `complex<f32>`;
    the result has the same shape and element type `f32`.

    Example:

    ```mlir
    %p = rlx.complex_norm_sq %z : tensor<4x8xcomplex<f32>>
    // %p : tensor<4x8xf32>
    ```
  }];

  let arguments = (ins RLX_ComplexTensor:$input);
  let results = (outs RankedTensorOf<[F32]>:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def RLX_ConjugateOp : RLX_SameTypeOp<"conjugate"> {
  let summary = "elementwise complex conjugate (RLX `Conjugate`)";
  let description = [{
    `conj(z) = re(z) - i im(z)` per element of a `complex<f32>` tensor; the
    result has the input's type. Self-adjoint under the Wirtinger
    convention the gradients use. Folds `conj(conj(z))` to `z`.

    Example:

    ```mlir
    %c = rlx.conjugate %z : tensor<4x8xcomplex<f32>>
    ```
  }];

  let arguments = (ins RLX_ComplexTensor:$input);
  let results = (outs RLX_ComplexTensor:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def RLX_ComplexNormSqBackwardOp : RLX_PureOp<"complex_norm_sq_backward", [
    AllTypesMatch<["z", "result"]>, AllShapesMatch<["z", "g"]>]> {
  let summary = "Wirtinger gradient of rlx.complex_norm_sq (RLX `ComplexNormSqBackward`)";
  let description = [{
    With `f(z) = |z|^2 = z conj(z)`, the cotangent with respect to
    `conj(z)` is `g * z`: element-wise `g * re(z) + i g * im(z)` for the
    real upstream gradient `g`. `z` is `complex<f32>`, `g` f32 of the same
    shape; the result has the type of `z`.

    Example:

    ```mlir
    %dz = rlx.complex_norm_sq_backward %z, %g
        : tensor<4x8xcomplex<f32>>, tensor<4x8xf32>
    ```
  }];

  let arguments = (ins RLX_ComplexTensor:$z, RankedTensorOf<[F32]>:$g);
  let results = (outs RLX_ComplexTensor:$result);

  let assemblyFormat = "$z `,` $g attr-dict `:` type($z) `,` type($g)";
}

#endif // RLX_DIALECT_RLX_IR_RLXFFTOPS_TD
