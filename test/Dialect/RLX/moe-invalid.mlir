// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @dequant_x_rank(%x: tensor<64xf32>, %w: tensor<64x8xi8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{'rlx.dequant_matmul' op x must have rank 2 ([M, K]), got [64]}}
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> : tensor<64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_missing_block_size(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{scheme 'int8_block' requires a block_size attribute}}
  %0 = rlx.dequant_matmul int8_block %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_block_size_positive(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{attribute 'block_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.dequant_matmul int8_block block_size = 0 %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_unexpected_block_size(%x: tensor<4x64xf32>, %w: tensor<64x8xf8E4M3FN>, %s: tensor<8xf32>) {
  // expected-error @+1 {{scheme 'fp8_e4m3' takes no block_size attribute}}
  %0 = rlx.dequant_matmul fp8_e4m3 block_size = 32 %x, %w scale %s : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E4M3FN>
  return
}

// -----

func.func @dequant_missing_scale(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>) {
  // expected-error @+1 {{scheme 'int8_block' requires a scale operand}}
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_gguf_scale(%x: tensor<4x256xf32>, %w: tensor<288xui8>, %s: tensor<2xf32>) {
  // expected-error @+1 {{scheme 'gguf_q4_k' takes no scale operand (GGUF scales live inside the packed bytes)}}
  %0 = rlx.dequant_matmul gguf_q4_k %x, %w scale %s : tensor<2xf32> : tensor<4x256xf32>, tensor<288xui8>
  return
}

// -----

func.func @dequant_asym_needs_zero_point(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{scheme 'int8_block_asym' requires a zero_point operand}}
  %0 = rlx.dequant_matmul int8_block_asym block_size = 32 %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_fp8_zero_point(%x: tensor<4x64xf32>, %w: tensor<64x8xf8E5M2>, %s: tensor<8xf32>) {
  // expected-error @+1 {{scheme 'fp8_e5m2' takes no zero_point operand}}
  %0 = rlx.dequant_matmul fp8_e5m2 %x, %w scale %s : tensor<8xf32> zero_point %s : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E5M2>
  return
}

// -----

func.func @dequant_nvfp4_needs_global(%x: tensor<4x64xf32>, %w: tensor<64x4xui8>, %s: tensor<4x8xui8>) {
  // expected-error @+1 {{scheme 'nvfp4_block' requires a global_scale operand}}
  %0 = rlx.dequant_matmul nvfp4_block %x, %w scale %s : tensor<4x8xui8> : tensor<4x64xf32>, tensor<64x4xui8>
  return
}

// -----

func.func @dequant_int8_global(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<2x8xf32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{scheme 'int8_block' takes no global_scale operand}}
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> global_scale %g : tensor<1xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_gguf_weight_type(%x: tensor<4x256xf32>, %w: tensor<2x144xui8>) {
  // expected-error @+1 {{scheme 'gguf_q4_k' takes w_q as packed ui8 bytes [bytes], got 'tensor<2x144xui8>'}}
  %0 = rlx.dequant_matmul gguf_q4_k %x, %w : tensor<4x256xf32>, tensor<2x144xui8>
  return
}

// -----

func.func @dequant_gguf_k(%x: tensor<4x100xf32>, %w: tensor<288xui8>) {
  // expected-error @+1 {{scheme 'gguf_q4_0' quantizes K in blocks of 32 elements, but K = 100 is not a positive multiple of 32}}
  %0 = rlx.dequant_matmul gguf_q4_0 %x, %w : tensor<4x100xf32>, tensor<288xui8>
  return
}

// -----

func.func @dequant_gguf_bytes(%x: tensor<4x256xf32>, %w: tensor<300xui8>) {
  // expected-error @+1 {{w_q has 300 bytes, not a whole number of rows of K = 256 elements (144 bytes each)}}
  %0 = rlx.dequant_matmul gguf_q4_k %x, %w : tensor<4x256xf32>, tensor<300xui8>
  return
}

// -----

func.func @dequant_weight_element(%x: tensor<4x64xf32>, %w: tensor<64x8xui8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{scheme 'int8_block' expects w_q elements of 'i8', got 'ui8'}}
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xui8>
  return
}

// -----

func.func @dequant_weight_rank(%x: tensor<4x64xf32>, %w: tensor<256xui8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{w_q must have rank 2 ([K, N/2]), got [256]}}
  %0 = rlx.dequant_matmul int4_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<256xui8>
  return
}

// -----

func.func @dequant_contraction(%x: tensor<4x64xf32>, %w: tensor<32x8xi8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{contraction dims differ: x [4, 64] has K = 64 but w_q [32, 8] has K = 32}}
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<32x8xi8>
  return
}

// -----

func.func @dequant_scale_shape(%x: tensor<4x64xf32>, %w: tensor<64x4xui8>, %s: tensor<2x4xf32>) {
  // expected-error @+1 {{scale must have shape [2, 8] for scheme 'int4_block', got [2, 4]}}
  %0 = rlx.dequant_matmul int4_block block_size = 32 %x, %w scale %s : tensor<2x4xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  return
}

// -----

func.func @dequant_zero_point_shape(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>, %s: tensor<4x8xf32>, %z: tensor<2x8xf32>) {
  // expected-error @+1 {{zero_point must have shape [4, 8] for scheme 'int8_block_asym', got [2, 8]}}
  %0 = rlx.dequant_matmul int8_block_asym block_size = 16 %x, %w scale %s : tensor<4x8xf32> zero_point %z : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @dequant_nvfp4_scale_type(%x: tensor<4x64xf32>, %w: tensor<64x4xui8>, %s: tensor<4x8xf32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{scale of scheme 'nvfp4_block' must have 'ui8' elements, got 'f32'}}
  %0 = rlx.dequant_matmul nvfp4_block %x, %w scale %s : tensor<4x8xf32> global_scale %g : tensor<1xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  return
}

// -----

func.func @dequant_nvfp4_k(%x: tensor<4x40xf32>, %w: tensor<40x4xui8>, %s: tensor<2x8xui8>, %g: tensor<1xf32>) {
  // expected-error @+1 {{scheme 'nvfp4_block' groups K in blocks of 16, but K = 40 is not a multiple of 16}}
  %0 = rlx.dequant_matmul nvfp4_block %x, %w scale %s : tensor<2x8xui8> global_scale %g : tensor<1xf32> : tensor<4x40xf32>, tensor<40x4xui8>
  return
}

// -----

func.func @dequant_global_shape(%x: tensor<4x64xf32>, %w: tensor<64x4xui8>, %s: tensor<4x8xui8>, %g: tensor<2xf32>) {
  // expected-error @+1 {{global_scale must have shape [1] for scheme 'nvfp4_block', got [2]}}
  %0 = rlx.dequant_matmul nvfp4_block %x, %w scale %s : tensor<4x8xui8> global_scale %g : tensor<2xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  return
}

// -----

func.func @dequant_unknown_scheme(%x: tensor<4x64xf32>, %w: tensor<64x8xi8>) {
  // expected-error @+1 {{unknown quant_scheme kind 'int2_block'}}
  %0 = rlx.dequant_matmul int2_block %x, %w : tensor<4x64xf32>, tensor<64x8xi8>
  return
}

// -----

func.func @q_matmul_x_rank(%x: tensor<16xi8>, %w: tensor<16x8xi8>, %b: tensor<8xi32>) {
  // expected-error @+1 {{'rlx.q_matmul' op x must have rank 2 ([M, K]), got [16]}}
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : tensor<16xi8>, tensor<16x8xi8>, tensor<8xi32>
  return
}

// -----

func.func @q_matmul_w_rank(%x: tensor<4x16xi8>, %w: tensor<2x16x8xi8>, %b: tensor<8xi32>) {
  // expected-error @+1 {{w must have rank 2 ([K, N]), got [2, 16, 8]}}
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : tensor<4x16xi8>, tensor<2x16x8xi8>, tensor<8xi32>
  return
}

// -----

func.func @q_matmul_k(%x: tensor<4x16xi8>, %w: tensor<12x8xi8>, %b: tensor<8xi32>) {
  // expected-error @+1 {{contraction dims differ: x [4, 16] has K = 16 but w [12, 8] has K = 12}}
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : tensor<4x16xi8>, tensor<12x8xi8>, tensor<8xi32>
  return
}

// -----

func.func @q_matmul_bias(%x: tensor<4x16xi8>, %w: tensor<16x8xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{bias must have shape [8] ([N]), got [4]}}
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : tensor<4x16xi8>, tensor<16x8xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_matmul_zero_point(%x: tensor<4x16xi8>, %w: tensor<16x8xi8>, %b: tensor<8xi32>) {
  // expected-error @+1 {{attribute 'w_zp' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is -128 whose maximum value is 127}}
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 0 : i64, w_zp = -129 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi32>
  return
}

// -----

func.func @q_matmul_mult(%x: tensor<4x16xi8>, %w: tensor<16x8xi8>, %b: tensor<8xi32>) {
  // expected-error @+1 {{attribute 'mult' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.0 : f32} : tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi32>
  return
}

// -----

func.func @q_matmul_bias_type(%x: tensor<4x16xi8>, %w: tensor<16x8xi8>, %b: tensor<8xi8>) {
  // expected-error @+1 {{operand #2 must be ranked tensor of 32-bit signless integer values}}
  %0 = "rlx.q_matmul"(%x, %w, %b) {x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : (tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi8>) -> tensor<4x8xi8>
  return
}

// -----

func.func @q_conv2d_x_rank(%x: tensor<3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'rlx.q_conv2d' op x must have rank 4 ([N, C_in, H, W]), got [3, 8, 8]}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_w_rank(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{w must have rank 4 ([C_out, C_in/groups, kH, kW]), got [4, 3, 3]}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_stride_len(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{stride must have 2 entries [h, w], got 1}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_stride_value(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'stride' failed to satisfy constraint: i64 dense array attribute whose value is positive}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 0>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_padding(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'padding' failed to satisfy constraint: i64 dense array attribute whose value is non-negative}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: -1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_dilation(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'dilation' failed to satisfy constraint: i64 dense array attribute whose value is positive}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 0, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_kernel_mismatch(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{kernel_size [5, 5] differs from the spatial dims of w [4, 3, 3, 3]}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 5, 5>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_groups(%x: tensor<1x3x8x8xi8>, %w: tensor<4x1x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{groups = 2 does not divide C_in = 3}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x1x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_groups_out(%x: tensor<1x4x8x8xi8>, %w: tensor<3x2x3x3xi8>, %b: tensor<3xi32>) {
  // expected-error @+1 {{groups = 2 does not divide C_out = 3}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x4x8x8xi8>, tensor<3x2x3x3xi8>, tensor<3xi32>
  return
}

// -----

func.func @q_conv2d_groups_zero(%x: tensor<1x4x8x8xi8>, %w: tensor<4x4x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 0 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_channels(%x: tensor<1x4x8x8xi8>, %w: tensor<4x4x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{w [4, 4, 3, 3] has 4 input channels per group, expected C_in / groups = 2}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 2 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x4x8x8xi8>, tensor<4x4x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_bias(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<3xi32>) {
  // expected-error @+1 {{bias must have shape [4] ([C_out]), got [3]}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<3xi32>
  return
}

// -----

func.func @q_conv2d_window(%x: tensor<1x3x2x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{the window does not fit: input [1, 3, 2, 8] gives output height 0}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x2x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @q_conv2d_out_zp(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'out_zp' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is -128 whose maximum value is 127}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 128 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @grouped_matmul_input_rank(%x: tensor<16xf32>, %w: tensor<4x16x32xf32>, %i: tensor<6xi32>) {
  // expected-error @+1 {{'rlx.grouped_matmul' op input must have rank 2 ([M, K]), got [16]}}
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<16xf32>, tensor<4x16x32xf32>, tensor<6xi32>
  return
}

// -----

func.func @grouped_matmul_idx(%x: tensor<6x16xf32>, %w: tensor<4x16x32xf32>, %i: tensor<5xi32>) {
  // expected-error @+1 {{expert_idx must have shape [6] (one expert per input row), got [5]}}
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<5xi32>
  return
}

// -----

func.func @grouped_matmul_weight_rank(%x: tensor<6x16xf32>, %w: tensor<16x32xf32>, %i: tensor<6xi32>) {
  // expected-error @+1 {{weight must have rank 3 ([E, K, N]), got [16, 32]}}
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<6x16xf32>, tensor<16x32xf32>, tensor<6xi32>
  return
}

// -----

func.func @grouped_matmul_k(%x: tensor<6x16xf32>, %w: tensor<4x8x32xf32>, %i: tensor<6xi32>) {
  // expected-error @+1 {{contraction dims differ: input [6, 16] has K = 16 but weight [4, 8, 32] has K = 8}}
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<6x16xf32>, tensor<4x8x32xf32>, tensor<6xi32>
  return
}

// -----

func.func @grouped_matmul_float_idx(%x: tensor<6x16xf32>, %w: tensor<4x16x32xf32>, %i: tensor<6xf32>) {
  // expected-error @+1 {{operand #2 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = "rlx.grouped_matmul"(%x, %w, %i) : (tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<6xf32>) -> tensor<6x32xf32>
  return
}

// -----

func.func @dequant_grouped_scheme(%x: tensor<6x64xf32>, %w: tensor<2176xui8>, %i: tensor<6xi64>) {
  // expected-error @+1 {{'rlx.dequant_grouped_matmul' op scheme 'int8_block' is not supported: expert slabs are GGUF-packed, use a gguf_* scheme}}
  %0 = rlx.dequant_grouped_matmul int8_block %x, %w, %i : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x16xf32>
  return
}

// -----

func.func @dequant_grouped_result(%x: tensor<6x64xf32>, %w: tensor<2176xui8>, %i: tensor<6xi64>) {
  // expected-error @+1 {{result must have shape [6, N] (M rows of input), got [5, 16]}}
  %0 = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<5x16xf32>
  return
}

// -----

func.func @dequant_grouped_slabs(%x: tensor<6x64xf32>, %w: tensor<2000xui8>, %i: tensor<6xi64>) {
  // expected-error @+1 {{packed weight has 2000 bytes, not a positive whole number of expert slabs of 1088 bytes (N = 16 rows of K = 64)}}
  %0 = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<6x64xf32>, tensor<2000xui8>, tensor<6xi64> -> tensor<6x16xf32>
  return
}

// -----

// Found by rlx-fuzz-ir under UBSan: the slab's byte count (68 bytes per
// row times N = 2^62 rows) overflowed 64 bits.
func.func @dequant_grouped_slab_overflow(%x: tensor<6x64xf32>, %w: tensor<2176xui8>, %i: tensor<6xi64>) {
  // expected-error @+1 {{an expert slab of N = 4611686018427387904 rows of K = 64 elements (68 bytes each) overflows a 64-bit byte count}}
  %0 = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x4611686018427387904xf32>
  return
}

// -----

func.func @dequant_grouped_k(%x: tensor<6x100xf32>, %w: tensor<2176xui8>, %i: tensor<6xi64>) {
  // expected-error @+1 {{scheme 'gguf_q4_k' quantizes K in blocks of 256 elements, but K = 100 is not a positive multiple of 256}}
  %0 = rlx.dequant_grouped_matmul gguf_q4_k %x, %w, %i : tensor<6x100xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x16xf32>
  return
}

// -----

func.func @dequant_grouped_idx(%x: tensor<6x64xf32>, %w: tensor<2176xui8>, %i: tensor<6x1xi64>) {
  // expected-error @+1 {{expert_idx must have shape [6] (one expert per input row), got [6, 1]}}
  %0 = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<6x64xf32>, tensor<2176xui8>, tensor<6x1xi64> -> tensor<6x16xf32>
  return
}

// -----

func.func @dequant_moe_scheme(%p: tensor<1152xui8>) {
  // expected-error @+1 {{'rlx.dequant_moe_weights' op scheme 'nvfp4_block' is not supported: expert slabs are GGUF-packed, use a gguf_* scheme}}
  %0 = rlx.dequant_moe_weights nvfp4_block %p : tensor<1152xui8> -> tensor<2x256x4xf32>
  return
}

// -----

func.func @dequant_moe_rank(%p: tensor<1152xui8>) {
  // expected-error @+1 {{result must have rank 3 ([E, K, N]), got [256, 4]}}
  %0 = rlx.dequant_moe_weights gguf_q4_k %p : tensor<1152xui8> -> tensor<256x4xf32>
  return
}

// -----

func.func @dequant_moe_bytes(%p: tensor<1000xui8>) {
  // expected-error @+1 {{packed weight has 1000 bytes, expected E * N * (K / 256) * 144 = 1152 for E = 2, K = 256, N = 4}}
  %0 = rlx.dequant_moe_weights gguf_q4_k %p : tensor<1000xui8> -> tensor<2x256x4xf32>
  return
}

// -----

func.func @dequant_moe_packed_rank(%p: tensor<2x576xui8>) {
  // expected-error @+1 {{packed weight must have rank 1 ([bytes]), got [2, 576]}}
  %0 = rlx.dequant_moe_weights gguf_q4_k %p : tensor<2x576xui8> -> tensor<2x256x4xf32>
  return
}

// -----

func.func @q_conv2d_kernel_size(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x0x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{attribute 'kernel_size' failed to satisfy constraint: i64 dense array attribute whose value is positive}}
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 0, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x0x3xi8>, tensor<4xi32>
  return
}

// -----

func.func @dequant_fp8_scale(%x: tensor<4x64xf32>, %w: tensor<64x8xf8E4M3FN>, %s: tensor<1x8xf32>) {
  // expected-error @+1 {{scale must have shape [8] for scheme 'fp8_e4m3', got [1, 8]}}
  %0 = rlx.dequant_matmul fp8_e4m3 %x, %w scale %s : tensor<1x8xf32> : tensor<4x64xf32>, tensor<64x8xf8E4M3FN>
  return
}

// -----

func.func @dequant_fp8_kind(%x: tensor<4x64xf32>, %w: tensor<64x8xf8E4M3FN>, %s: tensor<8xf32>) {
  // expected-error @+1 {{scheme 'fp8_e5m2' expects w_q elements of 'f8E5M2', got 'f8E4M3FN'}}
  %0 = rlx.dequant_matmul fp8_e5m2 %x, %w scale %s : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E4M3FN>
  return
}

// -----

func.func @dequant_gguf_iq_bytes(%x: tensor<4x256xf32>, %w: tensor<100xui8>) {
  // expected-error @+1 {{w_q has 100 bytes, not a whole number of rows of K = 256 elements (66 bytes each)}}
  %0 = rlx.dequant_matmul gguf_iq2_xxs %x, %w : tensor<4x256xf32>, tensor<100xui8>
  return
}

// -----

func.func @dequant_gguf_nvfp4_k(%x: tensor<4x32xf32>, %w: tensor<36xui8>) {
  // expected-error @+1 {{scheme 'gguf_nvfp4' quantizes K in blocks of 64 elements, but K = 32 is not a positive multiple of 64}}
  %0 = rlx.dequant_matmul gguf_nvfp4 %x, %w : tensor<4x32xf32>, tensor<36xui8>
  return
}

// -----

func.func @dequant_gguf_mxfp4_bytes(%x: tensor<4x64xf32>, %w: tensor<36xui8>) {
  // expected-error @+1 {{w_q has 36 bytes, not a whole number of rows of K = 64 elements (34 bytes each)}}
  %0 = rlx.dequant_matmul gguf_mxfp4 %x, %w : tensor<4x64xf32>, tensor<36xui8>
  return
}

// -----

// Found by rlx-fuzz-ir under UBSan: N = 2 * dim 1 of a packed w_q
// overflowed 64 bits.
func.func @dequant_int4_n_overflow(%x: tensor<4x64xf32>, %w: tensor<64x4611686018427387904xui8>, %s: tensor<2x8xf32>) {
  // expected-error @+1 {{w_q [64, 4611686018427387904] holds two values per element: N = 2 * 4611686018427387904 overflows 64 bits}}
  %0 = rlx.dequant_matmul int4_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x4611686018427387904xui8>
  return
}

// -----

// The output extent of huge padding beyond int64.
func.func @q_conv2d_extent_overflow(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'rlx.q_conv2d' op output height overflows 64 bits: input [1, 3, 8, 8] with kernel_size [3, 3], stride [1, 1], padding [4611686018427387904, 1], dilation [1, 1]}}
  %0 = "rlx.q_conv2d"(%x, %w, %b) {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 4611686018427387904, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : (tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x4x?x8xi8>
  return
}
