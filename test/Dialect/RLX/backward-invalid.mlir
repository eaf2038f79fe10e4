// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @relu_backward_shape(%x: tensor<4x8xf32>, %dy: tensor<4x7xf32>) {
  // expected-error @+1 {{dy [4, 7] must have the shape of x [4, 8]}}
  %0 = rlx.relu_backward %x, %dy : tensor<4x8xf32>, tensor<4x7xf32>
  return
}

// -----

func.func @relu_backward_rank(%x: tensor<4x8xf32>, %dy: tensor<32xf32>) {
  // expected-error @+1 {{dy [32] must have the shape of x [4, 8]}}
  %0 = rlx.relu_backward %x, %dy : tensor<4x8xf32>, tensor<32xf32>
  return
}

// -----

func.func @relu_backward_element_types(%x: tensor<4xf32>, %dy: tensor<4xf16>) {
  // expected-error @+1 {{all of {x, dy, result} have same element type}}
  %0 = rlx.relu_backward %x, %dy : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @relu_backward_integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.relu_backward"(%x, %x) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @activation_backward_shape(%x: tensor<4x8xf32>, %dy: tensor<8x4xf32>) {
  // expected-error @+1 {{dy [8, 4] must have the shape of x [4, 8]}}
  %0 = rlx.activation_backward tanh %x, %dy : tensor<4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @activation_backward_unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown activation kind 'swish', expected one of: gelu, gelu_approx, silu, relu, sigmoid, tanh, exp, log, sqrt, rsqrt, neg, abs, sin, cos, tan, atan, round}}
  %0 = rlx.activation_backward swish %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @activation_backward_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.activation_backward' op failed to verify that all of {x, result} have same type}}
  %0 = "rlx.activation_backward"(%x, %x) <{kind = #rlx.activation<exp>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @layer_norm_backward_input_axis(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for x [4, 8] of rank 2}}
  %0 = rlx.layer_norm_backward_input %x, %g, %x {axis = 2 : i64, eps = 1.0e-05 : f32} : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_backward_input_gamma(%x: tensor<4x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{gamma must be [8] (the extent of x [4, 8] along axis -1), got [4]}}
  %0 = rlx.layer_norm_backward_input %x, %g, %x {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_backward_input_dy(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %dy: tensor<5x8xf32>) {
  // expected-error @+1 {{dy [5, 8] must have the shape of x [4, 8]}}
  %0 = rlx.layer_norm_backward_input %x, %g, %dy {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<4x8xf32>, tensor<8xf32>, tensor<5x8xf32>
  return
}

// -----

func.func @layer_norm_backward_input_eps(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.layer_norm_backward_input %x, %g, %x {axis = -1 : i64, eps = -1.0 : f32} : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_backward_gamma_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis -3 is out of range for x [4, 8] of rank 2}}
  %0 = rlx.layer_norm_backward_gamma %x, %x {axis = -3 : i64, eps = 1.0e-05 : f32} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_backward_gamma_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'rlx.layer_norm_backward_gamma' op failed to infer returned types}}
  %0 = "rlx.layer_norm_backward_gamma"(%x, %x) <{axis = 0 : i64, eps = 1.0e-05 : f32}> : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @rms_norm_backward_beta_shape(%x: tensor<2x512xf32>, %g: tensor<512xf32>, %b: tensor<1x512xf32>) {
  // expected-error @+1 {{beta must be [512] (the extent of x [2, 512] along axis -1), got [1, 512]}}
  %0 = rlx.rms_norm_backward_input %x, %g, %b, %x {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x512xf32>, tensor<512xf32>, tensor<1x512xf32>, tensor<2x512xf32>
  return
}

// -----

func.func @rms_norm_backward_gamma_shape(%x: tensor<2x512xf32>, %g: tensor<256xf32>, %b: tensor<512xf32>) {
  // expected-error @+1 {{gamma must be [512] (the extent of x [2, 512] along axis 1), got [256]}}
  %0 = rlx.rms_norm_backward_gamma %x, %g, %b, %x {axis = 1 : i64, eps = 1.0e-06 : f32} : tensor<2x512xf32>, tensor<256xf32>, tensor<512xf32>, tensor<2x512xf32>
  return
}

// -----

func.func @rms_norm_backward_dy(%x: tensor<2x512xf32>, %g: tensor<512xf32>, %dy: tensor<3x512xf32>) {
  // expected-error @+1 {{dy [3, 512] must have the shape of x [2, 512]}}
  %0 = rlx.rms_norm_backward_beta %x, %g, %g, %dy {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<3x512xf32>
  return
}

// -----

func.func @rms_norm_backward_element_types(%x: tensor<2x512xf32>, %g: tensor<512xbf16>) {
  // expected-error @+1 {{all of {x, gamma, beta, dy, result} have same element type}}
  %0 = rlx.rms_norm_backward_input %x, %g, %g, %x {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x512xf32>, tensor<512xbf16>, tensor<512xbf16>, tensor<2x512xf32>
  return
}

// -----

func.func @rope_backward_head_dim(%dy: tensor<2x16x512xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 0 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

func.func @rope_backward_n_rot_odd(%dy: tensor<2x16x512xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{'n_rot' must be even, >= 2 and at most head_dim = 64, got 63}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 64 : i64, n_rot = 63 : i64} : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

func.func @rope_backward_n_rot_large(%dy: tensor<2x16x512xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{'n_rot' must be even, >= 2 and at most head_dim = 32, got 64}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 32 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

func.func @rope_backward_rank(%dy: tensor<16x512xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{dy must be [B, S, H * head_dim] or [B, H, S, head_dim], got [16, 512]}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

func.func @rope_backward_hidden(%dy: tensor<2x16x500xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{dy [2, 16, 500] has H * head_dim = 500, not a multiple of head_dim = 64}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x500xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

func.func @rope_backward_head_width(%dy: tensor<2x8x16x32xf32>, %c: tensor<16x32xf32>) {
  // expected-error @+1 {{dy [2, 8, 16, 32] has a head width of 32 but head_dim is 64}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x8x16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return
}

// -----

func.func @rope_backward_table_width(%dy: tensor<2x16x512xf32>, %c: tensor<16x64xf32>) {
  // expected-error @+1 {{cos must be [S, n_rot / 2] = [16, 32], got [16, 64]}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<16x64xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @rope_backward_positions(%dy: tensor<2x16x512xf32>, %c: tensor<8x32xf32>) {
  // expected-error @+1 {{cos [8, 32] has 8 positions but dy [2, 16, 512] has S = 16}}
  %0 = rlx.rope_backward %dy, %c, %c {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<8x32xf32>, tensor<8x32xf32>
  return
}

// -----

func.func @rope_backward_sin(%dy: tensor<2x16x512xf32>, %c: tensor<16x32xf32>, %s: tensor<?x16xf32>) {
  // expected-error @+1 {{sin [?, 16] must have the shape of cos [16, 32]}}
  %0 = rlx.rope_backward %dy, %c, %s {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<?x16xf32>
  return
}

// -----

func.func @group_norm_backward_rank(%x: tensor<2x32x256xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{x must be NCHW (rank 4), got [2, 32, 256]}}
  %0 = rlx.group_norm_backward_input %x, %g, %g, %x {eps = 1.0e-05 : f32, num_groups = 8 : i64} : tensor<2x32x256xf32>, tensor<32xf32>, tensor<32xf32>, tensor<2x32x256xf32>
  return
}

// -----

func.func @group_norm_backward_groups(%x: tensor<2x30x4x4xf32>, %g: tensor<30xf32>) {
  // expected-error @+1 {{channels C = 30 of x [2, 30, 4, 4] are not divisible by num_groups = 8}}
  %0 = rlx.group_norm_backward_input %x, %g, %g, %x {eps = 1.0e-05 : f32, num_groups = 8 : i64} : tensor<2x30x4x4xf32>, tensor<30xf32>, tensor<30xf32>, tensor<2x30x4x4xf32>
  return
}

// -----

func.func @group_norm_backward_num_groups(%x: tensor<2x32x4x4xf32>) {
  // expected-error @+1 {{attribute 'num_groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.group_norm_backward_gamma %x, %x {eps = 1.0e-05 : f32, num_groups = 0 : i64} : tensor<2x32x4x4xf32>, tensor<2x32x4x4xf32>
  return
}

// -----

func.func @group_norm_backward_gamma_operand(%x: tensor<2x32x4x4xf32>, %g: tensor<16xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{gamma must be [32] (the channels of x), got [16]}}
  %0 = rlx.group_norm_backward_input %x, %g, %b, %x {eps = 1.0e-05 : f32, num_groups = 8 : i64} : tensor<2x32x4x4xf32>, tensor<16xf32>, tensor<32xf32>, tensor<2x32x4x4xf32>
  return
}

// -----

func.func @group_norm_backward_beta_operand(%x: tensor<2x32x4x4xf32>, %g: tensor<32xf32>, %b: tensor<32x1xf32>) {
  // expected-error @+1 {{beta must be [32] (the channels of x), got [32, 1]}}
  %0 = rlx.group_norm_backward_input %x, %g, %b, %x {eps = 1.0e-05 : f32, num_groups = 8 : i64} : tensor<2x32x4x4xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<2x32x4x4xf32>
  return
}

// -----

func.func @group_norm_backward_dy(%x: tensor<2x32x4x4xf32>, %dy: tensor<2x32x4x5xf32>) {
  // expected-error @+1 {{dy [2, 32, 4, 5] must have the shape of x [2, 32, 4, 4]}}
  %0 = rlx.group_norm_backward_beta %x, %dy {eps = 1.0e-05 : f32, num_groups = 8 : i64} : tensor<2x32x4x4xf32>, tensor<2x32x4x5xf32>
  return
}

// -----

func.func @group_norm_backward_eps(%x: tensor<2x32x4x4xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.group_norm_backward_gamma %x, %x {eps = 0x7F800000 : f32, num_groups = 8 : i64} : tensor<2x32x4x4xf32>, tensor<2x32x4x4xf32>
  return
}

// -----

func.func @group_norm_backward_gamma_result(%x: tensor<2x32x4x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<32xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'rlx.group_norm_backward_gamma' op failed to infer returned types}}
  %0 = "rlx.group_norm_backward_gamma"(%x, %x) <{eps = 1.0e-05 : f32, num_groups = 8 : i64}> : (tensor<2x32x4x4xf32>, tensor<2x32x4x4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @batch_norm_backward_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{x must have rank >= 1 (features on the last axis), got []}}
  %0 = rlx.batch_norm_inference_backward_gamma %x, %x, %x, %x {eps = 1.0e-05 : f32} : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
  return
}

// -----

func.func @batch_norm_backward_gamma_operand(%x: tensor<8x64xf32>, %g: tensor<32xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{gamma must be [64] (the last extent of x), got [32]}}
  %0 = rlx.batch_norm_inference_backward_input %x, %g, %s, %s, %x {eps = 1.0e-05 : f32} : tensor<8x64xf32>, tensor<32xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @batch_norm_backward_mean(%x: tensor<8x64xf32>, %m: tensor<8xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{mean must be [64] (the last extent of x), got [8]}}
  %0 = rlx.batch_norm_inference_backward_gamma %x, %m, %s, %x {eps = 1.0e-05 : f32} : tensor<8x64xf32>, tensor<8xf32>, tensor<64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @batch_norm_backward_var(%x: tensor<8x64xf32>, %s: tensor<64xf32>, %v: tensor<1x64xf32>) {
  // expected-error @+1 {{var must be [64] (the last extent of x), got [1, 64]}}
  %0 = rlx.batch_norm_inference_backward_input %x, %s, %s, %v, %x {eps = 1.0e-05 : f32} : tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<1x64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @batch_norm_backward_dy(%x: tensor<8x64xf32>, %s: tensor<64xf32>, %dy: tensor<64x8xf32>) {
  // expected-error @+1 {{dy [64, 8] must have the shape of x [8, 64]}}
  %0 = rlx.batch_norm_inference_backward_gamma %x, %s, %s, %dy {eps = 1.0e-05 : f32} : tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x8xf32>
  return
}

// -----

func.func @batch_norm_backward_eps(%x: tensor<8x64xf32>, %s: tensor<64xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.batch_norm_inference_backward_input %x, %s, %s, %s, %x {eps = -0.5 : f32} : tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @batch_norm_backward_beta_scalar(%dy: tensor<f32>) {
  // expected-error @+1 {{dy must have rank >= 1 (features on the last axis), got []}}
  %0 = rlx.batch_norm_inference_backward_beta %dy : tensor<f32>
  return
}

// -----

func.func @cumsum_backward_axis(%dy: tensor<4x16xf32>) {
  // expected-error @+1 {{axis 2 is out of range for dy [4, 16] of rank 2}}
  %0 = rlx.cumsum_backward %dy {axis = 2 : i64} : tensor<4x16xf32>
  return
}

// -----

func.func @cumsum_backward_result(%dy: tensor<4x16xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "rlx.cumsum_backward"(%dy) <{axis = 0 : i64}> : (tensor<4x16xf32>) -> tensor<16x4xf32>
  return
}

// -----

func.func @gather_backward_dy(%dy: tensor<4x16x768xf32>, %ids: tensor<4x8xi64>) {
  // expected-error @+1 {{dy [4, 16, 768] must be the gather output shape [4, 8, 768] of table [100, 768] and indices [4, 8] along axis 0}}
  %0 = rlx.gather_backward %dy, %ids {axis = 0 : i64} : tensor<4x16x768xf32>, tensor<4x8xi64> -> tensor<100x768xf32>
  return
}

// -----

func.func @gather_backward_trailing(%dy: tensor<3x5x7xf32>, %ids: tensor<5xi32>) {
  // expected-error @+1 {{dy [3, 5, 7] must be the gather output shape [3, 5, 8] of table [3, 10, 8] and indices [5] along axis 1}}
  %0 = rlx.gather_backward %dy, %ids {axis = 1 : i64} : tensor<3x5x7xf32>, tensor<5xi32> -> tensor<3x10x8xf32>
  return
}

// -----

func.func @gather_backward_axis(%dy: tensor<4x768xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{axis 2 is out of range for the table [100, 768] of rank 2}}
  %0 = rlx.gather_backward %dy, %ids {axis = 2 : i64} : tensor<4x768xf32>, tensor<4xi64> -> tensor<100x768xf32>
  return
}

// -----

func.func @gather_backward_scalar_table(%dy: tensor<f32>, %ids: tensor<i64>) {
  // expected-error @+1 {{result (the table) must have rank >= 1, got []}}
  %0 = rlx.gather_backward %dy, %ids {axis = 0 : i64} : tensor<f32>, tensor<i64> -> tensor<f32>
  return
}

// -----

func.func @gather_backward_float_indices(%dy: tensor<4x768xf32>, %ids: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "rlx.gather_backward"(%dy, %ids) <{axis = 0 : i64}> : (tensor<4x768xf32>, tensor<4xf32>) -> tensor<100x768xf32>
  return
}

// -----

func.func @gather_backward_element_type(%dy: tensor<4x768xf32>, %ids: tensor<4xi64>) {
  // expected-error @+1 {{all of {dy, result} have same element type}}
  %0 = rlx.gather_backward %dy, %ids {axis = 0 : i64} : tensor<4x768xf32>, tensor<4xi64> -> tensor<100x768xf16>
  return
}

// -----

func.func @max_pool2d_backward_rank(%x: tensor<8x32x32xf32>, %dy: tensor<8x16x16xf32>) {
  // expected-error @+1 {{x must be NCHW (rank 4), got [8, 32, 32]}}
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<8x32x32xf32>, tensor<8x16x16xf32>
  return
}

// -----

func.func @max_pool2d_backward_dy(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x16x15xf32>) {
  // expected-error @+1 {{dy [1, 8, 16, 15] must be the pool output shape [1, 8, 16, 16]}}
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<1x8x32x32xf32>, tensor<1x8x16x15xf32>
  return
}

// -----

func.func @max_pool2d_backward_padding(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x17x17xf32>) {
  // expected-error @+1 {{padding [2, 2] exceeds half of kernel_size [2, 2]; every window must overlap the input}}
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2], padding = [2, 2] : tensor<1x8x32x32xf32>, tensor<1x8x17x17xf32>
  return
}

// -----

// Found by rlx-fuzz-fuse under UBSan: 2 * padding overflowed.
func.func @max_pool2d_backward_padding_huge(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x17x17xf32>) {
  // expected-error @+1 {{padding [9223372036854775807, 0] exceeds half of kernel_size [2, 2]; every window must overlap the input}}
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2], padding = [9223372036854775807, 0] : tensor<1x8x32x32xf32>, tensor<1x8x17x17xf32>
  return
}

// -----

func.func @max_pool2d_backward_kernel(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x16x16xf32>) {
  // expected-error @+1 {{'kernel_size' must have 2 entries [kH, kW], got [2, 2, 2]}}
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2, 2], stride = [2, 2], padding = [0, 0] : tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>
  return
}

// -----

func.func @max_pool2d_backward_window(%x: tensor<1x8x2x32xf32>, %dy: tensor<1x8x1x16xf32>) {
  // expected-error @+1 {{window does not fit: x [1, 8, 2, 32] with kernel_size [3, 3], stride [1, 1], padding [0, 0] gives output size [0, 30]; each extent must be >= 1}}
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [3, 3], stride = [1, 1], padding = [0, 0] : tensor<1x8x2x32xf32>, tensor<1x8x1x16xf32>
  return
}

// -----

func.func @conv2d_backward_input_result_rank(%dy: tensor<8x64x112x112xf32>, %w: tensor<64x3x3x3xf32>) {
  // expected-error @+1 {{result (the forward input) must be NCHW (rank 4), got [8, 3, 224]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224xf32>
  return
}

// -----

func.func @conv2d_backward_input_dy_rank(%dy: tensor<64x112x112xf32>, %w: tensor<64x3x3x3xf32>) {
  // expected-error @+1 {{dy must be NCHW (rank 4), got [64, 112, 112]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
  return
}

// -----

func.func @conv2d_backward_input_weight_rank(%dy: tensor<8x64x112x112xf32>, %w: tensor<64x27xf32>) {
  // expected-error @+1 {{weight must be [C_out, C_in/groups, kH, kW] (rank 4), got [64, 27]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x64x112x112xf32>, tensor<64x27xf32> -> tensor<8x3x224x224xf32>
  return
}

// -----

func.func @conv2d_backward_input_groups(%dy: tensor<2x12x15x8xf32>, %w: tensor<12x2x3x5xf32>) {
  // expected-error @+1 {{result channels C_in = 8 is not divisible by groups = 3}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 5], stride = [1, 2], padding = [0, 0], dilation = [1, 1], groups = 3 : tensor<2x12x15x8xf32>, tensor<12x2x3x5xf32> -> tensor<2x8x17x20xf32>
  return
}

// -----

func.func @conv2d_backward_input_weight_channels(%dy: tensor<2x12x15x8xf32>, %w: tensor<12x4x3x5xf32>) {
  // expected-error @+1 {{weight [12, 4, 3, 5] has C_in/groups = 4 but result [2, 8, 17, 20] with groups = 4 needs 2}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 5], stride = [1, 2], padding = [0, 0], dilation = [1, 1], groups = 4 : tensor<2x12x15x8xf32>, tensor<12x4x3x5xf32> -> tensor<2x8x17x20xf32>
  return
}

// -----

func.func @conv2d_backward_input_kernel(%dy: tensor<8x64x112x112xf32>, %w: tensor<64x3x3x3xf32>) {
  // expected-error @+1 {{weight [64, 3, 3, 3] has kernel extents [3, 3] but kernel_size is [1, 1]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [1, 1], stride = [2, 2], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
  return
}

// -----

func.func @conv2d_backward_input_geometry(%dy: tensor<8x64x112x112xf32>, %w: tensor<64x3x3x3xf32>) {
  // expected-error @+1 {{dy [8, 64, 112, 112] must be the forward conv output shape [8, 64, 56, 56]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x112x112xf32>
  return
}

// -----

func.func @conv2d_backward_input_out_channels(%dy: tensor<8x32x112x112xf32>, %w: tensor<64x3x3x3xf32>) {
  // expected-error @+1 {{dy [8, 32, 112, 112] must be the forward conv output shape [8, 64, 112, 112]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x32x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
  return
}

// -----

func.func @conv2d_backward_input_stride(%dy: tensor<8x64x112x112xf32>, %w: tensor<64x3x3x3xf32>) {
  // expected-error @+1 {{'stride' entries must be >= 1, got [0, 2]}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [0, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
  return
}

// -----

func.func @conv2d_backward_weight_x_rank(%x: tensor<3x224x224xf32>, %dy: tensor<8x64x112x112xf32>) {
  // expected-error @+1 {{x must be NCHW (rank 4), got [3, 224, 224]}}
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<3x224x224xf32>, tensor<8x64x112x112xf32>
  return
}

// -----

func.func @conv2d_backward_weight_groups(%x: tensor<2x8x17x20xf32>, %dy: tensor<2x10x15x8xf32>) {
  // expected-error @+1 {{output channels C_out (dy dim 1) = 10 is not divisible by groups = 4}}
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 5], stride = [1, 2], padding = [0, 0], dilation = [1, 1], groups = 4 : tensor<2x8x17x20xf32>, tensor<2x10x15x8xf32>
  return
}

// -----

func.func @conv2d_backward_weight_geometry(%x: tensor<8x3x224x224xf32>, %dy: tensor<8x64x224x224xf32>) {
  // expected-error @+1 {{dy [8, 64, 224, 224] must be the forward conv output shape [8, 64, 112, 112]}}
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x3x224x224xf32>, tensor<8x64x224x224xf32>
  return
}

// -----

func.func @conv2d_backward_weight_batch(%x: tensor<8x3x224x224xf32>, %dy: tensor<4x64x112x112xf32>) {
  // expected-error @+1 {{dy [4, 64, 112, 112] must be the forward conv output shape [8, 64, 112, 112]}}
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x3x224x224xf32>, tensor<4x64x112x112xf32>
  return
}

// -----

func.func @conv2d_backward_weight_result(%x: tensor<8x3x224x224xf32>, %dy: tensor<8x64x112x112xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<64x3x3x3xf32>' are incompatible with return type(s) of operation 'tensor<64x3x5x5xf32>'}}
  // expected-error @+1 {{'rlx.conv2d_backward_weight' op failed to infer returned types}}
  %0 = "rlx.conv2d_backward_weight"(%x, %dy) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<8x3x224x224xf32>, tensor<8x64x112x112xf32>) -> tensor<64x3x5x5xf32>
  return
}

// -----

func.func @sce_logits_rank(%l: tensor<32xf32>, %y: tensor<32xi64>) {
  // expected-error @+1 {{logits must be [N, C] (rank 2), got [32]}}
  %0 = rlx.softmax_cross_entropy_with_logits %l, %y : tensor<32xf32>, tensor<32xi64>
  return
}

// -----

func.func @sce_labels_rank(%l: tensor<32x10xf32>, %y: tensor<32x1xi64>) {
  // expected-error @+1 {{labels must be [N] (rank 1), got [32, 1]}}
  %0 = rlx.softmax_cross_entropy_with_logits %l, %y : tensor<32x10xf32>, tensor<32x1xi64>
  return
}

// -----

func.func @sce_rows(%l: tensor<32x10xf32>, %y: tensor<16xi32>) {
  // expected-error @+1 {{labels [16] has N = 16 but logits [32, 10] has N = 32}}
  %0 = rlx.softmax_cross_entropy_with_logits %l, %y : tensor<32x10xf32>, tensor<16xi32>
  return
}

// -----

func.func @sce_float_labels(%l: tensor<32x10xf32>, %y: tensor<32xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "rlx.softmax_cross_entropy_with_logits"(%l, %y) : (tensor<32x10xf32>, tensor<32xf32>) -> tensor<32xf32>
  return
}

// -----

func.func @sce_backward_d_loss(%l: tensor<32x10xf32>, %y: tensor<32xi64>, %d: tensor<10xf32>) {
  // expected-error @+1 {{d_loss [10] has N = 10 but logits [32, 10] has N = 32}}
  %0 = rlx.softmax_cross_entropy_backward %l, %y, %d : tensor<32x10xf32>, tensor<32xi64>, tensor<10xf32>
  return
}

// -----

func.func @sce_backward_labels(%l: tensor<32x10xf32>, %y: tensor<8xi64>, %d: tensor<32xf32>) {
  // expected-error @+1 {{labels [8] has N = 8 but logits [32, 10] has N = 32}}
  %0 = rlx.softmax_cross_entropy_backward %l, %y, %d : tensor<32x10xf32>, tensor<8xi64>, tensor<32xf32>
  return
}

// -----

func.func @attention_backward_num_heads(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 0 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_head_dim(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = -4 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_q_rank(%q: tensor<16x512xf32>) {
  // expected-error @+1 {{q must be [B, H, S, D] or [B, S, H * D], got [16, 512]}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>, tensor<16x512xf32>
  return
}

// -----

func.func @attention_backward_q_layout(%q: tensor<2x16x8x64xf32>) {
  // expected-error @+1 {{q [2, 16, 8, 64] must be [B, H, S, D] with H = num_heads = 8 and D = head_dim = 64}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>, tensor<2x16x8x64xf32>
  return
}

// -----

func.func @attention_backward_rank3_width(%q: tensor<2x16x500xf32>) {
  // expected-error @+1 {{q [2, 16, 500] must be [B, S, H * D] with H * D = num_heads * head_dim = 512}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x16x500xf32>, tensor<2x16x500xf32>, tensor<2x16x500xf32>, tensor<2x16x500xf32>
  return
}

// -----

func.func @attention_backward_k_rank(%q: tensor<2x8x16x64xf32>, %k: tensor<2x16x512xf32>) {
  // expected-error @+1 {{k [2, 16, 512] must have the rank of q [2, 8, 16, 64]}}
  %0 = rlx.attention_backward %q, %k, %k, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x16x512xf32>, tensor<2x16x512xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_k_layout(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x32xf32>) {
  // expected-error @+1 {{k [2, 8, 16, 32] must be [B, H, S, D] with H = num_heads = 8 and D = head_dim = 64}}
  %0 = rlx.attention_backward %q, %k, %k, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x32xf32>, tensor<2x8x16x32xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_v(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x24x64xf32>, %v: tensor<2x8x20x64xf32>) {
  // expected-error @+1 {{v [2, 8, 20, 64] must have the shape of k [2, 8, 24, 64]}}
  %0 = rlx.attention_backward %q, %k, %v, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<value>} : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x20x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_batch(%q: tensor<2x8x16x64xf32>, %k: tensor<3x8x16x64xf32>) {
  // expected-error @+1 {{k [3, 8, 16, 64] has batch 3 but q [2, 8, 16, 64] has batch 2}}
  %0 = rlx.attention_backward %q, %k, %k, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<key>} : tensor<2x8x16x64xf32>, tensor<3x8x16x64xf32>, tensor<3x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_dy(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x24x64xf32>) {
  // expected-error @+1 {{dy [2, 8, 24, 64] must have the shape of q [2, 8, 16, 64]}}
  %0 = rlx.attention_backward %q, %k, %k, %k {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>
  return
}

// -----

func.func @attention_backward_window_missing(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{mask_kind 'sliding_window' requires the 'window' attribute}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_window_negative(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{attribute 'window' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 8 : i64, window = -2 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_window_unused(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{'window' is only valid with mask_kind 'sliding_window', got mask_kind 'causal'}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 8 : i64, window = 4 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_mask_missing(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{mask_kind 'bias' requires a mask operand}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<bias>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_mask_unexpected(%q: tensor<2x8x16x64xf32>, %m: tensor<2x16xf32>) {
  // expected-error @+1 {{mask_kind 'causal' takes no mask operand}}
  %0 = rlx.attention_backward %q, %q, %q, %q mask %m : tensor<2x16xf32> {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_custom_mask(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x24x64xf32>, %m: tensor<2x16xf32>) {
  // expected-error @+1 {{custom mask must be [B, Sk] = [2, 24], got [2, 16]}}
  %0 = rlx.attention_backward %q, %k, %k, %q mask %m : tensor<2x16xf32> {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 8 : i64, wrt = #rlx.wrt<key>} : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_bias_mask(%q: tensor<2x16x512xf32>, %k: tensor<2x24x512xf32>, %m: tensor<2x8x24x16xf32>) {
  // expected-error @+1 {{bias mask must be [B, H, Sq, Sk] = [2, 8, 16, 24], got [2, 8, 24, 16]}}
  %0 = rlx.attention_backward %q, %k, %k, %q mask %m : tensor<2x8x24x16xf32> {head_dim = 64 : i64, mask_kind = #rlx.mask<bias>, num_heads = 8 : i64, wrt = #rlx.wrt<value>} : tensor<2x16x512xf32>, tensor<2x24x512xf32>, tensor<2x24x512xf32>, tensor<2x16x512xf32>
  return
}

// -----

func.func @attention_backward_mask_integer(%q: tensor<2x8x16x64xf32>, %m: tensor<2x16xi1>) {
  // expected-error @+1 {{operand #4 must be ranked tensor of floating-point values}}
  %0 = rlx.attention_backward %q, %q, %q, %q mask %m : tensor<2x16xi1> {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_scale(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{attribute 'score_scale' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, score_scale = 0.0 : f32, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_softcap(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{attribute 'attn_logit_softcap' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.attention_backward %q, %q, %q, %q {attn_logit_softcap = -30.0 : f32, head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_result(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x24x64xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x8x24x64xf32>' are incompatible with return type(s) of operation 'tensor<2x8x16x64xf32>'}}
  // expected-error @+1 {{'rlx.attention_backward' op failed to infer returned types}}
  %0 = "rlx.attention_backward"(%q, %k, %k, %q) <{head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<value>}> : (tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @attention_backward_missing_wrt(%q: tensor<2x8x16x64xf32>) {
  // expected-error @+1 {{requires attribute 'wrt'}}
  %0 = "rlx.attention_backward"(%q, %q, %q, %q) <{head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64}> : (tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>) -> tensor<2x8x16x64xf32>
  return
}

// -----

func.func @conv2d_backward_input_out_groups(%dy: tensor<2x10x15x8xf32>, %w: tensor<10x2x3x5xf32>) {
  // expected-error @+1 {{output channels C_out (weight dim 0) = 10 is not divisible by groups = 4}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 5], stride = [1, 2], padding = [0, 0], dilation = [1, 1], groups = 4 : tensor<2x10x15x8xf32>, tensor<10x2x3x5xf32> -> tensor<2x8x17x20xf32>
  return
}

// -----

func.func @conv2d_backward_input_window(%dy: tensor<1x4x1x1xf32>, %w: tensor<4x3x5x5xf32>) {
  // expected-error @+1 {{window does not fit: result [1, 3, 3, 3] with kernel_size [5, 5], stride [1, 1], padding [0, 0], dilation [1, 1] gives output size [-1, -1]; each extent must be >= 1}}
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [5, 5], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x4x1x1xf32>, tensor<4x3x5x5xf32> -> tensor<1x3x3x3xf32>
  return
}

// -----

func.func @conv2d_backward_weight_in_groups(%x: tensor<2x6x17x20xf32>, %dy: tensor<2x12x15x8xf32>) {
  // expected-error @+1 {{input channels C_in = 6 is not divisible by groups = 4}}
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 5], stride = [1, 2], padding = [0, 0], dilation = [1, 1], groups = 4 : tensor<2x6x17x20xf32>, tensor<2x12x15x8xf32>
  return
}

// -----

func.func @conv2d_backward_weight_window(%x: tensor<1x3x4x4xf32>, %dy: tensor<1x8x1x1xf32>) {
  // expected-error @+1 {{window does not fit: x [1, 3, 4, 4] with kernel_size [3, 3], stride [1, 1], padding [0, 0], dilation [2, 2] gives output size [0, 0]; each extent must be >= 1}}
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [2, 2], groups = 1 : tensor<1x3x4x4xf32>, tensor<1x8x1x1xf32>
  return
}

// -----

// num_heads * head_dim beyond int64 (the [B, S, H * D] layout multiplies
// them).
func.func @attention_backward_heads_overflow(%q: tensor<2x16x64xf32>) {
  // expected-error @+1 {{num_heads * head_dim overflows int64}}
  %0 = rlx.attention_backward %q, %q, %q, %q {head_dim = 4611686018427387904 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<2x16x64xf32>
  return
}

// -----

func.func @resize_backward_dynamic(%dy: tensor<2x3x?x16xf32>) {
  // expected-error @+1 {{'rlx.resize_backward' op needs static positive resized dims: dy [2, 3, ?, 16] resizes its last 2}}
  %0 = rlx.resize_backward linear %dy to [4, 5] : tensor<2x3x?x16xf32>
  return
}

// -----

func.func @resize_backward_int(%dy: tensor<2x3x8xi32>) {
  // expected-error @+1 {{'rlx.resize_backward' op operand #0 must be}}
  %0 = rlx.resize_backward nearest %dy to [4] : tensor<2x3x8xi32>
  return
}
