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
//===----------------------------------------------------------------------===//

#ifndef RLX_IR_GRAPHBUILDER_H
#define RLX_IR_GRAPHBUILDER_H

#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

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
