// RUN: rlx-opt %s --rlx-unfuse --split-input-file | FileCheck %s

// Batched DotGeneral already in matmul layout: one batched matmul (the
// identity reshapes fold away).
// CHECK-LABEL: func.func @dot_general_batch
// CHECK-NEXT: %[[M:.*]] = rlx.matmul %arg0, %arg1 : tensor<4x8x16xf32>, tensor<4x16x3xf32>
// CHECK-NEXT: return %[[M]]
func.func @dot_general_batch(%a: tensor<4x8x16xf32>, %b: tensor<4x16x3xf32>) -> tensor<4x8x3xf32> {
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [1] batch_dims = [0] x [0] : tensor<4x8x16xf32>, tensor<4x16x3xf32>
  return %0 : tensor<4x8x3xf32>
}

// -----

// Two contracting dims paired in a different order on each side: the rhs is
// transposed so the flattened K indices match the lhs.
// CHECK-LABEL: func.func @dot_general_multi_contract
// CHECK: %[[L:.*]] = rlx.reshape %arg0 new_shape = [1, 30] : tensor<5x6xf64>
// CHECK: %[[RT:.*]] = rlx.transpose %arg1 perm = [1, 0, 2] : tensor<6x5x7xf64>
// CHECK: %[[R:.*]] = rlx.reshape %[[RT]] new_shape = [30, 7] : tensor<5x6x7xf64>
// CHECK: %[[M:.*]] = rlx.matmul %[[L]], %[[R]] : tensor<1x30xf64>, tensor<30x7xf64>
// CHECK: rlx.reshape %[[M]] new_shape = [7] : tensor<1x7xf64>
func.func @dot_general_multi_contract(%c: tensor<5x6xf64>, %d: tensor<6x5x7xf64>) -> tensor<7xf64> {
  %0 = rlx.dot_general %c, %d contracting_dims = [0, 1] x [1, 0] batch_dims = [] x [] : tensor<5x6xf64>, tensor<6x5x7xf64>
  return %0 : tensor<7xf64>
}

// -----

// Batch dims not leading and free dims on both sides: transposes bring the
// batch dims first.
// CHECK-LABEL: func.func @dot_general_transposed
// CHECK: %[[L:.*]] = rlx.transpose %arg0 perm = [1, 0, 2] : tensor<3x2x4xf32>
// CHECK: %[[R:.*]] = rlx.transpose %arg1 perm = [2, 0, 1] : tensor<4x5x2xf32>
// CHECK: %[[M:.*]] = rlx.matmul %[[L]], %[[R]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>
// CHECK: return %[[M]]
func.func @dot_general_transposed(%a: tensor<3x2x4xf32>, %b: tensor<4x5x2xf32>) -> tensor<2x3x5xf32> {
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [0] batch_dims = [1] x [2] : tensor<3x2x4xf32>, tensor<4x5x2xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Rank-3 attention becomes rank-4 between head splits and merges; every
// attribute and the bias mask are kept.
// CHECK-LABEL: func.func @attention_rank3
// CHECK: %[[QR:.*]] = rlx.reshape %arg0 new_shape = [-1, 5, 2, 4] : tensor<1x5x8xf32>
// CHECK: %[[Q:.*]] = rlx.transpose %[[QR]] perm = [0, 2, 1, 3]
// CHECK: %[[KR:.*]] = rlx.reshape %arg1 new_shape = [-1, 7, 2, 4] : tensor<1x7x8xf32>
// CHECK: %[[A:.*]] = rlx.attention %[[Q]], %{{.*}}, %{{.*}} mask %arg3 : tensor<1x2x5x7xf32> {attn_logit_softcap = 3.000000e+01 : f32, head_dim = 4 : i64, mask_kind = #rlx.mask<bias>, num_heads = 2 : i64, score_scale = 2.500000e-01 : f32} : tensor<1x2x5x4xf32>, tensor<1x2x7x4xf32>, tensor<1x2x7x4xf32>
// CHECK: %[[T:.*]] = rlx.transpose %[[A]] perm = [0, 2, 1, 3]
// CHECK: rlx.reshape %[[T]] new_shape = [-1, 5, 8] : tensor<1x5x2x4xf32>
func.func @attention_rank3(%q: tensor<1x5x8xf32>, %k: tensor<1x7x8xf32>, %v: tensor<1x7x8xf32>,
                           %bias: tensor<1x2x5x7xf32>) -> tensor<1x5x8xf32> {
  %0 = rlx.attention %q, %k, %v mask %bias : tensor<1x2x5x7xf32> {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<bias>, score_scale = 0.25 : f32, attn_logit_softcap = 30.0 : f32} : tensor<1x5x8xf32>, tensor<1x7x8xf32>, tensor<1x7x8xf32>
  return %0 : tensor<1x5x8xf32>
}
