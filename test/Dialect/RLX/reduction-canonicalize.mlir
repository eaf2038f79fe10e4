// RUN: rlx-opt %s -canonicalize | FileCheck %s

// Reducing over no axes is the identity, for every kind.
// CHECK-LABEL: func.func @reduce_no_axes
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: rlx.reduce
// CHECK: return %[[X]], %[[X]], %[[X]]
func.func @reduce_no_axes(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = rlx.reduce sum %x axes = [] : tensor<4x8xf32>
  %1 = rlx.reduce mean %x axes = [] keep_dim : tensor<4x8xf32>
  %2 = rlx.reduce prod %x axes = [] : tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Kept size-1 dims reduce to themselves.
// CHECK-LABEL: func.func @reduce_unit_dims_keep_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x1x8x1xi32>)
// CHECK-NOT: rlx.reduce
// CHECK: return %[[X]], %[[X]]
func.func @reduce_unit_dims_keep_dim(%x: tensor<4x1x8x1xi32>) -> (tensor<4x1x8x1xi32>, tensor<4x1x8x1xi32>) {
  %0 = rlx.reduce max %x axes = [1, 3] keep_dim : tensor<4x1x8x1xi32>
  %1 = rlx.reduce sum %x axes = [3] keep_dim : tensor<4x1x8x1xi32>
  return %0, %1 : tensor<4x1x8x1xi32>, tensor<4x1x8x1xi32>
}

// Not folded: a size-1 dim that is dropped changes the type, a dynamic or
// larger dim is a real reduction.
// CHECK-LABEL: func.func @reduce_kept
// CHECK: rlx.reduce sum %{{.*}} axes = [1] : tensor<4x1xf32>
// CHECK: rlx.reduce sum %{{.*}} axes = [1] keep_dim : tensor<4x?xf32>
// CHECK: rlx.reduce min %{{.*}} axes = [0, 1] keep_dim : tensor<4x1xf32>
func.func @reduce_kept(%x: tensor<4x1xf32>, %d: tensor<4x?xf32>) -> (tensor<4xf32>, tensor<4x1xf32>, tensor<1x1xf32>) {
  %0 = rlx.reduce sum %x axes = [1] : tensor<4x1xf32>
  %1 = rlx.reduce sum %d axes = [1] keep_dim : tensor<4x?xf32>
  %2 = rlx.reduce min %x axes = [0, 1] keep_dim : tensor<4x1xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4x1xf32>, tensor<1x1xf32>
}

// An inclusive cumsum over a single element is that element.
// CHECK-LABEL: func.func @cumsum_unit_axis
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>)
// CHECK-NEXT: %[[E:.*]] = rlx.cumsum %[[X]] {axis = 1 : i64, exclusive} : tensor<4x1xf32>
// CHECK-NEXT: %[[C:.*]] = rlx.cumsum %[[X]] {axis = 0 : i64} : tensor<4x1xf32>
// CHECK-NEXT: return %[[X]], %[[X]], %[[E]], %[[C]]
func.func @cumsum_unit_axis(%x: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>) {
  %0 = rlx.cumsum %x {axis = 1 : i64} : tensor<4x1xf32>
  %1 = rlx.cumsum %x {axis = -1 : i64} : tensor<4x1xf32>
  %2 = rlx.cumsum %x {axis = 1 : i64, exclusive} : tensor<4x1xf32>
  %3 = rlx.cumsum %x {axis = 0 : i64} : tensor<4x1xf32>
  return %0, %1, %2, %3 : tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x1xf32>
}
