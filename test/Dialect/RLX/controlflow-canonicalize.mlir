// RUN: rlx-opt %s -canonicalize -split-input-file | FileCheck %s

// A constant true predicate inlines the then region.
// CHECK-LABEL: func.func @if_true
// CHECK-NOT: rlx.if
// CHECK: %[[R:.*]] = rlx.activation relu %{{.*}} : tensor<4xf32>
// CHECK: return %[[R]]
func.func @if_true(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = rlx.constant dense<true> : tensor<i1>
  %r = rlx.if %p : tensor<i1> -> tensor<4xf32> {
    %a = rlx.activation relu %x : tensor<4xf32>
    rlx.yield %a : tensor<4xf32>
  } else {
    %b = rlx.activation sigmoid %x : tensor<4xf32>
    rlx.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A constant false predicate of shape [1] inlines the else region.
// CHECK-LABEL: func.func @if_false
// CHECK-NOT: rlx.if
// CHECK-NOT: relu
// CHECK: %[[R:.*]] = rlx.activation sigmoid %{{.*}} : tensor<4xf32>
// CHECK: return %[[R]]
func.func @if_false(%x: tensor<4xf32>) -> tensor<4xf32> {
  %p = arith.constant dense<false> : tensor<1xi1>
  %r = rlx.if %p : tensor<1xi1> -> tensor<4xf32> {
    %a = rlx.activation relu %x : tensor<4xf32>
    rlx.yield %a : tensor<4xf32>
  } else {
    %b = rlx.activation sigmoid %x : tensor<4xf32>
    rlx.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// An unknown predicate keeps the op.
// CHECK-LABEL: func.func @if_dynamic
// CHECK: rlx.if
func.func @if_dynamic(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = rlx.if %p : tensor<i1> -> tensor<4xf32> {
    %a = rlx.activation relu %x : tensor<4xf32>
    rlx.yield %a : tensor<4xf32>
  } else {
    rlx.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A loop whose condition is constantly false returns its initial values.
// CHECK-LABEL: func.func @while_never
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<i32>)
// CHECK-NOT: rlx.while
// CHECK: return %[[X]], %[[I]]
func.func @while_never(%x: tensor<4xf32>, %i: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %r:2 = rlx.while %x, %i : tensor<4xf32>, tensor<i32> cond {
  ^bb0(%c: tensor<4xf32>, %j: tensor<i32>):
    %f = rlx.constant dense<false> : tensor<i1>
    rlx.yield %f, %c, %j : tensor<i1>, tensor<4xf32>, tensor<i32>
  } do {
  ^bb0(%c: tensor<4xf32>, %j: tensor<i32>):
    %n = rlx.activation tanh %c : tensor<4xf32>
    rlx.yield %n, %j : tensor<4xf32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<i32>
}

// -----

// A constant true condition is an unbounded (or max_iterations) loop: kept.
// CHECK-LABEL: func.func @while_always
// CHECK: rlx.while
func.func @while_always(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = rlx.while %x : tensor<4xf32> max_iterations = 3 cond {
  ^bb0(%c: tensor<4xf32>):
    %t = rlx.constant dense<true> : tensor<i1>
    rlx.yield %t, %c : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    %n = rlx.activation tanh %c : tensor<4xf32>
    rlx.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
