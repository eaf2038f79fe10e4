// RUN: rlx-opt %s --split-input-file --verify-diagnostics --rlx-autodiff="func=f"
// RUN: rlx-opt %s --split-input-file --verify-diagnostics --rlx-jvp="func=f"

// A loop without a static trip bound is not unrolled, so it stays.
func.func @f(%x: tensor<3xf32> {rlx.param = "x"}) -> tensor<3xf32> {
  %lim = rlx.constant dense<5.0> : tensor<f32>
  // expected-error @+1 {{: cannot differentiate 'rlx.while': it has no max_iterations, and only a loop with a static trip bound is unrolled for differentiation}}
  %r:2 = rlx.while %lim, %x : tensor<f32>, tensor<3xf32> cond {
  ^bb0(%i: tensor<f32>, %c: tensor<3xf32>):
    %z = rlx.constant dense<0.0> : tensor<f32>
    %p = rlx.compare gt %i, %z : tensor<f32>, tensor<f32>
    rlx.yield %p, %i, %c : tensor<i1>, tensor<f32>, tensor<3xf32>
  } do {
  ^bb0(%i: tensor<f32>, %c: tensor<3xf32>):
    %one = rlx.constant dense<1.0> : tensor<f32>
    %j = rlx.binary sub %i, %one : tensor<f32>, tensor<f32>
    %t = rlx.activation tanh %c : tensor<3xf32>
    rlx.yield %j, %t : tensor<f32>, tensor<3xf32>
  }
  return %r#1 : tensor<3xf32>
}

// -----

// Beyond the bound the policy unrolls.
func.func @f(%x: tensor<3xf32> {rlx.param = "x"}) -> tensor<3xf32> {
  // expected-error @+1 {{: cannot differentiate 'rlx.while': max_iterations = 5000 is more iterations than are unrolled for differentiation}}
  %r = rlx.while %x : tensor<3xf32> max_iterations = 5000 cond {
  ^bb0(%c: tensor<3xf32>):
    %p = rlx.constant dense<true> : tensor<i1>
    rlx.yield %p, %c : tensor<i1>, tensor<3xf32>
  } do {
  ^bb0(%c: tensor<3xf32>):
    %t = rlx.activation tanh %c : tensor<3xf32>
    rlx.yield %t : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// A loop with side effects: the unrolled body would run after the loop
// ended.
func.func @f(%x: tensor<3xf32> {rlx.param = "x"}) -> tensor<3xf32> {
  // expected-error @+1 {{: cannot differentiate 'rlx.while': the loop has side effects, so it is not unrolled}}
  %r = rlx.while %x : tensor<3xf32> max_iterations = 3 cond {
  ^bb0(%c: tensor<3xf32>):
    %p = rlx.constant dense<true> : tensor<i1>
    rlx.yield %p, %c : tensor<i1>, tensor<3xf32>
  } do {
  ^bb0(%c: tensor<3xf32>):
    rlx.custom "log_stats"(%c) : (tensor<3xf32>) -> ()
    %t = rlx.activation tanh %c : tensor<3xf32>
    rlx.yield %t : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// A branch with side effects: selecting between both branches would
// perform those of the branch not taken. The tangent reaches the op only
// through a capture.
func.func @f(%p: tensor<i1> {rlx.input = "p"},
             %x: tensor<3xf32> {rlx.param = "x"}) -> tensor<3xf32> {
  // expected-error @+1 {{: cannot differentiate 'rlx.if': a branch has side effects, so it is not turned into a select of both branches}}
  %r = rlx.if %p : tensor<i1> -> tensor<3xf32> {
    rlx.custom "log_stats"(%x) : (tensor<3xf32>) -> ()
    rlx.yield %x : tensor<3xf32>
  } else {
    %t = rlx.activation tanh %x : tensor<3xf32>
    rlx.yield %t : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// The custom op registry carries no derivatives; the diagnostic names the
// op and its registered name.
func.func @f(%x: tensor<3xf32> {rlx.param = "x"}) -> tensor<3xf32> {
  // expected-error @+1 {{: no derivative for 'rlx.custom' "sparse_solve": the custom op registry carries shape functions and CPU kernels, not derivatives (wrap the op in rlx.custom_fn with vjp/jvp bodies)}}
  %r = rlx.custom "sparse_solve"(%x) pure : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// An inactive custom op is no error.
func.func @f(%x: tensor<3xf32> {rlx.param = "x"}, %y: tensor<3xf32> {rlx.input = "y"}) -> tensor<3xf32> {
  %r = rlx.custom "sparse_solve"(%y) pure : (tensor<3xf32>) -> tensor<3xf32>
  %s = rlx.binary mul %r, %x : tensor<3xf32>, tensor<3xf32>
  return %s : tensor<3xf32>
}
