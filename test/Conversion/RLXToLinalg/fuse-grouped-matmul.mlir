// RUN: rlx-opt %s --convert-rlx-to-linalg --rlx-fuse-elementwise | FileCheck %s

// Elementwise fusion leaves the grouped matmul's generic whole (its input
// still the relu's result), so that rlx-linalg-to-blas can hand it to the
// runtime's per-expert GEMMs; the relu is a generic of its own.
// CHECK-LABEL: func.func @relu_then_grouped
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]}
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[R]], %{{.*}} : tensor<6x16xf32>, tensor<6xi32>) outs(%{{.*}} : tensor<6x32xf32>) attrs =  {rlx.grouped_matmul}
func.func @relu_then_grouped(%x: tensor<6x16xf32>, %w: tensor<4x16x32xf32>, %i: tensor<6xi32>) -> tensor<6x32xf32> {
  %r = rlx.activation relu %x : tensor<6x16xf32>
  %0 = rlx.grouped_matmul %r, %w, %i : tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<6xi32>
  return %0 : tensor<6x32xf32>
}
