// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @fft_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.fft' op input must have rank >= 1 (the transform runs along the last axis), got a rank-0 tensor}}
  %0 = rlx.fft %x : tensor<f32>
  return
}

// -----

func.func @fft_odd_block(%x: tensor<4x7xf32>) {
  // expected-error @+1 {{real-block layout needs an even last axis of length 2N >= 2 ([re..., im...]), got [4, 7]}}
  %0 = rlx.fft %x : tensor<4x7xf32>
  return
}

// -----

func.func @fft_empty_complex(%x: tensor<4x0xcomplex<f32>>) {
  // expected-error @+1 {{the last axis must hold at least one complex value, got [4, 0]}}
  %0 = rlx.fft %x : tensor<4x0xcomplex<f32>>
  return
}

// -----

func.func @fft_element(%x: tensor<4x8xf16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or 64-bit float or complex type with 32-bit float elements values}}
  %0 = "rlx.fft"(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  return
}

// -----

func.func @fft_norm(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{expected ::mlir::rlx::FftNorm to be one of: backward, forward, ortho}}
  // expected-error @+1 {{failed to parse RLX_FftNormAttr parameter 'value'}}
  %0 = rlx.fft %x {norm = #rlx.fft_norm<unitary>} : tensor<4x8xf32>
  return
}

// -----

func.func @butterfly_n_fft(%s: tensor<2x6x2xf32>, %g: tensor<3xi1>, %t: tensor<3xf32>) {
  // expected-error @+1 {{'rlx.fft_butterfly_stage' op attribute 'n_fft' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 2 whose value is a power of two > 0}}
  %0 = rlx.fft_butterfly_stage %s, %g, %g, %t, %t stage = 0 n_fft = 6 : tensor<2x6x2xf32>, tensor<3xi1>, tensor<3xf32>
  return
}

// -----

func.func @butterfly_stage(%s: tensor<2x8x2xf32>, %g: tensor<4xi1>, %t: tensor<4xf32>) {
  // expected-error @+1 {{stage 3 is out of range [0, 3) for n_fft = 8}}
  %0 = rlx.fft_butterfly_stage %s, %g, %g, %t, %t stage = 3 n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<4xf32>
  return
}

// -----

func.func @butterfly_state(%s: tensor<2x16x2xf32>, %g: tensor<4xi1>, %t: tensor<4xf32>) {
  // expected-error @+1 {{state must have shape [batch, 8, 2] (re/im interleaved), got [2, 16, 2]}}
  %0 = rlx.fft_butterfly_stage %s, %g, %g, %t, %t stage = 0 n_fft = 8 : tensor<2x16x2xf32>, tensor<4xi1>, tensor<4xf32>
  return
}

// -----

func.func @butterfly_gate(%s: tensor<2x8x2xf32>, %g: tensor<8xi1>, %t: tensor<4xf32>) {
  // expected-error @+1 {{gate must have shape [4] (n_fft / 2), got [8]}}
  %0 = rlx.fft_butterfly_stage %s, %g, %g, %t, %t stage = 0 n_fft = 8 : tensor<2x8x2xf32>, tensor<8xi1>, tensor<4xf32>
  return
}

// -----

func.func @butterfly_twiddle(%s: tensor<2x8x2xf32>, %g: tensor<4xi1>, %t: tensor<2xf32>) {
  // expected-error @+1 {{tw_re must have shape [4] (n_fft / 2), got [2]}}
  %0 = rlx.fft_butterfly_stage %s, %g, %g, %t, %t stage = 0 n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<2xf32>
  return
}

// -----

func.func @butterfly_twiddle_type(%s: tensor<2x8x2xf32>, %g: tensor<4xi1>, %t: tensor<4xf64>) {
  // expected-error @+1 {{twiddle element type 'f64' differs from state element type 'f32'}}
  %0 = rlx.fft_butterfly_stage %s, %g, %g, %t, %t stage = 0 n_fft = 8 : tensor<2x8x2xf32>, tensor<4xi1>, tensor<4xf64>
  return
}

// -----

func.func @butterfly_gate_type(%s: tensor<2x8x2xf32>, %g: tensor<4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 1-bit signless integer values}}
  %0 = "rlx.fft_butterfly_stage"(%s, %g, %g, %t, %t) {stage = 0 : i64, n_fft = 8 : i64} : (tensor<2x8x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x8x2xf32>
  return
}

// -----

func.func @log_mel_rank(%s: tensor<f32>, %fb: tensor<4x5xf32>) {
  // expected-error @+1 {{'rlx.log_mel' op spectrum must have rank >= 1 ([..., 2 * n_fft]), got []}}
  %0 = rlx.log_mel %s, %fb : tensor<f32>, tensor<4x5xf32>
  return
}

// -----

func.func @log_mel_odd(%s: tensor<10x15xf32>, %fb: tensor<4x5xf32>) {
  // expected-error @+1 {{spectrum last axis must be 2 * n_fft with n_fft >= 1 ([re..., im...]), got [10, 15]}}
  %0 = rlx.log_mel %s, %fb : tensor<10x15xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @log_mel_fb_rank(%s: tensor<10x16xf32>, %fb: tensor<5xf32>) {
  // expected-error @+1 {{filterbank must have rank 2 ([n_mels, n_fft / 2 + 1]), got [5]}}
  %0 = rlx.log_mel %s, %fb : tensor<10x16xf32>, tensor<5xf32>
  return
}

// -----

func.func @log_mel_bins(%s: tensor<10x16xf32>, %fb: tensor<4x9xf32>) {
  // expected-error @+1 {{filterbank [4, 9] has 9 frequency bins but spectrum [10, 16] (n_fft = 8) has n_fft / 2 + 1 = 5}}
  %0 = rlx.log_mel %s, %fb : tensor<10x16xf32>, tensor<4x9xf32>
  return
}

// -----

func.func @log_mel_types(%s: tensor<10x16xf32>, %fb: tensor<4x5xf64>) {
  // expected-error @+1 {{all of {spectrum, filterbank, result} have same element type}}
  %0 = rlx.log_mel %s, %fb : tensor<10x16xf32>, tensor<4x5xf64>
  return
}

// -----

func.func @log_mel_backward_dy(%s: tensor<10x16xf32>, %fb: tensor<4x5xf32>, %dy: tensor<10x5xf32>) {
  // expected-error @+1 {{'rlx.log_mel_backward' op dy must have the forward output shape [10, 4] ([..., n_mels]), got [10, 5]}}
  %0 = rlx.log_mel_backward %s, %fb, %dy : tensor<10x16xf32>, tensor<4x5xf32>, tensor<10x5xf32>
  return
}

// -----

func.func @log_mel_backward_bins(%s: tensor<10x16xf32>, %fb: tensor<4x6xf32>, %dy: tensor<10x4xf32>) {
  // expected-error @+1 {{'rlx.log_mel_backward' op filterbank [4, 6] has 6 frequency bins but spectrum [10, 16] (n_fft = 8) has n_fft / 2 + 1 = 5}}
  %0 = rlx.log_mel_backward %s, %fb, %dy : tensor<10x16xf32>, tensor<4x6xf32>, tensor<10x4xf32>
  return
}

// -----

func.func @complex_norm_sq_real(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of complex type with 32-bit float elements values}}
  %0 = "rlx.complex_norm_sq"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @complex_norm_sq_result(%z: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'rlx.complex_norm_sq' op requires the same shape for all operands and results}}
  %0 = "rlx.complex_norm_sq"(%z) : (tensor<4xcomplex<f32>>) -> tensor<5xf32>
  return
}

// -----

func.func @conjugate_type(%z: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "rlx.conjugate"(%z) : (tensor<4xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return
}

// -----

func.func @complex_norm_sq_backward_shape(%z: tensor<4xcomplex<f32>>, %g: tensor<5xf32>) {
  // expected-error @+1 {{all of {z, g} have same shape}}
  %0 = rlx.complex_norm_sq_backward %z, %g : tensor<4xcomplex<f32>>, tensor<5xf32>
  return
}

// -----

func.func @complex_norm_sq_backward_g(%z: tensor<4xcomplex<f32>>, %g: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit float values}}
  %0 = rlx.complex_norm_sq_backward %z, %g : tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>
  return
}
