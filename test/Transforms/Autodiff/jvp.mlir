// RUN: rlx-opt %s --split-input-file --rlx-jvp="func=f wrt=x,g" | FileCheck %s

// @f_jvp takes one tangent per wrt argument, named t_<name>, and returns
// [@f's results..., the tangent of each result]; each op's JVP follows it.
// CHECK-LABEL: func.func @f_jvp(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x6xf32> {rlx.input = "x"}, %[[G:[^:]*]]: tensor<6xf32> {rlx.param = "g"}, %[[B:[^:]*]]: tensor<6xf32> {rlx.param = "b"}, %[[TX:[^:]*]]: tensor<2x6xf32> {rlx.input = "t_x"}, %[[TG:[^:]*]]: tensor<6xf32> {rlx.input = "t_g"})
// CHECK-SAME: -> (tensor<2x6xf32>, tensor<f32>, tensor<2x6xf32>, tensor<f32>)
// The norm's Jacobian applied to t_x is the unit-gamma backward op.
// CHECK: %[[Y:.*]] = rlx.layer_norm %[[X]], %[[G]], %[[B]]
// CHECK: %[[ONES:.*]] = rlx.constant dense<1.000000e+00> : tensor<6xf32>
// CHECK: %[[ZEROS:.*]] = rlx.constant dense<0.000000e+00> : tensor<6xf32>
// CHECK: %[[J:.*]] = rlx.layer_norm_backward_input %[[X]], %[[ONES]], %[[TX]]
// CHECK: %[[GJ:.*]] = rlx.binary mul %[[G]], %[[J]]
// CHECK: %[[XHAT:.*]] = rlx.layer_norm %[[X]], %[[ONES]], %[[ZEROS]]
// CHECK: %[[TGX:.*]] = rlx.binary mul %[[TG]], %[[XHAT]]
// CHECK: %[[TY:.*]] = rlx.binary add %[[GJ]], %[[TGX]]
// CHECK: %[[S:.*]] = rlx.reduce sum %[[Y]]
// CHECK: %[[TS:.*]] = rlx.reduce sum %[[TY]]
// CHECK: return %[[Y]], %[[S]], %[[TY]], %[[TS]]
func.func @f(%x: tensor<2x6xf32> {rlx.input = "x"},
             %g: tensor<6xf32> {rlx.param = "g"},
             %b: tensor<6xf32> {rlx.param = "b"})
    -> (tensor<2x6xf32>, tensor<f32>) {
  %y = rlx.layer_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32}
         : tensor<2x6xf32>, tensor<6xf32>, tensor<6xf32>
  %s = rlx.reduce sum %y axes = [0, 1] : tensor<2x6xf32>
  return %y, %s : tensor<2x6xf32>, tensor<f32>
}
