// RUN: rlx-opt %s -split-input-file -verify-diagnostics

// A window that does not fit fails type inference with the op's own
// message: no type with negative dims is built, so a later use of the
// result does not report a mismatch against `tensor<1x6x-2x-2xf32>`.

func.func @conv_window_does_not_fit(%x: tensor<1x3x2x2xf32>, %w: tensor<6x3x5x5xf32>) -> tensor<1x6x1x1xf32> {
  // expected-error @+1 {{'rlx.conv' op window does not fit: input [1, 3, 2, 2] with kernel_size [5, 5], stride [1, 1], padding [0, 0], dilation [1, 1] gives output size [-2, -2]; each extent must be >= 1}}
  %0 = rlx.conv %x, %w kernel_size = [5, 5], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x3x2x2xf32>, tensor<6x3x5x5xf32>
  return %0 : tensor<1x6x1x1xf32>
}

// -----

// The row count would be N * H_out * W_out = 2 * -2 * -2, a positive 8.
func.func @im2col_window_does_not_fit(%x: tensor<2x3x2x2xf32>) -> tensor<8x75xf32> {
  // expected-error @+1 {{'rlx.im2col' op window does not fit: input [2, 3, 2, 2] with kernel_size [5, 5], stride [1, 1], padding [0, 0], dilation [1, 1] gives output size [-2, -2]; each extent must be >= 1}}
  %0 = rlx.im2col %x kernel_size = [5, 5], stride = [1, 1], padding = [0, 0], dilation = [1, 1] : tensor<2x3x2x2xf32>
  return %0 : tensor<8x75xf32>
}

// -----

func.func @pool_window_does_not_fit(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x1x1xf32> {
  // expected-error @+1 {{'rlx.pool' op window does not fit: input [1, 3, 2, 2] with kernel_size [5, 5], stride [1, 1], padding [0, 0] gives output size [-2, -2]; each extent must be >= 1}}
  %0 = rlx.pool max %x kernel_size = [5, 5], stride = [1, 1], padding = [0, 0] : tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// -----

func.func @conv_transpose_window_does_not_fit(%x: tensor<1x3x1x1xf32>, %w: tensor<3x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  // expected-error @+1 {{'rlx.conv_transpose2d' op window does not fit: input [1, 3, 1, 1] with kernel_size [1, 1], stride [1, 1], padding [2, 2], dilation [1, 1], output_padding [0, 0] gives output size [-3, -3]; each extent must be >= 1}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [1, 1], stride = [1, 1], padding = [2, 2], dilation = [1, 1], output_padding = [0, 0], groups = 1 : tensor<1x3x1x1xf32>, tensor<3x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

// The generic form states the result type; inference fails the same way.
func.func @conv_generic_window_does_not_fit(%x: tensor<1x3x2x2xf32>, %w: tensor<6x3x5x5xf32>) -> tensor<1x6x1x1xf32> {
  // expected-error @+1 {{'rlx.conv' op window does not fit: input [1, 3, 2, 2]}}
  %0 = "rlx.conv"(%x, %w) <{kernel_size = array<i64: 5, 5>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x2x2xf32>, tensor<6x3x5x5xf32>) -> tensor<1x6x1x1xf32>
  return %0 : tensor<1x6x1x1xf32>
}

// -----

// Extents too large for 64 bits (found by rlx-fuzz-ir: the products and
// sums overflowed, undefined behaviour): an error, never a wrapped dim.
func.func @conv_transpose_channels_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<4x9223372036854775806x3x3xf32>) {
  // expected-error @+1 {{'rlx.conv_transpose2d' op result dims overflow 64 bits: [1, 9223372036854775807, 17, 17]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = 2 : tensor<1x4x8x8xf32>, tensor<4x9223372036854775806x3x3xf32>
  return
}

// -----

func.func @im2col_rows_overflow(%x: tensor<4611686018427387904x3x4x4xf32>) {
  // expected-error @+1 {{'rlx.im2col' op result dims overflow 64 bits: [9223372036854775807, 27]}}
  %0 = rlx.im2col %x kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1] : tensor<4611686018427387904x3x4x4xf32>
  return
}

// -----

func.func @conv_padding_overflow(%x: tensor<1x3x9223372036854775806x8xf32>, %w: tensor<6x3x1x1xf32>) {
  // expected-error @+1 {{'rlx.conv' op output size overflows 64 bits: input [1, 3, 9223372036854775806, 8] with kernel_size [1, 1], stride [1, 1], padding [4611686018427387904, 0], dilation [1, 1]}}
  %0 = rlx.conv %x, %w kernel_size = [1, 1], stride = [1, 1], padding = [4611686018427387904, 0], dilation = [1, 1], groups = 1 : tensor<1x3x9223372036854775806x8xf32>, tensor<6x3x1x1xf32>
  return
}

// -----

func.func @conv_transpose_size_overflow(%x: tensor<1x4x4611686018427387904x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'rlx.conv_transpose2d' op output size overflows 64 bits: input [1, 4, 4611686018427387904, 8] with kernel_size [3, 3], stride [4, 4], padding [0, 0], dilation [1, 1]}}
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [4, 4], padding = [0, 0], dilation = [1, 1], output_padding = [0, 0], groups = 1 : tensor<1x4x4611686018427387904x8xf32>, tensor<4x2x3x3xf32>
  return
}
