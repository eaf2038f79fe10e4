// RUN: rlx-opt %s --rlx-unfuse --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @matmul_bias_act
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[M:.*]] = rlx.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32>
// CHECK: %[[A:.*]] = rlx.binary add %[[M]], %[[B]] : tensor<4x16xf32>, tensor<16xf32>
// CHECK: %[[G:.*]] = rlx.activation gelu %[[A]]
// CHECK: return %[[G]]
func.func @matmul_bias_act(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = rlx.fused_matmul_bias_act %x, %w, %b activation gelu : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @residual_ln
// CHECK: %[[S:.*]] = rlx.binary add %arg0, %arg1
// CHECK: %[[SB:.*]] = rlx.binary add %[[S]], %arg2
// CHECK: rlx.layer_norm %[[SB]], %arg3, %arg4 {axis = -1 : i64, eps = 9.99999974E-6 : f32}
func.func @residual_ln(%x: tensor<2x5x8xf32>, %r: tensor<2x5x8xf32>, %b: tensor<8xf32>,
                       %g: tensor<8xf32>, %be: tensor<8xf32>) -> tensor<2x5x8xf32> {
  %0 = rlx.fused_residual_ln %x, %r, %g, %be bias %b : tensor<8xf32> eps = 1.0e-5 : tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<2x5x8xf32>
}

// -----

// Without beta, the RMS norm gets a zero shift of gamma's shape and dtype.
// CHECK-LABEL: func.func @residual_rms
// CHECK-DAG: %[[Z:.*]] = rlx.constant dense<0.000000e+00> : tensor<8xf64>
// CHECK-DAG: %[[S:.*]] = rlx.binary add %arg0, %arg1
// CHECK: rlx.rms_norm %[[S]], %arg2, %[[Z]] {axis = -1 : i64, eps = 9.99999997E-7 : f32}
func.func @residual_rms(%x: tensor<3x8xf64>, %r: tensor<3x8xf64>, %g: tensor<8xf64>) -> tensor<3x8xf64> {
  %0 = rlx.fused_residual_rms_norm %x, %r, %g eps = 1.0e-6 : tensor<3x8xf64>, tensor<8xf64>
  return %0 : tensor<3x8xf64>
}

// -----

// CHECK-LABEL: func.func @swiglu
// CHECK: %[[LO:.*]] = rlx.narrow %arg0 axis = 2 start = 0 len = 6
// CHECK: %[[HI:.*]] = rlx.narrow %arg0 axis = 2 start = 6 len = 6
// Default: up is the low half, gate the high half.
// CHECK: %[[SG:.*]] = rlx.activation silu %[[HI]]
// CHECK: %[[Y:.*]] = rlx.binary mul %[[LO]], %[[SG]]
// With gate_first the halves swap; cast_to becomes a cast.
// CHECK: %[[LO2:.*]] = rlx.narrow %arg0 axis = 2 start = 0 len = 6
// CHECK: %[[HI2:.*]] = rlx.narrow %arg0 axis = 2 start = 6 len = 6
// CHECK: %[[SG2:.*]] = rlx.activation silu %[[LO2]]
// CHECK: %[[Y2:.*]] = rlx.binary mul %[[HI2]], %[[SG2]]
// CHECK: rlx.cast %[[Y2]] : tensor<2x3x6xf32> to f16
func.func @swiglu(%x: tensor<2x3x12xf32>) -> (tensor<2x3x6xf32>, tensor<2x3x6xf16>) {
  %0 = rlx.fused_swiglu %x : tensor<2x3x12xf32>
  %1 = rlx.fused_swiglu %x gate_first cast_to f16 : tensor<2x3x12xf32>
  return %0, %1 : tensor<2x3x6xf32>, tensor<2x3x6xf16>
}

// -----

// CHECK-LABEL: func.func @lora
// CHECK-DAG: %[[S:.*]] = rlx.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[BASE:.*]] = rlx.matmul %arg0, %arg1
// CHECK-DAG: %[[XA:.*]] = rlx.matmul %arg0, %arg2
// CHECK: %[[XAB:.*]] = rlx.matmul %[[XA]], %arg3
// CHECK: %[[SC:.*]] = rlx.binary mul %[[XAB]], %[[S]] : tensor<4x6xf32>, tensor<f32>
// CHECK: rlx.binary add %[[BASE]], %[[SC]]
func.func @lora(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>, %a: tensor<8x2xf32>, %b: tensor<2x6xf32>) -> tensor<4x6xf32> {
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 0.25 : tensor<4x8xf32>, tensor<8x6xf32>, tensor<8x2xf32>, tensor<2x6xf32>
  return %0 : tensor<4x6xf32>
}
