// RUN: rlx-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// rlx.if
//===----------------------------------------------------------------------===//

func.func @if_predicate_elements(%p: tensor<2xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{predicate must hold exactly one element (shape [] or [1]), got [2]}}
  %r = rlx.if %p : tensor<2xi1> -> tensor<4xf32> {
    rlx.yield %x : tensor<4xf32>
  } else {
    rlx.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_predicate_type(%p: tensor<f32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %r = "rlx.if"(%p) ({
    rlx.yield %x : tensor<4xf32>
  }, {
    rlx.yield %x : tensor<4xf32>
  }) : (tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @if_then_count(%p: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'then' region must yield 1 value(s) (the op results), got 2}}
  %r = rlx.if %p : tensor<i1> -> tensor<4xf32> {
    rlx.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  } else {
    rlx.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_else_type(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'else' region yields 'tensor<4xf16>' as value #0 but the op results requires 'tensor<4xf32>'}}
  %r = rlx.if %p : tensor<i1> -> tensor<4xf32> {
    rlx.yield %x : tensor<4xf32>
  } else {
    rlx.yield %y : tensor<4xf16>
  }
  return
}

// -----

func.func @if_no_terminator(%p: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'then' region must end in 'rlx.yield'}}
  %r = rlx.if %p : tensor<i1> -> tensor<4xf32> {
    %a = rlx.activation relu %x : tensor<4xf32>
  } else {
    rlx.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @if_region_args(%p: tensor<i1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{region #0 should have no arguments}}
  %r = rlx.if %p : tensor<i1> -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  } else {
    rlx.yield %x : tensor<4xf32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.while
//===----------------------------------------------------------------------===//

func.func @while_no_carried(%p: tensor<i1>) {
  // expected-error @+1 {{needs at least one loop-carried value}}
  "rlx.while"() ({
    rlx.yield %p : tensor<i1>
  }, {
    rlx.yield
  }) : () -> ()
  return
}

// -----

func.func @while_max_iterations(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{attribute 'max_iterations' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %r = rlx.while %x : tensor<4xf32> max_iterations = 0 cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @while_cond_args(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'cond' region must have 1 block argument(s) (the loop-carried types), got 0}}
  %r = rlx.while %x : tensor<4xf32> cond {
    rlx.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @while_body_arg_type(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'body' region argument #0 must have type 'tensor<4xf32>' (the loop-carried types), got 'tensor<4xf64>'}}
  %r = rlx.while %x : tensor<4xf32> cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf64>):
    rlx.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @while_cond_yield(%x: tensor<4xf32>, %p: tensor<2xi1>) {
  // expected-error @+1 {{'cond' region must yield an i1 tensor with a single element followed by its 1 block argument(s), got (tensor<2xi1>, tensor<4xf32>)}}
  %r = rlx.while %x : tensor<4xf32> cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<2xi1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @while_cond_yield_count(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'cond' region must yield an i1 tensor with a single element followed by its 1 block argument(s), got (tensor<i1>)}}
  %r = rlx.while %x : tensor<4xf32> cond {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p : tensor<i1>
  } do {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @while_cond_forward(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{'cond' region must forward its block arguments unchanged: yielded value #1 is not block argument #0}}
  %r = rlx.while %x : tensor<4xf32> cond {
  ^bb0(%c: tensor<4xf32>):
    %n = rlx.activation neg %c : tensor<4xf32>
    rlx.yield %p, %n : tensor<i1>, tensor<4xf32>
  } do {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }
  return
}

// -----

func.func @while_body_yield(%x: tensor<4xf32>, %i: tensor<i32>, %p: tensor<i1>) {
  // expected-error @+1 {{'body' region yields 'tensor<4xf32>' as value #1 but the loop-carried types requires 'tensor<i32>'}}
  %r:2 = rlx.while %x, %i : tensor<4xf32>, tensor<i32> cond {
  ^bb0(%c: tensor<4xf32>, %j: tensor<i32>):
    rlx.yield %p, %c, %j : tensor<i1>, tensor<4xf32>, tensor<i32>
  } do {
  ^bb0(%c: tensor<4xf32>, %j: tensor<i32>):
    rlx.yield %c, %c : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @while_result_type(%x: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'rlx.while' op failed to infer returned types}}
  %r = "rlx.while"(%x) ({
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
  }, {
  ^bb0(%c: tensor<4xf32>):
    rlx.yield %c : tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.scan
//===----------------------------------------------------------------------===//

func.func @scan_length(%h: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'length' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %r = rlx.scan %h : tensor<8xf32> length = 0 body {
  ^bb0(%c: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_checkpoints_range(%h: tensor<8xf32>) {
  // expected-error @+1 {{'num_checkpoints' must be in [0, length = 4], got 5}}
  %r = rlx.scan %h : tensor<8xf32> length = 4 save_trajectory num_checkpoints = 5 body {
  ^bb0(%c: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_checkpoints_no_trajectory(%h: tensor<8xf32>) {
  // expected-error @+1 {{'num_checkpoints' only applies with 'save_trajectory'}}
  %r = rlx.scan %h : tensor<8xf32> length = 4 num_checkpoints = 2 body {
  ^bb0(%c: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_xs_length(%h: tensor<8xf32>, %u: tensor<5x8xf32>) {
  // expected-error @+1 {{xs #0 must have the leading dim length = 4 ([4, ...]), got [5, 8]}}
  %r = rlx.scan %h : tensor<8xf32> xs(%u : tensor<5x8xf32>) length = 4 body {
  ^bb0(%c: tensor<8xf32>, %x: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_xs_scalar(%h: tensor<8xf32>, %u: tensor<f32>) {
  // expected-error @+1 {{xs #0 must have the leading dim length = 4 ([4, ...]), got []}}
  %r = rlx.scan %h : tensor<8xf32> xs(%u : tensor<f32>) length = 4 body {
  ^bb0(%c: tensor<8xf32>, %x: tensor<f32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_body_arg_count(%h: tensor<8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'body' region must have 2 block argument(s) ([carry, bcast..., x_t...]), got 1}}
  %r = rlx.scan %h : tensor<8xf32> bcast(%w : tensor<8xf32>) length = 4 body {
  ^bb0(%c: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_body_step_type(%h: tensor<8xf32>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'body' region argument #1 must have type 'tensor<8xf32>' ([carry, bcast..., x_t...]), got 'tensor<4x8xf32>'}}
  %r = rlx.scan %h : tensor<8xf32> xs(%u : tensor<4x8xf32>) length = 4 body {
  ^bb0(%c: tensor<8xf32>, %x: tensor<4x8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_body_yield(%h: tensor<8xf32>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'body' region yields 'tensor<2xf32>' as value #0 but the carry type requires 'tensor<8xf32>'}}
  %r = rlx.scan %h : tensor<8xf32> xs(%u : tensor<4x2xf32>) length = 4 body {
  ^bb0(%c: tensor<8xf32>, %x: tensor<2xf32>):
    rlx.yield %x : tensor<2xf32>
  }
  return
}

// -----

func.func @scan_result_type(%h: tensor<8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'rlx.scan' op failed to infer returned types}}
  %r = "rlx.scan"(%h) ({
  ^bb0(%c: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }) {length = 4 : i64, save_trajectory, operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @scan_isolated(%h: tensor<8xf32>, %w: tensor<8xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = rlx.scan %h : tensor<8xf32> length = 4 body {
  ^bb0(%c: tensor<8xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %n = rlx.binary add %c, %w : tensor<8xf32>, tensor<8xf32>
    rlx.yield %n : tensor<8xf32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.scan_backward / rlx.scan_backward_xs
//===----------------------------------------------------------------------===//

func.func @scan_backward_length(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'length' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32> length = -1 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_trajectory(%h: tensor<8xf32>, %t: tensor<4x7xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{trajectory must be 'tensor<4x8xf32>' ([rows, *carry] with rows = length), got 'tensor<4x7xf32>'}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x7xf32>, tensor<8xf32> length = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_trajectory_rows(%h: tensor<8xf32>, %t: tensor<16x8xf32>, %dy: tensor<16x8xf32>) {
  // expected-error @+1 {{trajectory must be 'tensor<4x8xf32>' ([rows, *carry] with rows = num_checkpoints), got 'tensor<16x8xf32>'}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32> length = 16 save_trajectory num_checkpoints = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  } forward_body {
  ^bb0(%c: tensor<8xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_upstream_trajectory(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>) {
  // expected-error @+1 {{upstream must be 'tensor<4x8xf32>' ([length, *carry], the forward scan saved its trajectory), got 'tensor<8xf32>'}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32> length = 4 save_trajectory body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_upstream_carry(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<4x8xf32>) {
  // expected-error @+1 {{upstream must be 'tensor<8xf32>' (the carry type), got 'tensor<4x8xf32>'}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<4x8xf32> length = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_needs_forward_body(%h: tensor<8xf32>, %t: tensor<2x8xf32>, %dy: tensor<8x8xf32>) {
  // expected-error @+1 {{needs a 'forward_body' region to recompute the carries between 2 checkpoints of 8 steps}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<2x8xf32>, tensor<8x8xf32> length = 8 save_trajectory num_checkpoints = 2 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_xs_length(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>, %u: tensor<3x2xf32>) {
  // expected-error @+1 {{xs #0 must have the leading dim length = 4 ([4, ...]), got [3, 2]}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32> xs(%u : tensor<3x2xf32>) length = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %x: tensor<2xf32>, %g: tensor<8xf32>):
    rlx.yield %g, %x : tensor<8xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_backward_vjp_args(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'body_vjp' region must have 3 block argument(s) ([carry, x_t..., d_output]), got 2}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32> xs(%u : tensor<4x2xf32>) length = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_vjp_yield(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'body_vjp' region must yield 2 value(s) ([dcarry, dx_t...]), got 1}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32> xs(%u : tensor<4x2xf32>) length = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %x: tensor<2xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_forward_args(%h: tensor<8xf32>, %t: tensor<2x8xf32>, %dy: tensor<8x8xf32>) {
  // expected-error @+1 {{'forward_body' region argument #0 must have type 'tensor<8xf32>' ([carry, x_t...]), got 'tensor<8xf16>'}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<2x8xf32>, tensor<8x8xf32> length = 8 save_trajectory num_checkpoints = 2 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  } forward_body {
  ^bb0(%c: tensor<8xf16>):
    %y = rlx.constant dense<0.0> : tensor<8xf32>
    rlx.yield %y : tensor<8xf32>
  }
  return
}

// -----

func.func @scan_backward_forward_yield(%h: tensor<8xf32>, %t: tensor<2x8xf32>, %dy: tensor<8x8xf32>, %z: tensor<8xf16>) {
  // expected-error @+1 {{'forward_body' region yields 'tensor<8xf16>' as value #0 but the carry type requires 'tensor<8xf32>'}}
  %d = rlx.scan_backward %h, %t, %dy : tensor<8xf32>, tensor<2x8xf32>, tensor<8x8xf32> length = 8 save_trajectory num_checkpoints = 2 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  } forward_body {
  ^bb0(%c: tensor<8xf32>):
    %y = rlx.constant dense<0.0> : tensor<8xf16>
    rlx.yield %y : tensor<8xf16>
  }
  return
}

// -----

func.func @scan_backward_xs_idx(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>, %u: tensor<4x2xf32>) {
  // expected-error @+1 {{'xs_idx' 1 is out of range for 1 xs operand(s)}}
  %d = rlx.scan_backward_xs %h, %t, %dy : tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32> xs(%u : tensor<4x2xf32>) length = 4 xs_idx = 1 body_vjp {
  ^bb0(%c: tensor<8xf32>, %x: tensor<2xf32>, %g: tensor<8xf32>):
    rlx.yield %g, %x : tensor<8xf32>, tensor<2xf32>
  }
  return
}

// -----

func.func @scan_backward_xs_result(%h: tensor<8xf32>, %t: tensor<4x8xf32>, %dy: tensor<8xf32>, %u: tensor<4x2xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x2xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  // expected-error @+1 {{'rlx.scan_backward_xs' op failed to infer returned types}}
  %d = "rlx.scan_backward_xs"(%h, %t, %dy, %u) ({
  ^bb0(%c: tensor<8xf32>, %x: tensor<2xf32>, %g: tensor<8xf32>):
    rlx.yield %g, %x : tensor<8xf32>, tensor<2xf32>
  }, {
  }) {length = 4 : i64, xs_idx = 0 : i64} : (tensor<8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4x2xf32>) -> tensor<8xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.custom_fn
//===----------------------------------------------------------------------===//

func.func @custom_fn_fwd_args(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'fwd' region must have 2 block argument(s) (the primal inputs), got 1}}
  %r = rlx.custom_fn(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_fwd_yield(%x: tensor<4xf32>) {
  // expected-error @+1 {{'fwd' region yields 'tensor<4xf32>' as value #0 but the primal output requires 'tensor<f32>'}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<f32> fwd {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_vjp_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{'vjp' region must have 3 block argument(s) (primals, primal_output, d_output), got 2}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %dy: tensor<4xf32>):
    rlx.yield %dy : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_vjp_arg_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'vjp' region argument #2 must have type 'tensor<f32>' (primals, primal_output, d_output), got 'tensor<4xf32>'}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<f32> fwd {
  ^bb0(%a: tensor<4xf32>):
    %s = rlx.constant dense<1.0> : tensor<f32>
    rlx.yield %s : tensor<f32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %y: tensor<f32>, %dy: tensor<4xf32>):
    rlx.yield %dy : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_vjp_yield_count(%x: tensor<4xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'vjp' region must yield 2 value(s) (one gradient per primal input), got 1}}
  %r = rlx.custom_fn(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>, %y: tensor<4xf32>, %dy: tensor<4xf32>):
    rlx.yield %dy : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_vjp_yield_type(%x: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'vjp' region yields 'tensor<4xf32>' as value #1 but one gradient per primal input requires 'tensor<f32>'}}
  %r = rlx.custom_fn(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>):
    rlx.yield %a : tensor<4xf32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>, %y: tensor<4xf32>, %dy: tensor<4xf32>):
    rlx.yield %dy, %dy : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_jvp_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jvp' region must have 2 block argument(s) (primals, one tangent per primal input, optional primal_output), got 1}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  } jvp {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_jvp_tangent_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jvp' region argument #1 must have type 'tensor<4xf32>' (primals, one tangent per primal input, optional primal_output), got 'tensor<4xf16>'}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  } jvp {
  ^bb0(%a: tensor<4xf32>, %t: tensor<4xf16>):
    rlx.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @custom_fn_jvp_primal_output(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jvp' region argument #2 must have type 'tensor<f32>' (primals, one tangent per primal input, optional primal_output), got 'tensor<4xf32>'}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<f32> fwd {
  ^bb0(%a: tensor<4xf32>):
    %s = rlx.constant dense<1.0> : tensor<f32>
    rlx.yield %s : tensor<f32>
  } jvp {
  ^bb0(%a: tensor<4xf32>, %t: tensor<4xf32>, %y: tensor<4xf32>):
    %s = rlx.constant dense<1.0> : tensor<f32>
    rlx.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @custom_fn_jvp_yield(%x: tensor<4xf32>) {
  // expected-error @+1 {{'jvp' region must yield 1 value(s) (the output tangent), got 2}}
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    rlx.yield %a : tensor<4xf32>
  } jvp {
  ^bb0(%a: tensor<4xf32>, %t: tensor<4xf32>):
    rlx.yield %t, %t : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.elementwise_region
//===----------------------------------------------------------------------===//

func.func @elementwise_region_no_inputs() {
  // expected-error @+1 {{needs at least one input}}
  %r = "rlx.elementwise_region"() ({
    %c = rlx.constant dense<1.0> : tensor<f32>
    rlx.yield %c : tensor<f32>
  }) : () -> tensor<f32>
  return
}

// -----

func.func @elementwise_region_broadcast(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{input #1 shape [4, 5] does not broadcast with [4, 3] of the inputs before it}}
  %r = rlx.elementwise_region(%a, %b) : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x3xf32> body {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_result_shape(%a: tensor<4x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{result shape [4, 1] must be the broadcast shape [4, 3] of the inputs}}
  %r = rlx.elementwise_region(%a, %b) : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x1xf32> body {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_arg_count(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'body' region must have 2 block argument(s) (one rank-0 tensor per input, of its element type), got 1}}
  %r = rlx.elementwise_region(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_arg_type(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'body' region argument #1 must have type 'tensor<i32>' (one rank-0 tensor per input, of its element type), got 'tensor<4xi32>'}}
  %r = rlx.elementwise_region(%a, %b) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>, %y: tensor<4xi32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_foreign_op(%a: tensor<4xf32>) {
  // expected-error @+1 {{body may only hold rlx elementwise ops with a scalar computation (rlx.activation, rlx.binary, rlx.compare, rlx.cast, rlx.where) and rlx.constant, found 'tensor.empty'}}
  %r = rlx.elementwise_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>):
    %e = tensor.empty() : tensor<4xf32>
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_scalar_op(%a: tensor<4xf32>) {
  // expected-error @+1 {{body may only hold rlx elementwise ops with a scalar computation (rlx.activation, rlx.binary, rlx.compare, rlx.cast, rlx.where) and rlx.constant, found 'arith.addf'}}
  %r = rlx.elementwise_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>):
    %s = "arith.addf"(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    rlx.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_rlx_op_without_scalar_form(%a: tensor<4xf32>) {
  // expected-error @+1 {{found 'rlx.stop_gradient'}}
  %r = rlx.elementwise_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>):
    %s = rlx.stop_gradient %x : tensor<f32>
    rlx.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_tensor_math(%a: tensor<4xf32>) {
  // expected-error @+1 {{body op 'rlx.constant' must operate on rank-0 tensors}}
  %r = rlx.elementwise_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>):
    %c = rlx.constant dense<1.0> : tensor<4xf32>
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_yield_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{body must yield exactly one rank-0 tensor, got 2 values}}
  %r = rlx.elementwise_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<f32>):
    rlx.yield %x, %x : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_yield_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{body yields 'tensor<f32>' but the result element type needs 'tensor<f16>'}}
  %r = rlx.elementwise_region(%a) : (tensor<4xf32>) -> tensor<4xf16> body {
  ^bb0(%x: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_prologue_index(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'prologue_input' 1 is out of range for 1 input(s)}}
  %r = rlx.elementwise_region(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> prologue_input = 1 body {
  ^bb0(%x: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_prologue_rank(%a: tensor<3x4x4xf32>) {
  // expected-error @+1 {{the resize_nearest2x prologue needs an NCHW input of rank 4, input #0 is [3, 4, 4]}}
  %r = rlx.elementwise_region(%a) : (tensor<3x4x4xf32>) -> tensor<3x8x8xf32> prologue_input = 0 body {
  ^bb0(%x: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

// Found by rlx-fuzz-ir under UBSan: the doubled dims overflowed.
func.func @elementwise_region_prologue_overflow(%a: tensor<1x3x4611686018427387904x4xf32>) {
  // expected-error @+1 {{the resize_nearest2x prologue doubles input #0 [1, 3, 4611686018427387904, 4] beyond 64 bits}}
  %r = rlx.elementwise_region(%a) : (tensor<1x3x4611686018427387904x4xf32>) -> tensor<1x3x?x8xf32> prologue_input = 0 body {
  ^bb0(%x: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

func.func @elementwise_region_prologue_shape(%a: tensor<1x3x4x4xf32>, %b: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{input #1 shape [1, 3, 8, 8] does not broadcast with [1, 3, 4, 4] of the inputs before it}}
  %r = rlx.elementwise_region(%a, %b) : (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> prologue_input = 1 body {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    rlx.yield %x : tensor<f32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.transform_region
//===----------------------------------------------------------------------===//

func.func @transform_region_no_inputs() {
  // expected-error @+1 {{needs at least one input}}
  %r = "rlx.transform_region"() ({
    %c = rlx.constant dense<1.0> : tensor<4xf32>
    rlx.yield %c : tensor<4xf32>
  }) : () -> tensor<4xf32>
  return
}

// -----

func.func @transform_region_args(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'body' region argument #0 must have type 'tensor<1x3x4x4xf32>' (the input types), got 'f32'}}
  %r = rlx.transform_region(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> body {
  ^bb0(%x: f32):
    %c = rlx.constant dense<0.0> : tensor<1x3x4x4xf32>
    rlx.yield %c : tensor<1x3x4x4xf32>
  }
  return
}

// -----

func.func @transform_region_foreign_op(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{body may only hold geometry ops (rlx.resize_nearest2x, rlx.reshape, rlx.transpose, rlx.narrow, rlx.concat, rlx.expand), found 'tensor.empty'}}
  %r = rlx.transform_region(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> body {
  ^bb0(%x: tensor<1x3x4x4xf32>):
    %e = tensor.empty() : tensor<1x3x4x4xf32>
    rlx.yield %e : tensor<1x3x4x4xf32>
  }
  return
}

// -----

func.func @transform_region_arithmetic(%a: tensor<4xf32>) {
  // expected-error @+1 {{body may only hold geometry ops (rlx.resize_nearest2x, rlx.reshape, rlx.transpose, rlx.narrow, rlx.concat, rlx.expand), found 'rlx.binary'}}
  %r = rlx.transform_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<4xf32>):
    %m = rlx.binary max %x, %x : tensor<4xf32>, tensor<4xf32>
    rlx.yield %m : tensor<4xf32>
  }
  return
}

// -----

func.func @transform_region_nested_region(%a: tensor<4xf32>, %p: tensor<i1>) {
  // expected-error @+1 {{body may only hold geometry ops (rlx.resize_nearest2x, rlx.reshape, rlx.transpose, rlx.narrow, rlx.concat, rlx.expand), found 'rlx.scan'}}
  %r = rlx.transform_region(%a) : (tensor<4xf32>) -> tensor<4xf32> body {
  ^bb0(%x: tensor<4xf32>):
    %s = rlx.scan %x : tensor<4xf32> length = 2 body {
    ^bb0(%c: tensor<4xf32>):
      rlx.yield %c : tensor<4xf32>
    }
    rlx.yield %s : tensor<4xf32>
  }
  return
}

// -----

func.func @transform_region_yield(%a: tensor<1x3x4x4xf32>) {
  // expected-error @+1 {{'body' region yields 'tensor<1x3x4x4xf32>' as value #0 but the result type requires 'tensor<1x3x8x8xf32>'}}
  %r = rlx.transform_region(%a) : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> body {
  ^bb0(%x: tensor<1x3x4x4xf32>):
    rlx.yield %x : tensor<1x3x4x4xf32>
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// rlx.batch_elementwise_region
//===----------------------------------------------------------------------===//

func.func @batch_region_no_inputs() {
  // expected-error @+1 {{needs at least one batch input}}
  "rlx.batch_elementwise_region"() ({
    %c = rlx.constant dense<1.0> : tensor<f32>
    rlx.yield %c : tensor<f32>
  }) : () -> ()
  return
}

// -----

func.func @batch_region_input_types(%a: tensor<8xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{batch inputs must share one type: input #1 is 'tensor<4xf32>' but input #0 is 'tensor<8xf32>'}}
  %r:2 = rlx.batch_elementwise_region(%a, %b) : (tensor<8xf32>, tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>) body {
  ^bb0(%e: tensor<f32>):
    rlx.yield %e : tensor<f32>
  }
  return
}

// -----

func.func @batch_region_result_count(%a: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{needs one result per batch input: 2 input(s) but 1 result(s)}}
  %r = rlx.batch_elementwise_region(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%e: tensor<f32>):
    rlx.yield %e : tensor<f32>
  }
  return
}

// -----

func.func @batch_region_result_type(%a: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{result #1 must be 'tensor<8xf32>' (the input shape with the yielded element type), got 'tensor<4xf32>'}}
  %r:2 = rlx.batch_elementwise_region(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<4xf32>) body {
  ^bb0(%e: tensor<f32>):
    rlx.yield %e : tensor<f32>
  }
  return
}

// -----

func.func @batch_region_args(%a: tensor<8xf32>) {
  // expected-error @+1 {{'body' region must have 1 block argument(s) (one rank-0 tensor of the input element type), got 2}}
  %r = rlx.batch_elementwise_region(%a) : (tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%e: tensor<f32>, %f: tensor<f32>):
    rlx.yield %e : tensor<f32>
  }
  return
}

// -----

func.func @batch_region_body_op(%a: tensor<8xf32>) {
  // expected-error @+1 {{body op 'rlx.constant' must operate on rank-0 tensors}}
  %r = rlx.batch_elementwise_region(%a) : (tensor<8xf32>) -> tensor<8xf32> body {
  ^bb0(%e: tensor<f32>):
    %c = rlx.constant dense<1.0> : tensor<8xf32>
    rlx.yield %e : tensor<f32>
  }
  return
}

// -----

func.func @batch_region_yield_type(%a: tensor<8xf32>) {
  // expected-error @+1 {{body yields 'tensor<f32>' but the result element type needs 'tensor<i1>'}}
  %r = rlx.batch_elementwise_region(%a) : (tensor<8xf32>) -> tensor<8xi1> body {
  ^bb0(%e: tensor<f32>):
    rlx.yield %e : tensor<f32>
  }
  return
}
