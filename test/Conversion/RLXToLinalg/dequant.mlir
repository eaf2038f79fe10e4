// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// A GGUF weight is decoded by one parallel generic over W^T [N, K] (along
// the packed bytes; here the f16 scale of a Q4_0 block is read), then
// multiplied by a linalg.matmul reading it transposed; no per-element
// constants.
// CHECK-LABEL: func.func @dequant_matmul_q4_0
// CHECK-SAME: (%[[X:.*]]: tensor<3x64xf32>, %[[W:.*]]: tensor<72xi8>)
// CHECK: %[[D:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<2x64xf32>)
// CHECK: tensor.extract %[[W]]
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[D]] : tensor<2x64xf32>)
// CHECK: linalg.matmul ins(%[[X]], %[[T]] : tensor<3x64xf32>, tensor<64x2xf32>)
func.func @dequant_matmul_q4_0(%x: tensor<3x64xf32>, %w: tensor<72xui8>) -> tensor<3x2xf32> {
  %0 = rlx.dequant_matmul gguf_q4_0 %x, %w : tensor<3x64xf32>, tensor<72xui8>
  return %0 : tensor<3x2xf32>
}

// -----

// FP8 codes are decoded from their bits, not through an f8 extension; the
// [K, N] formats are decoded in their own order.
// CHECK-LABEL: func.func @dequant_matmul_fp8
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: %[[C:.*]] = tensor.extract %{{.*}} : tensor<4x3xf8E4M3FN>
// CHECK: arith.bitcast %[[C]] : f8E4M3FN to i8
// CHECK-NOT: arith.extf
// CHECK: linalg.matmul
func.func @dequant_matmul_fp8(%x: tensor<2x4xf32>, %w: tensor<4x3xf8E4M3FN>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = rlx.dequant_matmul fp8_e4m3 %x, %w scale %s : tensor<3xf32> : tensor<2x4xf32>, tensor<4x3xf8E4M3FN>
  return %0 : tensor<2x3xf32>
}

// -----

// The grouped matmul decodes inside its (m, k, n) contraction.
// CHECK-LABEL: func.func @dequant_grouped_matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<6x64xf32>, tensor<6xi64>)
// CHECK: arith.cmpi ult
// CHECK: tensor.extract %{{.*}} : tensor<2176xi8>
func.func @dequant_grouped_matmul(%x: tensor<6x64xf32>, %w: tensor<2176xui8>, %i: tensor<6xi64>) -> tensor<6x16xf32> {
  %y = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x16xf32>
  return %y : tensor<6x16xf32>
}

// -----

// CHECK-LABEL: func.func @dequant_moe_weights
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<2x256x4xf32>)
func.func @dequant_moe_weights(%p: tensor<1152xui8>) -> tensor<2x256x4xf32> {
  %w = rlx.dequant_moe_weights gguf_q4_k %p : tensor<1152xui8> -> tensor<2x256x4xf32>
  return %w : tensor<2x256x4xf32>
}

// -----

// q_conv2d: the centered operands in f64 (exact integer sums), wrapped to
// i32, plus the bias, requantized with round-half-to-even.
// CHECK-LABEL: func.func @q_conv2d
// CHECK: arith.sitofp %{{.*}} : i8 to f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i8
func.func @q_conv2d(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<1x4x8x8xi8> {
  %y = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return %y : tensor<1x4x8x8xi8>
}
