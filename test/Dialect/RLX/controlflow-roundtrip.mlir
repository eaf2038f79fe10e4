// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// rlx.if
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @if_results
func.func @if_results(%p: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2xi32>)
    -> (tensor<4xf32>, tensor<2xi32>) {
  // CHECK: %{{.*}}:2 = rlx.if %{{.*}} : tensor<i1> -> tensor<4xf32>, tensor<2xi32> {
  // CHECK-NEXT: rlx.activation relu
  // CHECK-NEXT: rlx.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<2xi32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT: rlx.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<2xi32>
  // CHECK-NEXT: }
  %r:2 = rlx.if %p : tensor<i1> -> tensor<4xf32>, tensor<2xi32> {
    %a = rlx.activation relu %x : tensor<4xf32>
    rlx.yield %a, %y : tensor<4xf32>, tensor<2xi32>
  } else {
    rlx.yield %x, %y : tensor<4xf32>, tensor<2xi32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<2xi32>
}

// A rank-1 predicate of one element; an `rlx.if` without results.
// CHECK-LABEL: func.func @if_no_results
func.func @if_no_results(%p: tensor<1xi1>) {
  // CHECK: rlx.if %{{.*}} : tensor<1xi1> {
  // CHECK-NEXT: rlx.yield
  // CHECK-NEXT: } else {
  rlx.if %p : tensor<1xi1> {
    rlx.yield
  } else {
    rlx.yield
  }
  return
}

//===----------------------------------------------------------------------===//
// rlx.while
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @while_bounded
func.func @while_bounded(%x: tensor<4xf32>, %n: tensor<i32>, %lim: tensor<i32>)
    -> (tensor<4xf32>, tensor<i32>) {
  // CHECK: %{{.*}}:2 = rlx.while %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32> max_iterations = 8 cond {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<i32>):
  // CHECK: rlx.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<i1>, tensor<4xf32>, tensor<i32>
  // CHECK-NEXT: } do {
  // CHECK: rlx.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<i32>
  %r:2 = rlx.while %x, %n : tensor<4xf32>, tensor<i32> max_iterations = 8 cond {
  ^bb0(%c: tensor<4xf32>, %i: tensor<i32>):
    %p = rlx.elementwise_region(%i, %lim) : (tensor<i32>, tensor<i32>) -> tensor<i1> body {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %lt = rlx.compare lt %a, %b : tensor<i32>, tensor<i32>
      rlx.yield %lt : tensor<i1>
    }
    rlx.yield %p, %c, %i : tensor<i1>, tensor<4xf32>, tensor<i32>
  } do {
  ^bb0(%c: tensor<4xf32>, %i: tensor<i32>):
    %t = rlx.activation tanh %c : tensor<4xf32>
    %one = rlx.constant dense<1> : tensor<i32>
    %j = rlx.binary add %i, %one : tensor<i32>, tensor<i32>
    rlx.yield %t, %j : tensor<4xf32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<i32>
}

// Without max_iterations; the predicate may be [1].
// CHECK-LABEL: func.func @while_unbounded
func.func @while_unbounded(%x: tensor<?x8xf32>, %p: tensor<1xi1>) -> tensor<?x8xf32> {
  // CHECK: rlx.while %{{.*}} : tensor<?x8xf32> cond {
  // CHECK: rlx.yield %{{.*}}, %{{.*}} : tensor<1xi1>, tensor<?x8xf32>
  %r = rlx.while %x : tensor<?x8xf32> cond {
  ^bb0(%c: tensor<?x8xf32>):
    rlx.yield %p, %c : tensor<1xi1>, tensor<?x8xf32>
  } do {
  ^bb0(%c: tensor<?x8xf32>):
    rlx.yield %c : tensor<?x8xf32>
  }
  return %r : tensor<?x8xf32>
}

//===----------------------------------------------------------------------===//
// rlx.scan
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @scan_carry_only
func.func @scan_carry_only(%h: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: rlx.scan %{{.*}} : tensor<8xf32> length = 5 body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<8xf32>):
  %r = rlx.scan %h : tensor<8xf32> length = 5 body {
  ^bb0(%c: tensor<8xf32>):
    %n = rlx.activation tanh %c : tensor<8xf32>
    rlx.yield %n : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// CHECK-LABEL: func.func @scan_bcast_xs_trajectory
func.func @scan_bcast_xs_trajectory(%h: tensor<8xf32>, %w: tensor<8xf32>,
                                    %u: tensor<16x8xf32>, %v: tensor<16xf32>)
    -> tensor<16x8xf32> {
  // CHECK: rlx.scan %{{.*}} : tensor<8xf32> bcast(%{{.*}} : tensor<8xf32>) xs(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<16xf32>) length = 16 save_trajectory body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<f32>):
  %t = rlx.scan %h : tensor<8xf32> bcast(%w : tensor<8xf32>)
      xs(%u, %v : tensor<16x8xf32>, tensor<16xf32>) length = 16 save_trajectory body {
  ^bb0(%c: tensor<8xf32>, %wb: tensor<8xf32>, %ut: tensor<8xf32>, %vt: tensor<f32>):
    %a = rlx.binary mul %c, %wb : tensor<8xf32>, tensor<8xf32>
    %b = rlx.binary add %a, %ut : tensor<8xf32>, tensor<8xf32>
    %d = rlx.binary mul %b, %vt : tensor<8xf32>, tensor<f32>
    rlx.yield %d : tensor<8xf32>
  }
  // CHECK: return %{{.*}} : tensor<16x8xf32>
  return %t : tensor<16x8xf32>
}

// Only bcast operands; a checkpointed trajectory keeps K rows.
// CHECK-LABEL: func.func @scan_checkpointed
func.func @scan_checkpointed(%h: tensor<2x3xf64>, %w: tensor<3xf64>) -> tensor<4x2x3xf64> {
  // CHECK: rlx.scan %{{.*}} : tensor<2x3xf64> bcast(%{{.*}} : tensor<3xf64>) length = 16 save_trajectory num_checkpoints = 4 body {
  %t = rlx.scan %h : tensor<2x3xf64> bcast(%w : tensor<3xf64>) length = 16
      save_trajectory num_checkpoints = 4 body {
  ^bb0(%c: tensor<2x3xf64>, %wb: tensor<3xf64>):
    %a = rlx.binary add %c, %wb : tensor<2x3xf64>, tensor<3xf64>
    rlx.yield %a : tensor<2x3xf64>
  }
  // CHECK: return %{{.*}} : tensor<4x2x3xf64>
  return %t : tensor<4x2x3xf64>
}

// Only xs operands, with a dynamic leading dim.
// CHECK-LABEL: func.func @scan_xs_only
func.func @scan_xs_only(%h: tensor<f32>, %u: tensor<?xf32>) -> tensor<f32> {
  // CHECK: rlx.scan %{{.*}} : tensor<f32> xs(%{{.*}} : tensor<?xf32>) length = 7 body {
  %r = rlx.scan %h : tensor<f32> xs(%u : tensor<?xf32>) length = 7 body {
  ^bb0(%c: tensor<f32>, %x: tensor<f32>):
    %a = rlx.binary add %c, %x : tensor<f32>, tensor<f32>
    rlx.yield %a : tensor<f32>
  }
  return %r : tensor<f32>
}

//===----------------------------------------------------------------------===//
// rlx.scan_backward / rlx.scan_backward_xs
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @scan_backward
func.func @scan_backward(%h: tensor<8xf32>, %traj: tensor<16x8xf32>,
                         %dy: tensor<16x8xf32>, %u: tensor<16x8xf32>)
    -> (tensor<8xf32>, tensor<16x8xf32>) {
  // CHECK: rlx.scan_backward %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32> xs(%{{.*}} : tensor<16x8xf32>) length = 16 save_trajectory body_vjp {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>):
  // CHECK: rlx.yield %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>
  %d = rlx.scan_backward %h, %traj, %dy : tensor<8xf32>, tensor<16x8xf32>,
      tensor<16x8xf32> xs(%u : tensor<16x8xf32>) length = 16 save_trajectory body_vjp {
  ^bb0(%c: tensor<8xf32>, %ut: tensor<8xf32>, %g: tensor<8xf32>):
    %dc = rlx.binary mul %g, %ut : tensor<8xf32>, tensor<8xf32>
    %dx = rlx.binary mul %g, %c : tensor<8xf32>, tensor<8xf32>
    rlx.yield %dc, %dx : tensor<8xf32>, tensor<8xf32>
  }
  // CHECK: rlx.scan_backward_xs %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<16x8xf32>, tensor<16x8xf32> xs(%{{.*}} : tensor<16x8xf32>) length = 16 save_trajectory xs_idx = 0 body_vjp {
  %dxs = rlx.scan_backward_xs %h, %traj, %dy : tensor<8xf32>, tensor<16x8xf32>,
      tensor<16x8xf32> xs(%u : tensor<16x8xf32>) length = 16 save_trajectory
      xs_idx = 0 body_vjp {
  ^bb0(%c: tensor<8xf32>, %ut: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g, %g : tensor<8xf32>, tensor<8xf32>
  }
  // CHECK: return %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<16x8xf32>
  return %d, %dxs : tensor<8xf32>, tensor<16x8xf32>
}

// No xs, no trajectory output: upstream has the carry type.
// CHECK-LABEL: func.func @scan_backward_no_xs
func.func @scan_backward_no_xs(%h: tensor<8xf32>, %traj: tensor<6x8xf32>,
                               %dy: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: rlx.scan_backward %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<6x8xf32>, tensor<8xf32> length = 6 body_vjp {
  // CHECK-NOT: forward_body
  %d = rlx.scan_backward %h, %traj, %dy : tensor<8xf32>, tensor<6x8xf32>,
      tensor<8xf32> length = 6 body_vjp {
  ^bb0(%c: tensor<8xf32>, %g: tensor<8xf32>):
    rlx.yield %g : tensor<8xf32>
  }
  return %d : tensor<8xf32>
}

// Checkpointed: the trajectory has K rows and forward_body recomputes the
// carries in between.
// CHECK-LABEL: func.func @scan_backward_checkpointed
func.func @scan_backward_checkpointed(%h: tensor<8xf32>, %traj: tensor<4x8xf32>,
                                      %dy: tensor<16x8xf32>, %u: tensor<16x8xf32>,
                                      %v: tensor<16x2xf32>)
    -> (tensor<8xf32>, tensor<16x2xf32>) {
  // CHECK: rlx.scan_backward %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<4x8xf32>, tensor<16x8xf32> xs(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<16x2xf32>) length = 16 save_trajectory num_checkpoints = 4 body_vjp {
  // CHECK: } forward_body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<2xf32>):
  %d = rlx.scan_backward %h, %traj, %dy : tensor<8xf32>, tensor<4x8xf32>,
      tensor<16x8xf32> xs(%u, %v : tensor<16x8xf32>, tensor<16x2xf32>) length = 16
      save_trajectory num_checkpoints = 4 body_vjp {
  ^bb0(%c: tensor<8xf32>, %ut: tensor<8xf32>, %vt: tensor<2xf32>, %g: tensor<8xf32>):
    rlx.yield %g, %g, %vt : tensor<8xf32>, tensor<8xf32>, tensor<2xf32>
  } forward_body {
  ^bb0(%c: tensor<8xf32>, %ut: tensor<8xf32>, %vt: tensor<2xf32>):
    %n = rlx.binary add %c, %ut : tensor<8xf32>, tensor<8xf32>
    rlx.yield %n : tensor<8xf32>
  }
  // CHECK: rlx.scan_backward_xs {{.*}} num_checkpoints = 4 xs_idx = 1 body_vjp {
  // CHECK: } forward_body {
  %dv = rlx.scan_backward_xs %h, %traj, %dy : tensor<8xf32>, tensor<4x8xf32>,
      tensor<16x8xf32> xs(%u, %v : tensor<16x8xf32>, tensor<16x2xf32>) length = 16
      save_trajectory num_checkpoints = 4 xs_idx = 1 body_vjp {
  ^bb0(%c: tensor<8xf32>, %ut: tensor<8xf32>, %vt: tensor<2xf32>, %g: tensor<8xf32>):
    rlx.yield %g, %g, %vt : tensor<8xf32>, tensor<8xf32>, tensor<2xf32>
  } forward_body {
  ^bb0(%c: tensor<8xf32>, %ut: tensor<8xf32>, %vt: tensor<2xf32>):
    rlx.yield %c : tensor<8xf32>
  }
  // CHECK: return %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<16x2xf32>
  return %d, %dv : tensor<8xf32>, tensor<16x2xf32>
}

//===----------------------------------------------------------------------===//
// rlx.custom_fn
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @custom_fn_fwd_only
func.func @custom_fn_fwd_only(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: rlx.custom_fn(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> fwd {
  // CHECK-NOT: vjp
  // CHECK-NOT: jvp
  // CHECK: return
  %r = rlx.custom_fn(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %m = rlx.binary mul %a, %b : tensor<4xf32>, tensor<4xf32>
    rlx.yield %m : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @custom_fn_vjp
func.func @custom_fn_vjp(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: rlx.custom_fn(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  // CHECK: } vjp {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>):
  // CHECK-NOT: jvp
  // CHECK: return
  %r = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
  ^bb0(%a: tensor<4xf32>):
    %s = rlx.activation sin %a : tensor<4xf32>
    rlx.yield %s : tensor<4xf32>
  } vjp {
  ^bb0(%a: tensor<4xf32>, %y0: tensor<4xf32>, %dy: tensor<4xf32>):
    %c = rlx.activation cos %a : tensor<4xf32>
    %g = rlx.binary mul %c, %dy : tensor<4xf32>, tensor<4xf32>
    rlx.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// jvp without and with the trailing primal_output argument.
// CHECK-LABEL: func.func @custom_fn_jvp
func.func @custom_fn_jvp(%x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  // CHECK: rlx.custom_fn(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<f32>) -> tensor<f32> fwd {
  // CHECK: } jvp {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<f32>):
  %r0 = rlx.custom_fn(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<f32> fwd {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>):
    rlx.yield %b : tensor<f32>
  } jvp {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>, %ta: tensor<4xf32>, %tb: tensor<f32>):
    rlx.yield %tb : tensor<f32>
  }
  // CHECK: } jvp {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<4xf32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
  %r1 = rlx.custom_fn(%x, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<f32> fwd {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>):
    rlx.yield %b : tensor<f32>
  } jvp {
  ^bb0(%a: tensor<4xf32>, %b: tensor<f32>, %ta: tensor<4xf32>, %tb: tensor<f32>, %y: tensor<f32>):
    rlx.yield %y : tensor<f32>
  }
  return %r0, %r1 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func @custom_fn_all_rules
func.func @custom_fn_all_rules(%x: tensor<3xf64>) -> tensor<3xf64> {
  // CHECK: rlx.custom_fn(%{{.*}}) : (tensor<3xf64>) -> tensor<3xf64> fwd {
  // CHECK: } vjp {
  // CHECK: } jvp {
  %r = rlx.custom_fn(%x) : (tensor<3xf64>) -> tensor<3xf64> fwd {
  ^bb0(%a: tensor<3xf64>):
    %e = rlx.activation exp %a : tensor<3xf64>
    rlx.yield %e : tensor<3xf64>
  } vjp {
  ^bb0(%a: tensor<3xf64>, %y: tensor<3xf64>, %dy: tensor<3xf64>):
    %g = rlx.binary mul %y, %dy : tensor<3xf64>, tensor<3xf64>
    rlx.yield %g : tensor<3xf64>
  } jvp {
  ^bb0(%a: tensor<3xf64>, %t: tensor<3xf64>, %y: tensor<3xf64>):
    %g = rlx.binary mul %y, %t : tensor<3xf64>, tensor<3xf64>
    rlx.yield %g : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}

//===----------------------------------------------------------------------===//
// rlx.elementwise_region
//===----------------------------------------------------------------------===//

// relu(x * s + b) with a scalar and a row broadcast.
// CHECK-LABEL: func.func @elementwise_region_broadcast
func.func @elementwise_region_broadcast(%x: tensor<4x8xf32>, %s: tensor<f32>,
                                        %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: rlx.elementwise_region(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
  // CHECK: rlx.activation relu
  // CHECK: rlx.yield %{{.*}} : tensor<f32>
  %y = rlx.elementwise_region(%x, %s, %b)
      : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
  ^bb0(%xe: tensor<f32>, %se: tensor<f32>, %be: tensor<f32>):
    %m = rlx.binary mul %xe, %se : tensor<f32>, tensor<f32>
    %a = rlx.binary add %m, %be : tensor<f32>, tensor<f32>
    %r = rlx.activation relu %a : tensor<f32>
    rlx.yield %r : tensor<f32>
  }
  return %y : tensor<4x8xf32>
}

// Middle-axis broadcast, compare + where, a bool result, transcendental
// activations.
// CHECK-LABEL: func.func @elementwise_region_select
func.func @elementwise_region_select(%a: tensor<4x1x8xf32>, %b: tensor<3x1xf32>,
                                     %c: tensor<4x3x8xi1>)
    -> (tensor<4x3x8xf32>, tensor<4x3x8xi1>) {
  // CHECK: rlx.elementwise_region(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x1x8xf32>, tensor<3x1xf32>, tensor<4x3x8xi1>) -> tensor<4x3x8xf32> body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<i1>):
  // CHECK: rlx.where
  %y = rlx.elementwise_region(%a, %b, %c)
      : (tensor<4x1x8xf32>, tensor<3x1xf32>, tensor<4x3x8xi1>) -> tensor<4x3x8xf32> body {
  ^bb0(%ae: tensor<f32>, %be: tensor<f32>, %ce: tensor<i1>):
    %e = rlx.activation exp %ae : tensor<f32>
    %t = rlx.activation tanh %be : tensor<f32>
    %r = rlx.where %ce, %e, %t : tensor<i1>, tensor<f32>, tensor<f32>
    rlx.yield %r : tensor<f32>
  }
  // CHECK: -> tensor<4x3x8xi1> body {
  // CHECK: rlx.compare gt
  // CHECK: rlx.yield %{{.*}} : tensor<i1>
  %m = rlx.elementwise_region(%a, %b)
      : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xi1> body {
  ^bb0(%ae: tensor<f32>, %be: tensor<f32>):
    %gt = rlx.compare gt %ae, %be : tensor<f32>, tensor<f32>
    rlx.yield %gt : tensor<i1>
  }
  return %y, %m : tensor<4x3x8xf32>, tensor<4x3x8xi1>
}

// A cast in the chain, a dynamic dim and a single input.
// CHECK-LABEL: func.func @elementwise_region_cast
func.func @elementwise_region_cast(%x: tensor<?x16xf32>) -> tensor<?x16xf16> {
  // CHECK: rlx.elementwise_region(%{{.*}}) : (tensor<?x16xf32>) -> tensor<?x16xf16> body {
  // CHECK: rlx.cast %{{.*}} : tensor<f32> to f16
  %y = rlx.elementwise_region(%x) : (tensor<?x16xf32>) -> tensor<?x16xf16> body {
  ^bb0(%e: tensor<f32>):
    %h = rlx.cast %e : tensor<f32> to f16
    rlx.yield %h : tensor<f16>
  }
  return %y : tensor<?x16xf16>
}

// Complex inputs: rlx ops on rank-0 complex tensors.
// CHECK-LABEL: func.func @elementwise_region_complex
func.func @elementwise_region_complex(%z: tensor<4xcomplex<f32>>, %w: tensor<complex<f32>>)
    -> tensor<4xf32> {
  // CHECK: rlx.elementwise_region(%{{.*}}, %{{.*}}) : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xf32> body {
  // CHECK: rlx.binary mul
  // CHECK: rlx.cast %{{.*}} : tensor<complex<f32>> to f32
  %y = rlx.elementwise_region(%z, %w)
      : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xf32> body {
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %m = rlx.binary mul %a, %b : tensor<complex<f32>>, tensor<complex<f32>>
    %n = rlx.cast %m : tensor<complex<f32>> to f32
    rlx.yield %n : tensor<f32>
  }
  return %y : tensor<4xf32>
}

// The resize_nearest2x prologue: input 1 is read at half resolution.
// CHECK-LABEL: func.func @elementwise_region_prologue
func.func @elementwise_region_prologue(%x: tensor<1x3x8x8xf32>, %lo: tensor<1x3x4x4xf32>)
    -> tensor<1x3x8x8xf32> {
  // CHECK: rlx.elementwise_region(%{{.*}}, %{{.*}}) : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> prologue_input = 1 body {
  %y = rlx.elementwise_region(%x, %lo)
      : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
      prologue_input = 1 body {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = rlx.binary add %a, %b : tensor<f32>, tensor<f32>
    rlx.yield %s : tensor<f32>
  }
  return %y : tensor<1x3x8x8xf32>
}

//===----------------------------------------------------------------------===//
// rlx.transform_region
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transform_region
func.func @transform_region(%x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>)
    -> (tensor<1x3x8x8xf32>, tensor<1x6x8x8xf32>) {
  // CHECK: rlx.transform_region(%{{.*}}) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x3x8x8xf32>):
  // CHECK-NEXT: rlx.yield %{{.*}} : tensor<1x3x8x8xf32>
  %a = rlx.transform_region(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> body {
  ^bb0(%t: tensor<1x3x8x8xf32>):
    rlx.yield %t : tensor<1x3x8x8xf32>
  }
  // CHECK: rlx.transform_region(%{{.*}}, %{{.*}}) : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x8x8xf32> body {
  // CHECK: rlx.resize_nearest2x
  // CHECK: rlx.concat
  %b = rlx.transform_region(%x, %y)
      : (tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x6x8x8xf32> body {
  ^bb0(%t: tensor<1x3x8x8xf32>, %u: tensor<1x3x4x4xf32>):
    %r = rlx.resize_nearest2x %u : tensor<1x3x4x4xf32>
    %c = rlx.concat %t, %r axis = 1 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
    rlx.yield %c : tensor<1x6x8x8xf32>
  }
  return %a, %b : tensor<1x3x8x8xf32>, tensor<1x6x8x8xf32>
}

//===----------------------------------------------------------------------===//
// rlx.batch_elementwise_region
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @batch_elementwise_region
func.func @batch_elementwise_region(%a: tensor<8xf32>, %b: tensor<8xf32>,
                                    %c: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>) {
  // CHECK: %{{.*}}:3 = rlx.batch_elementwise_region(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) body {
  // CHECK-NEXT: ^bb0(%{{.*}}: tensor<f32>):
  // CHECK-NEXT: rlx.activation tanh
  %r:3 = rlx.batch_elementwise_region(%a, %b, %c)
      : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
      -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) body {
  ^bb0(%e: tensor<f32>):
    %n = rlx.activation tanh %e : tensor<f32>
    rlx.yield %n : tensor<f32>
  }
  // CHECK: rlx.batch_elementwise_region(%{{.*}}) : (tensor<8xf32>) -> tensor<8xi1> body {
  %m = rlx.batch_elementwise_region(%a) : (tensor<8xf32>) -> tensor<8xi1> body {
  ^bb0(%e: tensor<f32>):
    %z = rlx.constant dense<0.0> : tensor<f32>
    %p = rlx.compare ge %e, %z : tensor<f32>, tensor<f32>
    rlx.yield %p : tensor<i1>
  }
  return %r#0, %r#1, %r#2, %m : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>
}
