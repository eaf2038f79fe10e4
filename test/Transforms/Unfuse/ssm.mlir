// RUN: rlx-opt %s --rlx-unfuse="target=autodiff" --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-unfuse="target=cpu" --split-input-file | FileCheck %s --check-prefix=CPU

// selective_scan: a scan of the state [b, hidden, n] over the sequence (a
// broadcast, the per-step inputs sequence-major), the saved states then
// contracted with c over n. The CPU runs the op natively.
// CHECK-LABEL: func.func @selective_scan
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xf32>, %[[D:.*]]: tensor<2x5x3xf32>, %[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<2x5x4xf32>, %[[C:.*]]: tensor<2x5x4xf32>)
// CHECK: %[[H0:.*]] = rlx.constant dense<0.000000e+00> : tensor<2x3x4xf32>
// CHECK: %[[DT:.*]] = rlx.transpose %[[D]] perm = [1, 0, 2]
// CHECK: %[[XT:.*]] = rlx.transpose %[[X]] perm = [1, 0, 2]
// CHECK: %[[BT:.*]] = rlx.transpose %[[B]] perm = [1, 0, 2]
// CHECK: %[[S:.*]] = rlx.scan %[[H0]] : tensor<2x3x4xf32> bcast(%[[A]] : tensor<3x4xf32>) xs(%[[DT]], %[[XT]], %[[BT]] : {{.*}}) length = 5 save_trajectory body {
// CHECK-NEXT: ^bb0(%[[H:.*]]: tensor<2x3x4xf32>, %[[AA:.*]]: tensor<3x4xf32>, %[[DD:.*]]: tensor<2x3xf32>, %[[XX:.*]]: tensor<2x3xf32>, %[[BB:.*]]: tensor<2x4xf32>):
// CHECK: %[[DECAY:.*]] = rlx.activation exp
// CHECK: %[[H1:.*]] = rlx.binary mul %[[DECAY]], %[[H]]
// CHECK: %[[N:.*]] = rlx.binary add %[[H1]], %{{.*}}
// CHECK: rlx.yield %[[N]]
// CHECK: %[[ST:.*]] = rlx.transpose %[[S]] perm = [1, 0, 2, 3] : tensor<5x2x3x4xf32>
// CHECK: %[[CR:.*]] = rlx.reshape %[[C]] new_shape = [2, 5, 1, 4]
// CHECK: %[[P:.*]] = rlx.binary mul %[[ST]], %[[CR]]
// CHECK: %[[Y:.*]] = rlx.reduce sum %[[P]] axes = [3]
// CHECK: return %[[Y]]
// CPU-LABEL: func.func @selective_scan
// CPU: rlx.selective_scan
func.func @selective_scan(%x: tensor<2x5x3xf32>, %d: tensor<2x5x3xf32>, %a: tensor<3x4xf32>, %b: tensor<2x5x4xf32>, %c: tensor<2x5x4xf32>) -> tensor<2x5x3xf32> {
  %y = rlx.selective_scan %x, %d, %a, %b, %c state_size = 4 : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>
  return %y : tensor<2x5x3xf32>
}

// -----

// gated_delta_net with a carried state: the state is the scan's initial
// carry, the outputs q^T S / sqrt(n) of the saved states, the final state
// the last of them.
// CHECK-LABEL: func.func @gated_delta_net
// CHECK: %[[S:.*]] = rlx.scan %arg5 : tensor<1x2x4x4xf32> xs({{.*}}) length = 3 save_trajectory body {
// CHECK: rlx.matmul {{.*}} : tensor<1x2x1x4xf32>, tensor<1x2x4x4xf32>
// CHECK: rlx.yield
// CHECK: %[[QT:.*]] = rlx.transpose %arg0 perm = [1, 0, 2, 3]
// CHECK: %[[QR:.*]] = rlx.reshape %[[QT]] new_shape = [3, 1, 2, 1, 4]
// CHECK: %[[O:.*]] = rlx.matmul %[[QR]], %[[S]]
// CHECK: %[[OR:.*]] = rlx.reshape %[[O]] new_shape = [3, 1, 2, 4]
// CHECK: %[[OT:.*]] = rlx.transpose %[[OR]] perm = [1, 0, 2, 3]
// CHECK: %[[OS:.*]] = rlx.binary mul %[[OT]], %{{.*}} : tensor<1x3x2x4xf32>, tensor<f32>
// CHECK: %[[LAST:.*]] = rlx.narrow %[[S]] axis = 0 start = 2 len = 1
// CHECK: %[[F:.*]] = rlx.reshape %[[LAST]] new_shape = [1, 2, 4, 4]
// CHECK: return %[[OS]], %[[F]]
// CPU-LABEL: func.func @gated_delta_net
// CPU: rlx.gated_delta_net
func.func @gated_delta_net(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x2x4xf32>, %g: tensor<1x3x2xf32>, %beta: tensor<1x3x2xf32>, %s0: tensor<1x2x4x4xf32>) -> (tensor<1x3x2x4xf32>, tensor<1x2x4x4xf32>) {
  %o, %s = rlx.gated_delta_net %q, %k, %v, %g, %beta state_size = 4 carry_state state %s0 : tensor<1x2x4x4xf32> : tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>
  return %o, %s : tensor<1x3x2x4xf32>, tensor<1x2x4x4xf32>
}
