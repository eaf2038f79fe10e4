// RUN: not rlx-opt %s --convert-rlx-to-linalg --split-input-file 2>&1 | FileCheck %s

// A verified type may hold more elements than int64 counts; the lowerings
// count elements, rows and window products of their operands, so such an
// op is reported before any pattern runs (found by rlx-fuzz-to-linalg under
// UBSan: a q_conv2d's C_in * kH * kW overflowed). A zero dim does not
// count: the product is over the non-zero static dims.

// CHECK: error: 'rlx.q_conv2d' has a value of type 'tensor<1x4611686018427387904x4x4xi8>' whose static dims multiply past 2^63 - 1: the lowering cannot count its elements
func.func @q_conv2d_huge_weight(%x: tensor<1x4611686018427387904x4x4xi8>, %w: tensor<3x4611686018427387904x3x3xi8>, %b: tensor<3xi32>) -> tensor<1x3x4x4xi8> {
  %0 = rlx.q_conv2d %x, %w, %b {dilation = array<i64: 1, 1>, groups = 1 : i64, kernel_size = array<i64: 3, 3>, mult = 0.01 : f32, out_zp = 0 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, w_zp = 0 : i64, x_zp = 0 : i64} : tensor<1x4611686018427387904x4x4xi8>, tensor<3x4611686018427387904x3x3xi8>, tensor<3xi32>
  return %0 : tensor<1x3x4x4xi8>
}

// -----

// CHECK: error: 'rlx.activation' has a value of type 'tensor<0x4294967296x4294967296xf32>'
func.func @empty_but_huge(%x: tensor<0x4294967296x4294967296xf32>) -> tensor<0x4294967296x4294967296xf32> {
  %0 = rlx.activation relu %x : tensor<0x4294967296x4294967296xf32>
  return %0 : tensor<0x4294967296x4294967296xf32>
}

// -----

// A static length that is not a power of two takes Bluestein's FFT, whose
// padded length must fit in int64 (found by rlx-fuzz-to-linalg under UBSan).
// CHECK: error: 'rlx.fft' op the CPU lowering transforms lengths that are not powers of two up to 2^61, got N = 9223372036854775806
func.func @fft_too_long(%x: tensor<1x9223372036854775806xcomplex<f32>>) -> tensor<1x9223372036854775806xcomplex<f32>> {
  %0 = rlx.fft %x : tensor<1x9223372036854775806xcomplex<f32>>
  return %0 : tensor<1x9223372036854775806xcomplex<f32>>
}
