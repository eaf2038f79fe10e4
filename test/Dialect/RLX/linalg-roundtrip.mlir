// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @matmul_2d
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // CHECK: rlx.matmul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x3xf32>
  %0 = rlx.matmul %a, %b : tensor<4x8xf32>, tensor<8x3xf32>
  return %0 : tensor<4x3xf32>
}

// A rank-2 weight multiplies every matrix of a batch; batch dims broadcast.
// CHECK-LABEL: func.func @matmul_batched
func.func @matmul_batched(%a: tensor<2x4x8xf64>, %w: tensor<8x3xf64>,
                          %b: tensor<5x1x4x8xbf16>, %c: tensor<6x8x2xbf16>,
                          %d: tensor<?x?x8xf16>, %e: tensor<8x?xf16>)
    -> (tensor<2x4x3xf64>, tensor<5x6x4x2xbf16>, tensor<?x?x?xf16>) {
  // CHECK: rlx.matmul {{.*}} : tensor<2x4x8xf64>, tensor<8x3xf64>
  %0 = rlx.matmul %a, %w : tensor<2x4x8xf64>, tensor<8x3xf64>
  // CHECK: rlx.matmul {{.*}} : tensor<5x1x4x8xbf16>, tensor<6x8x2xbf16>
  %1 = rlx.matmul %b, %c : tensor<5x1x4x8xbf16>, tensor<6x8x2xbf16>
  // CHECK: rlx.matmul {{.*}} : tensor<?x?x8xf16>, tensor<8x?xf16>
  %2 = rlx.matmul %d, %e : tensor<?x?x8xf16>, tensor<8x?xf16>
  // CHECK: return {{.*}} : tensor<2x4x3xf64>, tensor<5x6x4x2xbf16>, tensor<?x?x?xf16>
  return %0, %1, %2 : tensor<2x4x3xf64>, tensor<5x6x4x2xbf16>, tensor<?x?x?xf16>
}

// CHECK-LABEL: func.func @dot_general
func.func @dot_general(%a: tensor<4x8x16xf32>, %b: tensor<4x16x3xf32>,
                       %c: tensor<5x6xf64>, %d: tensor<6x5x7xf64>,
                       %e: tensor<2x3xf16>, %f: tensor<4xf16>,
                       %g: tensor<?x8x2xbf16>, %h: tensor<2x?x8xbf16>)
    -> (tensor<4x8x3xf32>, tensor<7xf64>, tensor<2x3x4xf16>, tensor<?x2x2xbf16>) {
  // CHECK: rlx.dot_general %{{.*}}, %{{.*}} contracting_dims = [2] x [1] batch_dims = [0] x [0] : tensor<4x8x16xf32>, tensor<4x16x3xf32>
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [1] batch_dims = [0] x [0] : tensor<4x8x16xf32>, tensor<4x16x3xf32>
  // Two contracting dims, in swapped order on the rhs.
  // CHECK: rlx.dot_general %{{.*}}, %{{.*}} contracting_dims = [0, 1] x [1, 0] batch_dims = [] x [] : tensor<5x6xf64>, tensor<6x5x7xf64>
  %1 = rlx.dot_general %c, %d contracting_dims = [0, 1] x [1, 0] batch_dims = [] x [] : tensor<5x6xf64>, tensor<6x5x7xf64>
  // No contraction: an outer product.
  // CHECK: rlx.dot_general %{{.*}}, %{{.*}} contracting_dims = [] x [] batch_dims = [] x [] : tensor<2x3xf16>, tensor<4xf16>
  %2 = rlx.dot_general %e, %f contracting_dims = [] x [] batch_dims = [] x [] : tensor<2x3xf16>, tensor<4xf16>
  // Batch dim not leading on the rhs; dynamic sizes.
  // CHECK: rlx.dot_general %{{.*}}, %{{.*}} contracting_dims = [1] x [2] batch_dims = [0] x [1] : tensor<?x8x2xbf16>, tensor<2x?x8xbf16>
  %3 = rlx.dot_general %g, %h contracting_dims = [1] x [2] batch_dims = [0] x [1] : tensor<?x8x2xbf16>, tensor<2x?x8xbf16>
  // CHECK: return {{.*}} : tensor<4x8x3xf32>, tensor<7xf64>, tensor<2x3x4xf16>, tensor<?x2x2xbf16>
  return %0, %1, %2, %3 : tensor<4x8x3xf32>, tensor<7xf64>, tensor<2x3x4xf16>, tensor<?x2x2xbf16>
}

// CHECK-LABEL: func.func @dense_solve
func.func @dense_solve(%a: tensor<3x3xf64>, %b: tensor<3xf64>, %bk: tensor<3x2xf64>,
                       %ad: tensor<?x?xf32>, %bd: tensor<?x4xf32>)
    -> (tensor<3xf64>, tensor<3x2xf64>, tensor<?x4xf32>) {
  // CHECK: rlx.dense_solve %{{.*}}, %{{.*}} : tensor<3x3xf64>, tensor<3xf64>
  %0 = rlx.dense_solve %a, %b : tensor<3x3xf64>, tensor<3xf64>
  // CHECK: rlx.dense_solve %{{.*}}, %{{.*}} : tensor<3x3xf64>, tensor<3x2xf64>
  %1 = rlx.dense_solve %a, %bk : tensor<3x3xf64>, tensor<3x2xf64>
  // CHECK: rlx.dense_solve %{{.*}}, %{{.*}} : tensor<?x?xf32>, tensor<?x4xf32>
  %2 = rlx.dense_solve %ad, %bd : tensor<?x?xf32>, tensor<?x4xf32>
  return %0, %1, %2 : tensor<3xf64>, tensor<3x2xf64>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @batched_dense_solve
func.func @batched_dense_solve(%a: tensor<8x3x3xf32>, %b: tensor<8x3xf32>, %bk: tensor<8x3x5xf32>,
                               %ad: tensor<?x3x3xf32>)
    -> (tensor<8x3xf32>, tensor<8x3x5xf32>, tensor<8x3x5xf32>) {
  // CHECK: rlx.batched_dense_solve %{{.*}}, %{{.*}} : tensor<8x3x3xf32>, tensor<8x3xf32>
  %0 = rlx.batched_dense_solve %a, %b : tensor<8x3x3xf32>, tensor<8x3xf32>
  // CHECK: rlx.batched_dense_solve %{{.*}}, %{{.*}} : tensor<8x3x3xf32>, tensor<8x3x5xf32>
  %1 = rlx.batched_dense_solve %a, %bk : tensor<8x3x3xf32>, tensor<8x3x5xf32>
  // CHECK: rlx.batched_dense_solve %{{.*}}, %{{.*}} : tensor<?x3x3xf32>, tensor<8x3x5xf32>
  %2 = rlx.batched_dense_solve %ad, %bk : tensor<?x3x3xf32>, tensor<8x3x5xf32>
  return %0, %1, %2 : tensor<8x3xf32>, tensor<8x3x5xf32>, tensor<8x3x5xf32>
}
