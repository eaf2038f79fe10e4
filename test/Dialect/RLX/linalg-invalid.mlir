// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @dot_general_contracting_count(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{'rlx.dot_general' op lhs_contracting has 1 dims but rhs_contracting has 0}}
  %0 = rlx.dot_general %a, %b contracting_dims = [1] x [] batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x3xf32>
  return
}

// -----

func.func @dot_general_batch_count(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) {
  // expected-error @+1 {{lhs_batch has 1 dims but rhs_batch has 2}}
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [1] batch_dims = [0] x [0, 2] : tensor<2x4x8xf32>, tensor<2x8x3xf32>
  return
}

// -----

func.func @dot_general_lhs_range(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+1 {{lhs_contracting dim 2 is out of range for lhs [4, 8] of rank 2}}
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [0] batch_dims = [] x [] : tensor<4x8xf32>, tensor<8x3xf32>
  return
}

// -----

func.func @dot_general_rhs_range(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) {
  // expected-error @+1 {{rhs_batch dim -1 is out of range for rhs [2, 8, 3] of rank 3}}
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [1] batch_dims = [0] x [-1] : tensor<2x4x8xf32>, tensor<2x8x3xf32>
  return
}

// -----

func.func @dot_general_duplicate(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) {
  // expected-error @+1 {{lhs dim 1 appears more than once (in lhs_contracting and lhs_contracting)}}
  %0 = rlx.dot_general %a, %b contracting_dims = [1, 1] x [0, 1] batch_dims = [] x [] : tensor<8x8xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @dot_general_batch_and_contracting(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>) {
  // expected-error @+1 {{rhs dim 0 appears more than once (in rhs_batch and rhs_contracting)}}
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [0] batch_dims = [0] x [0] : tensor<2x4x8xf32>, tensor<2x8x3xf32>
  return
}

// -----

func.func @dot_general_contracting_size(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) {
  // expected-error @+1 {{contracting dims differ: lhs [4, 8] dim 1 has size 8 but rhs [7, 3] dim 0 has size 7}}
  %0 = rlx.dot_general %a, %b contracting_dims = [1] x [0] batch_dims = [] x [] : tensor<4x8xf32>, tensor<7x3xf32>
  return
}

// -----

func.func @dot_general_batch_size(%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) {
  // expected-error @+1 {{batch dims differ: lhs [2, 4, 8] dim 0 has size 2 but rhs [3, 8, 3] dim 0 has size 3}}
  %0 = rlx.dot_general %a, %b contracting_dims = [2] x [1] batch_dims = [0] x [0] : tensor<2x4x8xf32>, tensor<3x8x3xf32>
  return
}

// -----

func.func @dot_general_element_types(%a: tensor<4x8xf32>, %b: tensor<8x3xf16>) {
  // expected-error @+1 {{all of {lhs, rhs, result} have same element type}}
  %0 = "rlx.dot_general"(%a, %b) {lhs_contracting = array<i64: 1>, rhs_contracting = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @dot_general_result(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<3x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "rlx.dot_general"(%a, %b) {lhs_contracting = array<i64: 1>, rhs_contracting = array<i64: 0>} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @dense_solve_a_rank(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.dense_solve' op a must have rank 2 ([N, N]), got [3]}}
  %0 = rlx.dense_solve %a, %b : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @dense_solve_square(%a: tensor<3x4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{a must be square [N, N], got [3, 4]}}
  %0 = rlx.dense_solve %a, %b : tensor<3x4xf32>, tensor<3xf32>
  return
}

// -----

func.func @dense_solve_b_rank(%a: tensor<3x3xf32>, %b: tensor<3x2x2xf32>) {
  // expected-error @+1 {{b must have rank 1 or 2 ([N] or [N, K]), got [3, 2, 2]}}
  %0 = rlx.dense_solve %a, %b : tensor<3x3xf32>, tensor<3x2x2xf32>
  return
}

// -----

func.func @dense_solve_rows(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{row counts differ: a [3, 3] has N = 3 but b [4, 2] has N = 4}}
  %0 = rlx.dense_solve %a, %b : tensor<3x3xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @dense_solve_types(%a: tensor<3x3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{all of {a, b, result} have same element type}}
  %0 = "rlx.dense_solve"(%a, %b) : (tensor<3x3xf32>, tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @batched_dense_solve_rank(%a: tensor<3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.batched_dense_solve' op a must have rank 3 ([B, N, N]), got [3, 3]}}
  %0 = rlx.batched_dense_solve %a, %b : tensor<3x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batched_dense_solve_square(%a: tensor<2x3x2xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+1 {{a must be square [B, N, N], got [2, 3, 2]}}
  %0 = rlx.batched_dense_solve %a, %b : tensor<2x3x2xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @batched_dense_solve_b_rank(%a: tensor<2x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{b must have rank 2 or 3 ([B, N] or [B, N, K]), got [3]}}
  %0 = rlx.batched_dense_solve %a, %b : tensor<2x3x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @batched_dense_solve_batch(%a: tensor<2x3x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{batch sizes differ: a [2, 3, 3] has B = 2 but b [4, 3] has B = 4}}
  %0 = rlx.batched_dense_solve %a, %b : tensor<2x3x3xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @batched_dense_solve_rows(%a: tensor<2x3x3xf32>, %b: tensor<2x5x1xf32>) {
  // expected-error @+1 {{row counts differ: a [2, 3, 3] has N = 3 but b [2, 5, 1] has N = 5}}
  %0 = rlx.batched_dense_solve %a, %b : tensor<2x3x3xf32>, tensor<2x5x1xf32>
  return
}
