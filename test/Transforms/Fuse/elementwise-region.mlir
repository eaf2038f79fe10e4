// RUN: rlx-opt %s --rlx-fuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-fuse="elementwise-region=false" --split-input-file | FileCheck %s --check-prefix=OFF

// A chain with scalar and row broadcasts becomes one region; the body holds
// the chain's ops on rank-0 tensors.
// CHECK-LABEL: func.func @chain
// CHECK: %[[R:.*]] = rlx.elementwise_region(%arg0, %arg1, %arg2) : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
// CHECK: ^bb0(%[[X:.*]]: tensor<f32>, %[[S:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT: %[[M:.*]] = rlx.binary mul %[[X]], %[[S]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[A:.*]] = rlx.binary add %[[M]], %[[B]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[Y:.*]] = rlx.activation relu %[[A]] : tensor<f32>
// CHECK-NEXT: rlx.yield %[[Y]] : tensor<f32>
// CHECK: return %[[R]]
// OFF-LABEL: func.func @chain
// OFF-NOT: rlx.elementwise_region
func.func @chain(%x: tensor<4x8xf32>, %s: tensor<f32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = rlx.binary mul %x, %s : tensor<4x8xf32>, tensor<f32>
  %1 = rlx.binary add %0, %b : tensor<4x8xf32>, tensor<8xf32>
  %2 = rlx.activation relu %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A value used twice ends a region (no duplicated work); cast, compare and
// where join the next one.
// CHECK-LABEL: func.func @multi_use
// CHECK: %[[FIRST:.*]] = rlx.elementwise_region(%arg0, %arg1)
// CHECK: rlx.activation tanh %{{.*}} : tensor<f32>
// CHECK: %[[SECOND:.*]] = rlx.elementwise_region(%arg2, %[[FIRST]], %arg0) : (tensor<4x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: rlx.cast %{{.*}} : tensor<i32> to f32
// CHECK: rlx.compare gt
// CHECK: rlx.where
// CHECK: return %[[SECOND]], %[[FIRST]]
func.func @multi_use(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %i: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = rlx.binary sub %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
  %1 = rlx.activation tanh %0 : tensor<4x8xf32>
  %c = rlx.cast %i : tensor<4x8xi32> to f32
  %2 = rlx.compare gt %1, %c : tensor<4x8xf32>, tensor<4x8xf32>
  %3 = rlx.where %2, %1, %x : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>
  return %3, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A smaller intermediate would be recomputed per output element: it stays
// outside, as an input; a lone op is not a chain (the ui8 sum has two uses,
// so the product is one); stop_gradient is not fused.
// CHECK-LABEL: func.func @not_fused
// CHECK: %[[SMALL:.*]] = rlx.binary add %arg1, %arg1 : tensor<8xf32>, tensor<8xf32>
// CHECK: rlx.elementwise_region(%arg0, %[[SMALL]])
// CHECK: rlx.binary add %arg2, %arg2 : tensor<4xui8>
// CHECK: rlx.activation neg
// CHECK: rlx.stop_gradient
func.func @not_fused(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %u: tensor<4xui8>) -> (tensor<4x8xf32>, tensor<4xui8>, tensor<4x8xf32>) {
  %0 = rlx.binary add %v, %v : tensor<8xf32>, tensor<8xf32>
  %1 = rlx.binary mul %x, %0 : tensor<4x8xf32>, tensor<8xf32>
  %2 = rlx.activation exp %1 : tensor<4x8xf32>
  %3 = rlx.binary add %u, %u : tensor<4xui8>, tensor<4xui8>
  %4 = rlx.binary mul %3, %3 : tensor<4xui8>, tensor<4xui8>
  %5 = rlx.activation neg %x : tensor<4x8xf32>
  %6 = rlx.stop_gradient %5 : tensor<4x8xf32>
  return %2, %4, %6 : tensor<4x8xf32>, tensor<4xui8>, tensor<4x8xf32>
}

// -----

// A splat constant operand becomes a rank-0 constant of the body, not an
// input; a non-splat constant stays an input.
// CHECK-LABEL: func.func @splat_constant
// CHECK: %[[DENSE:.*]] = rlx.constant dense<[1.000000e+00, 2.000000e+00]>
// CHECK: rlx.elementwise_region(%arg0, %[[DENSE]]) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32> body {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<f32>, %[[D:.*]]: tensor<f32>):
// CHECK-NEXT: %[[ZERO:.*]] = rlx.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[M:.*]] = rlx.binary max %[[X]], %[[ZERO]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[A:.*]] = rlx.binary add %[[M]], %[[D]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: rlx.yield %[[A]] : tensor<f32>
func.func @splat_constant(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %zero = rlx.constant dense<0.0> : tensor<f32>
  %dense = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = rlx.binary max %x, %zero : tensor<3x2xf32>, tensor<f32>
  %1 = rlx.binary add %0, %dense : tensor<3x2xf32>, tensor<2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// Unsigned integers fuse: the body ops keep their rlx types.
// CHECK-LABEL: func.func @unsigned
// CHECK: rlx.elementwise_region(%arg0, %arg1) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8> body {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<ui8>, %[[B:.*]]: tensor<ui8>):
// CHECK-NEXT: %[[D:.*]] = rlx.binary div %[[A]], %[[B]] : tensor<ui8>, tensor<ui8>
// CHECK-NEXT: %[[M:.*]] = rlx.binary max %[[D]], %[[B]] : tensor<ui8>, tensor<ui8>
// CHECK-NEXT: rlx.yield %[[M]] : tensor<ui8>
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = rlx.binary div %a, %b : tensor<4xui8>, tensor<4xui8>
  %1 = rlx.binary max %0, %b : tensor<4xui8>, tensor<4xui8>
  return %1 : tensor<4xui8>
}
