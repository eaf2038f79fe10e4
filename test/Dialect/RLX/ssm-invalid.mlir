// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @scan_state_size(%x: tensor<2x8x4xf32>, %a: tensor<4x0xf32>, %b: tensor<2x8x0xf32>) {
  // expected-error @+1 {{'rlx.selective_scan' op attribute 'state_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.selective_scan %x, %x, %a, %b, %b state_size = 0 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<4x0xf32>, tensor<2x8x0xf32>, tensor<2x8x0xf32>
  return
}

// -----

func.func @scan_x_rank(%x: tensor<8x4xf32>, %a: tensor<4x2xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @+1 {{x must have rank 3 ([b, s, h]), got [8, 4]}}
  %0 = rlx.selective_scan %x, %x, %a, %b, %b state_size = 2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x2xf32>, tensor<2x8x2xf32>, tensor<2x8x2xf32>
  return
}

// -----

func.func @scan_delta(%x: tensor<2x8x4xf32>, %d: tensor<2x8x5xf32>, %a: tensor<4x2xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @+1 {{delta must have shape [2, 8, 4] ([b, s, h]), got [2, 8, 5]}}
  %0 = rlx.selective_scan %x, %d, %a, %b, %b state_size = 2 : tensor<2x8x4xf32>, tensor<2x8x5xf32>, tensor<4x2xf32>, tensor<2x8x2xf32>, tensor<2x8x2xf32>
  return
}

// -----

func.func @scan_a(%x: tensor<2x8x4xf32>, %a: tensor<4x3xf32>, %b: tensor<2x8x2xf32>) {
  // expected-error @+1 {{a must have shape [4, 2] ([h, state_size]), got [4, 3]}}
  %0 = rlx.selective_scan %x, %x, %a, %b, %b state_size = 2 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<4x3xf32>, tensor<2x8x2xf32>, tensor<2x8x2xf32>
  return
}

// -----

func.func @scan_b(%x: tensor<2x8x4xf32>, %a: tensor<4x2xf32>, %b: tensor<2x7x2xf32>, %c: tensor<2x8x2xf32>) {
  // expected-error @+1 {{b must have shape [2, 8, 2] ([b, s, state_size]), got [2, 7, 2]}}
  %0 = rlx.selective_scan %x, %x, %a, %b, %c state_size = 2 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf32>, tensor<2x7x2xf32>, tensor<2x8x2xf32>
  return
}

// -----

func.func @scan_c(%x: tensor<2x8x4xf32>, %a: tensor<4x2xf32>, %b: tensor<2x8x2xf32>, %c: tensor<2x8xf32>) {
  // expected-error @+1 {{c must have shape [2, 8, 2] ([b, s, state_size]), got [2, 8]}}
  %0 = rlx.selective_scan %x, %x, %a, %b, %c state_size = 2 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf32>, tensor<2x8x2xf32>, tensor<2x8xf32>
  return
}

// -----

func.func @scan_element_types(%x: tensor<2x8x4xf32>, %a: tensor<4x2xf16>, %b: tensor<2x8x2xf32>) {
  // expected-error @+1 {{all of {x, delta, a, b, c, result} have same element type}}
  %0 = rlx.selective_scan %x, %x, %a, %b, %b state_size = 2 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<4x2xf16>, tensor<2x8x2xf32>, tensor<2x8x2xf32>
  return
}

// -----

func.func @gdn_state_size(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{'rlx.gated_delta_net' op attribute 'state_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = -8 : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_q_rank(%q: tensor<4x2x8xf32>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{q must have rank 4 ([b, s, h, state_size]), got [4, 2, 8]}}
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 8 : tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_head_size(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{q [1, 4, 2, 8] has head size 8 but state_size is 16}}
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 16 : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_k(%q: tensor<1x4x2x8xf32>, %k: tensor<1x4x3x8xf32>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{k must have shape [1, 4, 2, 8] ([b, s, h, state_size]), got [1, 4, 3, 8]}}
  %0 = rlx.gated_delta_net %q, %k, %q, %g, %g state_size = 8 : tensor<1x4x2x8xf32>, tensor<1x4x3x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_v(%q: tensor<1x4x2x8xf32>, %v: tensor<1x5x2x8xf32>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{v must have shape [1, 4, 2, 8] ([b, s, h, state_size]), got [1, 5, 2, 8]}}
  %0 = rlx.gated_delta_net %q, %q, %v, %g, %g state_size = 8 : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x5x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_g(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4xf32>, %beta: tensor<1x4x2xf32>) {
  // expected-error @+1 {{g must have shape [1, 4, 2] ([b, s, h]), got [1, 4]}}
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %beta state_size = 8 : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_beta(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>, %beta: tensor<1x4x1xf32>) {
  // expected-error @+1 {{beta must have shape [1, 4, 2] ([b, s, h]), got [1, 4, 1]}}
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %beta state_size = 8 : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x1xf32>
  return
}

// -----

func.func @gdn_element(%q: tensor<1x4x2x8xf32>, %v: tensor<1x4x2x8xf16>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{v element type 'f16' differs from q element type 'f32'}}
  %0 = rlx.gated_delta_net %q, %q, %v, %g, %g state_size = 8 : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf16>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_carry_without_state(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>) {
  // expected-error @+1 {{carry_state requires a state operand [b, h, state_size, state_size]}}
  %0:2 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 8 carry_state : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_state_without_carry(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>, %s: tensor<1x2x8x8xf32>) {
  // expected-error @+1 {{a state operand requires carry_state}}
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 8 state %s : tensor<1x2x8x8xf32> : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_state_shape(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>, %s: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{state must have shape [1, 2, 8, 8] ([b, h, state_size, state_size]), got [1, 4, 8, 8]}}
  %0:2 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 8 carry_state state %s : tensor<1x4x8x8xf32> : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_state_element(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>, %s: tensor<1x2x8x8xf64>) {
  // expected-error @+1 {{state element type 'f64' differs from q element type 'f32'}}
  %0:2 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 8 carry_state state %s : tensor<1x2x8x8xf64> : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>
  return
}

// -----

func.func @gdn_results(%q: tensor<1x4x2x8xf32>, %g: tensor<1x4x2xf32>, %s: tensor<1x2x8x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x2x8xf32>', 'tensor<1x2x8x8xf32>' are incompatible with return type(s) of operation 'tensor<1x4x2x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "rlx.gated_delta_net"(%q, %q, %q, %g, %g, %s) {state_size = 8 : i64, carry_state} : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x2x8x8xf32>) -> tensor<1x4x2x8xf32>
  return
}
