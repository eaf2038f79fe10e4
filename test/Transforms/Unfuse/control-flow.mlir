// RUN: rlx-opt %s --rlx-unfuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-unfuse="target=cpu" --split-input-file | FileCheck %s --check-prefix=CPU
// RUN: rlx-opt %s --rlx-unfuse="target=cuda" --split-input-file | FileCheck %s --check-prefix=CUDA
// RUN: rlx-opt %s --rlx-unfuse="target=autodiff" --split-input-file | FileCheck %s --check-prefix=AD
// RUN: rlx-opt %s --rlx-unfuse --split-input-file --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// Both branches inlined, one where per result; the [1] i1 predicate is
// shaped like each result and stays i1.
// CHECK-LABEL: func.func @if_two_results
// CHECK-SAME: (%[[P:.*]]: tensor<1xi1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<2x3xi32>)
// CHECK-DAG: %[[T:.*]] = rlx.activation relu %[[X]] : tensor<4xf32>
// CHECK-DAG: %[[E:.*]] = rlx.activation neg %[[Y]] : tensor<2x3xi32>
// CHECK-DAG: %[[P0:.*]] = rlx.expand %[[P]] target_shape = [4] : tensor<1xi1>
// CHECK-DAG: %[[R0:.*]] = rlx.where %[[P0]], %[[T]], %[[X]] : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
// CHECK-DAG: %[[PR:.*]] = rlx.reshape %[[P]] new_shape = [1, 1] : tensor<1xi1>
// CHECK-DAG: %[[P1:.*]] = rlx.expand %[[PR]] target_shape = [2, 3] : tensor<1x1xi1>
// CHECK-DAG: %[[R1:.*]] = rlx.where %[[P1]], %[[Y]], %[[E]] : tensor<2x3xi1>, tensor<2x3xi32>, tensor<2x3xi32>
// CHECK-NOT: rlx.if
// CHECK: return %[[R0]], %[[R1]]
// CUDA has no runtime branch and autodiff differentiates the select; the
// CPU lowers rlx.if to scf.if.
// CPU-LABEL: func.func @if_two_results
// CPU: rlx.if
// CPU-NOT: rlx.where
// CUDA-LABEL: func.func @if_two_results
// CUDA-NOT: rlx.if
// CUDA: rlx.where
// AD-LABEL: func.func @if_two_results
// AD-NOT: rlx.if
// AD: rlx.where
// The new ops are located at the if, named after it.
// LOC-LABEL: func.func @if_two_results
// LOC: rlx.where {{.*}} loc(#[[WL:loc[0-9]*]])
// LOC: #[[WL]] = loc(fused<"rlx.if">[#{{loc[0-9]*}}])
func.func @if_two_results(%p: tensor<1xi1>, %x: tensor<4xf32>, %y: tensor<2x3xi32>)
    -> (tensor<4xf32>, tensor<2x3xi32>) {
  %r:2 = rlx.if %p : tensor<1xi1> -> tensor<4xf32>, tensor<2x3xi32> {
    %a = rlx.activation relu %x : tensor<4xf32>
    rlx.yield %a, %y : tensor<4xf32>, tensor<2x3xi32>
  } else {
    %n = rlx.activation neg %y : tensor<2x3xi32>
    rlx.yield %x, %n : tensor<4xf32>, tensor<2x3xi32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<2x3xi32>
}

// -----

// A rank-0 predicate for a rank-0 result needs no broadcast; a [1]
// predicate for a rank-0 result is reshaped to rank 0.
// CHECK-LABEL: func.func @if_scalar
// CHECK-SAME: (%[[P:.*]]: tensor<i1>, %[[Q:.*]]: tensor<1xi1>, %[[X:.*]]: tensor<f64>)
// CHECK: %[[S:.*]] = rlx.activation sin %[[X]]
// CHECK: %[[R0:.*]] = rlx.where %[[P]], %[[S]], %[[X]] : tensor<i1>, tensor<f64>, tensor<f64>
// CHECK: %[[QR:.*]] = rlx.reshape %[[Q]] new_shape = [] : tensor<1xi1>
// CHECK: %[[R1:.*]] = rlx.where %[[QR]], %[[X]], %[[S]] : tensor<i1>, tensor<f64>, tensor<f64>
// CHECK: return %[[R0]], %[[R1]]
func.func @if_scalar(%p: tensor<i1>, %q: tensor<1xi1>, %x: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %s = rlx.activation sin %x : tensor<f64>
  %r0 = rlx.if %p : tensor<i1> -> tensor<f64> {
    rlx.yield %s : tensor<f64>
  } else {
    rlx.yield %x : tensor<f64>
  }
  %r1 = rlx.if %q : tensor<1xi1> -> tensor<f64> {
    rlx.yield %x : tensor<f64>
  } else {
    rlx.yield %s : tensor<f64>
  }
  return %r0, %r1 : tensor<f64>, tensor<f64>
}

// -----

// Without results (and without side effects) the op computes nothing.
// CHECK-LABEL: func.func @if_no_results
// CHECK-NOT: rlx.if
// CHECK-NOT: rlx.activation
// CHECK: return
func.func @if_no_results(%p: tensor<i1>, %x: tensor<4xf32>) {
  rlx.if %p : tensor<i1> {
    %a = rlx.activation relu %x : tensor<4xf32>
    rlx.yield
  } else {
    rlx.yield
  }
  return
}

// -----

// Two carries of different shapes and dtypes, unrolled twice: one i1
// "running" flag, the logical and (i1 min) of the predicates, broadcast
// to each carry's shape in i1.
// CHECK-LABEL: func.func @while_two_carries
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[N:.*]]: tensor<i32>, %[[LIM:.*]]: tensor<i32>)
// CHECK: %[[ONE:.*]] = rlx.constant dense<1> : tensor<i32>
// Iteration 1.
// CHECK: %[[P1:.*]] = rlx.compare lt %[[N]], %[[LIM]]
// CHECK: %[[T1:.*]] = rlx.activation tanh %[[X]]
// CHECK: %[[J1:.*]] = rlx.binary add %[[N]], %[[ONE]]
// CHECK: %[[F1R:.*]] = rlx.reshape %[[P1]] new_shape = [1] : tensor<i1>
// CHECK: %[[F1:.*]] = rlx.expand %[[F1R]] target_shape = [4] : tensor<1xi1>
// CHECK: %[[C1:.*]] = rlx.where %[[F1]], %[[T1]], %[[X]] : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
// CHECK: %[[I1:.*]] = rlx.where %[[P1]], %[[J1]], %[[N]] : tensor<i1>, tensor<i32>, tensor<i32>
// Iteration 2.
// CHECK: %[[P2:.*]] = rlx.compare lt %[[I1]], %[[LIM]]
// CHECK: %[[A2:.*]] = rlx.binary min %[[P1]], %[[P2]] : tensor<i1>, tensor<i1>
// CHECK: %[[T2:.*]] = rlx.activation tanh %[[C1]]
// CHECK: %[[J2:.*]] = rlx.binary add %[[I1]], %[[ONE]]
// CHECK: %[[F2R:.*]] = rlx.reshape %[[A2]] new_shape = [1] : tensor<i1>
// CHECK: %[[F2:.*]] = rlx.expand %[[F2R]] target_shape = [4] : tensor<1xi1>
// CHECK: %[[C2:.*]] = rlx.where %[[F2]], %[[T2]], %[[C1]]
// CHECK: %[[I2:.*]] = rlx.where %[[A2]], %[[J2]], %[[I1]]
// CHECK-NOT: rlx.compare
// CHECK: return %[[C2]], %[[I2]]
// CPU-LABEL: func.func @while_two_carries
// CPU: rlx.while
// CPU-NOT: rlx.where
// CUDA-LABEL: func.func @while_two_carries
// CUDA-NOT: rlx.while
// CUDA: return
// AD-LABEL: func.func @while_two_carries
// AD-NOT: rlx.while
// AD: return
func.func @while_two_carries(%x: tensor<4xf32>, %n: tensor<i32>, %lim: tensor<i32>)
    -> (tensor<4xf32>, tensor<i32>) {
  %r:2 = rlx.while %x, %n : tensor<4xf32>, tensor<i32> max_iterations = 2 cond {
  ^bb0(%c: tensor<4xf32>, %i: tensor<i32>):
    %p = rlx.compare lt %i, %lim : tensor<i32>, tensor<i32>
    rlx.yield %p, %c, %i : tensor<i1>, tensor<4xf32>, tensor<i32>
  } do {
  ^bb0(%c: tensor<4xf32>, %i: tensor<i32>):
    %t = rlx.activation tanh %c : tensor<4xf32>
    %one = rlx.constant dense<1> : tensor<i32>
    %j = rlx.binary add %i, %one : tensor<i32>, tensor<i32>
    rlx.yield %t, %j : tensor<4xf32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<i32>
}

// -----

// A [1] predicate and a rank-2 f64 carry; the bound gives the copy count.
// CHECK-LABEL: func.func @while_count
// CHECK-COUNT-3: rlx.activation exp
// CHECK-NOT: rlx.activation exp
// CHECK-NOT: rlx.while
func.func @while_count(%x: tensor<2x3xf64>, %p: tensor<1xi1>) -> tensor<2x3xf64> {
  %r = rlx.while %x : tensor<2x3xf64> max_iterations = 3 cond {
  ^bb0(%c: tensor<2x3xf64>):
    rlx.yield %p, %c : tensor<1xi1>, tensor<2x3xf64>
  } do {
  ^bb0(%c: tensor<2x3xf64>):
    %e = rlx.activation exp %c : tensor<2x3xf64>
    rlx.yield %e : tensor<2x3xf64>
  }
  return %r : tensor<2x3xf64>
}

// -----

// Without max_iterations the trip count is unknown: the loop stays.
// CHECK-LABEL: func.func @while_unbounded
// CHECK: rlx.while %{{.*}} : tensor<4xf32> cond
// CPU-LABEL: func.func @while_unbounded
// CPU: rlx.while
func.func @while_unbounded(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %r = rlx.while %x : tensor<4xf32> cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    %e = rlx.activation exp %c : tensor<4xf32>
    rlx.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// custom_fn: the forward body on the operands; the vjp rule is dropped.
// Autodiff keeps it (it uses the rule).
// CHECK-LABEL: func.func @custom_fn
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = rlx.activation sin %[[X]]
// CHECK: %[[M:.*]] = rlx.binary mul %[[S]], %[[Y]]
// CHECK-NOT: rlx.activation cos
// CHECK: return %[[M]]
// CPU-LABEL: func.func @custom_fn
// CPU-NOT: rlx.custom_fn
// CUDA-LABEL: func.func @custom_fn
// CUDA-NOT: rlx.custom_fn
// AD-LABEL: func.func @custom_fn
// AD: rlx.custom_fn
// The inlined ops keep their own location, fused with the custom_fn's.
// LOC-LABEL: func.func @custom_fn
// LOC: rlx.activation sin {{.*}} loc(#[[SL:loc[0-9]*]])
// LOC: #[[SL]] = loc(fused<"rlx.custom_fn">[#{{loc[0-9]*}}, #{{loc[0-9]*}}])
func.func @custom_fn(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = rlx.custom_fn(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %s = rlx.activation sin %a : tensor<4xf32>
    %m = rlx.binary mul %s, %b : tensor<4xf32>, tensor<4xf32>
    rlx.yield %m : tensor<4xf32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %y0: tensor<4xf32>, %dy: tensor<4xf32>):
    %c = rlx.activation cos %a : tensor<4xf32>
    rlx.yield %c, %dy : tensor<4xf32>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
