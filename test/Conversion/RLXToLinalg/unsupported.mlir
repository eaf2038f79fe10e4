// RUN: rlx-opt %s --convert-rlx-to-linalg --verify-diagnostics

// Every op the CPU lowering does not handle is reported at its location, all
// of them, and the pass fails: nothing is dropped silently. (Change these
// ops when they gain a lowering.)
// expected-error @+1 {{2 rlx op(s) cannot be lowered to linalg; see the errors above}}
module {
  func.func @unsupported(%x: tensor<4x8xf32>, %logits: tensor<2x16xf32>) -> (tensor<4x8xf32>, tensor<2xi64>) {
    // expected-error @+1 {{'rlx.fft' cannot be lowered by convert-rlx-to-linalg}}
    %0 = rlx.fft %x : tensor<4x8xf32>
    %1 = rlx.activation relu %x : tensor<4x8xf32>
    // expected-error @+1 {{'rlx.sample' cannot be lowered by convert-rlx-to-linalg}}
    %2 = rlx.sample %logits {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 7 : i64} : tensor<2x16xf32>
    return %0, %2 : tensor<4x8xf32>, tensor<2xi64>
  }
}
