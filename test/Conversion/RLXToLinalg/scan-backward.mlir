// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// rlx.scan_backward -> one scf.for walking t = length - 1 .. 0. The carry of
// step t is init at t = 0, else trajectory row t - 1; the cotangent fed to
// body_vjp is the threaded one plus upstream row t (saved trajectory).
// CHECK-LABEL: func.func @scan_backward_trajectory(
// CHECK-SAME: %[[H:.*]]: tensor<4xf32>, %[[TR:.*]]: tensor<6x4xf32>, %[[UP:.*]]: tensor<6x4xf32>, %[[U:.*]]: tensor<6x4xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[D:.*]] = %[[ZERO]]) -> (tensor<4xf32>)
// CHECK: %[[LAST:.*]] = arith.constant 5 : index
// CHECK: %[[T:.*]] = arith.subi %[[LAST]], %[[I]] : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]]
// CHECK: %[[C:.*]] = scf.if %[[FIRST]] -> (tensor<4xf32>) {
// CHECK: scf.yield %[[H]]
// CHECK: } else {
// CHECK: %[[PREV:.*]] = arith.subi %[[T]]
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[TR]][%[[PREV]], 0] [1, 4] [1, 1]
// CHECK: scf.yield %[[ROW]]
// CHECK: %[[UT:.*]] = tensor.extract_slice %[[U]][%[[T]], 0] [1, 4] [1, 1]
// CHECK: %[[UPT:.*]] = tensor.extract_slice %[[UP]][%[[T]], 0] [1, 4] [1, 1]
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[D]], %[[UPT]] :
// CHECK: arith.addf
// CHECK: %[[DC:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[UT]] :
// CHECK: arith.mulf
// CHECK: scf.yield %[[DC]] : tensor<4xf32>
// CHECK: return %[[R]]
func.func @scan_backward_trajectory(%h: tensor<4xf32>, %tr: tensor<6x4xf32>, %up: tensor<6x4xf32>, %u: tensor<6x4xf32>) -> tensor<4xf32> {
  %d = rlx.scan_backward %h, %tr, %up : tensor<4xf32>, tensor<6x4xf32>, tensor<6x4xf32> xs(%u : tensor<6x4xf32>) length = 6 save_trajectory body_vjp {
  ^bb0(%c: tensor<4xf32>, %ut: tensor<4xf32>, %g: tensor<4xf32>):
    %m = rlx.binary mul %g, %ut : tensor<4xf32>, tensor<4xf32>
    rlx.yield %m, %g : tensor<4xf32>, tensor<4xf32>
  }
  return %d : tensor<4xf32>
}

// -----

// Without a saved trajectory upstream is the cotangent of the final carry:
// it seeds the loop and nothing is added per step. The xs variant carries
// the stacked gradient and writes the yielded dx of xs_idx into row t.
// CHECK-LABEL: func.func @scan_backward_xs_final(
// CHECK-SAME: %[[H:.*]]: tensor<4xf32>, %[[TR:.*]]: tensor<6x4xf32>, %[[UP:.*]]: tensor<4xf32>, %[[U:.*]]: tensor<6x4xf32>, %[[V:.*]]: tensor<6x2xf32>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<6x2xf32>
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[D:.*]] = %[[UP]], %[[DXS:.*]] = %[[EMPTY]]) -> (tensor<4xf32>, tensor<6x2xf32>)
// CHECK: %[[T:.*]] = arith.subi
// CHECK: scf.if
// CHECK: %[[VT:.*]] = tensor.extract_slice %[[V]][%[[T]], 0] [1, 2] [1, 1]
// CHECK-NOT: arith.addf
// CHECK: %[[DV:.*]] = linalg.generic {{.*}} ins(%[[VT]] :
// CHECK: math.tanh
// CHECK: %[[STORED:.*]] = tensor.insert_slice %[[DV]] into %[[DXS]][%[[T]], 0] [1, 2] [1, 1]
// CHECK: scf.yield %[[D]], %[[STORED]]
// CHECK: return %[[R]]#1
func.func @scan_backward_xs_final(%h: tensor<4xf32>, %tr: tensor<6x4xf32>, %up: tensor<4xf32>, %u: tensor<6x4xf32>, %v: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %d = rlx.scan_backward_xs %h, %tr, %up : tensor<4xf32>, tensor<6x4xf32>, tensor<4xf32> xs(%u, %v : tensor<6x4xf32>, tensor<6x2xf32>) length = 6 xs_idx = 1 body_vjp {
  ^bb0(%c: tensor<4xf32>, %ut: tensor<4xf32>, %vt: tensor<2xf32>, %g: tensor<4xf32>):
    %dv = rlx.activation tanh %vt : tensor<2xf32>
    rlx.yield %g, %ut, %dv : tensor<4xf32>, tensor<4xf32>, tensor<2xf32>
  }
  return %d : tensor<6x2xf32>
}

// -----

// With 0 < K < length checkpoints the carry of step t > 0 is replayed with
// forward_body from checkpoint k = ceil(t * K / length) - 1 (row
// r = floor(k * length / K) holds the carry after step r), over the steps
// r + 1 .. t - 1.
// CHECK-LABEL: func.func @scan_backward_checkpoints(
// CHECK-SAME: %[[H:.*]]: tensor<4xf32>, %[[TR:.*]]: tensor<3x4xf32>
// CHECK: scf.for
// CHECK: scf.if
// CHECK: } else {
// CHECK: %[[S:.*]] = arith.subi
// CHECK: %[[S1:.*]] = arith.addi %[[S]]
// CHECK: %[[KK:.*]] = arith.muli %[[S1]]
// CHECK: %[[KC:.*]] = arith.ceildivui %[[KK]]
// CHECK: %[[K:.*]] = arith.subi %[[KC]]
// CHECK: %[[RL:.*]] = arith.muli %[[K]]
// CHECK: %[[ROW:.*]] = arith.divui %[[RL]]
// CHECK: %[[CP:.*]] = tensor.extract_slice %[[TR]][%[[K]], 0] [1, 4] [1, 1]
// CHECK: %[[FROM:.*]] = arith.addi %[[ROW]]
// CHECK: %[[TO:.*]] = arith.addi %[[S]]
// CHECK: %[[REPLAY:.*]] = scf.for %{{.*}} = %[[FROM]] to %[[TO]] step %{{.*}} iter_args(%[[C:.*]] = %[[CP]])
// CHECK: math.tanh
// CHECK: scf.yield
// CHECK: scf.yield %[[REPLAY]]
func.func @scan_backward_checkpoints(%h: tensor<4xf32>, %tr: tensor<3x4xf32>, %up: tensor<10x4xf32>) -> tensor<4xf32> {
  %d = rlx.scan_backward %h, %tr, %up : tensor<4xf32>, tensor<3x4xf32>, tensor<10x4xf32> length = 10 save_trajectory num_checkpoints = 3 body_vjp {
  ^bb0(%c: tensor<4xf32>, %g: tensor<4xf32>):
    %m = rlx.binary mul %g, %c : tensor<4xf32>, tensor<4xf32>
    rlx.yield %m : tensor<4xf32>
  } forward_body {
  ^bb0(%c: tensor<4xf32>):
    %n = rlx.activation tanh %c : tensor<4xf32>
    rlx.yield %n : tensor<4xf32>
  }
  return %d : tensor<4xf32>
}
