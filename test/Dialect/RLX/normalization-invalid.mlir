// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @layer_norm_rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.layer_norm' op input must have rank >= 1, got []}}
  %0 = rlx.layer_norm %x, %g, %g {axis = 0 : i64, eps = 1.0e-05 : f32} : tensor<f32>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @layer_norm_axis_high(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{axis 3 is out of range for input [4, 8, 16] of rank 3 (expected [-3, 2])}}
  %0 = rlx.layer_norm %x, %g, %g {axis = 3 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @layer_norm_axis_low(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{axis -4 is out of range for input [4, 8, 16] of rank 3 (expected [-3, 2])}}
  %0 = rlx.layer_norm %x, %g, %g {axis = -4 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @layer_norm_gamma(%x: tensor<4x8x16xf32>, %g: tensor<8xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{gamma must be [16] (C = dim 2 of input [4, 8, 16]), got [8]}}
  %0 = rlx.layer_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<8xf32>, tensor<16xf32>
  return
}

// -----

func.func @layer_norm_gamma_middle_axis(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{gamma must be [8] (C = dim 1 of input [4, 8, 16]), got [16]}}
  %0 = rlx.layer_norm %x, %g, %g {axis = 1 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @layer_norm_beta_rank(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{beta must be [16] (C = dim 2 of input [4, 8, 16]), got [1, 16]}}
  %0 = rlx.layer_norm %x, %g, %b {axis = 2 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @layer_norm_eps_negative(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.layer_norm %x, %g, %g {axis = -1 : i64, eps = -1.0 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @layer_norm_eps_inf(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.layer_norm %x, %g, %g {axis = -1 : i64, eps = 0x7F800000 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @layer_norm_element_types(%x: tensor<4x8x16xf32>, %g: tensor<16xf16>) {
  // expected-error @+1 {{all of {input, gamma, beta} have same element type}}
  %0 = rlx.layer_norm %x, %g, %g {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<16xf16>, tensor<16xf16>
  return
}

// -----

func.func @layer_norm_int(%x: tensor<4x16xi32>, %g: tensor<16xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.layer_norm"(%x, %g, %g) {axis = -1 : i64, eps = 1.0e-05 : f32} : (tensor<4x16xi32>, tensor<16xi32>, tensor<16xi32>) -> tensor<4x16xi32>
  return
}

// -----

func.func @layer_norm_result_type(%x: tensor<4x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{all of {input, result} have same type}}
  %0 = "rlx.layer_norm"(%x, %g, %g) {axis = -1 : i64, eps = 1.0e-05 : f32} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @layer_norm_missing_eps(%x: tensor<4x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{requires attribute 'eps'}}
  %0 = "rlx.layer_norm"(%x, %g, %g) {axis = -1 : i64} : (tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @rms_norm_rank0(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.rms_norm' op input must have rank >= 1, got []}}
  %0 = rlx.rms_norm %x, %g, %g {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<f32>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @rms_norm_axis(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'rlx.rms_norm' op axis 5 is out of range for input [4, 8, 16] of rank 3 (expected [-3, 2])}}
  %0 = rlx.rms_norm %x, %g, %g {axis = 5 : i64, eps = 1.0e-06 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @rms_norm_gamma(%x: tensor<4x8x16xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{gamma must be [8] (C = dim 1 of input [4, 8, 16]), got [4]}}
  %0 = rlx.rms_norm %x, %g, %b {axis = -2 : i64, eps = 1.0e-06 : f32} : tensor<4x8x16xf32>, tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_beta(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>, %b: tensor<17xf32>) {
  // expected-error @+1 {{beta must be [16] (C = dim 2 of input [4, 8, 16]), got [17]}}
  %0 = rlx.rms_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<17xf32>
  return
}

// -----

func.func @rms_norm_eps(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'rlx.rms_norm' op attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.rms_norm %x, %g, %g {axis = -1 : i64, eps = -1.0e-06 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @rms_norm_element_types(%x: tensor<4x8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xbf16>) {
  // expected-error @+1 {{all of {input, gamma, beta} have same element type}}
  %0 = rlx.rms_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xbf16>
  return
}

// -----

func.func @group_norm_rank(%x: tensor<2x32x64xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{'rlx.group_norm' op input must be NCHW (rank 4), got [2, 32, 64]}}
  %0 = rlx.group_norm %x, %g, %g {num_groups = 8 : i64, eps = 1.0e-05 : f32} : tensor<2x32x64xf32>, tensor<32xf32>, tensor<32xf32>
  return
}

// -----

func.func @group_norm_zero_groups(%x: tensor<2x32x8x8xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{attribute 'num_groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.group_norm %x, %g, %g {num_groups = 0 : i64, eps = 1.0e-05 : f32} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
  return
}

// -----

func.func @group_norm_divides(%x: tensor<2x32x8x8xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{num_groups = 5 does not divide the channel count C = 32 of input [2, 32, 8, 8]}}
  %0 = rlx.group_norm %x, %g, %g {num_groups = 5 : i64, eps = 1.0e-05 : f32} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
  return
}

// -----

func.func @group_norm_gamma(%x: tensor<2x32x8x8xf32>, %g: tensor<8xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{gamma must be [32] (C = dim 1 of input [2, 32, 8, 8]), got [8]}}
  %0 = rlx.group_norm %x, %g, %b {num_groups = 8 : i64, eps = 1.0e-05 : f32} : tensor<2x32x8x8xf32>, tensor<8xf32>, tensor<32xf32>
  return
}

// -----

func.func @group_norm_beta(%x: tensor<2x32x8x8xf32>, %g: tensor<32xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{beta must be [32] (C = dim 1 of input [2, 32, 8, 8]), got [8]}}
  %0 = rlx.group_norm %x, %g, %b {num_groups = 8 : i64, eps = 1.0e-05 : f32} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<8xf32>
  return
}

// -----

func.func @group_norm_eps(%x: tensor<2x32x8x8xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{'rlx.group_norm' op attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.group_norm %x, %g, %g {num_groups = 8 : i64, eps = 0x7FC00000 : f32} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
  return
}

// -----

func.func @layer_norm2d_rank(%x: tensor<8x16x16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'rlx.layer_norm2d' op input must be NCHW (rank 4), got [8, 16, 16]}}
  %0 = rlx.layer_norm2d %x, %g, %g {eps = 1.0e-06 : f32} : tensor<8x16x16xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm2d_gamma_is_channels(%x: tensor<1x8x4x16xf32>, %g: tensor<16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{gamma must be [8] (C = dim 1 of input [1, 8, 4, 16]), got [16]}}
  %0 = rlx.layer_norm2d %x, %g, %b {eps = 1.0e-06 : f32} : tensor<1x8x4x16xf32>, tensor<16xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm2d_beta(%x: tensor<1x8x4x16xf32>, %g: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{beta must be [8] (C = dim 1 of input [1, 8, 4, 16]), got [4]}}
  %0 = rlx.layer_norm2d %x, %g, %b {eps = 1.0e-06 : f32} : tensor<1x8x4x16xf32>, tensor<8xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm2d_eps(%x: tensor<1x8x4x16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'rlx.layer_norm2d' op attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.layer_norm2d %x, %g, %g {eps = -0.5 : f32} : tensor<1x8x4x16xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_rank0(%x: tensor<f32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'rlx.batch_norm_inference' op input must have rank >= 1 ([..., C]), got []}}
  %0 = rlx.batch_norm_inference %x, %s, %s, %s, %s {eps = 1.0e-05 : f32} : tensor<f32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @batch_norm_gamma_is_last_dim(%x: tensor<8x3x4x4xf32>, %s0: tensor<3xf32>, %s1: tensor<4xf32>, %s2: tensor<4xf32>, %s3: tensor<4xf32>) {
  // expected-error @+1 {{gamma must be [4] (C = last dim of input [8, 3, 4, 4]), got [3]}}
  %0 = rlx.batch_norm_inference %x, %s0, %s1, %s2, %s3 {eps = 1.0e-05 : f32} : tensor<8x3x4x4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_beta(%x: tensor<8x3x4x4xf32>, %s0: tensor<4xf32>, %s1: tensor<3xf32>, %s2: tensor<4xf32>, %s3: tensor<4xf32>) {
  // expected-error @+1 {{beta must be [4] (C = last dim of input [8, 3, 4, 4]), got [3]}}
  %0 = rlx.batch_norm_inference %x, %s0, %s1, %s2, %s3 {eps = 1.0e-05 : f32} : tensor<8x3x4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_running_mean(%x: tensor<8x3x4x4xf32>, %s0: tensor<4xf32>, %s1: tensor<4xf32>, %s2: tensor<4x1xf32>, %s3: tensor<4xf32>) {
  // expected-error @+1 {{running_mean must be [4] (C = last dim of input [8, 3, 4, 4]), got [4, 1]}}
  %0 = rlx.batch_norm_inference %x, %s0, %s1, %s2, %s3 {eps = 1.0e-05 : f32} : tensor<8x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_running_var(%x: tensor<8x3x4x4xf32>, %s0: tensor<4xf32>, %s1: tensor<4xf32>, %s2: tensor<4xf32>, %s3: tensor<8xf32>) {
  // expected-error @+1 {{running_var must be [4] (C = last dim of input [8, 3, 4, 4]), got [8]}}
  %0 = rlx.batch_norm_inference %x, %s0, %s1, %s2, %s3 {eps = 1.0e-05 : f32} : tensor<8x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_element_types(%x: tensor<8x3x4x4xf32>, %s0: tensor<4xf32>, %s1: tensor<4xf32>, %s2: tensor<4xf32>, %s3: tensor<4xf64>) {
  // expected-error @+1 {{all of {input, gamma, beta, running_mean, running_var} have same element type}}
  %0 = rlx.batch_norm_inference %x, %s0, %s1, %s2, %s3 {eps = 1.0e-05 : f32} : tensor<8x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func @batch_norm_eps(%x: tensor<8x3x4x4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.batch_norm_inference' op attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.batch_norm_inference %x, %s, %s, %s, %s {eps = 0xFF800000 : f32} : tensor<8x3x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<3x4x5xf32>) {
  // expected-error @+1 {{'rlx.resize_nearest2x' op input must be NCHW (rank 4), got [3, 4, 5]}}
  %0 = rlx.resize_nearest2x %x : tensor<3x4x5xf32>
  return
}

// -----

func.func @resize_result_shape(%x: tensor<1x3x4x5xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x8x10xf32>' are incompatible with return type(s) of operation 'tensor<1x3x4x5xf32>'}}
  // expected-error @+1 {{'rlx.resize_nearest2x' op failed to infer returned types}}
  %0 = "rlx.resize_nearest2x"(%x) : (tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  return
}

// -----

func.func @resize_unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor}}
  %0 = "rlx.resize_nearest2x"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

// Doubling a spatial dim beyond int64.
func.func @resize_nearest2x_overflow(%x: tensor<1x2x4611686018427387904x3xf32>) {
  // expected-error @+1 {{'rlx.resize_nearest2x' op output size overflows 64 bits: input [1, 2, 4611686018427387904, 3] doubles dim 2}}
  %0 = rlx.resize_nearest2x %x : tensor<1x2x4611686018427387904x3xf32>
  return
}

// -----

func.func @resize_no_sizes(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op resizes 1 to 3 trailing dims, got 0 sizes}}
  %0 = rlx.resize nearest %x to [] : tensor<1x3x4x4xf32>
  return
}

// -----

func.func @resize_four_dims(%x: tensor<1x3x4x4x4x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op resizes 1 to 3 trailing dims, got 4 sizes}}
  %0 = rlx.resize nearest %x to [2, 2, 2, 2] : tensor<1x3x4x4x4x4xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.resize' op has 2 sizes but input [4] has rank 1}}
  %0 = rlx.resize nearest %x to [2, 2] : tensor<4xf32>
  return
}

// -----

func.func @resize_zero_size(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op sizes must be positive, got [0, 2]}}
  %0 = rlx.resize nearest %x to [0, 2] : tensor<1x3x4x4xf32>
  return
}

// -----

func.func @resize_scales_count(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op has 1 scales for 2 resized dims}}
  %0 = rlx.resize nearest %x to [8, 8] {scales = array<f64: 2.0>} : tensor<1x3x4x4xf32>
  return
}

// -----

func.func @resize_negative_scale(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op scales must be positive and finite, got -2}}
  %0 = rlx.resize nearest %x to [8, 8] {scales = array<f64: 2.0, -2.0>} : tensor<1x3x4x4xf32>
  return
}

// -----

func.func @resize_align_nearest(%x: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op align_corners applies to linear and cubic modes only, not nearest}}
  %0 = rlx.resize nearest %x to [8, 8] {align_corners} : tensor<1x3x4x4xf32>
  return
}

// -----

func.func @resize_dynamic(%x: tensor<1x3x?x4xf32>) {
  // expected-error @+1 {{'rlx.resize' op needs static positive resized dims: input [1, 3, ?, 4] resizes its last 2}}
  %0 = rlx.resize linear %x to [8, 8] : tensor<1x3x?x4xf32>
  return
}

// -----

func.func @resize_linear_int(%x: tensor<1x3x4x4xi32>) {
  // expected-error @+1 {{'rlx.resize' op linear mode needs a floating-point input, got 'i32'}}
  %0 = rlx.resize linear %x to [8, 8] : tensor<1x3x4x4xi32>
  return
}

// -----

func.func @resize_cubic_int(%x: tensor<1x3x4x4xi8>) {
  // expected-error @+1 {{'rlx.resize' op cubic mode needs a floating-point input, got 'i8'}}
  %0 = rlx.resize cubic %x to [8, 8] : tensor<1x3x4x4xi8>
  return
}
