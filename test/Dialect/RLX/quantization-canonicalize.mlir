// RUN: rlx-opt %s -canonicalize | FileCheck %s

// CHECK-LABEL: func.func @identity_ste
// CHECK-SAME: (%{{.*}}: tensor<8xf32>, %[[DY:.*]]: tensor<8xf32>)
func.func @identity_ste(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NOT: rlx.fake_quantize_backward
  // CHECK: return %[[DY]]
  %0 = rlx.fake_quantize_backward %x, %dy bits = 8 axis = 0 ste = identity : tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Other estimators attenuate the gradient and stay.
// CHECK-LABEL: func.func @clipped_ste
func.func @clipped_ste(%x: tensor<8xf32>, %dy: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: rlx.fake_quantize_backward %{{.*}}, %{{.*}} bits = 8 ste = clipped_identity
  %0 = rlx.fake_quantize_backward %x, %dy bits = 8 ste = clipped_identity : tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<8xf32>
}
