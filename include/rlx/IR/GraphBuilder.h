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

  Value binary(BinaryKind kind, Value lhs, Value rhs);
  Value add(Value lhs, Value rhs) { return binary(BinaryKind::Add, lhs, rhs); }
  Value sub(Value lhs, Value rhs) { return binary(BinaryKind::Sub, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return binary(BinaryKind::Mul, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return binary(BinaryKind::Div, lhs, rhs); }
  Value max(Value lhs, Value rhs) { return binary(BinaryKind::Max, lhs, rhs); }
  Value min(Value lhs, Value rhs) { return binary(BinaryKind::Min, lhs, rhs); }

  //===--------------------------------------------------------------------===//
  // Linear algebra
  //===--------------------------------------------------------------------===//

  Value matmul(Value lhs, Value rhs);
  /// `x @ w (+ bias) (then activation)` from primitives.
  Value linear(Value x, Value w, Value bias = {},
               std::optional<ActivationKind> activation = std::nullopt);

  //===--------------------------------------------------------------------===//
  // Any op
  //===--------------------------------------------------------------------===//

  /// Creates any rlx op with the builder's location, verifies it, and
  /// returns it (or nullptr after reporting a diagnostic). The short
  /// builders above are all written with this.
  template <typename OpTy, typename... Args> OpTy create(Args &&...args) {
    if (failed(checkOperands((isNullValue(args) || ...))))
      return nullptr;
    auto op = OpTy::create(builder, currentLoc, std::forward<Args>(args)...);
    if (failed(verifyCreated(op.getOperation())))
      return nullptr;
    return op;
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
