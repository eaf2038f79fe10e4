// RUN: rlx-opt %s --split-input-file --verify-diagnostics --rlx-autodiff="func=f"
// RUN: not rlx-opt %s --split-input-file --rlx-autodiff="func=c optimizer=sgd" 2>&1 | FileCheck %s --check-prefix=COMPLEX

// The diagnostics of the quantization and complex rules.

// The i8 value of a quantize carries a straight-through derivative (f32),
// which an integer-to-float cast has no rule for.
func.func @f(%x: tensor<4xf32> {rlx.param = "x"}) -> tensor<f32> {
  %q = rlx.quantize %x scales = [0.1] zero_points = [0] : tensor<4xf32>
  // expected-error @+1 {{rlx-autodiff: the gradient rule of 'rlx.cast' gave operand #0 a gradient of type 'tensor<4xi8>', expected 'tensor<4xf32>'}}
  %c = rlx.cast %q : tensor<4xi8> to f32
  %l = rlx.reduce sum %c axes = [0] : tensor<4xf32>
  return %l : tensor<f32>
}

// -----

// A complex loss has no gradient.
// expected-error @+1 {{rlx-autodiff: the first result of @f (the loss) must be a floating-point tensor}}
func.func @f(%x: tensor<4xf32> {rlx.param = "x"}) -> tensor<4xcomplex<f32>> {
  %c = rlx.cast %x : tensor<4xf32> to complex<f32>
  %f = rlx.fft %c : tensor<4xcomplex<f32>>
  return %f : tensor<4xcomplex<f32>>
}

// -----

// fft's rule needs the static transform length.
func.func @f(%x: tensor<?x8xf32> {rlx.input = "x"}, %w: tensor<8xf32> {rlx.param = "w"}) -> tensor<?x8xf32> {
  %y = rlx.binary mul %x, %w : tensor<?x8xf32>, tensor<8xf32>
  // expected-error @+1 {{rlx-autodiff: the derivative rule of 'rlx.fft' needs static shapes, got 'tensor<?x8xf32>'}}
  %f = rlx.fft %y : tensor<?x8xf32>
  return %f : tensor<?x8xf32>
}

// -----

// The optimizers update real parameters (@f: a complex parameter's
// gradient, which the first RUN differentiates without error).
// COMPLEX: error: rlx-autodiff: optimizer=sgd updates real parameters; 'z' is complex
func.func @c(%z: tensor<4xcomplex<f32>> {rlx.param = "z"}) -> tensor<f32> {
  %n = rlx.complex_norm_sq %z : tensor<4xcomplex<f32>>
  %l = rlx.reduce sum %n axes = [0] : tensor<4xf32>
  return %l : tensor<f32>
}

func.func @f(%z: tensor<4xcomplex<f32>> {rlx.param = "z"}) -> tensor<f32> {
  %n = rlx.complex_norm_sq %z : tensor<4xcomplex<f32>>
  %l = rlx.reduce sum %n axes = [0] : tensor<4xf32>
  return %l : tensor<f32>
}
