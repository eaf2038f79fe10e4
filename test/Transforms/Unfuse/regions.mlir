// RUN: rlx-opt %s --rlx-unfuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-unfuse="target=cpu" --split-input-file | FileCheck %s --check-prefix=NATIVE
// RUN: rlx-opt %s --rlx-unfuse="target=cuda" --split-input-file | FileCheck %s --check-prefix=NATIVE
// RUN: rlx-opt %s --rlx-unfuse="target=autodiff" --split-input-file | FileCheck %s --check-prefix=AD
// RUN: rlx-opt %s --rlx-unfuse --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// One rlx op per scalar op; inputs broadcast as the region's operands do
// and the constant is a rank-0 tensor.
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
  ^bb0(%xe: f32, %se: f32, %be: f32):
    %m = arith.mulf %xe, %se : f32
    %a = arith.addf %m, %be : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %z : f32
    %c = arith.cmpf ogt, %r, %xe : f32
    %e = math.exp %r : f32
    %w = arith.select %c, %e, %xe : f32
    rlx.yield %w : f32
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
  ^bb0(%xe: f64, %be: f64):
    %n = arith.negf %xe : f64
    rlx.yield %n : f64
  }
  return %y : tensor<3x8xf64>
}

// -----

// Integers, i1 logic and casts with rlx.cast's exact semantics.
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
  ^bb0(%ie: i32, %pe: i1, %qe: i1):
    %two = arith.constant 2 : i32
    %m = arith.muli %ie, %two : i32
    %d = arith.divsi %m, %ie : i32
    %and = arith.andi %pe, %qe : i1
    %or = arith.ori %and, %pe : i1
    %t = arith.constant true
    %not = arith.xori %or, %t : i1
    %lt = arith.cmpi slt, %d, %m : i32
    %b = arith.cmpi ult, %pe, %not : i1
    %f = arith.uitofp %b : i1 to f32
    %w = arith.extsi %d : i32 to i64
    %g = arith.sitofp %w : i64 to f64
    %h = arith.extf %f : f32 to f64
    %s = arith.addf %g, %h : f64
    %k = arith.fptosi %s : f64 to i32
    %y = arith.select %lt, %k, %ie : i32
    rlx.yield %y : i32
  }
  return %y : tensor<6xi32>
}

// -----

// Body ops without an exact rlx counterpart leave the region in place:
// math.erf (no rlx op), sitofp of an i1 (-1.0 for true, rlx.cast gives
// 1.0), math.exp on f16 (the rlx activation computes it in f32), trunci to
// i1 (the low bit; rlx.cast tests != 0), maxnumf (ignores NaN).
// CHECK-LABEL: func.func @unsupported
// CHECK-COUNT-5: rlx.elementwise_region
// CHECK-NOT: rlx.activation
func.func @unsupported(%x: tensor<8xf32>, %p: tensor<8xi1>, %h: tensor<8xf16>, %i: tensor<8xi32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xi1>, tensor<8xf32>) {
  %0 = rlx.elementwise_region(%x) : (tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%e: f32):
    %n = arith.negf %e : f32
    %r = math.erf %n : f32
    rlx.yield %r : f32
  }
  %1 = rlx.elementwise_region(%p) : (tensor<8xi1>) -> tensor<8xf32> body {
  ^bb0(%e: i1):
    %r = arith.sitofp %e : i1 to f32
    rlx.yield %r : f32
  }
  %2 = rlx.elementwise_region(%h) : (tensor<8xf16>) -> tensor<8xf16> body {
  ^bb0(%e: f16):
    %r = math.exp %e : f16
    rlx.yield %r : f16
  }
  %3 = rlx.elementwise_region(%i) : (tensor<8xi32>) -> tensor<8xi1> body {
  ^bb0(%e: i32):
    %r = arith.trunci %e : i32 to i1
    rlx.yield %r : i1
  }
  %4 = rlx.elementwise_region(%x, %x) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maxnumf %a, %b : f32
    rlx.yield %r : f32
  }
  return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xi1>, tensor<8xf32>
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
  ^bb0(%xe: f32, %se: f32):
    rlx.yield %se : f32
  }
  %1 = rlx.elementwise_region(%x, %s) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32> body {
  ^bb0(%xe: f32, %se: f32):
    %a = arith.addf %xe, %se : f32
    rlx.yield %a : f32
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
  ^bb0(%a: f32, %b: f32):
    %n = arith.subf %b, %a : f32
    rlx.yield %n : f32
  }
  return %r : tensor<1x2x6x8xf32>
}

// -----

// The batch region: the scalar body once per batch input.
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
  ^bb0(%e: f32):
    %n = math.tanh %e : f32
    %w = arith.extf %n : f32 to f64
    rlx.yield %w : f64
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

// -----

// math.erf alone has no rlx op, but the erf-based gelu chain rlx-fuse emits
// is exactly `activation gelu`, with constants on either side. A chain
// whose intermediate has another use, or with a different constant, is
// not a gelu and stays.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[H:.*]]: tensor<8xf16>)
// CHECK: %[[G:.*]] = rlx.activation gelu %[[X]] : tensor<8xf32>
// CHECK: %[[T:.*]] = rlx.activation tanh %[[G]]
// CHECK: %[[W:.*]] = rlx.cast %[[H]] : tensor<8xf16> to f32
// CHECK: %[[G2:.*]] = rlx.activation gelu %[[W]] : tensor<8xf32>
// CHECK: %[[N:.*]] = rlx.cast %[[G2]] : tensor<8xf32> to f16
// CHECK: %[[KEEP:.*]]:2 = rlx.batch_elementwise_region
// CHECK: math.erf
// CHECK: return %[[T]], %[[N]], %[[KEEP]]#0, %[[KEEP]]#1
func.func @gelu(%x: tensor<8xf32>, %h: tensor<8xf16>) -> (tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>) {
  %0 = rlx.elementwise_region(%x) : (tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%e: f32):
    %c = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %e, %c : f32
    %f = math.erf %s : f32
    %o = arith.addf %f, %one : f32
    %m = arith.mulf %e, %half : f32
    %g = arith.mulf %m, %o : f32
    %t = math.tanh %g : f32
    rlx.yield %t : f32
  }
  %1 = rlx.elementwise_region(%h) : (tensor<8xf16>) -> tensor<8xf16> body {
  ^bb0(%e: f16):
    %c = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %w = arith.extf %e : f16 to f32
    %s = arith.mulf %c, %w : f32
    %f = math.erf %s : f32
    %o = arith.addf %one, %f : f32
    %m = arith.mulf %half, %w : f32
    %g = arith.mulf %o, %m : f32
    %n = arith.truncf %g : f32 to f16
    rlx.yield %n : f16
  }
  %2:2 = rlx.batch_elementwise_region(%x, %x) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) body {
  ^bb0(%e: f32):
    %c = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %e, %c : f32
    %f = math.erf %s : f32
    %o = arith.addf %f, %one : f32
    %m = arith.mulf %e, %half : f32
    %g = arith.mulf %m, %o : f32
    %r = arith.addf %g, %f : f32
    rlx.yield %r : f32
  }
  return %0, %1, %2#0, %2#1 : tensor<8xf32>, tensor<8xf16>, tensor<8xf32>, tensor<8xf32>
}
