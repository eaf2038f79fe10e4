// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @quantize_per_tensor
func.func @quantize_per_tensor(%x: tensor<8x2xf32>) -> (tensor<8x2xi8>, tensor<8x2xf32>) {
  // CHECK: %[[Q:.*]] = rlx.quantize %{{.*}} scales = [5.000000e-01] zero_points = [3] : tensor<8x2xf32>
  %q = rlx.quantize %x scales = [0.5] zero_points = [3] : tensor<8x2xf32>
  // CHECK: rlx.dequantize %[[Q]] scales = [5.000000e-01] zero_points = [3] : tensor<8x2xi8>
  %x2 = rlx.dequantize %q scales = [0.5] zero_points = [3] : tensor<8x2xi8>
  return %q, %x2 : tensor<8x2xi8>, tensor<8x2xf32>
}

// CHECK-LABEL: func.func @quantize_per_channel
func.func @quantize_per_channel(%x: tensor<8x2xf32>, %d: tensor<?x3xf32>)
    -> (tensor<8x2xi8>, tensor<8x2xf32>, tensor<?x3xi8>, tensor<?x3xf32>) {
  // CHECK: rlx.quantize %{{.*}} axis = 1 scales = [5.000000e-01, 2.500000e-01] zero_points = [0, -3] : tensor<8x2xf32>
  %q = rlx.quantize %x axis = 1 scales = [0.5, 0.25] zero_points = [0, -3] : tensor<8x2xf32>
  // CHECK: rlx.dequantize %{{.*}} axis = -1 scales = [5.000000e-01, 2.500000e-01] zero_points = [0] : tensor<8x2xi8>
  %x2 = rlx.dequantize %q axis = -1 scales = [0.5, 0.25] zero_points = [0] : tensor<8x2xi8>
  // A dynamic channel dim takes shared or per-channel entries.
  // CHECK: rlx.quantize %{{.*}} axis = 0 scales = [1.000000e+00, 2.000000e+00] zero_points = [127] : tensor<?x3xf32>
  %q2 = rlx.quantize %d axis = 0 scales = [1.0, 2.0] zero_points = [127] : tensor<?x3xf32>
  // CHECK: rlx.dequantize %{{.*}} axis = 1 scales = [1.000000e+00, 2.000000e+00, 3.000000e+00] zero_points = [-128, 0, 1] : tensor<?x3xi8>
  %x3 = rlx.dequantize %q2 axis = 1 scales = [1.0, 2.0, 3.0] zero_points = [-128, 0, 1] : tensor<?x3xi8>
  return %q, %x2, %q2, %x3 : tensor<8x2xi8>, tensor<8x2xf32>, tensor<?x3xi8>, tensor<?x3xf32>
}

// CHECK-LABEL: func.func @fake_quantize_modes
func.func @fake_quantize_modes(%x: tensor<16x4xf32>, %s: tensor<4xf32>, %s1: tensor<1xf32>,
                               %h: tensor<2x3xf16>) -> (tensor<16x4xf32>, tensor<16x4xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<16x4xf32>, tensor<2x3xf16>) {
  // CHECK: rlx.fake_quantize %{{.*}} bits = 8 : tensor<16x4xf32>
  %0 = rlx.fake_quantize %x bits = 8 : tensor<16x4xf32>
  // CHECK: rlx.fake_quantize %{{.*}} bits = 4 axis = 1 {ste = #rlx.ste<clipped_identity>} : tensor<16x4xf32>
  %1 = rlx.fake_quantize %x bits = 4 axis = 1 {scale_mode = #rlx.scale_mode<per_batch>, ste = #rlx.ste<clipped_identity>} : tensor<16x4xf32>
  // CHECK: %{{.*}}, %{{.*}} = rlx.fake_quantize %{{.*}} bits = 2 axis = 1 state %{{.*}} : tensor<4xf32> {ema_decay = 9.900000e-01 : f32, scale_mode = #rlx.scale_mode<ema>, ste = #rlx.ste<tanh>} : tensor<16x4xf32>
  %2:2 = rlx.fake_quantize %x bits = 2 axis = 1 state %s : tensor<4xf32> {ema_decay = 0.99 : f32, scale_mode = #rlx.scale_mode<ema>, ste = #rlx.ste<tanh>} : tensor<16x4xf32>
  // CHECK: rlx.fake_quantize %{{.*}} bits = 8 state %{{.*}} : tensor<1xf32> {scale_mode = #rlx.scale_mode<fixed>, ste = #rlx.ste<hard_tanh>} : tensor<16x4xf32>
  %3 = rlx.fake_quantize %x bits = 8 state %s1 : tensor<1xf32> {scale_mode = #rlx.scale_mode<fixed>, ste = #rlx.ste<hard_tanh>} : tensor<16x4xf32>
  // CHECK: rlx.fake_quantize %{{.*}} bits = 4 axis = -2 : tensor<2x3xf16>
  %4 = rlx.fake_quantize %h bits = 4 axis = -2 : tensor<2x3xf16>
  return %0, %1, %2#0, %2#1, %3, %4 : tensor<16x4xf32>, tensor<16x4xf32>, tensor<16x4xf32>, tensor<4xf32>, tensor<16x4xf32>, tensor<2x3xf16>
}

// CHECK-LABEL: func.func @lsq
func.func @lsq(%x: tensor<16x8xf32>, %s: tensor<8xf32>, %s1: tensor<1xf32>, %dy: tensor<16x8xf32>)
    -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<1xf32>) {
  // CHECK: rlx.fake_quantize_lsq %{{.*}}, %{{.*}} bits = 2 axis = 1 : tensor<16x8xf32>, tensor<8xf32>
  %0 = rlx.fake_quantize_lsq %x, %s bits = 2 axis = 1 : tensor<16x8xf32>, tensor<8xf32>
  // CHECK: rlx.fake_quantize_lsq %{{.*}}, %{{.*}} bits = 8 : tensor<16x8xf32>, tensor<1xf32>
  %1 = rlx.fake_quantize_lsq %x, %s1 bits = 8 : tensor<16x8xf32>, tensor<1xf32>
  // CHECK: rlx.fake_quantize_lsq_backward_x %{{.*}}, %{{.*}}, %{{.*}} bits = 4 axis = 1 : tensor<16x8xf32>, tensor<8xf32>, tensor<16x8xf32>
  %2 = rlx.fake_quantize_lsq_backward_x %x, %s, %dy bits = 4 axis = 1 : tensor<16x8xf32>, tensor<8xf32>, tensor<16x8xf32>
  // CHECK: rlx.fake_quantize_lsq_backward_scale %{{.*}}, %{{.*}}, %{{.*}} bits = 4 axis = 1 : tensor<16x8xf32>, tensor<8xf32>, tensor<16x8xf32>
  %3 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 4 axis = 1 : tensor<16x8xf32>, tensor<8xf32>, tensor<16x8xf32>
  // CHECK: rlx.fake_quantize_lsq_backward_scale %{{.*}}, %{{.*}}, %{{.*}} bits = 8 : tensor<16x8xf32>, tensor<1xf32>, tensor<16x8xf32>
  %4 = rlx.fake_quantize_lsq_backward_scale %x, %s1, %dy bits = 8 : tensor<16x8xf32>, tensor<1xf32>, tensor<16x8xf32>
  // CHECK: return {{.*}} : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<1xf32>
  return %0, %1, %2, %3, %4 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8xf32>, tensor<1xf32>
}

// CHECK-LABEL: func.func @fake_quantize_backward
func.func @fake_quantize_backward(%x: tensor<16x8xf32>, %dy: tensor<16x8xf32>, %b: tensor<?xbf16>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<?xbf16>) {
  // CHECK: rlx.fake_quantize_backward %{{.*}}, %{{.*}} bits = 8 ste = identity : tensor<16x8xf32>, tensor<16x8xf32>
  %0 = rlx.fake_quantize_backward %x, %dy bits = 8 ste = identity : tensor<16x8xf32>, tensor<16x8xf32>
  // CHECK: rlx.fake_quantize_backward %{{.*}}, %{{.*}} bits = 4 axis = 0 ste = clipped_identity : tensor<16x8xf32>, tensor<16x8xf32>
  %1 = rlx.fake_quantize_backward %x, %dy bits = 4 axis = 0 ste = clipped_identity : tensor<16x8xf32>, tensor<16x8xf32>
  // CHECK: rlx.fake_quantize_backward %{{.*}}, %{{.*}} bits = 2 ste = tanh : tensor<16x8xf32>, tensor<16x8xf32>
  %2 = rlx.fake_quantize_backward %x, %dy bits = 2 ste = tanh : tensor<16x8xf32>, tensor<16x8xf32>
  // CHECK: rlx.fake_quantize_backward %{{.*}}, %{{.*}} bits = 2 axis = -1 ste = hard_tanh : tensor<?xbf16>, tensor<?xbf16>
  %3 = rlx.fake_quantize_backward %b, %b bits = 2 axis = -1 ste = hard_tanh : tensor<?xbf16>, tensor<?xbf16>
  return %0, %1, %2, %3 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<?xbf16>
}
