//===- RLXCUDAOps.td - the CUDA target's kernel ops --------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Ops of the CUDA target that stand for one dedicated kernel each. They are
// formed from rlx ops on tensors, bufferize like linalg ops (destination
// style: the result is written into the `init` operand) and become one
// `gpu.launch` each after bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CUDA_RLXCUDAOPS_TD
#define RLX_TARGET_CUDA_RLXCUDAOPS_TD

include "rlx/Dialect/RLX/IR/RLXEnums.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def RLXCUDA_Dialect : Dialect {
  let name = "rlx_cuda";
  let cppNamespace = "::mlir::rlx::cuda";
  let summary = "Dedicated kernels of the rlx CUDA target";
  let description = [{
    Ops that `rlx-cuda-pipeline` uses for the rlx ops whose generic
    lowering (linalg, mapped to flat kernels) would be too slow or would
    materialise large intermediates. `rlx-cuda-form-kernels` creates them on
    tensors; one-shot bufferization turns them into their buffer form (no
    results, the output written into `init`); `rlx-cuda-lower-kernels`
    replaces each by a `gpu.launch`.
  }];
  let dependentDialects = ["::mlir::rlx::RLXDialect"];
}

def RLXCUDA_TensorOrBuffer
    : AnyTypeOf<[AnyRankedTensor, AnyMemRef], "ranked tensor or memref">;

// A dedicated kernel: destination style (each result is written into an
// init operand: `init`, then `numInits - 1` more right after it, the last
// operands but optional ones), pure on tensors, reading its inputs and
// writing its inits on buffers, bufferized like linalg ops.
class RLXCUDA_KernelOp<string mnemonic, int numInits = 1>
    : Op<RLXCUDA_Dialect, mnemonic, [
    DeclareOpInterfaceMethods<DestinationStyleOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let results = (outs Variadic<AnyRankedTensor>:$result);
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::MutableOperandRange $cppClass::getDpsInitsMutable() {
      return ::mlir::MutableOperandRange(
          getOperation(), getInitMutable().getOperandNumber(), }] # numInits # [{);
    }
    void $cppClass::getEffects(
        ::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<
            ::mlir::MemoryEffects::Effect>> &effects) {
      detail::getKernelOpEffects(*this, getDpsInitsMutable(), effects);
    }
    bool $cppClass::bufferizesToMemoryRead(
        ::mlir::OpOperand &operand,
        const ::mlir::bufferization::AnalysisState &) {
      // Every element of the inits is overwritten without being read.
      return !isDpsInit(&operand);
    }
    bool $cppClass::bufferizesToMemoryWrite(
        ::mlir::OpOperand &operand,
        const ::mlir::bufferization::AnalysisState &) {
      return isDpsInit(&operand);
    }
    ::mlir::bufferization::AliasingValueList $cppClass::getAliasingValues(
        ::mlir::OpOperand &operand,
        const ::mlir::bufferization::AnalysisState &) {
      if (!isDpsInit(&operand) || getNumResults() == 0)
        return {};
      return {{getTiedOpResult(&operand),
               ::mlir::bufferization::BufferRelation::Equivalent}};
    }
    ::llvm::LogicalResult $cppClass::bufferize(
        ::mlir::RewriterBase &rewriter,
        const ::mlir::bufferization::BufferizationOptions &options,
        ::mlir::bufferization::BufferizationState &state) {
      return detail::bufferizeKernelOp(*this, getDpsInitsMutable(), rewriter,
                                       options, state);
    }
  }];
}

def RLXCUDA_FlashAttentionOp : RLXCUDA_KernelOp<"flash_attention"> {
  let summary = "fused attention: scores and probabilities stay on chip";
  let description = [{
    Computes what `rlx.attention` with the same operands and attributes
    computes (see that op for the math, layouts and masks), in one kernel
    that never writes the `[Sq, Sk]` score matrix to memory: each thread
    block owns a tile of query rows of one (batch, head), streams the keys
    and values through shared memory in tiles, and keeps a running
    maximum, a running sum and the output rows in registers (online
    softmax). The causal and sliding-window masks skip the key tiles that
    no row of the block can see. Scores and sums are f32; with f16 and bf16
    the tensor-core kernel rounds the probabilities to the element type
    before multiplying them with the values (as FlashAttention does), so
    results differ from the generic lowering's by a few units in the last
    place of the element type.

    On tensors the op returns the result, written into `init` (destination
    style, like linalg ops); on buffers it has no result and writes `init`.
    `init` has the type of `query`; its contents are not read.

    Grouped-query attention: with `kv_heads` (a divisor of `num_heads`),
    `key` and `value` hold `kv_heads` heads and query head `h` reads their
    head `h / (num_heads / kv_heads)`, as `rlx.attention` of the keys and
    values with each head repeated that many times computes.
    `rlx-cuda-form-kernels` reads the repetition (a reshape, expand and
    reshape of the `[B, kv_heads, S, D]` keys, as transformers' `repeat_kv`)
    from the unrepeated keys and values: it is never written.

    Supported: rank-4 `[B, H, S, D]` and rank-3 `[B, S, H * D]` layouts,
    every mask kind, `score_scale`, `attn_logit_softcap`, `Sq != Sk`,
    f32, f16 and bf16 (computed in f32) with `head_dim <= 128`. The
    verifier rejects other element types and head dims;
    `rlx-cuda-form-kernels` leaves such attention ops to the generic
    lowering.
  }];

  let arguments = (ins RLXCUDA_TensorOrBuffer:$query,
                       RLXCUDA_TensorOrBuffer:$key,
                       RLXCUDA_TensorOrBuffer:$value,
                       Optional<RLXCUDA_TensorOrBuffer>:$mask,
                       RLXCUDA_TensorOrBuffer:$init,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       RLX_MaskKindAttr:$mask_kind,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$window,
                       F32Attr:$score_scale,
                       OptionalAttr<F32Attr>:$attn_logit_softcap,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$kv_heads);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value (`mask` $mask^)? `:` type($query)
    `,` type($key) `,` type($value) (`,` type($mask)^)? `)`
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];

  let extraClassDeclaration = [{
    /// The largest head dim whose key and value tiles fit in the shared
    /// memory the kernel uses.
    static constexpr int64_t kMaxHeadDim = 128;
  }];
}

def RLXCUDA_MatmulBiasOp : RLXCUDA_KernelOp<"matmul_bias"> {
  let summary = "GEMM with a bias and activation epilogue (cuBLASLt)";
  let description = [{
    `init = activation(input * weight + bias)`: `input` `[M, K]` or
    `[B, M, K]`, `weight` `[K, N]`, `bias` `[N]` (added to every row),
    `init` `[M, N]` or `[B, M, N]`, one element type (f32, f16 or bf16).
    `activation`, when present, is `relu` or `gelu_approx` (the tanh form);
    without it the epilogue only adds the bias. What `rlx.matmul`, then
    `rlx.binary add` of the bias, then `rlx.activation` compute, in one
    cuBLASLt call whose epilogue (`BIAS`, `RELU_BIAS`, `GELU_BIAS`) applies
    the bias and activation while the product's tiles are in registers:
    the `[M, N]` product is written once, not written, read and written
    again. f32 products use full f32 math unless the pipeline's
    `allow-tf32` lets them use TF32 tensor cores; f16 and bf16 accumulate
    in f32.

    On tensors the op returns the result, written into `init` (destination
    style); on buffers it has no result and writes `init`, whose contents
    are not read.
  }];

  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$weight,
                       RLXCUDA_TensorOrBuffer:$bias,
                       RLXCUDA_TensorOrBuffer:$init,
                       OptionalAttr<RLX_ActivationKindAttr>:$activation);

  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `,` $bias `:` type($input) `,`
    type($weight) `,` type($bias) `)` `outs` `(` $init `:` type($init) `)`
    attr-dict (`->` type($result)^)?
  }];
}

def RLXCUDA_MatmulBiasGeluAuxOp
    : RLXCUDA_KernelOp<"matmul_bias_gelu_aux", /*numInits=*/2> {
  let summary = "GEMM, bias and tanh GELU, keeping the pre-activation "
                "(cuBLASLt GELU_AUX_BIAS)";
  let description = [{
    `aux_init = input * weight + bias` and `init = gelu_approx(aux_init)`
    (the tanh form), with the shapes and types of `rlx_cuda.matmul_bias`
    (`init` and `aux_init` both `[M, N]` or `[B, M, N]`). This is a linear
    layer whose pre-activation a gradient needs again (the
    `rlx.activation_backward gelu_approx` of `rlx-autodiff`): one cuBLASLt
    call with the `GELU_AUX_BIAS` epilogue writes both, where the GEMM with
    the bias epilogue would write the pre-activation and a second kernel
    read it back to apply GELU. On tensors it returns (`init`,
    `aux_init`); on buffers it has no results.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$weight,
                       RLXCUDA_TensorOrBuffer:$bias,
                       RLXCUDA_TensorOrBuffer:$init,
                       RLXCUDA_TensorOrBuffer:$auxInit);
  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `,` $bias `:` type($input) `,`
    type($weight) `,` type($bias) `)` `outs` `(` $init `,` $auxInit `:`
    type($init) `,` type($auxInit) `)` attr-dict (`->` type($result)^)?
  }];
}

def RLXCUDA_MatmulDgeluOp : RLXCUDA_KernelOp<"matmul_dgelu", /*numInits=*/2> {
  let summary = "GEMM times tanh GELU's derivative, and the bias gradient "
                "(cuBLASLt DGELU_BGRAD)";
  let description = [{
    `init = gelu_approx'(pre_activation) * (input * weight)` elementwise,
    and `bias_grad_init[n]` the sum of `init[.., n]` over every row:
    `input` `[M, K]` or `[B, M, K]`, `weight` `[K, N]`, `pre_activation`
    and `init` `[M, N]` or `[B, M, N]`, `bias_grad_init` `[N]`, one element
    type (f32, f16 or bf16). In a gradient, `input * weight` is the
    cotangent of a tanh-GELU layer's output (the next layer's input
    gradient), `init` that of its pre-activation and `bias_grad_init` the
    gradient of its bias: what `rlx.matmul`, `rlx.activation_backward
    gelu_approx` and the `rlx.reduce sum` over the rows compute, in one
    cuBLASLt call with the `DGELU_BGRAD` epilogue. The rows of all batches
    must lie one after another (the runtime reports otherwise). On tensors
    it returns (`init`, `bias_grad_init`); on buffers it has no results.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$weight,
                       RLXCUDA_TensorOrBuffer:$preActivation,
                       RLXCUDA_TensorOrBuffer:$init,
                       RLXCUDA_TensorOrBuffer:$biasGradInit);
  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `,` $preActivation `:` type($input) `,`
    type($weight) `,` type($preActivation) `)` `outs` `(` $init `,`
    $biasGradInit `:` type($init) `,` type($biasGradInit) `)` attr-dict
    (`->` type($result)^)?
  }];
}

def RLXCUDA_SoftmaxOp : RLXCUDA_KernelOp<"softmax"> {
  let summary = "softmax over the last dim, a block per row";
  let description = [{
    What `rlx.softmax` along the last axis computes, in one kernel with a
    block of 256 threads per row (the leading dims flattened): the threads
    stride over the row keeping a running maximum and a running sum of
    exponentials against it (online softmax), the block combines the
    pairs (warp shuffles, then shared memory across warps), and a second
    sweep writes `exp(x - max) / sum`. The row is read twice, the second
    time from the L2 cache for rows of moderate size, instead of the
    three sweeps and two intermediate buffers of the generic lowering.
    f32, f16 and bf16 (computed in f32); `init` has the input's type and
    is not read.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$init);
  let assemblyFormat = [{
    `ins` `(` $input `:` type($input) `)` `outs` `(` $init `:` type($init)
    `)` attr-dict (`->` type($result)^)?
  }];
}

def RLXCUDA_NormOp : RLXCUDA_KernelOp<"norm"> {
  let summary = "layer or RMS normalization over the last dim, a block per row";
  let description = [{
    What `rlx.layer_norm` (or, with `rms`, `rlx.rms_norm`) along the last
    axis computes, in one kernel with a block of 256 threads per row: the
    threads stride over the row accumulating Welford's count, mean and sum
    of squared deviations (for `rms`, the sum of squares), the block
    combines them (warp shuffles, then shared memory), and a second sweep
    writes `(x - mean) / sqrt(var + eps) * gamma + beta` (for `rms`,
    `x / sqrt(mean(x^2) + eps) * gamma + beta`). `gamma` and `beta` are
    `[N]` for rows of `N`; f32, f16 and bf16 (computed in f32).
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$gamma,
                       RLXCUDA_TensorOrBuffer:$beta,
                       RLXCUDA_TensorOrBuffer:$init,
                       F32Attr:$eps,
                       UnitAttr:$rms);
  let assemblyFormat = [{
    `ins` `(` $input `,` $gamma `,` $beta `:` type($input) `,` type($gamma)
    `,` type($beta) `)` `outs` `(` $init `:` type($init) `)` attr-dict
    (`->` type($result)^)?
  }];
}

def RLXCUDA_NormBackwardInputOp : RLXCUDA_KernelOp<"norm_backward_input"> {
  let summary = "the input gradient of a last-dim layer norm, a block per row";
  let description = [{
    What `rlx.layer_norm_backward_input` along the last axis computes, in
    one kernel with a block of 256 threads per row: one sweep folds
    Welford's count, mean and squared deviations of `input` together with
    `sum(gamma * dy)` and `sum(gamma * dy * (input - input[0]))` (shifted
    by the row's first element, so that the centered sum
    `sum(gamma * dy * (x - mean))` does not cancel for rows far from 0),
    the block combines them, and a second sweep writes
    `rstd * (gamma * dy - mean(gamma * dy) - xhat * mean(gamma * dy * xhat))`
    with `xhat = (x - mean) * rstd`, `rstd = 1 / sqrt(var + eps)`. `gamma`
    is `[N]` for rows of `N`, `dy` has the input's shape; f32, f16 and bf16
    (computed in f32).
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$gamma,
                       RLXCUDA_TensorOrBuffer:$dy,
                       RLXCUDA_TensorOrBuffer:$init,
                       F32Attr:$eps);
  let assemblyFormat = [{
    `ins` `(` $input `,` $gamma `,` $dy `:` type($input) `,` type($gamma)
    `,` type($dy) `)` `outs` `(` $init `:` type($init) `)` attr-dict
    (`->` type($result)^)?
  }];
}

// A cuDNN convolution: three NCHW buffers (input `[N, C, H, W]`, filter
// `[K, C / groups, R, S]`, output `[N, K, P, Q]`), or NHWC ones with
// `channels_last`, of which the op writes one, and the forward
// convolution's geometry.
class RLXCUDA_ConvolutionOp<string mnemonic, string firstName,
                            string secondName>
    : RLXCUDA_KernelOp<mnemonic> {
  let assemblyFormat = [{
    `ins` `(` $}] # firstName # [{ `,` $}] # secondName # [{ `:` type($}]
    # firstName # [{) `,` type($}] # secondName # [{) `)` `outs` `(` $init
    `:` type($init) `)` `stride` `=` $stride `,` `padding` `=` $padding `,`
    `dilation` `=` $dilation `,` `groups` `=` $groups
    (`channels_last` $channels_last^)? attr-dict (`->` type($result)^)?
  }];
  let extraClassDeclaration = [{
    /// The forward convolution's input, filter and output, in that order
    /// (one of them is `init`).
    std::array<::mlir::Value, 3> getConvolutionOperands();
  }];
}

def RLXCUDA_Conv2dOp
    : RLXCUDA_ConvolutionOp<"conv2d", "input", "filter"> {
  let summary = "2-D convolution on NCHW or NHWC (cuDNN)";
  let description = [{
    What `rlx.conv` computes (see that op for the math and the output
    size rule), as one `cudnnConvolutionForward` call of the CUDA runtime:
    `input` `[N, C, H, W]`, `filter` `[K, C / groups, R, S]`, `init` (the
    output) `[N, K, P, Q]`, one element type (f32, f16 or bf16, the last
    two accumulated in f32). The runtime picks cuDNN's fastest algorithm for
    the geometry once (cached), with its workspace from the graph's
    stream-ordered allocator. f32 uses full f32 math unless the pipeline's
    `allow-tf32` lets it use TF32 tensor cores.

    With `channels_last`, `input` is `[N, H, W, C]`, `filter`
    `[K, R, S, C / groups]` and the output `[N, P, Q, K]` (cuDNN's NHWC,
    where its tensor-core kernels read and write directly; NCHW half
    convolutions transpose inside cuDNN). The same holds for the two
    gradients.

    On tensors the op returns the result, written into `init` (destination
    style); on buffers it has no result and writes `init`, whose contents
    are not read.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$filter,
                       RLXCUDA_TensorOrBuffer:$init,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       ConfinedAttr<I64Attr, [IntPositive]>:$groups,
                       UnitAttr:$channels_last);
}

def RLXCUDA_Conv2dBackwardDataOp
    : RLXCUDA_ConvolutionOp<"conv2d_backward_data", "output_grad", "filter"> {
  let summary = "the input gradient of a 2-D convolution (cuDNN)";
  let description = [{
    What `rlx.conv2d_backward_input` computes: the gradient of the forward
    convolution's input `[N, C, H, W]` (`init`) from the gradient of its
    output `output_grad` `[N, K, P, Q]` and its `filter`
    `[K, C / groups, R, S]`, as one `cudnnConvolutionBackwardData` call.
    `stride`, `padding`, `dilation` and `groups` are the forward
    convolution's. Types, algorithm choice and workspace as for
    `rlx_cuda.conv2d`.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$output_grad,
                       RLXCUDA_TensorOrBuffer:$filter,
                       RLXCUDA_TensorOrBuffer:$init,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       ConfinedAttr<I64Attr, [IntPositive]>:$groups,
                       UnitAttr:$channels_last);
}

def RLXCUDA_Conv2dBackwardFilterOp
    : RLXCUDA_ConvolutionOp<"conv2d_backward_filter", "input",
                            "output_grad"> {
  let summary = "the filter gradient of a 2-D convolution (cuDNN)";
  let description = [{
    What `rlx.conv2d_backward_weight` computes: the gradient of the forward
    convolution's filter `[K, C / groups, R, S]` (`init`) from its `input`
    `[N, C, H, W]` and the gradient of its output `output_grad`
    `[N, K, P, Q]`, as one `cudnnConvolutionBackwardFilter` call.
    `stride`, `padding`, `dilation` and `groups` are the forward
    convolution's. Types, algorithm choice and workspace as for
    `rlx_cuda.conv2d`.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$output_grad,
                       RLXCUDA_TensorOrBuffer:$init,
                       DenseI64ArrayAttr:$stride,
                       DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       ConfinedAttr<I64Attr, [IntPositive]>:$groups,
                       UnitAttr:$channels_last);
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def RLXCUDA_CollectiveOp : RLXCUDA_KernelOp<"collective"> {
  let summary = "an rlx collective as one NCCL call of the CUDA runtime";
  let description = [{
    One of the rlx collective ops (docs/distributed.md), named by
    `collective` (`all_reduce`, `all_gather`, `reduce_scatter`,
    `all_to_all`, `broadcast` or `reduce_to_root`), with that op's
    attributes: `kind` for the ops that combine, `first` its `dim`
    (all_gather, reduce_scatter), `split_dim` (all_to_all) or `root`
    (broadcast, reduce_to_root), `second` all_to_all's `concat_dim`, and
    `group`. `input` and `init` (the output) have the rlx op's operand and
    result types. `rlx-cuda-lower-kernels` turns it into a call of the
    runtime's `rlx_cuda_collective_r<rank>_<type>`, which runs it through NCCL on
    the graph's stream (lib/Runtime/Comm/Nccl.cpp).

    On tensors the op returns the result, written into `init`; on buffers
    it has no result and writes `init`, whose contents are not read. Both
    buffers are dense and row-major.
  }];
  let arguments = (ins RLXCUDA_TensorOrBuffer:$input,
                       RLXCUDA_TensorOrBuffer:$init,
                       StrAttr:$collective,
                       OptionalAttr<RLX_CollectiveKindAttr>:$kind,
                       DefaultValuedAttr<I64Attr, "0">:$first,
                       DefaultValuedAttr<I64Attr, "0">:$second,
                       RLX_GroupAttr:$group);
  let assemblyFormat = [{
    $collective (`kind` `=` $kind^)? `ins` `(` $input `:` type($input) `)`
    `outs` `(` $init `:` type($init) `)` `first` `=` $first `second` `=`
    $second `group` `=` $group attr-dict (`->` type($result)^)?
  }];
}

def RLXCUDA_QuantGemvOp : RLXCUDA_KernelOp<"quant_gemv"> {
  let summary = "a few rows times a GGUF-packed weight, decoded in registers";
  let description = [{
    `init[m, n] = sum_k x[m, k] * W[k, n]`, what `rlx.dequant_matmul` of
    the same `scheme` computes, where the weight `w_q` holds the GGUF
    bytes of `N` rows of `K` elements (docs/quantization.md): one kernel
    that reads each packed byte once and decodes it in registers, never
    writing the f32 weight. `x` is `[M, K]` f32, f16 or bf16 (widened to
    f32, which is exact), `init` `[M, N]` f32, f16 or bf16 (the f32 sum
    rounded once); `rlx-cuda-form-kernels` takes the casts around an
    `rlx.dequant_matmul` of a half-precision model into the op. `w_q` is
    the bytes as signless i8 `[N * K / 32 * block bytes]`.

    Supported: `scheme` `gguf_q8_0` and `gguf_q4_0`, `M <= 8`, `K` a
    multiple of 64 (the kernel reads the blocks in pairs, 4-byte aligned
    words), static shapes. Each block's sum `sum_j q_j x_j` is taken in f32
    and then scaled by the block's `d`, so results differ from the generic
    lowering's (which scales each weight first) by f32 rounding.

    On tensors the op returns the result, written into `init` (destination
    style); on buffers it has no result and writes `init`, whose contents
    are not read.
  }];

  let arguments = (ins RLXCUDA_TensorOrBuffer:$x,
                       RLXCUDA_TensorOrBuffer:$w_q,
                       RLXCUDA_TensorOrBuffer:$init,
                       RLX_QuantSchemeAttr:$scheme);

  let assemblyFormat = [{
    $scheme `ins` `(` $x `,` $w_q `:` type($x) `,` type($w_q) `)`
    `outs` `(` $init `:` type($init) `)` attr-dict (`->` type($result)^)?
  }];

  let extraClassDeclaration = [{
    /// The most rows of `x` the kernel takes.
    static constexpr int64_t kMaxRows = 8;
  }];
}

#endif // RLX_TARGET_CUDA_RLXCUDAOPS_TD
