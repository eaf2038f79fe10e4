// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// f32 with C_out/groups = 4 and K = 2*3*3 = 18: im2col and one
// batch_matmul over (batch, group) = 4, the zero-padded input built by a
// gathering linalg.map, the result laid back out as NCHW.
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 2, (d0 mod 2) * 2 + d1 floordiv 9, (d2 floordiv 3) * 2 + (d1 floordiv 3) mod 3, (d2 mod 3) * 2 + d1 mod 3)>
// CHECK-LABEL: func.func @conv_gemm
// CHECK: %[[PAD:.*]] = linalg.map outs(%{{.*}} : tensor<2x4x8x8xf32>)
// CHECK:   tensor.extract %arg0
// CHECK:   arith.select
// CHECK: %[[COLS_T:.*]] = linalg.generic {indexing_maps = [#[[COLS]], #{{.*}}], {{.*}} ins(%[[PAD]] : tensor<2x4x8x8xf32>) outs(%{{.*}} : tensor<4x18x9xf32>)
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<8x2x3x3xf32>) outs(%{{.*}} : tensor<4x4x18xf32>)
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[W]], %[[COLS_T]] : tensor<4x4x18xf32>, tensor<4x18x9xf32>) outs(%{{.*}} : tensor<4x4x9xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[P]] : tensor<4x4x9xf32>) outs(%{{.*}} : tensor<2x8x3x3xf32>)
func.func @conv_gemm(%x: tensor<2x4x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x8x3x3xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 2 : tensor<2x4x6x6xf32>, tensor<8x2x3x3xf32>
  return %y : tensor<2x8x3x3xf32>
}

// -----

// Depthwise: one direct convolution generic, (co, n, oh, ci, kh, kw, ow).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d0 + d3, d2 + d4, d5 + d6)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d0, d2, d6)>
// CHECK-LABEL: func.func @conv_depthwise
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[PAD:.*]] = linalg.map outs(%{{.*}} : tensor<1x3x7x7xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]} ins(%[[PAD]], %arg1 : tensor<1x3x7x7xf32>, tensor<3x1x3x3xf32>)
// CHECK:   arith.mulf
// CHECK:   arith.addf
func.func @conv_depthwise(%x: tensor<1x3x5x5xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x5x5xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 3 : tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>
  return %y : tensor<1x3x5x5xf32>
}

// -----

// f16: direct loops accumulating in f32, rounded once.
// CHECK-LABEL: func.func @conv_f16
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<1x2x4x4xf16>, tensor<3x2x2x2xf16>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<1x3x3x3xf32>)
// CHECK:   arith.truncf %{{.*}} : f32 to f16
func.func @conv_f16(%x: tensor<1x2x4x4xf16>, %w: tensor<3x2x2x2xf16>) -> tensor<1x3x3x3xf16> {
  %y = rlx.conv %x, %w kernel_size = [2, 2], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x2x4x4xf16>, tensor<3x2x2x2xf16>
  return %y : tensor<1x3x3x3xf16>
}

// -----

// Dynamic batch on the GEMM path: (batch, group) = N * 1.
// CHECK-LABEL: func.func @conv_dynamic_batch
// CHECK: linalg.batch_matmul {{.*}} -> tensor<?x8x81xf32>
// CHECK: tensor<?x8x9x9xf32>
func.func @conv_dynamic_batch(%x: tensor<?x3x9x9xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x9x9xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<?x3x9x9xf32>, tensor<8x3x3x3xf32>
  return %y : tensor<?x8x9x9xf32>
}

// -----

// im2col: a copy over [N, H_out, W_out, C, kH, kW] collapsed to two dims,
// reading the windows (stride 2) through the indexing map.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1 * 2 + d4, d2 * 2 + d5)>
// CHECK-LABEL: func.func @im2col
// CHECK: %[[W:.*]] = linalg.generic {indexing_maps = [#[[WIN]], #{{.*}}], {{.*}} ins(%arg0 : tensor<2x3x5x5xi32>) outs(%{{.*}} : tensor<2x2x2x3x2x2xi32>)
// CHECK: tensor.collapse_shape %[[W]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x2x2x3x2x2xi32> into tensor<8x12xi32>
func.func @im2col(%x: tensor<2x3x5x5xi32>) -> tensor<8x12xi32> {
  %y = rlx.im2col %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0], dilation = [1, 1] : tensor<2x3x5x5xi32>
  return %y : tensor<8x12xi32>
}

// -----

// Transposed convolution: the input interleaved with zeros (stride 2) and
// padded to H_out + k - 1 = 8, the kernel flipped into conv layout
// [C_out, C_in/groups, kH, kW], then a stride-1 convolution.
// CHECK-LABEL: func.func @conv_transpose
// CHECK: %[[Z:.*]] = linalg.map outs(%{{.*}} : tensor<1x4x8x8xf32>)
// CHECK:   arith.remui
// CHECK:   tensor.extract %arg0
// CHECK: %[[F:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4x3x3x3xf32>) outs(%{{.*}} : tensor<6x2x3x3xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Z]], %[[F]] : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) outs(%{{.*}} : tensor<1x6x6x6xf32>)
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x6x6x6xf32> {
  %y = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [1, 1], groups = 2 : tensor<1x4x3x3xf32>, tensor<4x3x3x3xf32>
  return %y : tensor<1x6x6x6xf32>
}

// -----

// max pooling pads with -inf and reduces with maximumf.
// CHECK-LABEL: func.func @pool_max
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.map outs(%{{.*}} : tensor<1x2x7x7xf32>)
// CHECK:   arith.select %{{.*}}, %{{.*}}, %[[NEGINF]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK:   arith.maximumf
func.func @pool_max(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y = rlx.pool max %x kernel_size = [3, 3], stride = [2, 2], padding = [1, 1] : tensor<1x2x5x5xf32>
  return %y : tensor<1x2x3x3xf32>
}

// -----

// mean sums the window and divides by kH * kW.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d3, d4 + d5)>
// CHECK-LABEL: func.func @pool_mean
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[WIN]], {{.*}} ins(%arg0, %{{.*}} : tensor<1x2x4x4xf64>, tensor<2x2xf64>)
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x2x3x3xf64>)
// CHECK:   %[[FOUR:.*]] = arith.constant 4.000000e+00 : f64
// CHECK:   arith.divf %{{.*}}, %[[FOUR]] : f64
func.func @pool_mean(%x: tensor<1x2x4x4xf64>) -> tensor<1x2x3x3xf64> {
  %y = rlx.pool mean %x kernel_size = [2, 2], stride = [1, 1], padding = [0, 0] : tensor<1x2x4x4xf64>
  return %y : tensor<1x2x3x3xf64>
}

// -----

// Integer min pooling pads with INT_MAX; dynamic batch.
// CHECK-LABEL: func.func @pool_min_i32
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.map outs(%{{.*}} : tensor<?x2x6x6xi32>)
// CHECK:   arith.select %{{.*}}, %{{.*}}, %[[MAX]] : i32
// CHECK: arith.minsi
func.func @pool_min_i32(%x: tensor<?x2x4x4xi32>) -> tensor<?x2x3x3xi32> {
  %y = rlx.pool min %x kernel_size = [2, 2], stride = [2, 2], padding = [1, 1] : tensor<?x2x4x4xi32>
  return %y : tensor<?x2x3x3xi32>
}

// -----

// prod pads with 1 and multiplies; sum of i64 adds.
// CHECK-LABEL: func.func @pool_prod_sum
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.mulf
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
func.func @pool_prod_sum(%x: tensor<1x1x4x4xf32>, %y: tensor<1x1x4x4xi64>) -> (tensor<1x1x5x5xf32>, tensor<1x1x3x3xi64>) {
  %a = rlx.pool prod %x kernel_size = [2, 2], stride = [1, 1], padding = [1, 1] : tensor<1x1x4x4xf32>
  %b = rlx.pool sum %y kernel_size = [2, 2], stride = [1, 1], padding = [0, 0] : tensor<1x1x4x4xi64>
  return %a, %b : tensor<1x1x5x5xf32>, tensor<1x1x3x3xi64>
}
