// RUN: rlx-opt %s --rlx-unfuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-unfuse="target=cpu" --split-input-file | FileCheck %s --check-prefix=NATIVE
// RUN: rlx-opt %s --rlx-unfuse="target=cuda" --split-input-file | FileCheck %s --check-prefix=NATIVE
// RUN: rlx-opt %s --rlx-unfuse="target=autodiff" --split-input-file | FileCheck %s --check-prefix=AD
// RUN: rlx-opt %s --rlx-unfuse --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// The body is inlined: each body op on the full-size operands, which
// broadcast as the region's operands do; the constant stays rank-0.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<f32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-DAG: %[[Z:.*]] = rlx.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[M:.*]] = rlx.binary mul %[[X]], %[[S]] : tensor<4x8xf32>, tensor<f32>
// CHECK: %[[A:.*]] = rlx.binary add %[[M]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>
// CHECK: %[[R:.*]] = rlx.binary max %[[A]], %[[Z]] : tensor<4x8xf32>, tensor<f32>
// CHECK: %[[C:.*]] = rlx.compare gt %[[R]], %[[X]]
// CHECK: %[[E:.*]] = rlx.activation exp %[[R]]
// CHECK: %[[W:.*]] = rlx.where %[[C]], %[[E]], %[[X]] : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>
// CHECK: return %[[W]]
// The CPU and CUDA run the region natively; autodiff differentiates
// primitives.
// NATIVE-LABEL: func.func @chain
// NATIVE: rlx.elementwise_region
// AD-LABEL: func.func @chain
// AD-NOT: rlx.elementwise_region
// AD: rlx.where
// LOC-LABEL: func.func @chain
// LOC: rlx.where {{.*}} loc(#[[WL:loc[0-9]*]])
// LOC: #[[WL]] = loc(fused<"rlx.elementwise_region">[#{{loc[0-9]*}}])
func.func @chain(%x: tensor<4x8xf32>, %s: tensor<f32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %y = rlx.elementwise_region(%x, %s, %b) : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
  ^bb0(%xe: tensor<f32>, %se: tensor<f32>, %be: tensor<f32>):
    %m = rlx.binary mul %xe, %se : tensor<f32>, tensor<f32>
    %a = rlx.binary add %m, %be : tensor<f32>, tensor<f32>
    %z = rlx.constant dense<0.0> : tensor<f32>
    %r = rlx.binary max %a, %z : tensor<f32>, tensor<f32>
    %c = rlx.compare gt %r, %xe : tensor<f32>, tensor<f32>
    %e = rlx.activation exp %r : tensor<f32>
    %w = rlx.where %c, %e, %xe : tensor<i1>, tensor<f32>, tensor<f32>
    rlx.yield %w : tensor<f32>
  }
  return %y : tensor<4x8xf32>
}

// -----

// The yielded value reads fewer inputs than the result's shape covers: it
// is broadcast to the result in its own dtype.
// CHECK-LABEL: func.func @broadcast_result
// CHECK-SAME: (%[[X:.*]]: tensor<8xf64>, %{{.*}}: tensor<3x1xf64>)
// CHECK: %[[N:.*]] = rlx.activation neg %[[X]] : tensor<8xf64>
// CHECK: %[[R:.*]] = rlx.reshape %[[N]] new_shape = [1, 8] : tensor<8xf64>
// CHECK: %[[E:.*]] = rlx.expand %[[R]] target_shape = [3, 8] : tensor<1x8xf64>
// CHECK: return %[[E]]
func.func @broadcast_result(%x: tensor<8xf64>, %b: tensor<3x1xf64>) -> tensor<3x8xf64> {
  %y = rlx.elementwise_region(%x, %b) : (tensor<8xf64>, tensor<3x1xf64>) -> tensor<3x8xf64> body {
  ^bb0(%xe: tensor<f64>, %be: tensor<f64>):
    %n = rlx.activation neg %xe : tensor<f64>
    rlx.yield %n : tensor<f64>
  }
  return %y : tensor<3x8xf64>
}

// -----

// Integers, i1 logic and casts.
// CHECK-LABEL: func.func @ints_and_bools
// CHECK-SAME: (%[[I:.*]]: tensor<6xi32>, %[[P:.*]]: tensor<6xi1>, %[[Q:.*]]: tensor<i1>)
// CHECK-DAG: %[[TWO:.*]] = rlx.constant dense<2> : tensor<i32>
// CHECK-DAG: %[[T:.*]] = rlx.constant dense<true> : tensor<i1>
// CHECK: %[[M:.*]] = rlx.binary mul %[[I]], %[[TWO]] : tensor<6xi32>, tensor<i32>
// CHECK: %[[D:.*]] = rlx.binary div %[[M]], %[[I]]
// CHECK: %[[AND:.*]] = rlx.binary min %[[P]], %[[Q]] : tensor<6xi1>, tensor<i1>
// CHECK: %[[OR:.*]] = rlx.binary max %[[AND]], %[[P]]
// CHECK: %[[NOT:.*]] = rlx.compare ne %[[OR]], %[[T]] : tensor<6xi1>, tensor<i1>
// CHECK: %[[LT:.*]] = rlx.compare lt %[[D]], %[[M]] : tensor<6xi32>, tensor<6xi32>
// CHECK: %[[B:.*]] = rlx.compare lt %[[P]], %[[NOT]] : tensor<6xi1>, tensor<6xi1>
// CHECK: %[[F:.*]] = rlx.cast %[[B]] : tensor<6xi1> to f32
// CHECK: %[[W:.*]] = rlx.cast %[[D]] : tensor<6xi32> to i64
// CHECK: %[[G:.*]] = rlx.cast %[[W]] : tensor<6xi64> to f64
// CHECK: %[[H:.*]] = rlx.cast %[[F]] : tensor<6xf32> to f64
// CHECK: %[[S:.*]] = rlx.binary add %[[G]], %[[H]]
// CHECK: %[[K:.*]] = rlx.cast %[[S]] : tensor<6xf64> to i32
// CHECK: %[[Y:.*]] = rlx.where %[[LT]], %[[K]], %[[I]]
// CHECK: return %[[Y]]
func.func @ints_and_bools(%i: tensor<6xi32>, %p: tensor<6xi1>, %q: tensor<i1>) -> tensor<6xi32> {
  %y = rlx.elementwise_region(%i, %p, %q) : (tensor<6xi32>, tensor<6xi1>, tensor<i1>) -> tensor<6xi32> body {
  ^bb0(%ie: tensor<i32>, %pe: tensor<i1>, %qe: tensor<i1>):
    %two = rlx.constant dense<2> : tensor<i32>
    %m = rlx.binary mul %ie, %two : tensor<i32>, tensor<i32>
    %d = rlx.binary div %m, %ie : tensor<i32>, tensor<i32>
    %and = rlx.binary min %pe, %qe : tensor<i1>, tensor<i1>
    %or = rlx.binary max %and, %pe : tensor<i1>, tensor<i1>
    %t = rlx.constant dense<true> : tensor<i1>
    %not = rlx.compare ne %or, %t : tensor<i1>, tensor<i1>
    %lt = rlx.compare lt %d, %m : tensor<i32>, tensor<i32>
    %b = rlx.compare lt %pe, %not : tensor<i1>, tensor<i1>
    %f = rlx.cast %b : tensor<i1> to f32
    %w = rlx.cast %d : tensor<i32> to i64
    %g = rlx.cast %w : tensor<i64> to f64
    %h = rlx.cast %f : tensor<f32> to f64
    %s = rlx.binary add %g, %h : tensor<f64>, tensor<f64>
    %k = rlx.cast %s : tensor<f64> to i32
    %y = rlx.where %lt, %k, %ie : tensor<i1>, tensor<i32>, tensor<i32>
    rlx.yield %y : tensor<i32>
  }
  return %y : tensor<6xi32>
}

// -----

// Every kind the body may hold unfuses, including those whose scalar
// computation has no one-op arith form: erf-based gelu, f16 transcendental
// activations (computed in f32), every cast, unsigned integers.
// CHECK-LABEL: func.func @every_kind
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[P:.*]]: tensor<8xi1>, %[[H:.*]]: tensor<8xf16>, %[[I:.*]]: tensor<8xi32>, %[[U:.*]]: tensor<8xui8>)
// CHECK: %[[G:.*]] = rlx.activation gelu %[[X]] : tensor<8xf32>
// CHECK: %[[T:.*]] = rlx.activation tanh %[[G]] : tensor<8xf32>
// CHECK: %[[F:.*]] = rlx.cast %[[P]] : tensor<8xi1> to f32
// CHECK: %[[E:.*]] = rlx.activation exp %[[H]] : tensor<8xf16>
// CHECK: %[[B:.*]] = rlx.cast %[[I]] : tensor<8xi32> to i1
// CHECK: %[[D:.*]] = rlx.binary div %[[U]], %[[U]] : tensor<8xui8>, tensor<8xui8>
// CHECK: return %[[T]], %[[F]], %[[E]], %[[B]], %[[D]]
// CHECK-NOT: elementwise_region
func.func @every_kind(%x: tensor<8xf32>, %p: tensor<8xi1>, %h: tensor<8xf16>, %i: tensor<8xi32>, %u: tensor<8xui8>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xi1>, tensor<8xui8>) {
  %0 = rlx.elementwise_region(%x) : (tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%e: tensor<f32>):
    %g = rlx.activation gelu %e : tensor<f32>
    %t = rlx.activation tanh %g : tensor<f32>
    rlx.yield %t : tensor<f32>
  }
  %1 = rlx.elementwise_region(%p) : (tensor<8xi1>) -> tensor<8xf32> body {
  ^bb0(%e: tensor<i1>):
    %r = rlx.cast %e : tensor<i1> to f32
    rlx.yield %r : tensor<f32>
  }
  %2 = rlx.elementwise_region(%h) : (tensor<8xf16>) -> tensor<8xf16> body {
  ^bb0(%e: tensor<f16>):
    %r = rlx.activation exp %e : tensor<f16>
    rlx.yield %r : tensor<f16>
  }
  %3 = rlx.elementwise_region(%i) : (tensor<8xi32>) -> tensor<8xi1> body {
  ^bb0(%e: tensor<i32>):
    %r = rlx.cast %e : tensor<i32> to i1
    rlx.yield %r : tensor<i1>
  }
  %4 = rlx.elementwise_region(%u) : (tensor<8xui8>) -> tensor<8xui8> body {
  ^bb0(%e: tensor<ui8>):
    %r = rlx.binary div %e, %e : tensor<ui8>, tensor<ui8>
    rlx.yield %r : tensor<ui8>
  }
  return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xi1>, tensor<8xui8>
}

// -----

// A dynamic result dim that only an unread input provides cannot be
// expressed by rlx.expand: the region stays. With the dynamic input read,
// it decomposes.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: rlx.elementwise_region(%[[X]], %[[S]])
// CHECK: %[[A:.*]] = rlx.binary add %[[X]], %[[S]] : tensor<?x8xf32>, tensor<f32>
// CHECK: return %{{.*}}, %[[A]]
func.func @dynamic(%x: tensor<?x8xf32>, %s: tensor<f32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %0 = rlx.elementwise_region(%x, %s) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32> body {
  ^bb0(%xe: tensor<f32>, %se: tensor<f32>):
    rlx.yield %se : tensor<f32>
  }
  %1 = rlx.elementwise_region(%x, %s) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32> body {
  ^bb0(%xe: tensor<f32>, %se: tensor<f32>):
    %a = rlx.binary add %xe, %se : tensor<f32>, tensor<f32>
    rlx.yield %a : tensor<f32>
  }
  return %0, %1 : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// The resize_nearest2x prologue becomes an explicit op on that input.
// CHECK-LABEL: func.func @prologue
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x4xf32>, %[[Y:.*]]: tensor<2x1x8xf32>)
// CHECK: %[[U:.*]] = rlx.resize_nearest2x %[[X]] : tensor<1x2x3x4xf32>
// CHECK: %[[A:.*]] = rlx.binary sub %[[Y]], %[[U]] : tensor<2x1x8xf32>, tensor<1x2x6x8xf32>
// CHECK: return %[[A]]
func.func @prologue(%x: tensor<1x2x3x4xf32>, %y: tensor<2x1x8xf32>) -> tensor<1x2x6x8xf32> {
  %r = rlx.elementwise_region(%x, %y) : (tensor<1x2x3x4xf32>, tensor<2x1x8xf32>) -> tensor<1x2x6x8xf32> prologue_input = 0 body {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %n = rlx.binary sub %b, %a : tensor<f32>, tensor<f32>
    rlx.yield %n : tensor<f32>
  }
  return %r : tensor<1x2x6x8xf32>
}

// -----

// The batch region: the body inlined once per batch input.
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[A:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[TA:.*]] = rlx.activation tanh %[[A]]
// CHECK: %[[CA:.*]] = rlx.cast %[[TA]] : tensor<8xf32> to f64
// CHECK: %[[TB:.*]] = rlx.activation tanh %[[B]]
// CHECK: %[[CB:.*]] = rlx.cast %[[TB]] : tensor<8xf32> to f64
// CHECK: return %[[CA]], %[[CB]]
// NATIVE-LABEL: func.func @batch
// NATIVE: rlx.batch_elementwise_region
// AD-LABEL: func.func @batch
// AD-NOT: rlx.batch_elementwise_region
// AD: return
func.func @batch(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf64>, tensor<8xf64>) {
  %r:2 = rlx.batch_elementwise_region(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf64>, tensor<8xf64>) body {
  ^bb0(%e: tensor<f32>):
    %n = rlx.activation tanh %e : tensor<f32>
    %w = rlx.cast %n : tensor<f32> to f64
    rlx.yield %w : tensor<f64>
  }
  return %r#0, %r#1 : tensor<8xf64>, tensor<8xf64>
}

// -----

// The transform region: its geometry chain inlined; every target wants it.
// CHECK-LABEL: func.func @transform
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[A:.*]] = rlx.resize_nearest2x %[[X]] : tensor<1x3x8x8xf32>
// CHECK: %[[B:.*]] = rlx.transpose %[[A]]
// CHECK: %[[C:.*]] = rlx.resize_nearest2x %[[B]] : tensor<1x3x16x16xf32>
// CHECK: return %[[C]]
// NATIVE-LABEL: func.func @transform
// NATIVE-NOT: rlx.transform_region
// NATIVE: return
// AD-LABEL: func.func @transform
// AD-NOT: rlx.transform_region
// AD: return
func.func @transform(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x32x32xf32> {
  %y = rlx.transform_region(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x32x32xf32> body {
  ^bb0(%a: tensor<1x3x8x8xf32>):
    %b = rlx.resize_nearest2x %a : tensor<1x3x8x8xf32>
    %t = rlx.transpose %b perm = [0, 1, 3, 2] : tensor<1x3x16x16xf32>
    %c = rlx.resize_nearest2x %t : tensor<1x3x16x16xf32>
    rlx.yield %c : tensor<1x3x32x32xf32>
  }
  return %y : tensor<1x3x32x32xf32>
}

