// RUN: rlx-opt %s --rlx-fuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-fuse="report=true" --split-input-file --verify-diagnostics > /dev/null
// RUN: rlx-opt %s --rlx-fuse="matmul-bias-act=false residual-norm=false lora=false" --split-input-file | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @matmul_bias_gelu
// CHECK-NEXT: %[[F:.*]] = rlx.fused_matmul_bias_act %arg0, %arg1, %arg2 activation gelu : tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
// CHECK-NEXT: return %[[F]]
// OFF-LABEL: func.func @matmul_bias_gelu
// OFF: rlx.matmul
// OFF-NOT: rlx.fused
func.func @matmul_bias_gelu(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %0 = rlx.matmul %x, %w : tensor<2x4x8xf32>, tensor<8x16xf32>
  %1 = rlx.binary add %b, %0 : tensor<16xf32>, tensor<2x4x16xf32>
  %2 = rlx.activation gelu %1 : tensor<2x4x16xf32>
  return %2 : tensor<2x4x16xf32>
}

// -----

// The pre-activation value is also returned: fuse matmul + bias only.
// CHECK-LABEL: func.func @pre_activation_used
// CHECK: %[[F:.*]] = rlx.fused_matmul_bias_act %arg0, %arg1, %arg2 :
// CHECK: rlx.activation relu %[[F]]
func.func @pre_activation_used(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
  %1 = rlx.binary add %0, %b : tensor<4x16xf32>, tensor<16xf32>
  // expected-remark @+1 {{not fused into rlx.fused_matmul_bias_act: the pre-activation value has other uses}}
  %2 = rlx.activation relu %1 : tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Near misses: a matmul result used twice, and a bias that is not [N].
// CHECK-LABEL: func.func @matmul_near_misses
// CHECK-NOT: rlx.fused_matmul_bias_act
func.func @matmul_near_misses(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>,
                              %full: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
  // expected-remark @+1 {{not fused into rlx.fused_matmul_bias_act: the matmul result has other uses}}
  %1 = rlx.binary add %0, %b : tensor<4x16xf32>, tensor<16xf32>
  %2 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
  // expected-remark @+1 {{not fused into rlx.fused_matmul_bias_act: the added operand is not a [N] bias of the matmul's element type}}
  %3 = rlx.binary add %2, %full : tensor<4x16xf32>, tensor<4x16xf32>
  return %0, %1, %3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @residual_bias_ln
// CHECK-NEXT: %[[F:.*]] = rlx.fused_residual_ln %arg0, %arg1, %arg3, %arg4 bias %arg2 : tensor<8xf32> eps = 9.99999996E-13
// CHECK-NEXT: return %[[F]]
func.func @residual_bias_ln(%x: tensor<2x5x8xf32>, %r: tensor<2x5x8xf32>, %b: tensor<8xf32>,
                            %g: tensor<8xf32>, %be: tensor<8xf32>) -> tensor<2x5x8xf32> {
  %0 = rlx.binary add %x, %r : tensor<2x5x8xf32>, tensor<2x5x8xf32>
  %1 = rlx.binary add %0, %b : tensor<2x5x8xf32>, tensor<8xf32>
  %2 = rlx.layer_norm %1, %g, %be {axis = -1 : i64, eps = 1.0e-12 : f32} : tensor<2x5x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %2 : tensor<2x5x8xf32>
}

// -----

// CHECK-LABEL: func.func @residual_rms
// CHECK-NEXT: %[[F:.*]] = rlx.fused_residual_rms_norm %arg0, %arg1, %arg2 beta %arg3 : tensor<8xf32> eps = 9.99999997E-7
func.func @residual_rms(%x: tensor<3x8xf32>, %r: tensor<3x8xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>) -> tensor<3x8xf32> {
  %0 = rlx.binary add %x, %r : tensor<3x8xf32>, tensor<3x8xf32>
  %1 = rlx.rms_norm %0, %g, %be {axis = 1 : i64, eps = 1.0e-6 : f32} : tensor<3x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %1 : tensor<3x8xf32>
}

// -----

// Near misses: a norm over another axis, a sum used twice, a broadcasting
// add.
// CHECK-LABEL: func.func @norm_near_misses
// CHECK-NOT: rlx.fused_residual
func.func @norm_near_misses(%x: tensor<8x8xf32>, %r: tensor<8x8xf32>, %row: tensor<8xf32>,
                            %g: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = rlx.binary add %x, %r : tensor<8x8xf32>, tensor<8x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_residual_ln: the norm is not over the last axis}}
  %1 = rlx.layer_norm %0, %g, %g {axis = 0 : i64, eps = 1.0e-5 : f32} : tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
  %2 = rlx.binary add %x, %r : tensor<8x8xf32>, tensor<8x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_residual_ln: the residual sum has other uses}}
  %3 = rlx.layer_norm %2, %g, %g {axis = -1 : i64, eps = 1.0e-5 : f32} : tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
  %4 = rlx.binary add %row, %x : tensor<8xf32>, tensor<8x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_residual_ln: x and residual do not both have the norm's input type (the add broadcasts)}}
  %5 = rlx.layer_norm %4, %g, %g {axis = -1 : i64, eps = 1.0e-5 : f32} : tensor<8x8xf32>, tensor<8xf32>, tensor<8xf32>
  %6 = rlx.binary add %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>
  return %6, %3, %5 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @lora
// CHECK-NEXT: %[[F:.*]] = rlx.lora_matmul %arg0, %arg1, %arg2, %arg3 scale = 2.500000e-01
// CHECK-NEXT: return %[[F]]
func.func @lora(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>, %a: tensor<8x2xf32>, %b: tensor<2x6xf32>) -> tensor<4x6xf32> {
  %s = rlx.constant dense<0.25> : tensor<f32>
  %0 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32>
  %1 = rlx.matmul %x, %a : tensor<4x8xf32>, tensor<8x2xf32>
  %2 = rlx.matmul %1, %b : tensor<4x2xf32>, tensor<2x6xf32>
  %3 = rlx.binary mul %2, %s : tensor<4x6xf32>, tensor<f32>
  %4 = rlx.binary add %0, %3 : tensor<4x6xf32>, tensor<4x6xf32>
  return %4 : tensor<4x6xf32>
}

// -----

// An f64 graph's scale keeps its precision: rlx.lora_matmul holds an f32
// scale, and 0.1 is not exact in f32 (0.100000001490116), so the graph
// stays unfused; 0.25 is exact and fuses.
// CHECK-LABEL: func.func @lora_f64
// CHECK-NOT: rlx.lora_matmul
// CHECK: rlx.binary mul
func.func @lora_f64(%x: tensor<4x8xf64>, %w: tensor<8x6xf64>, %a: tensor<8x2xf64>, %b: tensor<2x6xf64>) -> tensor<4x6xf64> {
  %s = rlx.constant dense<0.1> : tensor<f64>
  %0 = rlx.matmul %x, %w : tensor<4x8xf64>, tensor<8x6xf64>
  %1 = rlx.matmul %x, %a : tensor<4x8xf64>, tensor<8x2xf64>
  %2 = rlx.matmul %1, %b : tensor<4x2xf64>, tensor<2x6xf64>
  %3 = rlx.binary mul %2, %s : tensor<4x6xf64>, tensor<f64>
  // expected-remark @+1 {{not fused into rlx.lora_matmul: the scale is not exact in f32, the precision of the fused op's scale attribute}}
  %4 = rlx.binary add %0, %3 : tensor<4x6xf64>, tensor<4x6xf64>
  return %4 : tensor<4x6xf64>
}

// -----

// CHECK-LABEL: func.func @lora_f64_exact_scale
// CHECK-NEXT: %[[F:.*]] = rlx.lora_matmul %arg0, %arg1, %arg2, %arg3 scale = 2.500000e-01 :
// CHECK-NEXT: return %[[F]]
func.func @lora_f64_exact_scale(%x: tensor<4x8xf64>, %w: tensor<8x6xf64>, %a: tensor<8x2xf64>, %b: tensor<2x6xf64>) -> tensor<4x6xf64> {
  %s = rlx.constant dense<0.25> : tensor<f64>
  %0 = rlx.matmul %x, %w : tensor<4x8xf64>, tensor<8x6xf64>
  %1 = rlx.matmul %x, %a : tensor<4x8xf64>, tensor<8x2xf64>
  %2 = rlx.matmul %1, %b : tensor<4x2xf64>, tensor<2x6xf64>
  %3 = rlx.binary mul %2, %s : tensor<4x6xf64>, tensor<f64>
  %4 = rlx.binary add %0, %3 : tensor<4x6xf64>, tensor<4x6xf64>
  return %4 : tensor<4x6xf64>
}

// -----

// Batched (rank-3) adapters make a valid graph of batched matmuls whose sum
// broadcasts the base product; rlx.lora_matmul takes rank-2 operands only,
// so it stays unfused.
// CHECK-LABEL: func.func @lora_batched_adapters
// CHECK-NOT: rlx.lora_matmul
func.func @lora_batched_adapters(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>, %a: tensor<3x8x2xf32>, %b: tensor<3x2x6xf32>) -> tensor<3x4x6xf32> {
  %s = rlx.constant dense<0.25> : tensor<f32>
  %0 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32>
  %1 = rlx.matmul %x, %a : tensor<4x8xf32>, tensor<3x8x2xf32>
  %2 = rlx.matmul %1, %b : tensor<3x4x2xf32>, tensor<3x2x6xf32>
  %3 = rlx.binary mul %2, %s : tensor<3x4x6xf32>, tensor<f32>
  // expected-remark @+1 {{not fused into rlx.lora_matmul: x, w, a and b are not all rank 2 ([m, k], [k, n], [k, r], [r, n]) or the sum broadcasts}}
  %4 = rlx.binary add %0, %3 : tensor<4x6xf32>, tensor<3x4x6xf32>
  return %4 : tensor<3x4x6xf32>
}

// -----

// The low-rank path reads another input: not a LoRA matmul.
// CHECK-LABEL: func.func @lora_other_input
// CHECK-NOT: rlx.lora_matmul
func.func @lora_other_input(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %w: tensor<8x6xf32>, %a: tensor<8x2xf32>, %b: tensor<2x6xf32>) -> tensor<4x6xf32> {
  %s = rlx.constant dense<0.25> : tensor<f32>
  %0 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32>
  %1 = rlx.matmul %y, %a : tensor<4x8xf32>, tensor<8x2xf32>
  %2 = rlx.matmul %1, %b : tensor<4x2xf32>, tensor<2x6xf32>
  %3 = rlx.binary mul %2, %s : tensor<4x6xf32>, tensor<f32>
  // expected-remark @+1 {{not fused into rlx.fused_matmul_bias_act: the added operand is not a [N] bias of the matmul's element type}}
  %4 = rlx.binary add %0, %3 : tensor<4x6xf32>, tensor<4x6xf32>
  return %4 : tensor<4x6xf32>
}
