// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @reduce_axis_range(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{'rlx.reduce' op axis 3 is out of range for input [4, 8, 16] (axes must be in [0, 3))}}
  %0 = rlx.reduce sum %x axes = [0, 3] : tensor<4x8x16xf32>
  return
}

// -----

func.func @reduce_axis_negative(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{axis -1 is out of range for input [4, 8, 16] (axes must be in [0, 3))}}
  %0 = rlx.reduce sum %x axes = [-1] : tensor<4x8x16xf32>
  return
}

// -----

func.func @reduce_axis_duplicate(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{'rlx.reduce' op axis 1 appears more than once in axes [1, 2, 1]}}
  %0 = rlx.reduce max %x axes = [1, 2, 1] keep_dim : tensor<4x8x16xf32>
  return
}

// -----

func.func @reduce_mean_int(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'rlx.reduce' op reduce 'mean' requires a floating-point or complex element type, got 'i32'}}
  %0 = rlx.reduce mean %x axes = [1] : tensor<4x8xi32>
  return
}

// -----

func.func @reduce_max_complex(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'rlx.reduce' op reduce 'max' needs an ordered element type, got 'complex<f32>'}}
  %0 = rlx.reduce max %x axes = [0] : tensor<4xcomplex<f32>>
  return
}

// -----

func.func @reduce_min_complex(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{reduce 'min' needs an ordered element type, got 'complex<f32>'}}
  %0 = rlx.reduce min %x axes = [0] : tensor<4xcomplex<f32>>
  return
}

// -----

func.func @reduce_unknown_kind(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{unknown reduce kind 'argmax', expected one of: sum, mean, max, min, prod}}
  %0 = rlx.reduce argmax %x axes = [0] : tensor<4x8x16xf32>
  return
}

// -----

func.func @reduce_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or integer or complex type with 32-bit float elements values}}
  %0 = "rlx.reduce"(%x) {kind = #rlx.reduce<sum>, axes = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
  return
}

// -----

func.func @reduce_result_type(%x: tensor<4x8x16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x16xf32>' are incompatible with return type(s) of operation 'tensor<4x1x16xf32>'}}
  // expected-error @+1 {{'rlx.reduce' op failed to infer returned types}}
  %0 = "rlx.reduce"(%x) {kind = #rlx.reduce<sum>, axes = array<i64: 1>} : (tensor<4x8x16xf32>) -> tensor<4x1x16xf32>
  return
}

// -----

func.func @reduce_missing_axes(%x: tensor<4x8x16xf32>) {
  // expected-error @+1 {{'rlx.reduce' op requires attribute 'axes'}}
  %0 = "rlx.reduce"(%x) {kind = #rlx.reduce<sum>} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return
}

// -----

func.func @cumsum_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.cumsum' op input must have rank >= 1, got []}}
  %0 = rlx.cumsum %x {axis = 0 : i64} : tensor<f32>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{'rlx.cumsum' op axis 2 is out of range for input [2, 16] of rank 2 (expected [-2, 1])}}
  %0 = rlx.cumsum %x {axis = 2 : i64} : tensor<2x16xf32>
  return
}

// -----

func.func @cumsum_axis_negative(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{axis -3 is out of range for input [2, 16] of rank 2 (expected [-2, 1])}}
  %0 = rlx.cumsum %x {axis = -3 : i64, exclusive} : tensor<2x16xf32>
  return
}

// -----

func.func @cumsum_complex(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or integer values}}
  %0 = "rlx.cumsum"(%x) {axis = 0 : i64} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @cumsum_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "rlx.cumsum"(%x) {axis = 0 : i64} : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x16xf32>) {
  // expected-error @+1 {{'rlx.softmax' op axis -3 is out of range for input [2, 16] of rank 2 (expected [-2, 1])}}
  %0 = rlx.softmax %x {axis = -3 : i64} : tensor<2x16xf32>
  return
}

// -----

func.func @softmax_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.softmax' op input must have rank >= 1, got []}}
  %0 = rlx.softmax %x {axis = -1 : i64} : tensor<f32>
  return
}

// -----

func.func @softmax_int(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.softmax"(%x) {axis = 0 : i64} : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @softmax_missing_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.softmax' op requires attribute 'axis'}}
  %0 = "rlx.softmax"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @top_k_zero(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'rlx.top_k' op attribute 'k' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %v, %i = rlx.top_k %x {k = 0 : i64} : tensor<16x8xf32>
  return
}

// -----

func.func @top_k_too_large(%x: tensor<16x8xf32>) {
  // expected-error @+1 {{'rlx.top_k' op k = 9 exceeds the last dim N = 8 of input [16, 8]}}
  %v, %i = rlx.top_k %x {k = 9 : i64} : tensor<16x8xf32>
  return
}

// -----

func.func @top_k_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.top_k' op input must have rank >= 1 ([..., N]), got []}}
  %v, %i = rlx.top_k %x {k = 1 : i64} : tensor<f32>
  return
}

// -----

func.func @top_k_i32_indices(%x: tensor<8xf32>) {
  // expected-error @+1 {{result #1 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %v, %i = "rlx.top_k"(%x) {k = 2 : i64} : (tensor<8xf32>) -> (tensor<2xf32>, tensor<2xi32>)
  return
}

// -----

func.func @top_k_values_type(%x: tensor<8xf32>) {
  // expected-error @+1 {{all of {input, values} have same element type}}
  %v, %i = "rlx.top_k"(%x) {k = 2 : i64} : (tensor<8xf32>) -> (tensor<2xf16>, tensor<2xi64>)
  return
}

// -----

func.func @top_k_result_shape(%x: tensor<8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2xf32>', 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xf32>', 'tensor<3xi64>'}}
  // expected-error @+1 {{'rlx.top_k' op failed to infer returned types}}
  %v, %i = "rlx.top_k"(%x) {k = 2 : i64} : (tensor<8xf32>) -> (tensor<3xf32>, tensor<3xi64>)
  return
}

// -----

func.func @sample_rank1(%x: tensor<100xf32>) {
  // expected-error @+1 {{'rlx.sample' op logits must be [batch, vocab] (rank 2), got [100]}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<100xf32>
  return
}

// -----

func.func @sample_rank3(%x: tensor<1x4x100xf32>) {
  // expected-error @+1 {{logits must be [batch, vocab] (rank 2), got [1, 4, 100]}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<1x4x100xf32>
  return
}

// -----

func.func @sample_top_k_negative(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{'rlx.sample' op attribute 'top_k' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = rlx.sample %x {top_k = -1 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_top_k_vocab(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{'rlx.sample' op top_k = 101 exceeds the vocabulary size 100 of logits [4, 100]}}
  %0 = rlx.sample %x {top_k = 101 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_top_p_zero(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{'rlx.sample' op attribute 'top_p' failed to satisfy constraint: 32-bit float attribute whose value is in (0, 1]}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 0.0 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_top_p_large(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{attribute 'top_p' failed to satisfy constraint: 32-bit float attribute whose value is in (0, 1]}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 1.5 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_top_p_nan(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{attribute 'top_p' failed to satisfy constraint: 32-bit float attribute whose value is in (0, 1]}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 0x7FC00000 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_temperature_zero(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{'rlx.sample' op attribute 'temperature' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 0.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_temperature_negative(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{attribute 'temperature' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 1.0 : f32, temperature = -1.0 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_temperature_inf(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{attribute 'temperature' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.sample %x {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 0x7F800000 : f32, seed = 0 : i64} : tensor<4x100xf32>
  return
}

// -----

func.func @sample_int_logits(%x: tensor<4x100xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.sample"(%x) {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 1 : i64} : (tensor<4x100xi32>) -> tensor<4xi64>
  return
}

// -----

func.func @sample_i32_ids(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = "rlx.sample"(%x) {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 1 : i64} : (tensor<4x100xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @sample_missing_seed(%x: tensor<4x100xf32>) {
  // expected-error @+1 {{'rlx.sample' op requires attribute 'seed'}}
  %0 = "rlx.sample"(%x) {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32} : (tensor<4x100xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @scatter_add_updates_rank(%u: tensor<6xf32>, %i: tensor<6xi64>) {
  // expected-error @+1 {{'rlx.scatter_add' op updates must be [U, T] (rank 2), got [6]}}
  %0 = rlx.scatter_add %u, %i : tensor<6xf32>, tensor<6xi64> -> tensor<10xf32>
  return
}

// -----

func.func @scatter_add_indices_rank(%u: tensor<6x4xf32>, %i: tensor<6x1xi64>) {
  // expected-error @+1 {{'rlx.scatter_add' op indices must be [U] (rank 1), got [6, 1]}}
  %0 = rlx.scatter_add %u, %i : tensor<6x4xf32>, tensor<6x1xi64> -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_add_count(%u: tensor<6x4xf32>, %i: tensor<5xi64>) {
  // expected-error @+1 {{'rlx.scatter_add' op indices [5] has 5 entries but updates [6, 4] has U = 6 rows}}
  %0 = rlx.scatter_add %u, %i : tensor<6x4xf32>, tensor<5xi64> -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_add_result_rank(%u: tensor<6x4xf32>, %i: tensor<6xi32>) {
  // expected-error @+1 {{'rlx.scatter_add' op result must be [out_dim, T] (rank 2), got [10, 4, 1]}}
  %0 = rlx.scatter_add %u, %i : tensor<6x4xf32>, tensor<6xi32> -> tensor<10x4x1xf32>
  return
}

// -----

func.func @scatter_add_result_cols(%u: tensor<6x4xf32>, %i: tensor<6xi32>) {
  // expected-error @+1 {{'rlx.scatter_add' op result [10, 8] has 8 columns but updates [6, 4] has T = 4}}
  %0 = rlx.scatter_add %u, %i : tensor<6x4xf32>, tensor<6xi32> -> tensor<10x8xf32>
  return
}

// -----

func.func @scatter_add_element_type(%u: tensor<6x4xf32>, %i: tensor<6xi32>) {
  // expected-error @+1 {{all of {updates, result} have same element type}}
  %0 = rlx.scatter_add %u, %i : tensor<6x4xf32>, tensor<6xi32> -> tensor<10x4xf16>
  return
}

// -----

func.func @scatter_add_float_indices(%u: tensor<6x4xf32>, %i: tensor<6xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<6xf32>'}}
  %0 = rlx.scatter_add %u, %i : tensor<6x4xf32>, tensor<6xf32> -> tensor<10x4xf32>
  return
}
