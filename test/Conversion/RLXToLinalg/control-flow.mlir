// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// rlx.if -> scf.if on the predicate's one element: only one branch runs.
// CHECK-LABEL: func.func @if_two_results(
// CHECK-SAME: %[[P:.*]]: tensor<1xi1>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[C:.*]] = tensor.extract %[[P]][%{{.*}}] : tensor<1xi1>
// CHECK: %[[R:.*]]:2 = scf.if %[[C]] -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK: math.exp
// CHECK: scf.yield %{{.*}}, %[[X]] : tensor<4xf32>, tensor<4xf32>
// CHECK: } else {
// CHECK: math.tanh
// CHECK: scf.yield
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @if_two_results(%p: tensor<1xi1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = rlx.if %p : tensor<1xi1> -> tensor<4xf32>, tensor<4xf32> {
    %a = rlx.activation exp %x : tensor<4xf32>
    rlx.yield %a, %x : tensor<4xf32>, tensor<4xf32>
  } else {
    %b = rlx.activation tanh %x : tensor<4xf32>
    rlx.yield %b, %b : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// rlx.while with max_iterations -> scf.while carrying an index counter: the
// loop runs while the predicate holds and the counter is below the bound.
// CHECK-LABEL: func.func @while_bounded(
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[W:.*]]:2 = scf.while (%[[I:.*]] = %[[ZERO]], %[[C:.*]] = %{{.*}}) : (index, tensor<4xf32>) -> (index, tensor<4xf32>) {
// CHECK: %[[P:.*]] = tensor.extract
// CHECK: %[[BELOW:.*]] = arith.cmpi ult, %[[I]], %{{.*}} : index
// CHECK: %[[GO:.*]] = arith.andi %[[P]], %[[BELOW]] : i1
// CHECK: scf.condition(%[[GO]]) %[[I]], %[[C]] : index, tensor<4xf32>
// CHECK: } do {
// CHECK: ^bb0(%[[J:.*]]: index, %[[D:.*]]: tensor<4xf32>):
// CHECK: math.tanh
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: scf.yield %[[NEXT]], %{{.*}} : index, tensor<4xf32>
// CHECK: return %[[W]]#1
func.func @while_bounded(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %r = rlx.while %x : tensor<4xf32> max_iterations = 16 cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    %n = rlx.activation tanh %c : tensor<4xf32>
    rlx.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Without a bound no counter is carried.
// CHECK-LABEL: func.func @while_unbounded(
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: arith.cmpi ult
// CHECK: scf.condition
func.func @while_unbounded(%x: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %r = rlx.while %x : tensor<4xf32> cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// rlx.scan -> scf.for over the steps, reading row t of each xs and writing
// the carry into row t of the trajectory.
// CHECK-LABEL: func.func @scan_trajectory(
// CHECK-SAME: %[[H:.*]]: tensor<8xf32>, %[[W:.*]]: tensor<8xf32>, %[[U:.*]]: tensor<16x8xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<16x8xf32>
// CHECK: %[[R:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C:.*]] = %[[H]], %[[TR:.*]] = %[[EMPTY]]) -> (tensor<8xf32>, tensor<16x8xf32>)
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[U]][%[[T]], 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<8xf32>
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} ins(%[[C]], %[[W]], %[[ROW]]
// CHECK: %[[STORED:.*]] = tensor.insert_slice %[[NEW]] into %[[TR]][%[[T]], 0] [1, 8] [1, 1]
// CHECK: scf.yield %[[NEW]], %[[STORED]]
// CHECK: return %[[R]]#1
func.func @scan_trajectory(%h: tensor<8xf32>, %w: tensor<8xf32>, %u: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %t = rlx.scan %h : tensor<8xf32> bcast(%w : tensor<8xf32>) xs(%u : tensor<16x8xf32>)
      length = 16 save_trajectory body {
  ^bb0(%c: tensor<8xf32>, %wb: tensor<8xf32>, %ut: tensor<8xf32>):
    %e = rlx.elementwise_region(%c, %wb, %ut) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> body {
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %d: tensor<f32>):
      %m = rlx.binary mul %a, %b : tensor<f32>, tensor<f32>
      %s = rlx.binary add %m, %d : tensor<f32>, tensor<f32>
      rlx.yield %s : tensor<f32>
    }
    rlx.yield %e : tensor<8xf32>
  }
  return %t : tensor<16x8xf32>
}

// -----

// With checkpoints only the steps floor(k * length / K) are stored, into
// row k = ceil(t * K / length).
// CHECK-LABEL: func.func @scan_checkpoints(
// CHECK: scf.for
// CHECK: arith.ceildivui
// CHECK: arith.divui
// CHECK: scf.if
// CHECK: tensor.insert_slice
// CHECK: } else {
func.func @scan_checkpoints(%h: tensor<8xf32>) -> tensor<3x8xf32> {
  %t = rlx.scan %h : tensor<8xf32> length = 10 save_trajectory num_checkpoints = 3 body {
  ^bb0(%c: tensor<8xf32>):
    %n = rlx.activation tanh %c : tensor<8xf32>
    rlx.yield %n : tensor<8xf32>
  }
  return %t : tensor<3x8xf32>
}
