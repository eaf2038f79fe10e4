// RUN: rlx-opt %s --rlx-unfuse="target=all" --split-input-file | FileCheck %s

// Decompositions that flatten dims leave an op whose flattened sizes do not
// fit in int64 (a verified type may hold more elements than 64 bits count)
// rather than overflowing (found by rlx-fuzz-unfuse under UBSan).

// CHECK-LABEL: func.func @gather_backward_huge
// CHECK: rlx.gather_backward
func.func @gather_backward_huge(%dy: tensor<3x2x9223372036854775806x5xf32>, %i: tensor<2x9223372036854775806xi32>) -> tensor<3x9x5xf32> {
  %0 = rlx.gather_backward %dy, %i {axis = 1 : i64} : tensor<3x2x9223372036854775806x5xf32>, tensor<2x9223372036854775806xi32> -> tensor<3x9x5xf32>
  return %0 : tensor<3x9x5xf32>
}

// -----

// CHECK-LABEL: func.func @dot_general_huge
// CHECK: rlx.dot_general
func.func @dot_general_huge(%a: tensor<4611686018427387904x4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4611686018427387904x4x3xf32> {
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [0] batch_dims = [] x [] : tensor<4611686018427387904x4x8xf32>, tensor<8x3xf32>
  return %0 : tensor<4611686018427387904x4x3xf32>
}

// -----

// The backward decompositions leave an op with a type whose dims multiply
// past int64 (found by rlx-fuzz-cpu-pipeline under UBSan: group norm's
// C/G * H * W overflowed).
// CHECK-LABEL: func.func @group_norm_backward_huge
// CHECK: rlx.group_norm_backward_input
func.func @group_norm_backward_huge(%x: tensor<2x6x4294967296x4294967296xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>, %dy: tensor<2x6x4294967296x4294967296xf32>) -> tensor<2x6x4294967296x4294967296xf32> {
  %0 = rlx.group_norm_backward_input %x, %g, %b, %dy {eps = 1.0e-5 : f32, num_groups = 3 : i64} : tensor<2x6x4294967296x4294967296xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x6x4294967296x4294967296xf32>
  return %0 : tensor<2x6x4294967296x4294967296xf32>
}
