// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// The body becomes one broadcasting generic: block arguments become the
// generic's arguments, each body op its scalar computation, rlx.yield
// linalg.yield.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @region
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<f32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[SCALAR]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[S]], %[[B]] : tensor<4x8xf32>, tensor<f32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[SE:.*]]: f32, %[[BE:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[XE]], %[[SE]] : f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[M]], %[[BE]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[A]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: return %[[Y]]
// CHECK-NOT: rlx.
func.func @region(%x: tensor<4x8xf32>, %s: tensor<f32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = rlx.elementwise_region(%x, %s, %b) : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
  ^bb0(%xe: tensor<f32>, %se: tensor<f32>, %be: tensor<f32>):
    %m = rlx.binary mul %xe, %se : tensor<f32>, tensor<f32>
    %a = rlx.binary add %m, %be : tensor<f32>, tensor<f32>
    %r = rlx.activation relu %a : tensor<f32>
    rlx.yield %r : tensor<f32>
  }
  return %y : tensor<4x8xf32>
}

// -----

// Mixed element types and an i1 result; two-sided broadcasting.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @mixed
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #{{.*}}]
// CHECK-SAME: outs(%{{.*}} : tensor<3x5xi1>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: i32, %[[F:.*]]: f32, %{{.*}}: i1):
// CHECK-NEXT: %[[AF:.*]] = arith.sitofp %[[A]] : i32 to f32
// CHECK-NEXT: %[[C:.*]] = arith.cmpf olt, %[[AF]], %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[C]] : i1
func.func @mixed(%a: tensor<3x1xi32>, %f: tensor<5xf32>) -> tensor<3x5xi1> {
  %y = rlx.elementwise_region(%a, %f) : (tensor<3x1xi32>, tensor<5xf32>) -> tensor<3x5xi1> body {
  ^bb0(%ae: tensor<i32>, %fe: tensor<f32>):
    %af = rlx.cast %ae : tensor<i32> to f32
    %c = rlx.compare lt %af, %fe : tensor<f32>, tensor<f32>
    rlx.yield %c : tensor<i1>
  }
  return %y : tensor<3x5xi1>
}

// -----

// The resize_nearest2x prologue: the input is upsampled first (a generic
// over [N, C, H, 2, W, 2] collapsed to [N, C, 2H, 2W]), then it takes part
// in the chain at full resolution.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @prologue
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x6x8xf32>, %[[L:.*]]: tensor<1x2x3x4xf32>)
// CHECK: %[[UP:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}]
// CHECK-SAME: ins(%[[L]] : tensor<1x2x3x4xf32>) outs(%{{.*}} : tensor<1x2x3x2x4x2xf32>)
// CHECK: %[[FULL:.*]] = tensor.collapse_shape %[[UP]] {{\[\[}}0], [1], [2, 3], [4, 5]] : tensor<1x2x3x2x4x2xf32> into tensor<1x2x6x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[ID4]], #[[ID4]]]
// CHECK-SAME: ins(%[[X]], %[[FULL]] :
// CHECK: arith.subf
func.func @prologue(%x: tensor<1x2x6x8xf32>, %l: tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32> {
  %y = rlx.elementwise_region(%x, %l) : (tensor<1x2x6x8xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x6x8xf32> prologue_input = 1 body {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = rlx.binary sub %a, %b : tensor<f32>, tensor<f32>
    rlx.yield %s : tensor<f32>
  }
  return %y : tensor<1x2x6x8xf32>
}

// -----

// One generic per batch input, each computing the body; unsigned element
// types are signless after the lowering.
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[A:.*]]: tensor<8xi8>, %[[B:.*]]: tensor<8xi8>)
// CHECK: %[[RA:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]] : tensor<8xi8>)
// CHECK-NEXT: ^bb0(%[[E:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield %[[E]] : i8
// CHECK: %[[RB:.*]] = linalg.generic
// CHECK-SAME: ins(%[[B]] : tensor<8xi8>)
// CHECK: return %[[RA]], %[[RB]] : tensor<8xi8>, tensor<8xi8>
func.func @batch(%a: tensor<8xui8>, %b: tensor<8xui8>) -> (tensor<8xui8>, tensor<8xui8>) {
  %r:2 = rlx.batch_elementwise_region(%a, %b) : (tensor<8xui8>, tensor<8xui8>) -> (tensor<8xui8>, tensor<8xui8>) body {
  ^bb0(%e: tensor<ui8>):
    rlx.yield %e : tensor<ui8>
  }
  return %r#0, %r#1 : tensor<8xui8>, tensor<8xui8>
}

// -----

// CHECK-LABEL: func.func @batch_tanh
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
func.func @batch_tanh(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) {
  %r:2 = rlx.batch_elementwise_region(%a, %b) : (tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) body {
  ^bb0(%e: tensor<f64>):
    %t = rlx.activation tanh %e : tensor<f64>
    rlx.yield %t : tensor<f64>
  }
  return %r#0, %r#1 : tensor<2x3xf64>, tensor<2x3xf64>
}

// -----

// Rank-0 constants become scalar constants; unsigned body ops keep their
// unsigned semantics on signless scalars.
// CHECK-LABEL: func.func @constant_unsigned
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[E:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[K:.*]] = arith.constant -56 : i8
// CHECK-NEXT: %[[M:.*]] = arith.maxui %[[E]], %[[K]] : i8
// CHECK-NEXT: linalg.yield %[[M]] : i8
func.func @constant_unsigned(%a: tensor<8xui8>) -> tensor<8xui8> {
  %y = rlx.elementwise_region(%a) : (tensor<8xui8>) -> tensor<8xui8> body {
  ^bb0(%e: tensor<ui8>):
    %k = rlx.constant dense<200> : tensor<ui8>
    %m = rlx.binary max %e, %k : tensor<ui8>, tensor<ui8>
    rlx.yield %m : tensor<ui8>
  }
  return %y : tensor<8xui8>
}

// -----

// A dynamic result dim over static inputs (the verifier accepts the dims as
// compatible): the generic is built at the inputs' static size and cast to
// the result type, not over a missing extent.
// CHECK-LABEL: func.func @region_dynamic_result
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[C:.*]] = tensor.cast %[[Y]] : tensor<4x8xf32> to tensor<?x8xf32>
// CHECK: return %[[C]]
func.func @region_dynamic_result(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %y = rlx.elementwise_region(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<?x8xf32> body {
  ^bb0(%xe: tensor<f32>, %be: tensor<f32>):
    %a = rlx.binary add %xe, %be : tensor<f32>, tensor<f32>
    rlx.yield %a : tensor<f32>
  }
  return %y : tensor<?x8xf32>
}
