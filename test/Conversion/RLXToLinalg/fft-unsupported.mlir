// RUN: not rlx-opt %s --convert-rlx-to-linalg --split-input-file 2>&1 | FileCheck %s

// The transform length must be static (the twiddle tables are constants).
// CHECK: error: 'rlx.fft' op the CPU lowering needs a static transform length (last axis)
func.func @fft_dynamic_length(%x: tensor<4x?xcomplex<f32>>) -> tensor<4x?xcomplex<f32>> {
  %0 = rlx.fft %x : tensor<4x?xcomplex<f32>>
  return %0 : tensor<4x?xcomplex<f32>>
}

// -----

// CHECK: error: 'rlx.log_mel' op the CPU lowering needs a static spectrum last axis (2 * n_fft)
func.func @log_mel_dynamic_spectrum(%s: tensor<3x?xf32>, %f: tensor<4x5xf32>) -> tensor<3x4xf32> {
  %0 = rlx.log_mel %s, %f : tensor<3x?xf32>, tensor<4x5xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK: error: 'rlx.log_mel_backward' op the CPU lowering needs a static spectrum last axis (2 * n_fft)
func.func @log_mel_backward_dynamic_spectrum(%s: tensor<3x?xf32>, %f: tensor<4x5xf32>, %dy: tensor<3x4xf32>) -> tensor<3x?xf32> {
  %0 = rlx.log_mel_backward %s, %f, %dy : tensor<3x?xf32>, tensor<4x5xf32>, tensor<3x4xf32>
  return %0 : tensor<3x?xf32>
}
