// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @conv_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{input must be NCHW (rank 4), got [3, 8, 8]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x9xf32>) {
  // expected-error @+1 {{weight must be [C_out, C_in/groups, kH, kW] (rank 4), got [4, 3, 9]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x9xf32>
  return
}

// -----

func.func @conv_kernel_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kernel_size' must have 2 entries [kH, kW], got [3]}}
  %0 = rlx.conv %x, %w kernel_size = [3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_kernel_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x0x3xf32>) {
  // expected-error @+1 {{'kernel_size' entries must be >= 1, got [0, 3]}}
  %0 = rlx.conv %x, %w kernel_size = [0, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x0x3xf32>
  return
}

// -----

func.func @conv_stride_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'stride' must have 2 entries [sH, sW], got [1, 1, 1]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_stride_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'stride' entries must be >= 1, got [1, 0]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 0], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_padding_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'padding' must have 2 entries [pH, pW], got [1, 1, 1, 1]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1, 1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_padding_negative(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'padding' entries must be >= 0, got [-1, 0]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [-1, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_dilation_entries(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dilation' must have 2 entries [dH, dW], got []}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_dilation_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'dilation' entries must be >= 1, got [0, 1]}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [0, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'groups' must be >= 1, got 0}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 0 : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_groups_input(%x: tensor<1x6x8x8xf32>, %w: tensor<8x1x3x3xf32>) {
  // expected-error @+1 {{input channels C_in = 6 is not divisible by groups = 4}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 4 : tensor<1x6x8x8xf32>, tensor<8x1x3x3xf32>
  return
}

// -----

func.func @conv_groups_output(%x: tensor<1x6x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{output channels C_out (weight dim 0) = 4 is not divisible by groups = 3}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 3 : tensor<1x6x8x8xf32>, tensor<4x2x3x3xf32>
  return
}

// -----

func.func @conv_weight_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{weight [8, 3, 3, 3] has C_in/groups = 3 but input [1, 6, 8, 8] with groups = 1 needs 6}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x6x8x8xf32>, tensor<8x3x3x3xf32>
  return
}

// -----

func.func @conv_kernel_vs_weight(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{weight [8, 3, 3, 3] has kernel extents [3, 3] but kernel_size is [5, 5]}}
  %0 = rlx.conv %x, %w kernel_size = [5, 5], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>
  return
}

// -----

func.func @conv_window_too_large(%x: tensor<1x3x2x9xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{window does not fit: input [1, 3, 2, 9] with kernel_size [3, 3], stride [1, 1], padding [0, 0], dilation [1, 1] gives output size [0, 7]; each extent must be >= 1}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x2x9xf32>, tensor<8x3x3x3xf32>
  return
}

// -----

func.func @conv_dilated_window(%x: tensor<1x3x6x6xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{gives output size [-1, -1]; each extent must be >= 1}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [4, 4], groups = 1 : tensor<1x3x6x6xf32>, tensor<8x3x3x3xf32>
  return
}

// -----

func.func @conv_element_types(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf16>) {
  // expected-error @+1 {{all of {input, weight, result} have same element type}}
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf32>, tensor<8x3x3x3xf16>
  return
}

// -----

func.func @conv_integer(%x: tensor<1x3x8x8xi8>, %w: tensor<8x3x3x3xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.conv"(%x, %w) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x8x8xi8>, tensor<8x3x3x3xi8>) -> tensor<1x8x6x6xi8>
  return
}

// -----

func.func @conv_result_type(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x8x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x8x8x8xf32>'}}
  // expected-error @+1 {{'rlx.conv' op failed to infer returned types}}
  %0 = "rlx.conv"(%x, %w) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  return
}

// -----

func.func @conv_missing_attr(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>) {
  // expected-error @+1 {{requires attribute 'dilation'}}
  %0 = "rlx.conv"(%x, %w) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, groups = 1 : i64}> : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @im2col_rank(%x: tensor<4x8x8xf32>) {
  // expected-error @+1 {{input must be NCHW (rank 4), got [4, 8, 8]}}
  %0 = rlx.im2col %x kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1] : tensor<4x8x8xf32>
  return
}

// -----

func.func @im2col_dilation(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dilation' must have 2 entries [dH, dW], got [1]}}
  %0 = rlx.im2col %x kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1] : tensor<1x4x8x8xf32>
  return
}

// -----

func.func @im2col_window(%x: tensor<1x4x8x2xf32>) {
  // expected-error @+1 {{window does not fit: input [1, 4, 8, 2] with kernel_size [3, 3], stride [1, 1], padding [0, 0], dilation [1, 1] gives output size [6, 0]; each extent must be >= 1}}
  %0 = rlx.im2col %x kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1] : tensor<1x4x8x2xf32>
  return
}

// -----

func.func @im2col_result_type(%x: tensor<2x4x8x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<128x36xf32>' are incompatible with return type(s) of operation 'tensor<2x64x36xf32>'}}
  // expected-error @+1 {{'rlx.im2col' op failed to infer returned types}}
  %0 = "rlx.im2col"(%x) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}> : (tensor<2x4x8x8xf32>) -> tensor<2x64x36xf32>
  return
}

// -----

func.func @conv_transpose_input_rank(%x: tensor<16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{input must be NCHW (rank 4), got [16, 8, 8]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [1, 1], groups = 1 : tensor<16x8x8xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_weight_rank(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x9xf32>) {
  // expected-error @+1 {{weight must be [C_in, C_out/groups, kH, kW] (rank 4), got [16, 4, 9]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [1, 1], groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x9xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_entries(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'output_padding' entries must be >= 0, got [0, -1]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [0, -1], groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'output_padding' [2, 1] must be smaller than either stride [2, 2] or dilation [1, 1] in each dimension}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [2, 1], groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_groups(%x: tensor<1x6x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{input channels C_in = 6 is not divisible by groups = 4}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = 4 : tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x16x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{weight [8, 4, 3, 3] has C_in = 8 but input [1, 16, 8, 8] has C_in = 16}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = 1 : tensor<1x16x8x8xf32>, tensor<8x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_kernel(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{weight [16, 4, 3, 3] has kernel extents [3, 3] but kernel_size is [3, 2]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 2], stride = [1, 1], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_output_size(%x: tensor<1x16x1x1xf32>, %w: tensor<16x4x1x1xf32>) {
  // expected-error @+1 {{window does not fit: input [1, 16, 1, 1] with kernel_size [1, 1], stride [1, 1], padding [1, 1], dilation [1, 1], output_padding [0, 0] gives output size [-1, -1]; each extent must be >= 1}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [1, 1], stride = [1, 1], padding = [1, 1], dilation = [1, 1], output_padding = [0, 0], groups = 1 : tensor<1x16x1x1xf32>, tensor<16x4x1x1xf32>
  return
}

// -----

func.func @conv_transpose_result_type(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x16x16xf32>' are incompatible with return type(s) of operation 'tensor<1x4x15x15xf32>'}}
  // expected-error @+1 {{'rlx.conv_transpose2d' op failed to infer returned types}}
  %0 = "rlx.conv_transpose2d"(%x, %w) <{kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>) -> tensor<1x4x15x15xf32>
  return
}

// -----

func.func @pool_unknown_kind(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{unknown reduce kind 'avg', expected one of: sum, mean, max, min, prod}}
  %0 = rlx.pool avg %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_mean_integer(%x: tensor<1x3x8x8xi32>) {
  // expected-error @+1 {{pool 'mean' requires a floating-point element type, got 'i32'}}
  %0 = rlx.pool mean %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<1x3x8x8xi32>
  return
}

// -----

func.func @pool_unsigned(%x: tensor<1x3x8x8xui8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or signless integer values}}
  %0 = "rlx.pool"(%x) <{kind = #rlx.reduce<max>, kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>}> : (tensor<1x3x8x8xui8>) -> tensor<1x3x4x4xui8>
  return
}

// -----

func.func @pool_rank(%x: tensor<3x8x8xf32>) {
  // expected-error @+1 {{input must be NCHW (rank 4), got [3, 8, 8]}}
  %0 = rlx.pool max %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<3x8x8xf32>
  return
}

// -----

func.func @pool_stride_entries(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'stride' must have 2 entries [sH, sW], got [2]}}
  %0 = rlx.pool max %x kernel_size = [2, 2], stride = [2], padding = [0, 0] : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_padding_half(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{padding [2, 1] exceeds half of kernel_size [3, 3]; every window must overlap the input}}
  %0 = rlx.pool max %x kernel_size = [3, 3], stride = [1, 1], padding = [2, 1] : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x3x8x2xf32>) {
  // expected-error @+1 {{window does not fit: input [1, 3, 8, 2] with kernel_size [3, 3], stride [1, 1], padding [0, 0] gives output size [6, 0]; each extent must be >= 1}}
  %0 = rlx.pool sum %x kernel_size = [3, 3], stride = [1, 1], padding = [0, 0] : tensor<1x3x8x2xf32>
  return
}

// -----

func.func @pool_result_type(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x3x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x3x8x8xf32>'}}
  // expected-error @+1 {{'rlx.pool' op failed to infer returned types}}
  %0 = "rlx.pool"(%x) <{kind = #rlx.reduce<max>, kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>, padding = array<i64: 0, 0>}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  return
}

// -----

func.func @conv_transpose_groups_zero(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'groups' must be >= 1, got -1}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = -1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_output_padding_entries_count(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'output_padding' must have 2 entries [opH, opW], got [1]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [1], groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @pool_kernel_zero(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kernel_size' entries must be >= 1, got [2, 0]}}
  %0 = rlx.pool max %x kernel_size = [2, 0], stride = [2, 2], padding = [0, 0] : tensor<1x3x8x8xf32>
  return
}
