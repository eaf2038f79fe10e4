// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @mmba_input_rank(%x: tensor<32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{input must have rank >= 2 ([..., M, K]), got [32]}}
  %0 = rlx.fused_matmul_bias_act %x, %w, %b : tensor<32xf32>, tensor<32x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @mmba_weight_rank(%x: tensor<4x32xf32>, %w: tensor<2x32x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{weight must have rank 2 ([K, N]), got [2, 32, 64]}}
  %0 = rlx.fused_matmul_bias_act %x, %w, %b : tensor<4x32xf32>, tensor<2x32x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @mmba_contraction(%x: tensor<4x32xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{contraction dims differ: input [4, 32] has K = 32 but weight [16, 64] has K = 16}}
  %0 = rlx.fused_matmul_bias_act %x, %w, %b activation relu : tensor<4x32xf32>, tensor<16x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @mmba_bias(%x: tensor<4x32xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'bias' must have shape [64] ([N]), got [32]}}
  %0 = rlx.fused_matmul_bias_act %x, %w, %b : tensor<4x32xf32>, tensor<32x64xf32>, tensor<32xf32>
  return
}

// -----

func.func @mmba_element_types(%x: tensor<4x32xf32>, %w: tensor<32x64xf16>, %b: tensor<64xf32>) {
  // expected-error @+1 {{all of {input, weight, bias, result} have same element type}}
  %0 = "rlx.fused_matmul_bias_act"(%x, %w, %b) : (tensor<4x32xf32>, tensor<32x64xf16>, tensor<64xf32>) -> tensor<4x64xf32>
  return
}

// -----

func.func @mmba_integer(%x: tensor<4x32xi8>, %w: tensor<32x64xi8>, %b: tensor<64xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.fused_matmul_bias_act"(%x, %w, %b) : (tensor<4x32xi8>, tensor<32x64xi8>, tensor<64xi8>) -> tensor<4x64xi8>
  return
}

// -----

func.func @mmba_result(%x: tensor<4x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x64xf32>' are incompatible with return type(s) of operation 'tensor<4x32xf32>'}}
  // expected-error @+1 {{'rlx.fused_matmul_bias_act' op failed to infer returned types}}
  %0 = "rlx.fused_matmul_bias_act"(%x, %w, %b) : (tensor<4x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<4x32xf32>
  return
}

// -----

func.func @mmba_unknown_activation(%x: tensor<4x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{unknown activation kind 'swish', expected one of: gelu, gelu_approx, silu, relu, sigmoid, tanh, exp, log, sqrt, rsqrt, neg, abs, sin, cos, tan, atan, round}}
  %0 = rlx.fused_matmul_bias_act %x, %w, %b activation swish : tensor<4x32xf32>, tensor<32x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rln_rank(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{x must have rank >= 1 ([..., H]), got []}}
  %0 = rlx.fused_residual_ln %x, %x, %g, %g eps = 1.0e-05 : tensor<f32>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @rln_gamma(%x: tensor<2x64xf32>, %g: tensor<32xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'gamma' must have shape [64] ([H], H = the last dim of x), got [32]}}
  %0 = rlx.fused_residual_ln %x, %x, %g, %b eps = 1.0e-05 : tensor<2x64xf32>, tensor<32xf32>, tensor<64xf32>
  return
}

// -----

func.func @rln_beta(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %b: tensor<1x64xf32>) {
  // expected-error @+1 {{'beta' must have shape [64] ([H], H = the last dim of x), got [1, 64]}}
  %0 = rlx.fused_residual_ln %x, %x, %g, %b eps = 1.0e-05 : tensor<2x64xf32>, tensor<64xf32>, tensor<1x64xf32>
  return
}

// -----

func.func @rln_bias(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %bias: tensor<2x64xf32>) {
  // expected-error @+1 {{'bias' must have shape [64] ([H], H = the last dim of x), got [2, 64]}}
  %0 = rlx.fused_residual_ln %x, %x, %g, %g bias %bias : tensor<2x64xf32> eps = 1.0e-05 : tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rln_bias_type(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %bias: tensor<64xf16>) {
  // expected-error @+1 {{'bias' must have element type 'f32', got 'f16'}}
  %0 = rlx.fused_residual_ln %x, %x, %g, %g bias %bias : tensor<64xf16> eps = 1.0e-05 : tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rln_eps(%x: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.fused_residual_ln %x, %x, %g, %g eps = -1.0 : tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rln_residual_type(%x: tensor<2x64xf32>, %r: tensor<64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{all of {x, residual, result} have same type}}
  %0 = "rlx.fused_residual_ln"(%x, %r, %g, %g) {eps = 1.0e-05 : f32} : (tensor<2x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @rms_beta(%x: tensor<2x64xf32>, %g: tensor<64xf32>, %b: tensor<63xf32>) {
  // expected-error @+1 {{'beta' must have shape [64] ([H], H = the last dim of x), got [63]}}
  %0 = rlx.fused_residual_rms_norm %x, %x, %g beta %b : tensor<63xf32> eps = 1.0e-06 : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @rms_gamma_type(%x: tensor<2x64xf32>, %g: tensor<64xbf16>) {
  // expected-error @+1 {{'gamma' must have element type 'f32', got 'bf16'}}
  %0 = rlx.fused_residual_rms_norm %x, %x, %g eps = 1.0e-06 : tensor<2x64xf32>, tensor<64xbf16>
  return
}

// -----

func.func @rms_eps(%x: tensor<2x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{attribute 'eps' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.fused_residual_rms_norm %x, %x, %g eps = -1.0e-06 : tensor<2x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @swiglu_odd(%x: tensor<4x7xf32>) {
  // expected-error @+1 {{the last dim of input [4, 7] must be even (up and gate halves [..., 2F])}}
  %0 = rlx.fused_swiglu %x : tensor<4x7xf32>
  return
}

// -----

func.func @swiglu_rank(%x: tensor<f32>) {
  // expected-error @+1 {{input must have rank >= 1 ([..., 2F]), got []}}
  %0 = rlx.fused_swiglu %x : tensor<f32>
  return
}

// -----

func.func @swiglu_cast_int(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'cast_to' must be f16, bf16, f32, f64, f8E4M3FN or f8E5M2, got 'i8'}}
  %0 = "rlx.fused_swiglu"(%x) {cast_to = i8} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @swiglu_result(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4x4xf16>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{'rlx.fused_swiglu' op failed to infer returned types}}
  %0 = "rlx.fused_swiglu"(%x) {cast_to = f16} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @ftl_num_heads(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 0 : i64}
  return
}

// -----

func.func @ftl_head_dim(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = -4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_intermediate(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'intermediate_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 0 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_eps1(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'eps1' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = -1.0 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_eps2(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{attribute 'eps2' failed to satisfy constraint: 32-bit float attribute whose value is finite and non-negative}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = -2.0 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_hidden_rank(%h: tensor<4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{hidden must have rank 3 ([B, S, E]), got [4, 8]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_hidden_width(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{hidden [1, 4, 8] must have E = num_heads * head_dim = 12 as its last dim}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 3 : i64}
  return
}

// -----

func.func @ftl_partial_biases(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %bq: tensor<24xf32>, %b2: tensor<8xf32>) {
  // expected-error @+1 {{projection biases qkv_b, out_b, fc1_b, fc2_b must be given all together or not at all; got qkv_b, fc2_b}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bq : tensor<24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> fc2_b %b2 : tensor<8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_qkv_w(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x16xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{'qkv_w' must have shape [8, 24] ([E, 3E]), got [8, 16]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x16xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_qkv_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %bq: tensor<24xf32>, %bo: tensor<8xf32>, %b1: tensor<32xf32>, %b2: tensor<8xf32>, %x: tensor<8xf32>) {
  // expected-error @+1 {{'qkv_b' must have shape [24] ([3E]), got [8]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %x : tensor<8xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc1_b %b1 : tensor<32xf32> fc2_w %w2 : tensor<32x8xf32> fc2_b %b2 : tensor<8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_out_w(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x4xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{'out_w' must have shape [8, 8] ([E, E]), got [8, 4]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x4xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_out_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %bq: tensor<24xf32>, %bo: tensor<8xf32>, %b1: tensor<32xf32>, %b2: tensor<8xf32>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'out_b' must have shape [8] ([E]), got [4]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bq : tensor<24xf32> out_w %wo : tensor<8x8xf32> out_b %x : tensor<4xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc1_b %b1 : tensor<32xf32> fc2_w %w2 : tensor<32x8xf32> fc2_b %b2 : tensor<8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_ln1_g(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<1x8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{'ln1_g' must have shape [8] ([E]), got [1, 8]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<1x8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_ln1_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %x: tensor<16xf32>) {
  // expected-error @+1 {{'ln1_b' must have shape [8] ([E]), got [16]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> ln1_b %x : tensor<16xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_fc1_w(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{'fc1_w' must have shape [8, 32] ([E, F], F = intermediate_size), got [8, 16]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x16xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_fc1_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %bq: tensor<24xf32>, %bo: tensor<8xf32>, %b1: tensor<32xf32>, %b2: tensor<8xf32>, %x: tensor<8xf32>) {
  // expected-error @+1 {{'fc1_b' must have shape [32] ([F], F = intermediate_size), got [8]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bq : tensor<24xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc1_b %x : tensor<8xf32> fc2_w %w2 : tensor<32x8xf32> fc2_b %b2 : tensor<8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_fc2_w(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<8x32xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{'fc2_w' must have shape [32, 8] ([F, E], F = intermediate_size), got [8, 32]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<8x32xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_fc2_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %bq: tensor<24xf32>, %bo: tensor<8xf32>, %b1: tensor<32xf32>, %b2: tensor<8xf32>, %x: tensor<32xf32>) {
  // expected-error @+1 {{'fc2_b' must have shape [8] ([E]), got [32]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bq : tensor<24xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc1_b %b1 : tensor<32xf32> fc2_w %w2 : tensor<32x8xf32> fc2_b %x : tensor<32xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_ln2_g(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<9xf32>) {
  // expected-error @+1 {{'ln2_g' must have shape [8] ([E]), got [9]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<9xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_ln2_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %x: tensor<2xf32>) {
  // expected-error @+1 {{'ln2_b' must have shape [8] ([E]), got [2]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> ln2_b %x : tensor<2xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_weight_type(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf16>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{'fc1_w' must have element type 'f32', got 'f16'}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf16> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_mask_type(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %m: tensor<1x4xf16>) {
  // expected-error @+1 {{'mask' must have element type 'f32' or i1, got 'f16'}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> mask %m : tensor<1x4xf16> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_mask_shape(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>, %m: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mask' must have shape [1, 4] ([B, S] key-padding mask), got [1, 1, 4, 4]}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> mask %m : tensor<1x1x4x4xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @ftl_result(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>) {
  // expected-error @+1 {{all of {hidden, result} have same type}}
  %0 = "rlx.fused_transformer_layer"(%h, %wqkv, %wo, %g, %w1, %w2, %g) {activation = #rlx.activation<gelu>, eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64, intermediate_size = 32 : i64, num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0>} : (tensor<1x4x8xf32>, tensor<8x24xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<1x4x16xf32>
  return
}

// -----

func.func @fab_num_heads(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 0 : i64}
  return
}

// -----

func.func @fab_hidden_rank(%h: tensor<4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{hidden must have rank 3 ([B, S, E]), got [4, 8]}}
  %0 = rlx.fused_attention_block %h : tensor<4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_bias_pair(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>) {
  // expected-error @+1 {{'qkv_b' and 'out_b' must be given together (has_bias), got only out_b}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_rope_pair(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %c: tensor<4x2xf32>) {
  // expected-error @+1 {{'rope_cos' and 'rope_sin' must be given together (has_rope), got only rope_cos}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> rope_cos %c : tensor<4x2xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_out_w_rank(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8xf32>) {
  // expected-error @+1 {{'out_w' must have rank 2 ([I, N]), got [8]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_qkv_w(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x8xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{'qkv_w' must have shape [8, 24] ([E, 3I], I = num_heads * head_dim), got [8, 8]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x8xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_qkv_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %bq: tensor<8xf32>, %bo: tensor<8xf32>) {
  // expected-error @+1 {{'qkv_b' must have shape [24] ([3I], I = num_heads * head_dim), got [8]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bq : tensor<8xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_out_w(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<16x16xf32>) {
  // expected-error @+1 {{'out_w' must have shape [8, 16] ([I, N], I = num_heads * head_dim), got [16, 16]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<16x16xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_out_b(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %bq: tensor<24xf32>, %bo: tensor<24xf32>) {
  // expected-error @+1 {{'out_b' must have shape [8] ([N], N = the last dim of out_w), got [24]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bq : tensor<24xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<24xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_rope_shape(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{'rope_cos' must have shape [4, 2] ([S, D/2] with D = head_dim), got [4, 4]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> rope_cos %c : tensor<4x4xf32> rope_sin %c : tensor<4x4xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_rope_odd(%h: tensor<1x4x6xf32>, %wqkv: tensor<6x18xf32>, %wo: tensor<6x6xf32>, %c: tensor<4x1xf32>) {
  // expected-error @+1 {{rotary embedding needs an even head_dim, got 3}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x6xf32> qkv_w %wqkv : tensor<6x18xf32> out_w %wo : tensor<6x6xf32> rope_cos %c : tensor<4x1xf32> rope_sin %c : tensor<4x1xf32> {head_dim = 3 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_custom_needs_mask(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{mask_kind 'custom' needs a 'mask' operand}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<custom>}
  return
}

// -----

func.func @fab_mask_kind_none(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %m: tensor<1x4xf32>) {
  // expected-error @+1 {{a 'mask' operand needs mask_kind 'custom' or 'bias', got 'causal'}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> mask %m : tensor<1x4xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<causal>}
  return
}

// -----

func.func @fab_custom_mask_shape(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %m: tensor<1x2x4x4xf32>) {
  // expected-error @+1 {{'mask' must have shape [1, 4] ([B, S] key-padding mask of mask_kind custom), got [1, 2, 4, 4]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> mask %m : tensor<1x2x4x4xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<custom>}
  return
}

// -----

func.func @fab_custom_mask_type(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %m: tensor<1x4xbf16>) {
  // expected-error @+1 {{'mask' must have element type 'f32' or i1, got 'bf16'}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> mask %m : tensor<1x4xbf16> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<custom>}
  return
}

// -----

func.func @fab_bias_mask_shape(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %m: tensor<1x4xf32>) {
  // expected-error @+1 {{'mask' must have shape [1, 2, 4, 4] ([B, H, S, S] additive mask of mask_kind bias), got [1, 4]}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> mask %m : tensor<1x4xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<bias>}
  return
}

// -----

func.func @fab_bias_mask_type(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %m: tensor<1x2x4x4xi1>) {
  // expected-error @+1 {{'mask' must have element type 'f32', got 'i1'}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> mask %m : tensor<1x2x4x4xi1> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<bias>}
  return
}

// -----

func.func @fab_window_missing(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{mask_kind 'sliding_window' needs a 'window' attribute}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<sliding_window>}
  return
}

// -----

func.func @fab_window_unused(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{'window' only applies to mask_kind 'sliding_window', got 'causal'}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<causal>, window = 2 : i64}
  return
}

// -----

func.func @fab_window_negative(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{attribute 'window' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64, mask_kind = #rlx.mask<sliding_window>, window = -1 : i64}
  return
}

// -----

func.func @fab_score_scale(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{attribute 'score_scale' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64, score_scale = 0.0 : f32}
  return
}

// -----

func.func @fab_weight_type(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf16>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{'qkv_w' must have element type 'f32', got 'f16'}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf16> out_w %wo : tensor<8x8xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  return
}

// -----

func.func @fab_result(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x16xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x16xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8xf32>'}}
  // expected-error @+1 {{'rlx.fused_attention_block' op failed to infer returned types}}
  %0 = "rlx.fused_attention_block"(%h, %wqkv, %wo) {head_dim = 4 : i64, num_heads = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>} : (tensor<1x4x8xf32>, tensor<8x24xf32>, tensor<8x16xf32>) -> tensor<1x4x8xf32>
  return
}

// -----

func.func @lora_x_rank(%x: tensor<2x16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64x4xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+1 {{x must have rank 2 ([m, k]), got [2, 16, 64]}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : tensor<2x16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<4x32xf32>
  return
}

// -----

func.func @lora_a_rank(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+1 {{a must have rank 2, got [64]}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : tensor<16x64xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<4x32xf32>
  return
}

// -----

func.func @lora_w(%x: tensor<16x64xf32>, %w: tensor<32x32xf32>, %a: tensor<64x4xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+1 {{'w' must have shape [64, 32] ([k, n]), got [32, 32]}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : tensor<16x64xf32>, tensor<32x32xf32>, tensor<64x4xf32>, tensor<4x32xf32>
  return
}

// -----

func.func @lora_a(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<48x4xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+1 {{'a' must have shape [64, 4] ([k, r]), got [48, 4]}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : tensor<16x64xf32>, tensor<64x32xf32>, tensor<48x4xf32>, tensor<4x32xf32>
  return
}

// -----

func.func @lora_b_rank_dim(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64x4xf32>, %b: tensor<8x32xf32>) {
  // expected-error @+1 {{'b' must have shape [4, 32] ([r, n]), got [8, 32]}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<8x32xf32>
  return
}

// -----

func.func @lora_b_n(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64x4xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+1 {{'b' must have shape [4, 32] ([r, n]), got [4, 16]}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0 : tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<4x16xf32>
  return
}

// -----

func.func @lora_scale(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64x4xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+1 {{attribute 'scale' failed to satisfy constraint: 32-bit float attribute whose value is finite}}
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 0x7F800000 : tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<4x32xf32>
  return
}

// -----

func.func @lora_types(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64x4xf16>, %b: tensor<4x32xf32>) {
  // expected-error @+1 {{all of {x, w, a, b, result} have same element type}}
  %0 = "rlx.lora_matmul"(%x, %w, %a, %b) {scale = 1.0 : f32} : (tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf16>, tensor<4x32xf32>) -> tensor<16x32xf32>
  return
}

// -----

func.func @lora_result(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %a: tensor<64x4xf32>, %b: tensor<4x32xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<16x32xf32>' are incompatible with return type(s) of operation 'tensor<16x64xf32>'}}
  // expected-error @+1 {{'rlx.lora_matmul' op failed to infer returned types}}
  %0 = "rlx.lora_matmul"(%x, %w, %a, %b) {scale = 1.0 : f32} : (tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<4x32xf32>) -> tensor<16x64xf32>
  return
}

// -----

// Found by rlx-fuzz-to-linalg under UBSan: 3 * num_heads * head_dim
// overflowed 64 bits while checking the weight shapes.
func.func @ftl_width_overflow(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>, %g2: tensor<8xf32>) {
  // expected-error @+1 {{3 * num_heads * head_dim overflows 64 bits}}
  %0 = rlx.fused_transformer_layer gelu %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32> fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4611686018427387904 : i64, intermediate_size = 32 : i64, num_heads = 1 : i64}
  return
}

// -----

func.func @fab_width_overflow(%h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>) {
  // expected-error @+1 {{3 * num_heads * head_dim overflows 64 bits}}
  %0 = rlx.fused_attention_block %h : tensor<1x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> {head_dim = 9223372036854775807 : i64, num_heads = 1 : i64}
  return
}
