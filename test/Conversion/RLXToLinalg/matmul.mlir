// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @matmul_2d
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x3xf32>) outs(%[[Z]] : tensor<4x3xf32>)
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %0 = rlx.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Rows of a batch times one matrix: one GEMM over the collapsed rows.
// CHECK-LABEL: func.func @matmul_rows
// CHECK: %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x5x7xf32> into tensor<10x7xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[R]], %{{.*}} : tensor<10x7xf32>, tensor<7x3xf32>)
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1], [2]] output_shape [2, 5, 3] : tensor<10x3xf32> into tensor<2x5x3xf32>
func.func @matmul_rows(%a: tensor<2x5x7xf32>, %b: tensor<7x3xf32>) -> tensor<2x5x3xf32> {
  %0 = rlx.matmul %a, %b : tensor<2x5x7xf32>, tensor<7x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batch
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x5x7xf64>, tensor<2x7x3xf64>)
func.func @matmul_batch(%a: tensor<2x5x7xf64>, %b: tensor<2x7x3xf64>) -> tensor<2x5x3xf64> {
  %0 = rlx.matmul %a, %b : tensor<2x5x7xf64>, tensor<2x7x3xf64>
  return %0 : tensor<2x5x3xf64>
}

// -----

// Broadcast batch dims: a contraction with the broadcast in its maps.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_broadcast(%a: tensor<3x1x4x6xf32>, %b: tensor<2x6x5xf32>) -> tensor<3x2x4x5xf32> {
  %0 = rlx.matmul %a, %b : tensor<3x1x4x6xf32>, tensor<2x6x5xf32>
  return %0 : tensor<3x2x4x5xf32>
}

// -----

// f16 accumulates in f32 and rounds once.
// CHECK-LABEL: func.func @matmul_f16
// CHECK: %[[ACC:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x3xf16>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]] : tensor<4x3xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>) -> tensor<4x3xf16> {
  %0 = rlx.matmul %a, %b : tensor<4x8xf16>, tensor<8x3xf16>
  return %0 : tensor<4x3xf16>
}
