//===- GraphBuilder.h - build rlx graphs from C++ ---------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// GraphBuilder builds one rlx graph (a func.func) op by op, the way the RLX
// `Graph` API does, with result shapes inferred:
//
//   GraphBuilder g(ctx, "mlp");
//   Value x = g.input("x", {8, 64}, g.f32());
//   Value w = g.param("w", {64, 10}, g.f32());
//   Value b = g.param("b", {10}, g.f32());
//   Value y = g.relu(g.add(g.matmul(x, w), b));
//   FailureOr<func::FuncOp> f = g.finish({y});
//
// Every op is verified as it is created; a malformed op reports a diagnostic
// at its location (see `setName`) through the context's diagnostic handlers,
// marks the builder failed, and `finish` then fails. Nothing asserts on bad
// shapes.
//
// There is a method for every op of the rlx dialect (docs/graph-builder.md
// maps the RLX `Graph` API onto them): attributes are plain C++ values and
// result types are inferred wherever the op infers them; the few ops whose
// result the operands cannot determine take the missing extent. Ops with
// regions take the body as a callback that builds it with this builder and
// returns the values to yield. Composite helpers (rfft, swigluFfn, ...) are
// built from these ops.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_IR_GRAPHBUILDER_H
#define RLX_IR_GRAPHBUILDER_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <optional>
#include <type_traits>

namespace mlir {
namespace rlx {

class PrimitiveBuilder;

class GraphBuilder {
public:
  /// Starts graph `name` in a new module. Loads the rlx and func dialects.
  GraphBuilder(MLIRContext *context, StringRef name);
  /// Starts graph `name` at the end of an existing module.
  GraphBuilder(ModuleOp module, StringRef name);

  MLIRContext *getContext() const { return builder.getContext(); }
  OpBuilder &getBuilder() { return builder; }

  /// Element types, for brevity at call sites.
  Type f32() { return builder.getF32Type(); }
  Type f16() { return builder.getF16Type(); }
  Type bf16() { return builder.getBF16Type(); }
  Type f64() { return builder.getF64Type(); }
  Type i1() { return builder.getI1Type(); }
  Type i32() { return builder.getI32Type(); }
  Type i64() { return builder.getI64Type(); }

  /// Names the ops created from now on (a NameLoc, like an RLX node name);
  /// an empty name returns to the graph's own location.
  void setName(StringRef name);
  Location getLoc() const { return currentLoc; }

  //===--------------------------------------------------------------------===//
  // Leaves
  //===--------------------------------------------------------------------===//

  /// A graph input: a function argument with `rlx.input = name`.
  Value input(StringRef name, ArrayRef<int64_t> shape, Type elementType);
  /// A parameter (weight): a function argument with `rlx.param = name`.
  Value param(StringRef name, ArrayRef<int64_t> shape, Type elementType);
  /// State read by the graph but not trained (batch norm's running
  /// statistics): a parameter also marked `rlx.state`, which rlx-autodiff
  /// leaves out of its default `wrt`.
  Value state(StringRef name, ArrayRef<int64_t> shape, Type elementType);
  /// A constant tensor.
  Value constant(ElementsAttr value);
  /// A constant f32 tensor of `shape` holding `values` (row-major).
  Value constant(ArrayRef<int64_t> shape, ArrayRef<float> values);
  /// A tensor of `shape` and `elementType` filled with `value`.
  Value splat(ArrayRef<int64_t> shape, Type elementType, double value);

  //===--------------------------------------------------------------------===//
  // Elementwise
  //===--------------------------------------------------------------------===//

  Value activation(ActivationKind kind, Value x);
  Value gelu(Value x) { return activation(ActivationKind::Gelu, x); }
  Value relu(Value x) { return activation(ActivationKind::Relu, x); }
  Value silu(Value x) { return activation(ActivationKind::Silu, x); }
  Value sigmoid(Value x) { return activation(ActivationKind::Sigmoid, x); }
  Value tanh(Value x) { return activation(ActivationKind::Tanh, x); }
  Value exp(Value x) { return activation(ActivationKind::Exp, x); }
  Value neg(Value x) { return activation(ActivationKind::Neg, x); }

  Value geluApprox(Value x) {
    return activation(ActivationKind::GeluApprox, x);
  }

  Value binary(BinaryKind kind, Value lhs, Value rhs);
  Value add(Value lhs, Value rhs) { return binary(BinaryKind::Add, lhs, rhs); }
  Value sub(Value lhs, Value rhs) { return binary(BinaryKind::Sub, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return binary(BinaryKind::Mul, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return binary(BinaryKind::Div, lhs, rhs); }
  Value max(Value lhs, Value rhs) { return binary(BinaryKind::Max, lhs, rhs); }
  Value min(Value lhs, Value rhs) { return binary(BinaryKind::Min, lhs, rhs); }
  Value pow(Value lhs, Value rhs) { return binary(BinaryKind::Pow, lhs, rhs); }

  /// `lhs kind rhs` as an i1 tensor.
  Value compare(CompareKind kind, Value lhs, Value rhs);
  Value where(Value cond, Value onTrue, Value onFalse);
  Value cast(Value x, Type elementType);
  Value stopGradient(Value x);

  //===--------------------------------------------------------------------===//
  // Shape
  //===--------------------------------------------------------------------===//

  /// `newShape` may hold one -1, inferred from the element count.
  Value reshape(Value x, ArrayRef<int64_t> newShape);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  Value narrow(Value x, int64_t axis, int64_t start, int64_t length);
  Value concat(ValueRange inputs, int64_t axis);
  /// NumPy broadcast of `x` to `targetShape` (-1 keeps a dim).
  Value expand(Value x, ArrayRef<int64_t> targetShape);
  Value gather(Value table, Value indices, int64_t axis);

  //===--------------------------------------------------------------------===//
  // Reductions and normalization
  //===--------------------------------------------------------------------===//

  Value reduce(ReduceKind kind, Value x, ArrayRef<int64_t> axes,
               bool keepDim = false);
  Value sum(Value x, ArrayRef<int64_t> axes, bool keepDim = false) {
    return reduce(ReduceKind::Sum, x, axes, keepDim);
  }
  Value mean(Value x, ArrayRef<int64_t> axes, bool keepDim = false) {
    return reduce(ReduceKind::Mean, x, axes, keepDim);
  }
  Value softmax(Value x, int64_t axis = -1);
  Value cumsum(Value x, int64_t axis, bool exclusive = false);
  /// Values and i64 indices of the `k` largest entries of the last axis.
  std::pair<Value, Value> topK(Value x, int64_t k);

  Value layerNorm(Value x, Value gamma, Value beta, int64_t axis = -1,
                  float eps = 1e-5f);
  Value rmsNorm(Value x, Value gamma, Value beta, int64_t axis = -1,
                float eps = 1e-6f);
  Value groupNorm(Value x, Value gamma, Value beta, int64_t numGroups,
                  float eps = 1e-5f);
  Value batchNormInference(Value x, Value gamma, Value beta, Value mean,
                           Value var, float eps = 1e-5f);

  //===--------------------------------------------------------------------===//
  // Attention
  //===--------------------------------------------------------------------===//

  struct AttentionOptions {
    MaskKind maskKind = MaskKind::None;
    /// The `[B, Sk]` key-padding mask (custom) or `[B, H, Sq, Sk]` bias.
    Value mask;
    /// Window of `MaskKind::SlidingWindow`.
    std::optional<int64_t> window;
    /// Defaults to 1/sqrt(head_dim) in the op.
    std::optional<float> scoreScale;
    std::optional<float> logitSoftcap;
  };
  /// Scaled dot-product attention on `[B, H, S, D]` or `[B, S, H*D]`.
  Value attention(Value q, Value k, Value v, int64_t numHeads, int64_t headDim,
                  const AttentionOptions &options);
  Value attention(Value q, Value k, Value v, int64_t numHeads,
                  int64_t headDim) {
    return attention(q, k, v, numHeads, headDim, AttentionOptions());
  }
  Value rope(Value x, Value cos, Value sin, int64_t headDim, int64_t nRot);

  //===--------------------------------------------------------------------===//
  // Convolution and pooling (NCHW)
  //===--------------------------------------------------------------------===//

  Value conv2d(Value x, Value weight, ArrayRef<int64_t> stride = {1, 1},
               ArrayRef<int64_t> padding = {0, 0},
               ArrayRef<int64_t> dilation = {1, 1}, int64_t groups = 1);
  Value pool(ReduceKind kind, Value x, ArrayRef<int64_t> kernel,
             ArrayRef<int64_t> stride, ArrayRef<int64_t> padding = {0, 0});

  //===--------------------------------------------------------------------===//
  // Linear algebra
  //===--------------------------------------------------------------------===//

  Value matmul(Value lhs, Value rhs);
  /// `x @ w (+ bias) (then activation)` from primitives.
  Value linear(Value x, Value w, Value bias = {},
               std::optional<ActivationKind> activation = std::nullopt);

  //===--------------------------------------------------------------------===//
  // Fused ops
  //===--------------------------------------------------------------------===//

  Value fusedMatMulBiasAct(Value x, Value w, Value bias,
                           std::optional<ActivationKind> activation);
  /// `layer_norm(x + residual (+ bias))`.
  Value fusedResidualLayerNorm(Value x, Value residual, Value bias, Value gamma,
                               Value beta, float eps = 1e-5f);
  /// `rms_norm(x + residual (+ bias))`; `bias` and `beta` may be null.
  Value fusedResidualRmsNorm(Value x, Value residual, Value bias, Value gamma,
                             Value beta, float eps = 1e-6f);
  /// `silu(gate) * up` of the two halves of the last axis.
  Value fusedSwiGLU(Value x, bool gateFirst = false);
  /// `x @ w + scale * (x @ a) @ b`.
  Value loraMatMul(Value x, Value w, Value a, Value b, float scale);

  /// Weights of a post-LN encoder layer; biases and LN betas are optional
  /// (the four projection biases come together or not at all).
  struct TransformerLayerWeights {
    Value qkvW, qkvB, outW, outB;
    Value ln1Gamma, ln1Beta;
    Value fc1W, fc1B, fc2W, fc2B;
    Value ln2Gamma, ln2Beta;
  };
  struct TransformerLayerConfig {
    int64_t numHeads = 12;
    int64_t headDim = 64;
    int64_t intermediateSize = 3072;
    float eps1 = 1e-5f, eps2 = 1e-5f;
    ActivationKind activation = ActivationKind::Gelu;
  };
  /// One `rlx.fused_transformer_layer` on `hidden` `[B, S, H*D]`, with an
  /// optional `[B, S]` key-padding mask.
  Value fusedTransformerLayer(Value hidden, const TransformerLayerWeights &w,
                              const TransformerLayerConfig &config,
                              Value mask = {});
  /// The same post-LN encoder layer from primitive ops (QKV projection,
  /// split, head reshapes, attention, output projection, residual +
  /// layer_norm, FFN, residual + layer_norm): the fused op expanded by the
  /// rlx-unfuse decomposition, so both forms have one definition.
  Value transformerLayer(Value hidden, const TransformerLayerWeights &w,
                         const TransformerLayerConfig &config, Value mask = {});

  //===--------------------------------------------------------------------===//
  // Quantization
  //===--------------------------------------------------------------------===//

  /// Affine int8 quantization: one `scales`/`zeroPoints` entry per tensor,
  /// or, with `axis`, one per index along it.
  Value quantize(Value x, ArrayRef<float> scales, ArrayRef<int32_t> zeroPoints,
                 std::optional<int64_t> axis = std::nullopt);
  Value dequantize(Value x, ArrayRef<float> scales,
                   ArrayRef<int32_t> zeroPoints,
                   std::optional<int64_t> axis = std::nullopt);

  struct FakeQuantizeOptions {
    /// One scale per index along `axis`; one per tensor without it.
    std::optional<int64_t> axis;
    SteKind ste = SteKind::Identity;
    ScaleMode scaleMode = ScaleMode::PerBatch;
    /// The scale state of the `ema` and `fixed` modes.
    Value state;
    /// The decay of the `ema` mode.
    std::optional<float> emaDecay;
  };
  /// Symmetric quantize-dequantize with the scale of this input.
  Value fakeQuantize(Value x, int64_t bits) {
    return fakeQuantize(x, bits, FakeQuantizeOptions()).first;
  }
  /// The output and, in the `ema` mode, the updated state (null otherwise).
  std::pair<Value, Value> fakeQuantize(Value x, int64_t bits,
                                       const FakeQuantizeOptions &options);
  Value fakeQuantizeBackward(Value x, Value dy, int64_t bits, SteKind ste,
                             std::optional<int64_t> axis = std::nullopt);
  /// LSQ fake quantization with the learned `scale`.
  Value fakeQuantizeLSQ(Value x, Value scale, int64_t bits,
                        std::optional<int64_t> axis = std::nullopt);
  Value fakeQuantizeLSQBackwardX(Value x, Value scale, Value dy, int64_t bits,
                                 std::optional<int64_t> axis = std::nullopt);
  Value
  fakeQuantizeLSQBackwardScale(Value x, Value scale, Value dy, int64_t bits,
                               std::optional<int64_t> axis = std::nullopt);

  //===--------------------------------------------------------------------===//
  // Linear algebra and mixtures of experts
  //===--------------------------------------------------------------------===//

  Value dotGeneral(Value lhs, Value rhs, ArrayRef<int64_t> lhsContracting,
                   ArrayRef<int64_t> rhsContracting,
                   ArrayRef<int64_t> lhsBatch = {},
                   ArrayRef<int64_t> rhsBatch = {});
  /// `A^-1 b` for `A [N, N]` and `b [N]` or `[N, K]`.
  Value denseSolve(Value a, Value b);
  /// `denseSolve` per batch entry: `A [B, N, N]`, `b [B, N]` or `[B, N, K]`.
  Value batchedDenseSolve(Value a, Value b);
  /// `(x @ wFirst, x @ wSecond)`: two projections of one input (gate and up,
  /// Q/K/V), the pattern `rlx-fuse` merges into one matmul.
  std::pair<Value, Value> sharedMatMulPair(Value x, Value wFirst,
                                           Value wSecond);
  /// SwiGLU feed-forward block: `(silu(x @ gateW) * (x @ upW)) @ downW`, the
  /// two input projections as a `sharedMatMulPair` (up first).
  Value swigluFfn(Value x, Value upW, Value gateW, Value downW);
  /// The same block with one matmul on `concat(upW, gateW)` and
  /// `rlx.fused_swiglu` (up half first).
  Value fusedSwigluFfn(Value x, Value upW, Value gateW, Value downW);

  /// Side operands of `rlx.dequant_matmul`; which are needed depends on the
  /// scheme (none for the GGUF schemes).
  struct DequantOperands {
    Value scale, zeroPoint, globalScale;
    /// Block size of the int8/int4 block schemes.
    std::optional<int64_t> blockSize;
  };
  /// `x @ dequant(wQ)` for the weight encoding `scheme`.
  Value dequantMatMul(Value x, Value wQ, QuantScheme scheme,
                      const DequantOperands &side);
  /// `x @ dequant(wQ)` for a GGUF-packed `wQ`.
  Value dequantMatMul(Value x, Value wQ, QuantScheme scheme) {
    return dequantMatMul(x, wQ, scheme, DequantOperands());
  }
  /// Integer matmul: i8 `x`, `w`, i32 `bias`, requantized to i8 with `mult`
  /// (`x_scale * w_scale / out_scale`).
  Value qMatMul(Value x, Value w, Value bias, int64_t xZeroPoint,
                int64_t wZeroPoint, int64_t outZeroPoint, float mult);
  /// Row `i` of `input [M, K]` times expert `expertIdx[i]` of `weight
  /// [E, K, N]`.
  Value groupedMatMul(Value input, Value weight, Value expertIdx);
  /// `groupedMatMul` on a GGUF-packed expert stack of `n` output columns.
  Value dequantGroupedMatMul(Value input, Value weight, Value expertIdx,
                             QuantScheme scheme, int64_t n);
  /// A GGUF-packed expert stack decoded to f32 `shape` = `[E, K, N]`.
  Value dequantMoEWeights(Value packed, QuantScheme scheme,
                          ArrayRef<int64_t> shape);

  //===--------------------------------------------------------------------===//
  // More convolution and geometry (NCHW)
  //===--------------------------------------------------------------------===//

  /// Transposed convolution; `weight` is `[C_in, C_out / groups, kH, kW]`.
  Value convTranspose2d(Value x, Value weight,
                        ArrayRef<int64_t> stride = {1, 1},
                        ArrayRef<int64_t> padding = {0, 0},
                        ArrayRef<int64_t> dilation = {1, 1},
                        ArrayRef<int64_t> outputPadding = {0, 0},
                        int64_t groups = 1);
  /// Every `kernel` window of each plane as a row of taps.
  Value im2col(Value x, ArrayRef<int64_t> kernel, ArrayRef<int64_t> stride,
               ArrayRef<int64_t> padding = {0, 0},
               ArrayRef<int64_t> dilation = {1, 1});
  /// Integer convolution (i8 `x` and `w`, i32 `bias`), as `qMatMul`.
  Value qConv2d(Value x, Value w, Value bias, ArrayRef<int64_t> stride,
                ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                int64_t groups, int64_t xZeroPoint, int64_t wZeroPoint,
                int64_t outZeroPoint, float mult);
  /// Layer normalization over the channels of every pixel.
  Value layerNorm2d(Value x, Value gamma, Value beta, float eps = 1e-6f);
  /// Nearest-neighbour 2x upsampling of the last two dims.
  Value resizeNearest2x(Value x);
  /// Resizes the last `sizes.size()` dims of `x` to `sizes` (F.interpolate's
  /// nearest, nearest-exact and (bi/tri)linear modes); `scales` are the
  /// user's scale factors, if any.
  Value resize(Value x, ResizeMode mode, ArrayRef<int64_t> sizes,
               bool alignCorners = false, ArrayRef<double> scales = {});
  /// 2-D axial rotary embedding of `x [1, S, numHeads * headDim]`.
  Value axialRope2d(Value x, int64_t endX, int64_t endY, int64_t headDim,
                    int64_t numHeads, float theta, int64_t repeatFactor = 1);

  //===--------------------------------------------------------------------===//
  // Sampling, scatter, state-space models
  //===--------------------------------------------------------------------===//

  /// One i64 token id per row of `logits`.
  Value sample(Value logits, int64_t topK, float topP, float temperature,
               int64_t seed);
  /// Rows of `updates [U, T]` added into zeros `[outDim, T]` at `indices`.
  Value scatterAdd(Value updates, Value indices, int64_t outDim);
  /// Mamba selective scan.
  Value selectiveScan(Value x, Value delta, Value a, Value b, Value c,
                      int64_t stateSize);
  /// Gated DeltaNet recurrence from a zero state.
  Value gatedDeltaNet(Value q, Value k, Value v, Value g, Value beta,
                      int64_t stateSize);
  /// Gated DeltaNet from `state`: the output and the final state.
  std::pair<Value, Value> gatedDeltaNetCarry(Value q, Value k, Value v, Value g,
                                             Value beta, Value state,
                                             int64_t stateSize);

  //===--------------------------------------------------------------------===//
  // Gradients
  //===--------------------------------------------------------------------===//

  Value reluBackward(Value x, Value dy);
  Value activationBackward(ActivationKind kind, Value x, Value dy);
  Value layerNormBackwardInput(Value x, Value gamma, Value dy,
                               int64_t axis = -1, float eps = 1e-5f);
  Value layerNormBackwardGamma(Value x, Value dy, int64_t axis = -1,
                               float eps = 1e-5f);
  Value rmsNormBackwardInput(Value x, Value gamma, Value beta, Value dy,
                             int64_t axis = -1, float eps = 1e-6f);
  Value rmsNormBackwardGamma(Value x, Value gamma, Value beta, Value dy,
                             int64_t axis = -1, float eps = 1e-6f);
  Value rmsNormBackwardBeta(Value x, Value gamma, Value beta, Value dy,
                            int64_t axis = -1, float eps = 1e-6f);
  Value ropeBackward(Value dy, Value cos, Value sin, int64_t headDim,
                     int64_t nRot);
  Value groupNormBackwardInput(Value x, Value gamma, Value beta, Value dy,
                               int64_t numGroups, float eps = 1e-5f);
  Value groupNormBackwardGamma(Value x, Value dy, int64_t numGroups,
                               float eps = 1e-5f);
  Value groupNormBackwardBeta(Value x, Value dy, int64_t numGroups,
                              float eps = 1e-5f);
  Value batchNormInferenceBackwardInput(Value x, Value gamma, Value mean,
                                        Value var, Value dy, float eps = 1e-5f);
  Value batchNormInferenceBackwardGamma(Value x, Value mean, Value var,
                                        Value dy, float eps = 1e-5f);
  Value batchNormInferenceBackwardBeta(Value dy);
  Value cumsumBackward(Value dy, int64_t axis, bool exclusive = false);
  /// The gradient of `resize` of an input whose resized dims were
  /// `inputSizes`.
  Value resizeBackward(Value dy, ResizeMode mode, ArrayRef<int64_t> inputSizes,
                       bool alignCorners = false, ArrayRef<double> scales = {});
  /// The gradient of a gather from a table of `tableShape`.
  Value gatherBackward(Value dy, Value indices, int64_t axis,
                       ArrayRef<int64_t> tableShape);
  Value maxPool2dBackward(Value x, Value dy, ArrayRef<int64_t> kernel,
                          ArrayRef<int64_t> stride,
                          ArrayRef<int64_t> padding = {0, 0});
  /// The input gradient of a convolution whose input was `inputShape`
  /// (several input sizes give one output size under a stride); the
  /// settings are the forward convolution's.
  Value conv2dBackwardInput(Value dy, Value weight,
                            ArrayRef<int64_t> inputShape,
                            ArrayRef<int64_t> stride = {1, 1},
                            ArrayRef<int64_t> padding = {0, 0},
                            ArrayRef<int64_t> dilation = {1, 1},
                            int64_t groups = 1);
  Value conv2dBackwardWeight(Value x, Value dy, ArrayRef<int64_t> kernel,
                             ArrayRef<int64_t> stride = {1, 1},
                             ArrayRef<int64_t> padding = {0, 0},
                             ArrayRef<int64_t> dilation = {1, 1},
                             int64_t groups = 1);
  /// Per-row cross entropy of `softmax(logits [N, C])` and i32/i64 labels.
  Value softmaxCrossEntropyWithLogits(Value logits, Value labels);
  Value softmaxCrossEntropyBackward(Value logits, Value labels, Value dLoss);
  /// The gradient of `attention(q, k, v, ...)` with respect to `wrt`.
  Value attentionBackward(AttentionBwdWrt wrt, Value q, Value k, Value v,
                          Value dy, int64_t numHeads, int64_t headDim,
                          const AttentionOptions &options);
  Value attentionBackward(AttentionBwdWrt wrt, Value q, Value k, Value v,
                          Value dy, int64_t numHeads, int64_t headDim) {
    return attentionBackward(wrt, q, k, v, dy, numHeads, headDim,
                             AttentionOptions());
  }
  /// `{dq, dk, dv}`: the three attention gradients, one op each.
  std::array<Value, 3> attentionBackwardAll(Value q, Value k, Value v, Value dy,
                                            int64_t numHeads, int64_t headDim,
                                            const AttentionOptions &options);
  std::array<Value, 3> attentionBackwardAll(Value q, Value k, Value v, Value dy,
                                            int64_t numHeads, int64_t headDim) {
    return attentionBackwardAll(q, k, v, dy, numHeads, headDim,
                                AttentionOptions());
  }

  //===--------------------------------------------------------------------===//
  // Signal processing and complex numbers
  //===--------------------------------------------------------------------===//

  /// DFT along the last axis (real-block layout `[re..., im...]` for f32/f64,
  /// one complex value per element for complex<f32>).
  Value fft(Value x, bool inverse = false, FftNorm norm = FftNorm::Backward);
  Value fftButterflyStage(Value state, Value gate, Value rev, Value twRe,
                          Value twIm, int64_t stage, int64_t nFft);
  /// Whisper log-mel features of a real-block spectrum.
  Value logMel(Value spectrum, Value filterbank);
  Value logMelBackward(Value spectrum, Value filterbank, Value dy);
  /// `|z|^2` of complex<f32> `z`, as f32.
  Value complexNormSq(Value z);
  Value conjugate(Value z);
  /// `g * z`: the Wirtinger gradient of `complexNormSq`.
  Value complexNormSqBackward(Value z, Value g);

  /// `x` (static shape) with its last axis zero-padded to the next power of
  /// two (`x` itself when it already has that length).
  Value padToPowerOfTwo(Value x);
  /// The `(re, im)` halves of a real-block spectrum `[..., 2 m]`.
  std::pair<Value, Value> splitSpectrum(Value spectrum);
  /// The full spectrum `(re, im)`, `m` bins each, of the real f32/f64
  /// `x [..., n]` zero-padded to `m`, the next power of two; leading axes
  /// are independent signals.
  std::pair<Value, Value> fftReal(Value x, FftNorm norm = FftNorm::Backward);
  /// The half spectrum of the real `x`: the `m / 2 + 1` bins of
  /// non-negative frequency of `fftReal(x)`.
  std::pair<Value, Value> rfft(Value x, FftNorm norm = FftNorm::Backward);
  /// The real part of the inverse DFT of the full spectrum `(re, im)`.
  Value ifftSpectrum(Value re, Value im, FftNorm norm = FftNorm::Backward);
  /// The inverse of `rfft`: the signal of length `n` (at most the transform
  /// length `2 * (bins - 1)`) whose half spectrum is `(re, im)`, the other
  /// half being its complex conjugate (Hermitian symmetry).
  Value irfft(Value re, Value im, int64_t n, FftNorm norm = FftNorm::Backward);
  /// Short-time Fourier transform of `x [..., T]`: the frames
  /// `x[..., f * hop : f * hop + frameLength]`, `f < (T - frameLength) / hop
  /// + 1`, each through `rfft`, as `[frames, ..., 2 * bins]` with the `re`
  /// then the `im` block of each frame.
  Value stft(Value x, int64_t frameLength, int64_t hop,
             FftNorm norm = FftNorm::Backward);
  /// The linear convolution of `a [..., La]` and `b [..., Lb]`, `[..., La +
  /// Lb - 1]`, by the convolution theorem: both zero-padded to `max(nFft,
  /// La + Lb - 1)` (then to a power of two), `rfft`, complex product,
  /// `irfft`. The result is the convolution itself, whatever the padding.
  Value fftConv1d(Value a, Value b, int64_t nFft = 0);
  /// The DFT along `axis`: `axis` swapped with the last, `fft`, swapped
  /// back (meant for complex<f32> tensors; a real-block layout applies to
  /// the last axis only).
  Value fftAxis(Value x, int64_t axis, bool inverse = false,
                FftNorm norm = FftNorm::Backward);
  /// The N-dimensional DFT (NumPy's `fftn`): `fftAxis` along each of `axes`
  /// in ascending order; no axes leaves `x` as it is.
  Value fftn(Value x, ArrayRef<int64_t> axes, bool inverse = false,
             FftNorm norm = FftNorm::Backward);
  Value ifftn(Value x, ArrayRef<int64_t> axes,
              FftNorm norm = FftNorm::Backward) {
    return fftn(x, axes, /*inverse=*/true, norm);
  }
  /// Power spectral density `(re^2 + im^2) / N` of a full spectrum of `N`
  /// bins (the last dim).
  Value psd(Value re, Value im);
  /// The power spectral density of the real `x`: its `rfft` half spectrum,
  /// `(re^2 + im^2) / m` with `m` the transform length.
  Value psdReal(Value x, FftNorm norm = FftNorm::Backward);
  /// The f32 constant of the `n` DFT sample frequencies, NumPy's
  /// `fftfreq(n, spacing)`: `[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ...,
  /// -1] / (spacing * n)`.
  Value fftfreq(int64_t n, double spacing = 1.0);
  /// NumPy's `rfftfreq(n, spacing)`: `[0, 1, ..., n/2] / (spacing * n)`.
  Value rfftfreq(int64_t n, double spacing = 1.0);

  //===--------------------------------------------------------------------===//
  // Regions and control flow
  //===--------------------------------------------------------------------===//

  /// Builds the body of a region with this builder: gets the block
  /// arguments and returns the values to yield (null values after an error).
  using RegionBody = function_ref<SmallVector<Value>(ValueRange arguments)>;

  /// `rlx.if`: the values yielded by `thenBody` when the one-element i1
  /// `predicate` holds, by `elseBody` otherwise. The bodies may use any
  /// value built before.
  SmallVector<Value> ifElse(Value predicate, RegionBody thenBody,
                            RegionBody elseBody);
  /// `rlx.while`: `cond` gets the carried values and yields the i1
  /// predicate followed by the carried values; `body` yields the next ones.
  SmallVector<Value> whileLoop(ValueRange inits, RegionBody cond,
                               RegionBody body,
                               std::optional<int64_t> maxIterations = {});

  struct ScanOptions {
    /// Values every step reads unchanged.
    SmallVector<Value> bcasts;
    /// Per-step inputs `[length, ...]`; step `t` reads row `t`.
    SmallVector<Value> xs;
    /// Return the stacked carries `[length, ...]` instead of the last one.
    bool saveTrajectory = false;
    /// With `saveTrajectory`, keep only this many rows (0 keeps all).
    int64_t numCheckpoints = 0;
  };
  /// `rlx.scan`: `body` gets `[carry, bcasts..., x_t...]` and yields the
  /// next carry; returns the final carry (or the trajectory).
  Value scan(Value init, int64_t length, RegionBody body,
             const ScanOptions &options);
  Value scan(Value init, int64_t length, RegionBody body) {
    return scan(init, length, body, ScanOptions());
  }
  /// The scan of `init` over the per-step inputs `xs`.
  Value scanWithXs(Value init, ValueRange xs, int64_t length, RegionBody body);
  /// The scan with broadcast inputs `bcasts` and per-step inputs `xs`.
  Value scanWithBcastsAndXs(Value init, ValueRange bcasts, ValueRange xs,
                            int64_t length, RegionBody body);
  /// The stacked carries `[length, ...]` of the scan.
  Value scanTrajectory(Value init, int64_t length, RegionBody body);
  /// The trajectory of the scan with only `numCheckpoints` rows kept, for
  /// memory-bounded reverse-mode AD.
  Value scanCheckpointed(Value init, int64_t length, int64_t numCheckpoints,
                         RegionBody body);

  struct ScanBackwardOptions {
    /// The forward scan's per-step inputs.
    SmallVector<Value> xs;
    /// The forward scan saved its trajectory (and `upstream` is stacked).
    bool saveTrajectory = false;
    int64_t numCheckpoints = 0;
    /// The forward body, needed when `0 < numCheckpoints < length`.
    std::optional<RegionBody> forwardBody;
  };
  /// `rlx.scan_backward`: `bodyVjp` gets `[carry, x_t..., d_output]` and
  /// yields `[dcarry, dx_t...]`; returns the gradient of `init`.
  Value scanBackward(Value init, Value trajectory, Value upstream,
                     int64_t length, RegionBody bodyVjp,
                     const ScanBackwardOptions &options);
  /// `rlx.scan_backward_xs`: the stacked gradient of `options.xs[xsIndex]`.
  Value scanBackwardXs(Value init, Value trajectory, Value upstream,
                       int64_t length, int64_t xsIndex, RegionBody bodyVjp,
                       const ScanBackwardOptions &options);

  /// `rlx.custom_fn`: `forward` on `inputs`, with optional derivative rules
  /// (`vjp`: `[inputs..., primal_output, d_output] -> [d_inputs...]`;
  /// `jvp`: `[inputs..., tangents... [, primal_output]] -> [d_output]`).
  Value customFn(ValueRange inputs, RegionBody forward,
                 std::optional<RegionBody> vjp = std::nullopt,
                 std::optional<RegionBody> jvp = std::nullopt);
  /// `rlx.elementwise_region`: `body` computes one output element from
  /// rank-0 tensors, one element per input.
  Value elementwiseRegion(ValueRange inputs, RegionBody body,
                          std::optional<int64_t> prologueInput = {});
  /// `rlx.transform_region`: a chain of geometry ops on the inputs.
  Value transformRegion(ValueRange inputs, RegionBody body);
  /// `rlx.batch_elementwise_region`: the rank-0 `body` applied to every
  /// element of each input.
  SmallVector<Value> batchElementwiseRegion(ValueRange inputs, RegionBody body);

  //===--------------------------------------------------------------------===//
  // Fused attention block, Gaussian splats, custom ops
  //===--------------------------------------------------------------------===//

  /// Optional parts of a fused attention block (null when absent).
  struct AttentionBlockWeights {
    Value qkvW, outW;
    Value qkvB, outB;
    Value ropeCos, ropeSin;
  };
  /// `rlx.fused_attention_block` on `hidden [B, S, H*D]`; `options.mask` is
  /// its key-padding mask or bias, `options.logitSoftcap` must be unset.
  Value fusedAttentionBlock(Value hidden, const AttentionBlockWeights &w,
                            int64_t numHeads, int64_t headDim,
                            const AttentionOptions &options);

  /// The seven flat f32 buffers of a Gaussian splat scene.
  struct SplatScene {
    Value positions, scales, rotations, opacities, colors, shCoeffs, meta;
  };
  struct SplatSettings {
    int64_t width = 0, height = 0, tileSize = 16;
    float radiusScale = 3.0f;
    float alphaCutoff = 1.0f / 255.0f;
    int64_t maxSplatSteps = 256;
    float transmittanceThreshold = 1e-4f;
    int64_t maxListEntries = 65536;
  };
  struct SplatBackwardSettings {
    float lossGradClip = 1.0f;
    int64_t shBand = 0;
    float maxAnisotropy = 10.0f;
  };
  /// Linear RGBA `[height * width * 4]`.
  Value gaussianSplatRender(const SplatScene &scene,
                            const SplatSettings &settings);
  /// The packed scene gradients of the render for `dLossRgba`.
  Value gaussianSplatRenderBackward(const SplatScene &scene, Value dLossRgba,
                                    const SplatSettings &settings,
                                    const SplatBackwardSettings &backward);
  /// Stage 1 of the decomposed render: a packed buffer of backend-defined
  /// length (`tensor<?xf32>`).
  Value gaussianSplatPrepare(const SplatScene &scene,
                             const SplatSettings &settings);
  /// Stage 2: RGBA from the prepare buffer (`radiusScale` is not used).
  Value gaussianSplatRasterize(Value prep, Value meta,
                               const SplatSettings &settings);
  /// The render as its two stages, `gaussianSplatPrepare` then
  /// `gaussianSplatRasterize`.
  Value gaussianSplatRenderDecomposed(const SplatScene &scene,
                                      const SplatSettings &settings);

  /// `rlx.custom`: the registered op `name`, whose result types the caller
  /// states. Not `pure`, it is never reordered or erased.
  SmallVector<Value> custom(StringRef name, ValueRange inputs,
                            TypeRange resultTypes,
                            DictionaryAttr attrs = nullptr, bool pure = false);

  //===--------------------------------------------------------------------===//
  // Collectives (docs/distributed.md)
  //===--------------------------------------------------------------------===//

  /// `rlx.all_reduce`: `kind` of the group's `x`, on every rank.
  Value allReduce(CollectiveKind kind, Value x, GroupAttr group);
  /// `rlx.all_gather`: the group's `x` concatenated along `dim`.
  Value allGather(Value x, int64_t dim, GroupAttr group);
  /// `rlx.reduce_scatter`: this rank's slice along `dim` of the reduction.
  Value reduceScatter(CollectiveKind kind, Value x, int64_t dim,
                      GroupAttr group);
  /// `rlx.all_to_all`: slice `j` along `splitDim` to rank `j`, the received
  /// slices concatenated along `concatDim`.
  Value allToAll(Value x, int64_t splitDim, int64_t concatDim, GroupAttr group);
  /// `rlx.broadcast`: the `x` of the group's rank `root` on every rank.
  Value broadcastFromRoot(Value x, int64_t root, GroupAttr group);
  /// `rlx.reduce_to_root`: `kind` of the group's `x` on `root`, zeros
  /// elsewhere.
  Value reduceToRoot(CollectiveKind kind, Value x, int64_t root,
                     GroupAttr group);
  /// The group of every axis of the mesh `mesh` (`{n}`: a world of `n`).
  GroupAttr group(ArrayRef<int64_t> mesh) {
    return GroupAttr::get(builder.getContext(), mesh);
  }

  //===--------------------------------------------------------------------===//
  // Any op
  //===--------------------------------------------------------------------===//

  /// Creates any rlx op with the builder's location, verifies it, and
  /// returns it (or nullptr after reporting a diagnostic). Every Value
  /// argument must be non-null (use `createWithOptional` for ops with
  /// optional operands). The short builders above are written with these
  /// two or, where the shared builder has them, with `emit`.
  template <typename OpTy, typename... Args> OpTy create(Args &&...args) {
    if (failed(checkOperands((isNullValue(args) || ...))))
      return nullptr;
    return build<OpTy>(std::forward<Args>(args)...);
  }

  /// Like `create`, for ops with optional operands: null Values mean
  /// "absent". `required` lists the operands that must be present.
  template <typename OpTy, typename... Args>
  OpTy createWithOptional(std::initializer_list<Value> required,
                          Args &&...args) {
    if (failed(checkOperands(llvm::is_contained(required, Value()))))
      return nullptr;
    return build<OpTy>(std::forward<Args>(args)...);
  }

  //===--------------------------------------------------------------------===//
  // Finishing
  //===--------------------------------------------------------------------===//

  /// True once any op failed to build or verify.
  bool hasErrors() const { return failedState; }

  /// Returns `outputs`, sets the function type and verifies the function.
  /// Fails (after diagnostics) when any op or the function is invalid.
  FailureOr<func::FuncOp> finish(ArrayRef<Value> outputs);

  /// The module holding the graph (owned by the caller when the builder
  /// created it).
  OwningOpRef<ModuleOp> takeModule() { return std::move(ownedModule); }
  ModuleOp getModule() { return module; }
  func::FuncOp getFunction() { return function; }

private:
  void init(StringRef name);
  Value addLeaf(StringRef attrName, StringRef name, ArrayRef<int64_t> shape,
                Type elementType);
  /// Fails once the builder failed, or when an operand is a null value
  /// (the result of an op that failed), so errors do not cascade.
  LogicalResult checkOperands(bool anyNullOperand);
  template <typename T> static bool isNullValue(const T &arg) {
    if constexpr (std::is_convertible_v<T, Value>)
      return !static_cast<Value>(arg);
    else
      return false;
  }
  LogicalResult verifyCreated(Operation *op);
  /// Builds one op with the shared builder (PrimitiveBuilder) at the current
  /// location and verifies it: the short builders that exist there are
  /// written with this, so both build an op the same way. `operands` must
  /// be non-null.
  Value emit(std::initializer_list<Value> operands,
             function_ref<Value(PrimitiveBuilder &)> build);
  /// Fills `region` with one block of `argTypes` arguments built by `body`
  /// and its `rlx.yield`; fails when the body returned a null value.
  LogicalResult buildRegion(Region &region, TypeRange argTypes,
                            RegionBody body);
  /// Verifies the region op `op` once its regions are built, or erases it
  /// when a region failed; returns `op` or nullptr.
  Operation *finishRegionOp(Operation *op, LogicalResult regionsBuilt);
  /// The gradient of a scan, `op`, once created: builds its `body_vjp`
  /// and optional `forward_body` and verifies it.
  Value finishScanBackward(Operation *op, RegionBody bodyVjp,
                           const ScanBackwardOptions &options);
  /// Reports an error at the current location and marks the builder
  /// failed; for the checks a builder makes before any op exists.
  InFlightDiagnostic emitBuilderError();
  /// The static shape of `x`, which a composite helper named `helper` reads
  /// to build its ops, or a diagnostic.
  FailureOr<RankedTensorType> staticTypeOf(Value x, StringRef helper);
  /// `(re^2 + im^2) / count`.
  Value power(Value re, Value im, int64_t count);
  /// `x` (static shape) with its last axis zero-padded to `length`.
  Value padLastAxis(Value x, int64_t length);
  IntegerAttr i64Attr(int64_t value) {
    return builder.getI64IntegerAttr(value);
  }
  FloatAttr f32Attr(float value) { return builder.getF32FloatAttr(value); }
  UnitAttr unitAttrIf(bool set) {
    return set ? builder.getUnitAttr() : UnitAttr();
  }
  IntegerAttr optionalI64Attr(std::optional<int64_t> value) {
    return value ? i64Attr(*value) : IntegerAttr();
  }
  FloatAttr optionalF32Attr(std::optional<float> value) {
    return value ? f32Attr(*value) : FloatAttr();
  }
  template <typename OpTy, typename... Args> OpTy build(Args &&...args) {
    auto op = OpTy::create(builder, currentLoc, std::forward<Args>(args)...);
    if (failed(verifyCreated(op.getOperation())))
      return nullptr;
    return op;
  }
  /// The single result of `op`, or a null value when it failed.
  template <typename OpTy> static Value resultOf(OpTy op) {
    return op ? op->getResult(0) : Value();
  }

  OpBuilder builder;
  OwningOpRef<ModuleOp> ownedModule;
  ModuleOp module;
  func::FuncOp function;
  Location graphLoc;
  Location currentLoc;
  bool failedState = false;
  bool finished = false;
};

} // namespace rlx
} // namespace mlir

#endif // RLX_IR_GRAPHBUILDER_H
