// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @reshape_bad_entry(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{new_shape entry #1 is -2; entries are sizes >= 0 or -1 (inferred)}}
  %0 = rlx.reshape %x new_shape = [4, -2] : tensor<4x6xf32>
  return
}

// -----

func.func @reshape_two_inferred(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{new_shape [-1, 2, -1] has 2 entries -1; at most one dim can be inferred}}
  %0 = rlx.reshape %x new_shape = [-1, 2, -1] : tensor<4x6xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{new_shape [5, 5] has 25 elements but the input [4, 6] has 24}}
  %0 = rlx.reshape %x new_shape = [5, 5] : tensor<4x6xf32>
  return
}

// -----

func.func @reshape_not_multiple(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{cannot reshape the input [4, 6] (24 elements) to new_shape [5, -1]: 24 is not a multiple of 5}}
  %0 = rlx.reshape %x new_shape = [5, -1] : tensor<4x6xf32>
  return
}

// -----

func.func @reshape_infer_from_zero(%x: tensor<0x6xf32>) {
  // expected-error @+1 {{cannot infer the -1 entry of new_shape [0, -1]: the other entries hold zero elements}}
  %0 = rlx.reshape %x new_shape = [0, -1] : tensor<0x6xf32>
  return
}

// -----

func.func @reshape_overflow(%x: tensor<?xf32>) {
  // expected-error @+1 {{new_shape [4294967296, 4294967296] has more elements than fit in 64 bits}}
  %0 = rlx.reshape %x new_shape = [4294967296, 4294967296] : tensor<?xf32>
  return
}

// -----

func.func @reshape_result_type(%x: tensor<4x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<24xf32>' are incompatible with return type(s) of operation 'tensor<6x4xf32>'}}
  // expected-error @+1 {{'rlx.reshape' op failed to infer returned types}}
  %0 = "rlx.reshape"(%x) {new_shape = array<i64: -1>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  return
}

// -----

func.func @reshape_missing_shape(%x: tensor<4x6xf32>) {
  // expected-error @+1 {{requires attribute 'new_shape'}}
  %0 = "rlx.reshape"(%x) : (tensor<4x6xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @reshape_dynamic_result(%x: tensor<?x6xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<?x3xf32>' are incompatible with return type(s) of operation 'tensor<8x3xf32>'}}
  // expected-error @+1 {{'rlx.reshape' op failed to infer returned types}}
  %0 = "rlx.reshape"(%x) {new_shape = array<i64: -1, 3>} : (tensor<?x6xf32>) -> tensor<8x3xf32>
  return
}

// -----

func.func @transpose_length(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{perm [1, 0, 2] has 3 entries but the input [4, 8] has rank 2}}
  %0 = rlx.transpose %x perm = [1, 0, 2] : tensor<4x8xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{perm entry #1 is 2, out of range for the input [4, 8] (entries must be in [0, 2))}}
  %0 = rlx.transpose %x perm = [0, 2] : tensor<4x8xf32>
  return
}

// -----

func.func @transpose_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{perm entry #0 is -1, out of range for the input [4, 8] (entries must be in [0, 2))}}
  %0 = rlx.transpose %x perm = [-1, 0] : tensor<4x8xf32>
  return
}

// -----

func.func @transpose_duplicate(%x: tensor<4x8x2xf32>) {
  // expected-error @+1 {{perm [1, 1, 0] is not a permutation: 1 appears more than once}}
  %0 = rlx.transpose %x perm = [1, 1, 0] : tensor<4x8x2xf32>
  return
}

// -----

func.func @transpose_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'rlx.transpose' op failed to infer returned types}}
  %0 = "rlx.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @transpose_perm_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{attribute 'perm' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "rlx.transpose"(%x) {perm = [1, 0]} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @narrow_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis 2 is out of range for the input [4, 8] of rank 2 (axis must be in [0, 2))}}
  %0 = rlx.narrow %x axis = 2 start = 0 len = 1 : tensor<4x8xf32>
  return
}

// -----

func.func @narrow_negative_axis(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{axis -1 is out of range for the input [4, 8] of rank 2 (axis must be in [0, 2))}}
  %0 = rlx.narrow %x axis = -1 start = 0 len = 1 : tensor<4x8xf32>
  return
}

// -----

func.func @narrow_start(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{attribute 'start' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = rlx.narrow %x axis = 1 start = -1 len = 2 : tensor<4x8xf32>
  return
}

// -----

func.func @narrow_len(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{attribute 'len' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = rlx.narrow %x axis = 1 start = 0 len = -2 : tensor<4x8xf32>
  return
}

// -----

func.func @narrow_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice [6, 10) (start 6, len 4) exceeds dim 1 of the input [4, 8], which has size 8}}
  %0 = rlx.narrow %x axis = 1 start = 6 len = 4 : tensor<4x8xf32>
  return
}

// -----

// start + len beyond int64 (found by rlx-fuzz-ir: the sum overflowed).
func.func @narrow_bounds_overflow(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{slice [9223372036854775807, 9223372036854775807 + 5) (start 9223372036854775807, len 5) exceeds dim 1 of the input [4, 8], which has size 8}}
  %0 = rlx.narrow %x axis = 1 start = 9223372036854775807 len = 5 : tensor<4x8xf32>
  return
}

// -----

func.func @narrow_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{axis 0 is out of range for the input [] of rank 0 (axis must be in [0, 0))}}
  %0 = rlx.narrow %x axis = 0 start = 0 len = 1 : tensor<f32>
  return
}

// -----

func.func @narrow_result_type(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x2xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf32>'}}
  // expected-error @+1 {{'rlx.narrow' op failed to infer returned types}}
  %0 = "rlx.narrow"(%x) {axis = 1 : i64, start = 0 : i64, len = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @narrow_missing_len(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{requires attribute 'len'}}
  %0 = "rlx.narrow"(%x) {axis = 1 : i64, start = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @narrow_axis_attr_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "rlx.narrow"(%x) {axis = 1 : i32, start = 0 : i64, len = 2 : i64} : (tensor<4x8xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{expected 1 or more operands, but found 0}}
  %0 = "rlx.concat"() {axis = 0 : i64} : () -> tensor<f32>
  return
}

// -----

func.func @concat_axis(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for input #0 [4, 3] of rank 2 (axis must be in [0, 2))}}
  %0 = rlx.concat %a, %a axis = 2 : tensor<4x3xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @concat_negative_axis(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{axis -1 is out of range for input #0 [4, 3] of rank 2 (axis must be in [0, 2))}}
  %0 = rlx.concat %a, %a axis = -1 : tensor<4x3xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<4x3xf32>, %b: tensor<4x3x1xf32>) {
  // expected-error @+1 {{input #1 [4, 3, 1] has rank 3 but input #0 [4, 3] has rank 2}}
  %0 = rlx.concat %a, %b axis = 0 : tensor<4x3xf32>, tensor<4x3x1xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<4x3xf32>, %b: tensor<4x3xf16>) {
  // expected-error @+1 {{input #1 has element type 'f16' but input #0 has 'f32'}}
  %0 = rlx.concat %a, %b axis = 0 : tensor<4x3xf32>, tensor<4x3xf16>
  return
}

// -----

func.func @concat_dims(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{input #1 [4, 5] has size 5 in dim 1 but input #0 has 3; inputs may differ only along axis 0}}
  %0 = rlx.concat %a, %b axis = 0 : tensor<4x3xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @concat_dims_dynamic(%a: tensor<?x3xf32>, %b: tensor<4x3xf32>, %c: tensor<5x3xf32>) {
  // expected-error @+1 {{input #2 [5, 3] has size 5 in dim 0 but input #1 has 4; inputs may differ only along axis 1}}
  %0 = rlx.concat %a, %b, %c axis = 1 : tensor<?x3xf32>, tensor<4x3xf32>, tensor<5x3xf32>
  return
}

// -----

func.func @concat_result_type(%a: tensor<4x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x6xf32>' are incompatible with return type(s) of operation 'tensor<8x3xf32>'}}
  // expected-error @+1 {{'rlx.concat' op failed to infer returned types}}
  %0 = "rlx.concat"(%a, %a) {axis = 1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  return
}

// -----

func.func @expand_bad_entry(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{target_shape entry #0 is -3; entries are sizes >= 0 or -1 (keep the input dim)}}
  %0 = rlx.expand %x target_shape = [-3, 4] : tensor<1x4xf32>
  return
}

// -----

func.func @expand_rank(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{target_shape [4] has rank 1, less than the rank 2 of the input [2, 4]}}
  %0 = rlx.expand %x target_shape = [4] : tensor<2x4xf32>
  return
}

// -----

func.func @expand_leading_keep(%x: tensor<4xf32>) {
  // expected-error @+1 {{target_shape entry #0 is -1 but the input [4] has no dim there to keep}}
  %0 = rlx.expand %x target_shape = [-1, 4] : tensor<4xf32>
  return
}

// -----

func.func @expand_dim(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{input dim 0 of size 3 cannot expand to 4 (input [3, 1], target_shape [2, 4, 5]); only size-1 dims stretch}}
  %0 = rlx.expand %x target_shape = [2, 4, 5] : tensor<3x1xf32>
  return
}

// -----

func.func @expand_result_type(%x: tensor<1x4xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<3x?xf32>'}}
  // expected-error @+1 {{'rlx.expand' op failed to infer returned types}}
  %0 = "rlx.expand"(%x) {target_shape = array<i64: 3, -1>} : (tensor<1x4xf32>) -> tensor<3x?xf32>
  return
}

// -----

func.func @gather_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{axis 2 is out of range for the table [10, 4] of rank 2 (axis must be in [0, 2))}}
  %0 = rlx.gather %t, %i axis = 2 : tensor<10x4xf32>, tensor<3xi64>
  return
}

// -----

func.func @gather_negative_axis(%t: tensor<10x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{axis -2 is out of range for the table [10, 4] of rank 2 (axis must be in [0, 2))}}
  %0 = rlx.gather %t, %i axis = -2 : tensor<10x4xf32>, tensor<3xi64>
  return
}

// -----

func.func @gather_scalar_table(%t: tensor<f32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{axis 0 is out of range for the table [] of rank 0 (axis must be in [0, 0))}}
  %0 = rlx.gather %t, %i axis = 0 : tensor<f32>, tensor<3xi64>
  return
}

// -----

func.func @gather_float_indices(%t: tensor<10x4xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = rlx.gather %t, %i axis = 0 : tensor<10x4xf32>, tensor<3xf32>
  return
}

// -----

func.func @gather_unsigned_indices(%t: tensor<10x4xf32>, %i: tensor<3xui32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = rlx.gather %t, %i axis = 0 : tensor<10x4xf32>, tensor<3xui32>
  return
}

// -----

func.func @gather_missing_axis(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = "rlx.gather"(%t, %i) : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @expand_missing_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires attribute 'target_shape'}}
  %0 = "rlx.expand"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_result_type(%t: tensor<10x4xf32>, %i: tensor<3xi32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<10x3xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'rlx.gather' op failed to infer returned types}}
  %0 = "rlx.gather"(%t, %i) {axis = 1 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return
}

// -----

// Found by rlx-fuzz-ir under UBSan: the sizes along the axis added up past
// int64.
func.func @concat_axis_overflow(%a: tensor<9223372036854775806x3xf32>, %b: tensor<5x3xf32>) {
  // expected-error @+2 {{'rlx.concat' op the inputs' sizes along axis 0 add up to more than 2^63 - 1}}
  // expected-error @+1 {{'rlx.concat' op failed to infer returned types}}
  %0 = "rlx.concat"(%a, %b) {axis = 0 : i64} : (tensor<9223372036854775806x3xf32>, tensor<5x3xf32>) -> tensor<?x3xf32>
  return
}

