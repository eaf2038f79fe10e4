// RUN: rlx-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @double_conjugate
// CHECK-SAME: (%[[Z:.*]]: tensor<4xcomplex<f32>>)
func.func @double_conjugate(%z: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // CHECK-NOT: rlx.conjugate
  // CHECK: return %[[Z]]
  %0 = rlx.conjugate %z : tensor<4xcomplex<f32>>
  %1 = rlx.conjugate %0 : tensor<4xcomplex<f32>>
  return %1 : tensor<4xcomplex<f32>>
}

// CHECK-LABEL: func.func @triple_conjugate
// CHECK-SAME: (%[[Z:.*]]: tensor<4xcomplex<f32>>)
func.func @triple_conjugate(%z: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // CHECK: %[[C:.*]] = rlx.conjugate %[[Z]]
  // CHECK-NOT: rlx.conjugate
  // CHECK: return %[[C]]
  %0 = rlx.conjugate %z : tensor<4xcomplex<f32>>
  %1 = rlx.conjugate %0 : tensor<4xcomplex<f32>>
  %2 = rlx.conjugate %1 : tensor<4xcomplex<f32>>
  return %2 : tensor<4xcomplex<f32>>
}
