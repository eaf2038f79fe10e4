// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s

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
