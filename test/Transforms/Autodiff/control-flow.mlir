// The derivatives of control flow, im2col, conv_transpose2d and the
// state-space scans, and what second order differentiates.
// RUN: rlx-opt %s --rlx-autodiff="func=branch" | FileCheck %s --check-prefix=IF
// RUN: rlx-opt %s --rlx-autodiff="func=scan" | FileCheck %s --check-prefix=SCAN
// RUN: rlx-opt %s --rlx-jvp="func=scan wrt=h0,u" | FileCheck %s --check-prefix=SCANJVP
// RUN: rlx-opt %s --rlx-autodiff="func=custom" | FileCheck %s --check-prefix=CUSTOM
// RUN: rlx-opt %s --rlx-jvp="func=custom" | FileCheck %s --check-prefix=CUSTOMJVP
// RUN: rlx-opt %s --rlx-autodiff="func=patches" | FileCheck %s --check-prefix=IM2COL
// RUN: rlx-opt %s --rlx-autodiff="func=deconv" | FileCheck %s --check-prefix=DECONV
// RUN: rlx-opt %s --rlx-autodiff="func=ssm" | FileCheck %s --check-prefix=SSM
// RUN: rlx-opt %s --rlx-autodiff="func=norm" --rlx-autodiff="func=norm_grad" | FileCheck %s --check-prefix=SECOND

// rlx.if becomes a select of both branches; each branch gets its masked
// cotangent.
// IF-LABEL: func.func @branch_grad
// IF-NOT: rlx.if
// IF-DAG: %[[T:.*]] = rlx.activation tanh %arg1
// IF-DAG: %[[S:.*]] = rlx.activation sin %arg1
// IF: %[[P:.*]] = rlx.expand
// IF: rlx.where %[[P]], %[[T]], %[[S]]
// IF: %[[GT:.*]] = rlx.where %[[P]], %[[ONES:.*]], %[[ZERO:.*]] :
// IF: %[[GE:.*]] = rlx.where %[[P]], %[[ZERO]], %[[ONES]] :
// IF-DAG: rlx.activation_backward sin %arg1, %[[GE]]
// IF-DAG: rlx.activation_backward tanh %arg1, %[[GT]]
func.func @branch(%p: tensor<i1> {rlx.input = "p"}, %x: tensor<4xf32> {rlx.param = "x"}) -> tensor<f32> {
  %y = rlx.if %p : tensor<i1> -> tensor<4xf32> {
    %a = rlx.activation tanh %x : tensor<4xf32>
    rlx.yield %a : tensor<4xf32>
  } else {
    %b = rlx.activation sin %x : tensor<4xf32>
    rlx.yield %b : tensor<4xf32>
  }
  %l = rlx.reduce sum %y axes = [0] : tensor<4xf32>
  return %l : tensor<f32>
}

// A checkpointed scan: the saved rows' cotangent spread to their steps
// (rows 0 and 2 of 5), the broadcast operand a per-step input of the
// backward ops (its gradient summed over the steps), one sweep per
// operand, each with the body's VJP and the forward body.
// SCAN-LABEL: func.func @scan_grad
// SCAN-SAME: %[[D:arg3]]: tensor<2x3xf32> {rlx.input = "d_loss"}
// SCAN: %[[TRAJ:.*]] = rlx.scan %arg0 {{.*}} save_trajectory num_checkpoints = 2
// SCAN: %[[WR:.*]] = rlx.reshape %arg1 new_shape = [1, 3]
// SCAN: %[[WS:.*]] = rlx.expand %[[WR]] target_shape = [5, 3]
// SCAN: %[[R0:.*]] = rlx.narrow %[[D]] axis = 0 start = 0 len = 1
// SCAN: %[[Z1:.*]] = rlx.constant dense<0.000000e+00> : tensor<1x3xf32>
// SCAN: %[[R1:.*]] = rlx.narrow %[[D]] axis = 0 start = 1 len = 1
// SCAN: %[[Z2:.*]] = rlx.constant dense<0.000000e+00> : tensor<2x3xf32>
// SCAN: %[[UP:.*]] = rlx.concat %[[R0]], %[[Z1]], %[[R1]], %[[Z2]] axis = 0
// SCAN: %[[DH:.*]] = rlx.scan_backward %arg0, %[[TRAJ]], %[[UP]] : {{.*}} xs(%[[WS]], %arg2 : {{.*}}) length = 5 save_trajectory num_checkpoints = 2 body_vjp {
// SCAN-NEXT: ^bb0(%[[C:.*]]: tensor<3xf32>, %[[W:.*]]: tensor<3xf32>, %[[U:.*]]: tensor<3xf32>, %[[G:.*]]: tensor<3xf32>):
// SCAN-NEXT: %[[M:.*]] = rlx.binary mul %[[C]], %[[W]]
// SCAN-NEXT: %[[A:.*]] = rlx.binary add %[[M]], %[[U]]
// SCAN-NEXT: %[[DA:.*]] = rlx.activation_backward tanh %[[A]], %[[G]]
// SCAN-NEXT: %[[DC:.*]] = rlx.binary mul %[[DA]], %[[W]]
// SCAN-NEXT: %[[DW:.*]] = rlx.binary mul %[[DA]], %[[C]]
// SCAN-NEXT: rlx.yield %[[DC]], %[[DW]], %[[DA]]
// SCAN-NEXT: } forward_body {
// SCAN: %[[DWS:.*]] = rlx.scan_backward_xs %arg0, %[[TRAJ]], %[[UP]] {{.*}} xs_idx = 0 body_vjp
// SCAN: %[[DWSUM:.*]] = rlx.reduce sum %[[DWS]] axes = [0] : tensor<5x3xf32>
// SCAN: %[[DU:.*]] = rlx.scan_backward_xs %arg0, %[[TRAJ]], %[[UP]] {{.*}} xs_idx = 1 body_vjp
// SCAN: return %[[TRAJ]], %[[DH]], %[[DWSUM]], %[[DU]]

// Forward mode: one scan over the stacked (carry, tangent), the tangents
// of the per-step input an extra per-step input.
// SCANJVP-LABEL: func.func @scan_jvp
// SCANJVP: %[[H:.*]] = rlx.reshape %arg0 new_shape = [1, 3]
// SCANJVP: %[[T:.*]] = rlx.reshape %arg3 new_shape = [1, 3]
// SCANJVP: %[[PAIR:.*]] = rlx.concat %[[H]], %[[T]] axis = 0
// SCANJVP: %[[S:.*]] = rlx.scan %[[PAIR]] : tensor<2x3xf32> bcast(%arg1 : tensor<3xf32>) xs(%arg2, %arg4 : tensor<5x3xf32>, tensor<5x3xf32>) length = 5 save_trajectory num_checkpoints = 2 body {
// SCANJVP: rlx.activation_backward tanh
// SCANJVP: rlx.yield {{.*}} : tensor<2x3xf32>
// SCANJVP: %[[TT:.*]] = rlx.narrow %[[S]] axis = 1 start = 1 len = 1 : tensor<2x2x3xf32>
// SCANJVP: %[[TR:.*]] = rlx.reshape %[[TT]] new_shape = [2, 3]
// SCANJVP: return %{{.*}}, %[[TR]]
func.func @scan(%h0: tensor<3xf32> {rlx.param = "h0"}, %w: tensor<3xf32> {rlx.param = "w"}, %u: tensor<5x3xf32> {rlx.param = "u"}) -> tensor<2x3xf32> {
  %r = rlx.scan %h0 : tensor<3xf32> bcast(%w : tensor<3xf32>) xs(%u : tensor<5x3xf32>) length = 5 save_trajectory num_checkpoints = 2 body {
  ^bb0(%h: tensor<3xf32>, %wb: tensor<3xf32>, %ut: tensor<3xf32>):
    %a = rlx.binary mul %h, %wb : tensor<3xf32>, tensor<3xf32>
    %n = rlx.binary add %a, %ut : tensor<3xf32>, tensor<3xf32>
    %t = rlx.activation tanh %n : tensor<3xf32>
    rlx.yield %t : tensor<3xf32>
  }
  return %r : tensor<2x3xf32>
}

// The vjp body is applied (cos, not the derivative of sin); without a jvp
// body forward mode differentiates the forward body.
// CUSTOM-LABEL: func.func @custom_grad
// CUSTOM-SAME: %[[D:arg1]]: tensor<4xf32> {rlx.input = "d_loss"}
// CUSTOM: %[[Y:.*]] = rlx.custom_fn(%arg0)
// CUSTOM: } vjp {
// CUSTOM: }
// CUSTOM-NEXT: %[[C:.*]] = rlx.activation cos %arg0
// CUSTOM-NEXT: %[[G:.*]] = rlx.binary mul %[[C]], %[[D]]
// CUSTOM-NEXT: return %[[Y]], %[[G]]
// CUSTOMJVP-LABEL: func.func @custom_jvp
// CUSTOMJVP-NOT: rlx.custom_fn
// CUSTOMJVP: %[[S:.*]] = rlx.activation sin %arg0
// CUSTOMJVP: %[[T:.*]] = rlx.activation_backward sin %arg0, %arg1
// CUSTOMJVP: return %[[S]], %[[T]]
func.func @custom(%x: tensor<4xf32> {rlx.param = "x"}) -> tensor<4xf32> {
  %y = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    %s = rlx.activation sin %a : tensor<4xf32>
    rlx.yield %s : tensor<4xf32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %y0: tensor<4xf32>, %dy: tensor<4xf32>):
    %c = rlx.activation cos %a : tensor<4xf32>
    %g = rlx.binary mul %c, %dy : tensor<4xf32>, tensor<4xf32>
    rlx.yield %g : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// im2col's VJP is col2im: the rows' taps as one-channel planes, scattered
// back by a transposed convolution with the identity kernel.
// IM2COL-LABEL: func.func @patches_grad
// IM2COL: %[[R:.*]] = rlx.reshape %arg1 new_shape = [1, 3, 3, 2, 4] : tensor<9x8xf32>
// IM2COL: %[[T:.*]] = rlx.transpose %[[R]] perm = [0, 3, 4, 1, 2]
// IM2COL: %[[P:.*]] = rlx.reshape %[[T]] new_shape = [-1, 4, 3, 3]
// IM2COL: %[[IDB:.*]] = rlx.compare eq %{{.*}}, %{{.*}} : tensor<4x1x1x1xi64>, tensor<1x1x2x2xi64>
// IM2COL: %[[ID:.*]] = rlx.cast %[[IDB]] : tensor<4x1x2x2xi1> to f32
// IM2COL: %[[X:.*]] = rlx.conv_transpose2d %[[P]], %[[ID]] kernel_size = [2, 2], stride = [1, 1], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = 1
// IM2COL: %[[DX:.*]] = rlx.reshape %[[X]] new_shape = [1, 2, 4, 4]
// IM2COL: return %{{.*}}, %[[DX]]
func.func @patches(%x: tensor<1x2x4x4xf32> {rlx.param = "x"}) -> tensor<9x8xf32> {
  %c = rlx.im2col %x kernel_size = [2, 2], stride = [1, 1], padding = [0, 0], dilation = [1, 1] : tensor<1x2x4x4xf32>
  return %c : tensor<9x8xf32>
}

// conv_transpose2d is the adjoint of conv: dx is the convolution of dy with
// the same weight and geometry, dw the weight gradient of that convolution.
// DECONV-LABEL: func.func @deconv_grad
// DECONV: %[[DX:.*]] = rlx.conv %arg2, %arg1 kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1
// DECONV: %[[DW:.*]] = rlx.conv2d_backward_weight %arg2, %arg0 kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1
// DECONV: return %{{.*}}, %[[DX]], %[[DW]]
func.func @deconv(%x: tensor<1x4x3x3xf32> {rlx.param = "x"}, %w: tensor<4x2x3x3xf32> {rlx.param = "w"}) -> tensor<1x2x6x6xf32> {
  %y = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [1, 1], groups = 1 : tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>
  return %y : tensor<1x2x6x6xf32>
}

// selective_scan is differentiated as a scan over the sequence.
// SSM-LABEL: func.func @ssm_grad
// SSM-NOT: rlx.selective_scan
// SSM: rlx.scan {{.*}} length = 4 save_trajectory body
// SSM: rlx.scan_backward_xs
func.func @ssm(%x: tensor<1x4x2xf32> {rlx.param = "x"}, %d: tensor<1x4x2xf32> {rlx.input = "d"},
               %a: tensor<2x3xf32> {rlx.input = "a"}, %b: tensor<1x4x3xf32> {rlx.input = "b"},
               %c: tensor<1x4x3xf32> {rlx.input = "c"}) -> tensor<f32> {
  %y = rlx.selective_scan %x, %d, %a, %b, %c state_size = 3 : tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<2x3xf32>, tensor<1x4x3xf32>, tensor<1x4x3xf32>
  %l = rlx.reduce sum %y axes = [0, 1, 2] : tensor<1x4x2xf32>
  return %l : tensor<f32>
}

// Second order: differentiating @norm_grad decomposes the layer-norm
// backward ops of its copy into primitives; the backward ops in the new
// function are the VJPs of the forward layer_norm.
// SECOND-LABEL: func.func @norm_grad_grad
// SECOND: rlx.layer_norm %arg0, %arg1, %arg2
// SECOND-NOT: rlx.layer_norm_backward_gamma
// SECOND: rlx.reduce mean
// SECOND: rlx.layer_norm_backward_input
// SECOND: return
func.func @norm(%x: tensor<2x3xf32> {rlx.param = "x"}, %g: tensor<3xf32> {rlx.param = "g"},
                %b: tensor<3xf32> {rlx.param = "b"}) -> tensor<f32> {
  %y = rlx.layer_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  %t = rlx.activation tanh %y : tensor<2x3xf32>
  %l = rlx.reduce sum %t axes = [0, 1] : tensor<2x3xf32>
  return %l : tensor<f32>
}
