// RUN: rlx-opt %s --rlx-fuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-fuse="elementwise-region=false" --split-input-file | FileCheck %s --check-prefix=OFF

// A chain with scalar and row broadcasts becomes one region; the scalar
// body is the per-op math of the linalg lowering.
// CHECK-LABEL: func.func @chain
// CHECK: %[[R:.*]] = rlx.elementwise_region(%arg0, %arg1, %arg2) : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[B:.*]]: f32):
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[M:.*]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK: %[[A:.*]] = arith.addf %[[M]], %[[B]] : f32
// CHECK: %[[Y:.*]] = arith.maximumf %[[A]], %[[Z]] : f32
// CHECK: rlx.yield %[[Y]] : f32
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
// CHECK: math.tanh
// CHECK: %[[SECOND:.*]] = rlx.elementwise_region(%arg2, %[[FIRST]], %arg0) : (tensor<4x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: arith.sitofp
// CHECK: arith.cmpf ogt
// CHECK: arith.select
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
// outside, as an input; a lone op is not a chain; unsigned integers and
// stop_gradient are not fused.
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

// A splat constant operand becomes a scalar constant of the body, not an
// input; a non-splat constant stays an input.
// CHECK-LABEL: func.func @splat_constant
// CHECK: %[[DENSE:.*]] = rlx.constant dense<[1.000000e+00, 2.000000e+00]>
// CHECK: rlx.elementwise_region(%arg0, %[[DENSE]]) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32> body {
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[D:.*]]: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[M]], %[[D]] : f32
// CHECK-NEXT: rlx.yield %[[A]] : f32
func.func @splat_constant(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %zero = rlx.constant dense<0.0> : tensor<f32>
  %dense = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = rlx.binary max %x, %zero : tensor<3x2xf32>, tensor<f32>
  %1 = rlx.binary add %0, %dense : tensor<3x2xf32>, tensor<2xf32>
  return %1 : tensor<3x2xf32>
}
