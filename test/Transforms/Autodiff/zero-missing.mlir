// RUN: rlx-opt %s --rlx-autodiff="func=f zero-missing=true" | FileCheck %s

// zero-missing: an unreached argument gets zeros of its own type.
// CHECK-LABEL: func.func @f_grad(
// CHECK-SAME: -> (tensor<f64>, tensor<3xf64>, tensor<2xf64>)
// CHECK: %[[Z:.*]] = rlx.constant dense<0.000000e+00> : tensor<2xf64>
// CHECK: return %{{.*}}, %{{.*}}, %[[Z]]
func.func @f(%a: tensor<3xf64> {rlx.param = "a"},
             %b: tensor<2xf64> {rlx.param = "b"}) -> tensor<f64> {
  %l = rlx.reduce mean %a axes = [0] : tensor<3xf64>
  return %l : tensor<f64>
}
