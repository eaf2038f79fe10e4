// RUN: rlx-opt %s --split-input-file --rlx-jvp="func=f" | FileCheck %s

// Forward mode of the rules that do not run on the CPU yet.

// dequant_matmul: the op on t_x plus `x t_W`, with t_W the scale's tangent
// repeated over its block's rows times the weight decoded with unit scales.
// CHECK-LABEL: func.func @f_jvp(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x6xf32> {rlx.param = "x"}, %[[W:[^:]*]]: tensor<6x3xi8> {rlx.input = "w"}, %[[S:[^:]*]]: tensor<2x3xf32> {rlx.param = "s"}, %[[TX:[^:]*]]: tensor<2x6xf32> {rlx.input = "t_x"}, %[[TS:[^:]*]]: tensor<2x3xf32> {rlx.input = "t_s"})
// CHECK: %[[Y:.*]] = rlx.dequant_matmul int8_block block_size = 4 %[[X]], %[[W]] scale %[[S]]
// CHECK: %[[ONES:.*]] = rlx.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK: %[[U:.*]] = rlx.dequant_matmul int8_block block_size = 4 %{{.*}}, %[[W]] scale %[[ONES]] : tensor<2x3xf32> : tensor<6x6xf32>, tensor<6x3xi8>
// CHECK: %[[TS3:.*]] = rlx.reshape %[[TS]] new_shape = [2, 1, 3]
// CHECK: %[[TSR:.*]] = rlx.narrow %{{.*}} axis = 0 start = 0 len = 6 : tensor<8x3xf32>
// CHECK: %[[TW:.*]] = rlx.binary mul %[[U]], %[[TSR]]
// CHECK: %[[T1:.*]] = rlx.dequant_matmul int8_block block_size = 4 %[[TX]], %[[W]] scale %[[S]]
// CHECK: %[[T2:.*]] = rlx.matmul %[[X]], %[[TW]]
// CHECK: %[[T:.*]] = rlx.binary add %[[T1]], %[[T2]]
// CHECK: return %[[Y]], %[[T]]
func.func @f(%x: tensor<2x6xf32> {rlx.param = "x"}, %w: tensor<6x3xi8> {rlx.input = "w"},
             %s: tensor<2x3xf32> {rlx.param = "s"}) -> tensor<2x3xf32> {
  %y = rlx.dequant_matmul int8_block block_size = 4 %x, %w scale %s : tensor<2x3xf32> : tensor<2x6xf32>, tensor<6x3xi8>
  return %y : tensor<2x3xf32>
}

// -----

// q_conv2d: the convolution of each tangent with the other operand (zero
// points off), times mult where the output does not saturate.
// CHECK-LABEL: func.func @f_jvp(
// CHECK: %[[XR:.*]] = rlx.binary sub %{{.*}}, %{{.*}} : tensor<1x2x5x5xf32>, tensor<f32>
// CHECK: %[[WR:.*]] = rlx.binary sub %{{.*}}, %{{.*}} : tensor<3x2x3x3xf32>, tensor<f32>
// CHECK: %[[IN:.*]] = rlx.where %{{.*}} : tensor<1x3x5x5xi1>, tensor<1x3x5x5xf32>, tensor<f32>
// CHECK: %[[TACC:.*]] = rlx.conv %{{.*}}, %[[WR]] kernel_size = [3, 3]
// CHECK: %[[TM:.*]] = rlx.binary mul %[[TACC]], %{{.*}} : tensor<1x3x5x5xf32>, tensor<f32>
// CHECK: rlx.binary mul %[[TM]], %[[IN]]
func.func @f(%x: tensor<1x2x5x5xf32> {rlx.param = "x"}, %w: tensor<3x2x3x3xi8> {rlx.input = "w"}, %b: tensor<3xi32> {rlx.input = "b"}) -> tensor<1x3x5x5xf32> {
  %q = rlx.quantize %x scales = [0.05] zero_points = [1] : tensor<1x2x5x5xf32>
  %y = rlx.q_conv2d %q, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 1 : i64, w_zp = 0 : i64, out_zp = -3 : i64, mult = 0.01 : f32} : tensor<1x2x5x5xi8>, tensor<3x2x3x3xi8>, tensor<3xi32>
  %d = rlx.dequantize %y scales = [0.1] zero_points = [-3] : tensor<1x3x5x5xi8>
  return %d : tensor<1x3x5x5xf32>
}
