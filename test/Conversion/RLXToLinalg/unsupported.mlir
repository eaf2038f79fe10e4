// RUN: rlx-opt %s --convert-rlx-to-linalg --verify-diagnostics

// Every op the CPU lowering does not handle is reported at its location, all
// of them, and the pass fails: nothing is dropped silently. (Change these
// ops when they gain a lowering.)
// expected-error @+1 {{2 rlx op(s) cannot be lowered to linalg; see the errors above}}
module {
  func.func @unsupported(%x: tensor<4x8xf32>, %q: tensor<1x16x4x64xf32>, %g: tensor<1x16x4xf32>) -> (tensor<4x8xf32>, tensor<1x16x4x64xf32>) {
    // expected-error @+1 {{'rlx.custom' cannot be lowered by convert-rlx-to-linalg}}
    %0 = rlx.custom "sparse_lu_solve"(%x) pure : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = rlx.activation relu %0 : tensor<4x8xf32>
    // expected-error @+1 {{'rlx.gated_delta_net' cannot be lowered by convert-rlx-to-linalg}}
    %2 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 64 : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>
    return %1, %2 : tensor<4x8xf32>, tensor<1x16x4x64xf32>
  }
}
