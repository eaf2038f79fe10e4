// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// rlx.selective_scan -> one scf.for over the 5 steps carrying the state
// h [b, h, n] (from zero) and the stacked y; step t reads slice t of the
// per-token operands, updates h elementwise, reduces c * h over n and
// writes y at t.
// CHECK-LABEL: func.func @selective_scan(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x5x3xf32>, %[[D:[^:]*]]: tensor<2x5x3xf32>, %[[A:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<2x5x4xf32>, %[[C:[^:]*]]: tensor<2x5x4xf32>)
// CHECK: %[[H0:.*]] = linalg.fill {{.*}} -> tensor<2x3x4xf32>
// CHECK: %[[Y0:.*]] = tensor.empty() : tensor<2x5x3xf32>
// CHECK: %[[C5:.*]] = arith.constant 5 : index
// CHECK: %[[R:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %[[C5]] step %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[Y:.*]] = %[[Y0]]) -> (tensor<2x3x4xf32>, tensor<2x5x3xf32>)
// CHECK-DAG: %[[XT:.*]] = tensor.extract_slice %[[X]][0, %[[T]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x5x3xf32> to tensor<2x3xf32>
// CHECK-DAG: %[[DT:.*]] = tensor.extract_slice %[[D]][0, %[[T]], 0] [2, 1, 3]
// CHECK-DAG: %[[BT:.*]] = tensor.extract_slice %[[B]][0, %[[T]], 0] [2, 1, 4] [1, 1, 1] : tensor<2x5x4xf32> to tensor<2x4xf32>
// CHECK-DAG: %[[CT:.*]] = tensor.extract_slice %[[C]][0, %[[T]], 0] [2, 1, 4]
// CHECK: %[[HN:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[H]], %[[DT]], %[[A]], %[[BT]], %[[XT]] :
// CHECK: math.exp
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[HN]], %[[CT]] :
// CHECK: %[[YT:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[P]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[YN:.*]] = tensor.insert_slice %[[YT]] into %[[Y]][0, %[[T]], 0] [2, 1, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x5x3xf32>
// CHECK: scf.yield %[[HN]], %[[YN]]
// CHECK: return %[[R]]#1
func.func @selective_scan(%x: tensor<2x5x3xf32>, %d: tensor<2x5x3xf32>, %a: tensor<3x4xf32>, %b: tensor<2x5x4xf32>, %c: tensor<2x5x4xf32>) -> tensor<2x5x3xf32> {
  %y = rlx.selective_scan %x, %d, %a, %b, %c state_size = 4 : tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<3x4xf32>, tensor<2x5x4xf32>, tensor<2x5x4xf32>
  return %y : tensor<2x5x3xf32>
}

// -----

// bf16: the operands are extended to f32 before the loop, the state and the
// output are carried in f32, and the output is truncated after it.
// CHECK-LABEL: func.func @selective_scan_bf16(
// CHECK-COUNT-5: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} -> (tensor<1x4x2xf32>, tensor<1x3x4xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[R]]#1 : tensor<1x3x4xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[Y]] : tensor<1x3x4xbf16>
func.func @selective_scan_bf16(%x: tensor<1x3x4xbf16>, %a: tensor<4x2xbf16>, %b: tensor<1x3x2xbf16>) -> tensor<1x3x4xbf16> {
  %y = rlx.selective_scan %x, %x, %a, %b, %b state_size = 2 : tensor<1x3x4xbf16>, tensor<1x3x4xbf16>, tensor<4x2xbf16>, tensor<1x3x2xbf16>, tensor<1x3x2xbf16>
  return %y : tensor<1x3x4xbf16>
}

// -----

// rlx.gated_delta_net with carry_state -> one scf.for over the 6 tokens
// carrying S [b, h, n, n] from the state operand and the stacked output; per
// token: S k reduced over i, the delta, the rank-1 update, S q reduced over
// i and scaled by 1/sqrt(n). The final S is the second result.
// CHECK-LABEL: func.func @gated_delta_net_carry(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x6x3x5xf32>, %{{[^:]*}}: tensor<2x6x3x5xf32>, %{{[^:]*}}: tensor<2x6x3xf32>, %[[S0:[^:]*]]: tensor<2x3x5x5xf32>)
// CHECK: %[[O0:.*]] = tensor.empty() : tensor<2x6x3x5xf32>
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: %[[R:.*]]:2 = scf.for %[[T:.*]] = %{{.*}} to %[[C6]] step %{{.*}} iter_args(%[[S:.*]] = %[[S0]], %[[O:.*]] = %[[O0]]) -> (tensor<2x3x5x5xf32>, tensor<2x6x3x5xf32>)
// CHECK: %[[QT:.*]] = tensor.extract_slice %[[Q]][0, %[[T]], 0, 0] [2, 1, 3, 5] [1, 1, 1, 1] : tensor<2x6x3x5xf32> to tensor<2x3x5xf32>
// CHECK: %[[SK:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} {{.*}} outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: %[[DELTA:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[SK]], %{{.*}}, %{{.*}} :
// CHECK: math.exp
// CHECK: %[[SN:.*]] = linalg.generic {{.*}} ins(%[[S]], %{{.*}}, %{{.*}}, %[[DELTA]] :
// CHECK: math.exp
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[SN]], %[[QT]] :
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[SQ]] :
// CHECK: %[[OT:.*]] = linalg.generic {{.*}} ins(%[[SUM]] :
// CHECK: %[[ROOT:.*]] = arith.constant 2.236068
// CHECK: arith.divf %{{.*}}, %[[ROOT]]
// CHECK: %[[ON:.*]] = tensor.insert_slice %[[OT]] into %[[O]][0, %[[T]], 0, 0] [2, 1, 3, 5] [1, 1, 1, 1]
// CHECK: scf.yield %[[SN]], %[[ON]]
// CHECK: return %[[R]]#1, %[[R]]#0
func.func @gated_delta_net_carry(%q: tensor<2x6x3x5xf32>, %k: tensor<2x6x3x5xf32>, %g: tensor<2x6x3xf32>, %s: tensor<2x3x5x5xf32>) -> (tensor<2x6x3x5xf32>, tensor<2x3x5x5xf32>) {
  %o, %f = rlx.gated_delta_net %q, %k, %q, %g, %g state_size = 5 carry_state state %s : tensor<2x3x5x5xf32> : tensor<2x6x3x5xf32>, tensor<2x6x3x5xf32>, tensor<2x6x3x5xf32>, tensor<2x6x3xf32>, tensor<2x6x3xf32>
  return %o, %f : tensor<2x6x3x5xf32>, tensor<2x3x5x5xf32>
}

// -----

// Without carry_state the state starts at zero.
// CHECK-LABEL: func.func @gated_delta_net(
// CHECK: %[[S0:.*]] = linalg.fill {{.*}} -> tensor<1x1x1x1xf32>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[S0]], %{{.*}} = %{{.*}}) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>)
// CHECK: return %[[R]]#1 : tensor<1x1x1x1xf32>
func.func @gated_delta_net(%q: tensor<1x1x1x1xf32>, %g: tensor<1x1x1xf32>) -> tensor<1x1x1x1xf32> {
  %o = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 1 : tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>
  return %o : tensor<1x1x1x1xf32>
}
