//===- Derivatives.cpp - the derivative of each elementwise kind ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The one definition of each activation's derivative, as rlx ops: the
// decomposition of `rlx.activation_backward` and autodiff both build it
// here.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace {
/// What the formulas of one derivative share: constants of `x`'s element
/// type and the standard normal density (gelu's derivatives).
struct Formula {
  Formula(PrimitiveBuilder &p, Value x)
      : p(p), x(x), elementType(getElementTypeOrSelf(x.getType())) {}
  Value constant(double v) { return p.scalar(elementType, v); }
  /// phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
  Value normalPdf() {
    return p.mul(
        p.activation(ActivationKind::Exp, p.mul(p.mul(x, x), constant(-0.5))),
        constant(1.0 / std::sqrt(2.0 * M_PI)));
  }
  PrimitiveBuilder &p;
  Value x;
  Type elementType;
};
} // namespace

Value PrimitiveBuilder::activationDerivative(ActivationKind kind, Value x) {
  Formula f(*this, x);
  PrimitiveBuilder &p = f.p;
  auto c = [&](double v) { return f.constant(v); };
  auto act = [&](ActivationKind k, Value v) { return p.activation(k, v); };
  switch (kind) {
  case ActivationKind::Gelu: {
    // Phi(x) + x phi(x). There is no erf primitive; gelu(x) = x Phi(x), so
    // Phi(x) = gelu(x) / x away from 0 and 1/2 at 0.
    Value zero = c(0.0);
    Value isZero = p.compare(CompareKind::Eq, x, zero);
    Value cdf = p.where(isZero, c(0.5), p.div(act(ActivationKind::Gelu, x), x));
    return p.add(cdf, p.mul(x, f.normalPdf()));
  }
  case ActivationKind::GeluApprox: {
    // 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2) with
    // t = tanh(sqrt(2/pi) (x + 0.044715 x^3)).
    double k = std::sqrt(2.0 / M_PI);
    Value x2 = p.mul(x, x);
    Value u = p.mul(p.add(x, p.mul(p.mul(x2, x), c(0.044715))), c(k));
    Value t = act(ActivationKind::Tanh, u);
    Value du = p.mul(p.add(c(1.0), p.mul(x2, c(3 * 0.044715))), c(k));
    Value sech2 = p.sub(c(1.0), p.mul(t, t));
    return p.add(p.mul(p.add(c(1.0), t), c(0.5)),
                 p.mul(p.mul(p.mul(x, c(0.5)), sech2), du));
  }
  case ActivationKind::Silu: {
    // s (1 + x (1 - s)).
    Value s = act(ActivationKind::Sigmoid, x);
    return p.mul(s, p.add(c(1.0), p.mul(x, p.sub(c(1.0), s))));
  }
  case ActivationKind::Sigmoid: {
    Value s = act(ActivationKind::Sigmoid, x);
    return p.mul(s, p.sub(c(1.0), s));
  }
  case ActivationKind::Tanh: {
    Value t = act(ActivationKind::Tanh, x);
    return p.sub(c(1.0), p.mul(t, t));
  }
  case ActivationKind::Exp:
    return act(ActivationKind::Exp, x);
  case ActivationKind::Log:
    return p.div(c(1.0), x);
  case ActivationKind::Sqrt:
    return p.div(c(0.5), act(ActivationKind::Sqrt, x));
  case ActivationKind::Rsqrt:
    // -0.5 x^(-3/2) = -0.5 rsqrt(x) / x.
    return p.div(p.mul(act(ActivationKind::Rsqrt, x), c(-0.5)), x);
  case ActivationKind::Sin:
    return act(ActivationKind::Cos, x);
  case ActivationKind::Cos:
    return act(ActivationKind::Neg, act(ActivationKind::Sin, x));
  case ActivationKind::Tan: {
    Value t = act(ActivationKind::Tan, x);
    return p.add(c(1.0), p.mul(t, t));
  }
  case ActivationKind::Atan:
    return p.div(c(1.0), p.add(c(1.0), p.mul(x, x)));
  case ActivationKind::Relu:
  case ActivationKind::Neg:
  case ActivationKind::Abs:
  case ActivationKind::Round:
  case ActivationKind::Floor:
  case ActivationKind::Ceil:
  case ActivationKind::Trunc:
    return Value();
  }
  llvm_unreachable("unknown activation kind");
}

Value PrimitiveBuilder::activationSecondDerivative(ActivationKind kind,
                                                   Value x) {
  Formula f(*this, x);
  PrimitiveBuilder &p = f.p;
  auto c = [&](double v) { return f.constant(v); };
  auto act = [&](ActivationKind k, Value v) { return p.activation(k, v); };
  switch (kind) {
  case ActivationKind::Gelu: {
    // phi(x) (2 - x^2).
    return p.mul(f.normalPdf(), p.sub(c(2.0), p.mul(x, x)));
  }
  case ActivationKind::GeluApprox: {
    // With u = k (x + a x^3), t = tanh(u), u' = k (1 + 3 a x^2), u'' = 6 a k x:
    // f = 0.5 x (1 + t), f' = 0.5 (1 + t) + 0.5 x (1 - t^2) u',
    // f'' = (1 - t^2) (u' + 0.5 x u'' - x t u'^2).
    double k = std::sqrt(2.0 / M_PI), a = 0.044715;
    Value x2 = p.mul(x, x);
    Value t = act(ActivationKind::Tanh,
                  p.mul(p.add(x, p.mul(p.mul(x2, x), c(a))), c(k)));
    Value du = p.mul(p.add(c(1.0), p.mul(x2, c(3 * a))), c(k));
    Value ddu = p.mul(x, c(6 * a * k));
    Value sech2 = p.sub(c(1.0), p.mul(t, t));
    Value inner = p.sub(p.add(du, p.mul(p.mul(x, c(0.5)), ddu)),
                        p.mul(p.mul(x, t), p.mul(du, du)));
    return p.mul(sech2, inner);
  }
  case ActivationKind::Silu: {
    // s (1 - s) (2 + x (1 - 2 s)).
    Value s = act(ActivationKind::Sigmoid, x);
    Value ds = p.mul(s, p.sub(c(1.0), s));
    return p.mul(ds, p.add(c(2.0), p.mul(x, p.sub(c(1.0), p.mul(s, c(2.0))))));
  }
  case ActivationKind::Sigmoid: {
    // s (1 - s) (1 - 2 s).
    Value s = act(ActivationKind::Sigmoid, x);
    return p.mul(p.mul(s, p.sub(c(1.0), s)), p.sub(c(1.0), p.mul(s, c(2.0))));
  }
  case ActivationKind::Tanh: {
    // -2 t (1 - t^2).
    Value t = act(ActivationKind::Tanh, x);
    return p.mul(p.mul(t, c(-2.0)), p.sub(c(1.0), p.mul(t, t)));
  }
  case ActivationKind::Exp:
    return act(ActivationKind::Exp, x);
  case ActivationKind::Log:
    return p.div(c(-1.0), p.mul(x, x));
  case ActivationKind::Sqrt:
    // -0.25 x^(-3/2) = -0.25 rsqrt(x) / x.
    return p.div(p.mul(act(ActivationKind::Rsqrt, x), c(-0.25)), x);
  case ActivationKind::Rsqrt:
    // 0.75 x^(-5/2) = 0.75 rsqrt(x) / x^2.
    return p.div(p.mul(act(ActivationKind::Rsqrt, x), c(0.75)), p.mul(x, x));
  case ActivationKind::Sin:
    return act(ActivationKind::Neg, act(ActivationKind::Sin, x));
  case ActivationKind::Cos:
    return act(ActivationKind::Neg, act(ActivationKind::Cos, x));
  case ActivationKind::Tan: {
    // 2 t (1 + t^2).
    Value t = act(ActivationKind::Tan, x);
    return p.mul(p.mul(t, c(2.0)), p.add(c(1.0), p.mul(t, t)));
  }
  case ActivationKind::Atan: {
    // -2 x / (1 + x^2)^2.
    Value d = p.add(c(1.0), p.mul(x, x));
    return p.div(p.mul(x, c(-2.0)), p.mul(d, d));
  }
  case ActivationKind::Relu:
  case ActivationKind::Neg:
  case ActivationKind::Abs:
  case ActivationKind::Round:
  case ActivationKind::Floor:
  case ActivationKind::Ceil:
  case ActivationKind::Trunc:
    return Value();
  }
  llvm_unreachable("unknown activation kind");
}

Value PrimitiveBuilder::activationVJP(ActivationKind kind, Value x, Value dy) {
  Value zero = scalar(getElementTypeOrSelf(x.getType()), 0.0);
  switch (kind) {
  case ActivationKind::Relu:
    // `x > 0 ? dy : 0` (a NaN `x` compares false and passes nothing).
    return where(compare(CompareKind::Gt, x, zero), dy, zero);
  case ActivationKind::Neg:
    return activation(ActivationKind::Neg, dy);
  case ActivationKind::Abs: {
    // sign(x) dy, 0 at x = 0.
    Value negative = where(compare(CompareKind::Lt, x, zero),
                           activation(ActivationKind::Neg, dy), zero);
    return where(compare(CompareKind::Gt, x, zero), dy, negative);
  }
  case ActivationKind::Round:
    // Straight-through estimator: the gradient passes unchanged.
    return dy;
  case ActivationKind::Floor:
  case ActivationKind::Ceil:
  case ActivationKind::Trunc:
    // Zero, as PyTorch's: not `0 * dy`, which a NaN in dy would turn NaN.
    return zerosLike(dy);
  default:
    return mul(activationDerivative(kind, x), dy);
  }
}
