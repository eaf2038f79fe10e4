// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @quantize_axis(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{'rlx.quantize' op axis 2 is out of range for input [8, 2] of rank 2}}
  %0 = rlx.quantize %x axis = 2 scales = [0.5] zero_points = [0] : tensor<8x2xf32>
  return
}

// -----

func.func @quantize_empty_scales(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{scales must not be empty}}
  %0 = rlx.quantize %x scales = [] zero_points = [0] : tensor<8x2xf32>
  return
}

// -----

func.func @quantize_empty_zero_points(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{zero_points must not be empty}}
  %0 = rlx.quantize %x scales = [0.5] zero_points = [] : tensor<8x2xf32>
  return
}

// -----

func.func @quantize_per_tensor_length(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{scales has 2 entries, expected 1 (per-tensor: no axis is set)}}
  %0 = rlx.quantize %x scales = [0.5, 0.25] zero_points = [0] : tensor<8x2xf32>
  return
}

// -----

func.func @quantize_channel_length(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{zero_points has 3 entries, expected 1 or dim(axis 1) = 2}}
  %0 = rlx.quantize %x axis = 1 scales = [0.5] zero_points = [0, 1, 2] : tensor<8x2xf32>
  return
}

// -----

func.func @quantize_negative_scale(%x: tensor<8x2xf32>) {
  // expected-error @+1 {{scales[1] = -2.500000e-01 must be positive and finite}}
  %0 = rlx.quantize %x axis = 1 scales = [0.5, -0.25] zero_points = [0] : tensor<8x2xf32>
  return
}

// -----

func.func @dequantize_zero_point_range(%q: tensor<8x2xi8>) {
  // expected-error @+1 {{'rlx.dequantize' op zero_points[0] = 200 is outside the i8 range [-128, 127]}}
  %0 = rlx.dequantize %q scales = [0.5] zero_points = [200] : tensor<8x2xi8>
  return
}

// -----

func.func @dequantize_axis(%q: tensor<8x2xi8>) {
  // expected-error @+1 {{axis -3 is out of range for input [8, 2] of rank 2}}
  %0 = rlx.dequantize %q axis = -3 scales = [0.5] zero_points = [0] : tensor<8x2xi8>
  return
}

// -----

func.func @quantize_input_type(%x: tensor<8xf16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = "rlx.quantize"(%x) {scales = array<f32: 0.5>, zero_points = array<i32: 0>} : (tensor<8xf16>) -> tensor<8xi8>
  return
}

// -----

func.func @quantize_result_type(%x: tensor<8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<8xi8>' are incompatible with return type(s) of operation 'tensor<4xi8>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "rlx.quantize"(%x) {scales = array<f32: 0.5>, zero_points = array<i32: 0>} : (tensor<8xf32>) -> tensor<4xi8>
  return
}

// -----

func.func @fake_quantize_bits(%x: tensor<8xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize' op attribute 'bits' failed to satisfy constraint: 64-bit signless integer attribute whose value is one of}}
  %0 = rlx.fake_quantize %x bits = 3 : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{axis 1 is out of range for input [8] of rank 1}}
  %0 = rlx.fake_quantize %x bits = 8 axis = 1 : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_ema_needs_decay(%x: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{scale_mode 'ema' requires an ema_decay attribute}}
  %0:2 = rlx.fake_quantize %x bits = 8 state %s : tensor<1xf32> {scale_mode = #rlx.scale_mode<ema>} : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_decay_range(%x: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{attribute 'ema_decay' failed to satisfy constraint: 32-bit float attribute whose value is in (0, 1)}}
  %0:2 = rlx.fake_quantize %x bits = 8 state %s : tensor<1xf32> {scale_mode = #rlx.scale_mode<ema>, ema_decay = 1.0 : f32} : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_decay_without_ema(%x: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{ema_decay is only meaningful with scale_mode 'ema', but scale_mode is 'fixed'}}
  %0 = rlx.fake_quantize %x bits = 8 state %s : tensor<1xf32> {scale_mode = #rlx.scale_mode<fixed>, ema_decay = 0.5 : f32} : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_fixed_needs_state(%x: tensor<8xf32>) {
  // expected-error @+1 {{scale_mode 'fixed' requires a state operand (one scale per channel)}}
  %0 = rlx.fake_quantize %x bits = 8 {scale_mode = #rlx.scale_mode<fixed>} : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_per_batch_state(%x: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{scale_mode 'per_batch' takes no state operand}}
  %0 = rlx.fake_quantize %x bits = 8 state %s : tensor<1xf32> : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_state_shape(%x: tensor<8x4xf32>, %s: tensor<8xf32>) {
  // expected-error @+1 {{state must have shape [4] (dim(axis 1) of input [8, 4]), got [8]}}
  %0 = rlx.fake_quantize %x bits = 8 axis = 1 state %s : tensor<8xf32> {scale_mode = #rlx.scale_mode<fixed>} : tensor<8x4xf32>
  return
}

// -----

func.func @fake_quantize_state_per_tensor(%x: tensor<8x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{state must have shape [1] (per-tensor: no axis is set), got [4]}}
  %0 = rlx.fake_quantize %x bits = 8 state %s : tensor<4xf32> {scale_mode = #rlx.scale_mode<fixed>} : tensor<8x4xf32>
  return
}

// -----

func.func @fake_quantize_state_element(%x: tensor<8xf32>, %s: tensor<1xf16>) {
  // expected-error @+1 {{state element type 'f16' differs from input element type 'f32'}}
  %0 = rlx.fake_quantize %x bits = 8 state %s : tensor<1xf16> {scale_mode = #rlx.scale_mode<fixed>} : tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_ema_results(%x: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<8xf32>', 'tensor<1xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "rlx.fake_quantize"(%x, %s) {bits = 8 : i64, scale_mode = #rlx.scale_mode<ema>, ema_decay = 0.5 : f32} : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_int(%x: tensor<8xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.fake_quantize"(%x) {bits = 8 : i64} : (tensor<8xi32>) -> tensor<8xi32>
  return
}

// -----

func.func @lsq_bits(%x: tensor<8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_lsq' op attribute 'bits' failed to satisfy constraint: 64-bit signless integer attribute whose value is one of}}
  %0 = rlx.fake_quantize_lsq %x, %s bits = 16 : tensor<8xf32>, tensor<1xf32>
  return
}

// -----

func.func @lsq_scale_shape(%x: tensor<8x4xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{scale must have shape [4] (dim(axis 1) of input [8, 4]), got [1]}}
  %0 = rlx.fake_quantize_lsq %x, %s bits = 4 axis = 1 : tensor<8x4xf32>, tensor<1xf32>
  return
}

// -----

func.func @lsq_scale_rank(%x: tensor<8x4xf32>, %s: tensor<1x1xf32>) {
  // expected-error @+1 {{scale must have shape [1] (per-tensor: no axis is set), got [1, 1]}}
  %0 = rlx.fake_quantize_lsq %x, %s bits = 4 : tensor<8x4xf32>, tensor<1x1xf32>
  return
}

// -----

// A rank-0 scale is rejected by the verifier of the op and of both
// backward ops (the CPU lowering of the backward ops once emitted invalid
// IR for it).
func.func @lsq_backward_x_scale_rank0(%x: tensor<6x5xf32>, %s: tensor<f32>, %dy: tensor<6x5xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_lsq_backward_x' op scale must have shape [1] (per-tensor: no axis is set), got []}}
  %0 = rlx.fake_quantize_lsq_backward_x %x, %s, %dy bits = 4 : tensor<6x5xf32>, tensor<f32>, tensor<6x5xf32>
  return
}

// -----

func.func @lsq_backward_scale_scale_rank0(%x: tensor<6x5xf32>, %s: tensor<f32>, %dy: tensor<6x5xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_lsq_backward_scale' op scale must have shape [1] (per-tensor: no axis is set), got []}}
  %0 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 4 : tensor<6x5xf32>, tensor<f32>, tensor<6x5xf32>
  return
}

// -----

func.func @lsq_scale_element(%x: tensor<8xf32>, %s: tensor<1xf64>) {
  // expected-error @+1 {{scale element type 'f64' differs from input element type 'f32'}}
  %0 = rlx.fake_quantize_lsq %x, %s bits = 4 : tensor<8xf32>, tensor<1xf64>
  return
}

// -----

func.func @lsq_backward_x_dy(%x: tensor<8xf32>, %s: tensor<1xf32>, %dy: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_lsq_backward_x' op dy type 'tensor<4xf32>' differs from input type 'tensor<8xf32>'}}
  %0 = rlx.fake_quantize_lsq_backward_x %x, %s, %dy bits = 8 : tensor<8xf32>, tensor<1xf32>, tensor<4xf32>
  return
}

// -----

func.func @lsq_backward_scale_axis(%x: tensor<8xf32>, %s: tensor<1xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_lsq_backward_scale' op axis 4 is out of range for input [8] of rank 1}}
  %0 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 8 axis = 4 : tensor<8xf32>, tensor<1xf32>, tensor<8xf32>
  return
}

// -----

func.func @lsq_backward_scale_result(%x: tensor<8xf32>, %s: tensor<1xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_lsq_backward_scale' op failed to verify that all of {scale, result} have same type}}
  %0 = "rlx.fake_quantize_lsq_backward_scale"(%x, %s, %dy) {bits = 8 : i64} : (tensor<8xf32>, tensor<1xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_backward_bits(%x: tensor<8xf32>) {
  // expected-error @+1 {{'rlx.fake_quantize_backward' op attribute 'bits' failed to satisfy constraint: 64-bit signless integer attribute whose value is one of}}
  %0 = rlx.fake_quantize_backward %x, %x bits = 1 ste = tanh : tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_backward_axis(%x: tensor<8xf32>) {
  // expected-error @+1 {{axis -2 is out of range for input [8] of rank 1}}
  %0 = rlx.fake_quantize_backward %x, %x bits = 4 axis = -2 ste = tanh : tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @fake_quantize_backward_dy(%x: tensor<8xf32>, %dy: tensor<8xf16>) {
  // expected-error @+1 {{dy type 'tensor<8xf16>' differs from input type 'tensor<8xf32>'}}
  %0 = rlx.fake_quantize_backward %x, %dy bits = 4 ste = tanh : tensor<8xf32>, tensor<8xf16>
  return
}

// -----

func.func @fake_quantize_backward_ste(%x: tensor<8xf32>) {
  // expected-error @+1 {{unknown ste kind 'round', expected one of: identity, clipped_identity, tanh, hard_tanh}}
  %0 = rlx.fake_quantize_backward %x, %x bits = 4 ste = round : tensor<8xf32>, tensor<8xf32>
  return
}
