// RUN: rlx-opt %s --split-input-file --rlx-transposed-gemm-operands | FileCheck %s

// A gradient's `dy w^T`: the weight is read transposed, the copy is gone.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[RHST:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dy_wt
// CHECK-SAME: %[[DY:[^:]*]]: tensor<8x4xf32>, %[[W:[^:]*]]: tensor<6x4xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[LHS]], #[[RHST]], #[[OUT]]] ins(%[[DY]], %[[W]] : tensor<8x4xf32>, tensor<6x4xf32>)
func.func @dy_wt(%dy: tensor<8x4xf32>, %w: tensor<6x4xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x4xf32>) outs(%e : tensor<4x6xf32>) permutation = [1, 0]
  %0 = linalg.matmul ins(%dy, %wt : tensor<8x4xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// A batch of `x^T dy`: the lhs's last two dims are read exchanged.
// CHECK-DAG: #[[LHST:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-LABEL: func.func @xt_dy_batched
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x8x3xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul indexing_maps = [#[[LHST]], {{.*}}] ins(%[[X]], %{{.*}} : tensor<2x8x3xf32>, tensor<2x8x5xf32>)
func.func @xt_dy_batched(%x: tensor<2x8x3xf32>, %dy: tensor<2x8x5xf32>, %c: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %e = tensor.empty() : tensor<2x3x8xf32>
  %xt = linalg.transpose ins(%x : tensor<2x8x3xf32>) outs(%e : tensor<2x3x8xf32>) permutation = [0, 2, 1]
  %0 = linalg.batch_matmul ins(%xt, %dy : tensor<2x3x8xf32>, tensor<2x8x5xf32>) outs(%c : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// A transpose that also permutes batch dims is a real copy: it stays.
// CHECK-LABEL: func.func @batch_permuted
// CHECK: linalg.transpose
// CHECK: linalg.batch_matmul ins
func.func @batch_permuted(%x: tensor<8x2x3xf32>, %b: tensor<2x8x5xf32>, %c: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %e = tensor.empty() : tensor<2x3x8xf32>
  %xt = linalg.transpose ins(%x : tensor<8x2x3xf32>) outs(%e : tensor<2x3x8xf32>) permutation = [1, 2, 0]
  %0 = linalg.batch_matmul ins(%xt, %b : tensor<2x3x8xf32>, tensor<2x8x5xf32>) outs(%c : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
