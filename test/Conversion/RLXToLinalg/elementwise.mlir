// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Broadcasting lives in the indexing maps: a missing leading dim is dropped
// from the map, a size-1 dim reads index 0.
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[MID:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func.func @binary_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<4x1x5xf32>, %[[B:.*]]: tensor<3x1xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3x5xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[MID]], #[[ID3]]],
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x1x5xf32>, tensor<3x1xf32>) outs(%[[E]]
// CHECK: arith.subf
func.func @binary_broadcast(%a: tensor<4x1x5xf32>, %b: tensor<3x1xf32>) -> tensor<4x3x5xf32> {
  %0 = rlx.binary sub %a, %b : tensor<4x1x5xf32>, tensor<3x1xf32>
  return %0 : tensor<4x3x5xf32>
}

// -----

// Unsigned integers become signless; the op keeps unsigned semantics.
// CHECK-LABEL: func.func @binary_unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> tensor<4xi8>
// CHECK: arith.divui
// CHECK-NOT: ui8
func.func @binary_unsigned(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = rlx.binary div %a, %b : tensor<4xui8>, tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @binary_kinds
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.powf
// CHECK: arith.divsi
// CHECK: arith.ori
// CHECK: arith.andi
// CHECK: complex.mul
func.func @binary_kinds(%f: tensor<2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>, %c: tensor<2xcomplex<f32>>) {
  %0 = rlx.binary add %f, %f : tensor<2xf32>, tensor<2xf32>
  %1 = rlx.binary max %f, %f : tensor<2xf32>, tensor<2xf32>
  %2 = rlx.binary min %f, %f : tensor<2xf32>, tensor<2xf32>
  %3 = rlx.binary pow %f, %f : tensor<2xf32>, tensor<2xf32>
  %4 = rlx.binary div %i, %i : tensor<2xi32>, tensor<2xi32>
  %5 = rlx.binary max %p, %p : tensor<2xi1>, tensor<2xi1>
  %6 = rlx.binary min %p, %p : tensor<2xi1>, tensor<2xi1>
  %7 = rlx.binary mul %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  return
}

// -----

// The scalar definitions of the activations.
// CHECK-LABEL: func.func @activations
// CHECK: linalg.generic
// CHECK:   math.erf
// CHECK: linalg.generic
// CHECK:   math.tanh
// CHECK: linalg.generic
// CHECK:   math.roundeven
// CHECK: linalg.generic
// CHECK:   arith.maxsi
func.func @activations(%x: tensor<8xf32>, %i: tensor<8xi32>) {
  %0 = rlx.activation gelu %x : tensor<8xf32>
  %1 = rlx.activation gelu_approx %x : tensor<8xf32>
  %2 = rlx.activation round %x : tensor<8xf32>
  %3 = rlx.activation relu %i : tensor<8xi32>
  return
}

// -----

// f16 activations compute in f32 and round once.
// CHECK-LABEL: func.func @activation_f16
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK:   %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK:   math.exp
// CHECK:   arith.truncf %{{.*}} : f32 to f16
func.func @activation_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = rlx.activation sigmoid %x : tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// Dynamic result dims are read from the operand that has them.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK: tensor.empty(%[[D]]) : tensor<?x8xf32>
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = rlx.binary add %a, %b : tensor<?x8xf32>, tensor<8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: arith.constant dense<[1, -1]> : tensor<2xi8>
func.func @constants() -> (tensor<2xf32>, tensor<2xui8>) {
  %0 = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = rlx.constant dense<[1, 255]> : tensor<2xui8>
  return %0, %1 : tensor<2xf32>, tensor<2xui8>
}
