// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @fft
func.func @fft(%x: tensor<4x512xf32>, %d: tensor<2x?xf64>, %z: tensor<4x256xcomplex<f32>>) -> (tensor<4x512xf32>, tensor<4x512xf32>, tensor<2x?xf64>, tensor<4x256xcomplex<f32>>, tensor<4x256xcomplex<f32>>) {
  // CHECK: rlx.fft %{{.*}} : tensor<4x512xf32>
  %0 = rlx.fft %x : tensor<4x512xf32>
  // CHECK: rlx.fft inverse %{{.*}} {norm = #rlx.fft_norm<forward>} : tensor<4x512xf32>
  %1 = rlx.fft inverse %x {norm = #rlx.fft_norm<forward>} : tensor<4x512xf32>
  // CHECK: rlx.fft %{{.*}} {norm = #rlx.fft_norm<ortho>} : tensor<2x?xf64>
  %2 = rlx.fft %d {norm = #rlx.fft_norm<ortho>} : tensor<2x?xf64>
  // CHECK: rlx.fft inverse %{{.*}} {norm = #rlx.fft_norm<ortho>} : tensor<4x256xcomplex<f32>>
  %3 = rlx.fft inverse %z {norm = #rlx.fft_norm<ortho>} : tensor<4x256xcomplex<f32>>
  // An explicit default norm is accepted and printed without the attribute.
  // CHECK: rlx.fft %{{.*}} : tensor<4x256xcomplex<f32>>
  %4 = rlx.fft %z {norm = #rlx.fft_norm<backward>} : tensor<4x256xcomplex<f32>>
  return %0, %1, %2, %3, %4 : tensor<4x512xf32>, tensor<4x512xf32>, tensor<2x?xf64>, tensor<4x256xcomplex<f32>>, tensor<4x256xcomplex<f32>>
}

// CHECK-LABEL: func.func @fft_butterfly_stage
func.func @fft_butterfly_stage(%s: tensor<2x8x2xf32>, %gate: tensor<4xi1>, %rev: tensor<4xi1>,
                               %twr: tensor<4xf32>, %twi: tensor<4xf32>) -> tensor<2x8x2xf32> {
  // CHECK: rlx.fft_butterfly_stage %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} stage = 2 n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<4xf32>
  %0 = rlx.fft_butterfly_stage %s, %gate, %rev, %twr, %twi stage = 2 n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<4xf32>
  return %0 : tensor<2x8x2xf32>
}

// CHECK-LABEL: func.func @log_mel
func.func @log_mel(%spec: tensor<3000x800xf32>, %fb: tensor<80x201xf32>, %dy: tensor<3000x80xf32>,
                   %s2: tensor<2x5x18xf64>, %fb2: tensor<3x5xf64>)
    -> (tensor<3000x80xf32>, tensor<3000x800xf32>, tensor<2x5x3xf64>) {
  // CHECK: rlx.log_mel %{{.*}}, %{{.*}} : tensor<3000x800xf32>, tensor<80x201xf32>
  %0 = rlx.log_mel %spec, %fb : tensor<3000x800xf32>, tensor<80x201xf32>
  // CHECK: rlx.log_mel_backward %{{.*}}, %{{.*}}, %{{.*}} : tensor<3000x800xf32>, tensor<80x201xf32>, tensor<3000x80xf32>
  %1 = rlx.log_mel_backward %spec, %fb, %dy : tensor<3000x800xf32>, tensor<80x201xf32>, tensor<3000x80xf32>
  // Odd n_fft = 9: n_fft / 2 + 1 = 5 bins.
  // CHECK: rlx.log_mel %{{.*}}, %{{.*}} : tensor<2x5x18xf64>, tensor<3x5xf64>
  %2 = rlx.log_mel %s2, %fb2 : tensor<2x5x18xf64>, tensor<3x5xf64>
  return %0, %1, %2 : tensor<3000x80xf32>, tensor<3000x800xf32>, tensor<2x5x3xf64>
}

// CHECK-LABEL: func.func @complex_helpers
func.func @complex_helpers(%z: tensor<4x8xcomplex<f32>>, %g: tensor<4x8xf32>, %zd: tensor<?xcomplex<f32>>)
    -> (tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>, tensor<?xf32>) {
  // CHECK: rlx.complex_norm_sq %{{.*}} : tensor<4x8xcomplex<f32>>
  %0 = rlx.complex_norm_sq %z : tensor<4x8xcomplex<f32>>
  // CHECK: rlx.conjugate %{{.*}} : tensor<4x8xcomplex<f32>>
  %1 = rlx.conjugate %z : tensor<4x8xcomplex<f32>>
  // CHECK: rlx.complex_norm_sq_backward %{{.*}}, %{{.*}} : tensor<4x8xcomplex<f32>>, tensor<4x8xf32>
  %2 = rlx.complex_norm_sq_backward %z, %g : tensor<4x8xcomplex<f32>>, tensor<4x8xf32>
  // CHECK: rlx.complex_norm_sq %{{.*}} : tensor<?xcomplex<f32>>
  %3 = rlx.complex_norm_sq %zd : tensor<?xcomplex<f32>>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>, tensor<?xf32>
}
