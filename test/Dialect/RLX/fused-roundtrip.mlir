// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// rlx.fused_matmul_bias_act
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fused_matmul_bias_act
func.func @fused_matmul_bias_act(%x: tensor<4x16x32xf32>, %w: tensor<32x64xf32>,
                                 %b: tensor<64xf32>, %x2: tensor<8x32xf16>,
                                 %w2: tensor<32x?xf16>, %b2: tensor<?xf16>)
    -> (tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<8x?xf16>) {
  // CHECK: rlx.fused_matmul_bias_act %{{.*}}, %{{.*}}, %{{.*}} activation gelu : tensor<4x16x32xf32>, tensor<32x64xf32>, tensor<64xf32>
  %0 = rlx.fused_matmul_bias_act %x, %w, %b activation gelu
      : tensor<4x16x32xf32>, tensor<32x64xf32>, tensor<64xf32>
  // CHECK: rlx.fused_matmul_bias_act %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x16x32xf32>, tensor<32x64xf32>, tensor<64xf32>
  %1 = rlx.fused_matmul_bias_act %x, %w, %b
      : tensor<4x16x32xf32>, tensor<32x64xf32>, tensor<64xf32>
  // CHECK: rlx.fused_matmul_bias_act %{{.*}}, %{{.*}}, %{{.*}} activation silu : tensor<8x32xf16>, tensor<32x?xf16>, tensor<?xf16>
  %2 = rlx.fused_matmul_bias_act %x2, %w2, %b2 activation silu
      : tensor<8x32xf16>, tensor<32x?xf16>, tensor<?xf16>
  // CHECK: return {{.*}} : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<8x?xf16>
  return %0, %1, %2 : tensor<4x16x64xf32>, tensor<4x16x64xf32>, tensor<8x?xf16>
}

//===----------------------------------------------------------------------===//
// rlx.fused_residual_ln / rlx.fused_residual_rms_norm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fused_residual_ln
func.func @fused_residual_ln(%x: tensor<2x8x64xf32>, %r: tensor<2x8x64xf32>,
                             %g: tensor<64xf32>, %b: tensor<64xf32>,
                             %bias: tensor<64xf32>)
    -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>) {
  // CHECK: rlx.fused_residual_ln %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} eps = 9.99999974E-6 : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>
  %0 = rlx.fused_residual_ln %x, %r, %g, %b eps = 1.0e-05
      : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>
  // CHECK: rlx.fused_residual_ln %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} : tensor<64xf32> eps = 9.99999996E-13 : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>
  %1 = rlx.fused_residual_ln %x, %r, %g, %b bias %bias : tensor<64xf32> eps = 1.0e-12
      : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>
  return %0, %1 : tensor<2x8x64xf32>, tensor<2x8x64xf32>
}

// CHECK-LABEL: func.func @fused_residual_rms_norm
func.func @fused_residual_rms_norm(%x: tensor<?x4096xbf16>, %r: tensor<?x4096xbf16>,
                                   %g: tensor<4096xbf16>, %b: tensor<4096xbf16>,
                                   %bias: tensor<4096xbf16>)
    -> (tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?x4096xbf16>) {
  // CHECK: rlx.fused_residual_rms_norm %{{.*}}, %{{.*}}, %{{.*}} eps = 9.99999997E-7 : tensor<?x4096xbf16>, tensor<4096xbf16>
  %0 = rlx.fused_residual_rms_norm %x, %r, %g eps = 1.0e-06
      : tensor<?x4096xbf16>, tensor<4096xbf16>
  // CHECK: rlx.fused_residual_rms_norm %{{.*}}, %{{.*}}, %{{.*}} beta %{{.*}} : tensor<4096xbf16> eps
  %1 = rlx.fused_residual_rms_norm %x, %r, %g beta %b : tensor<4096xbf16> eps = 1.0e-06
      : tensor<?x4096xbf16>, tensor<4096xbf16>
  // CHECK: rlx.fused_residual_rms_norm %{{.*}}, %{{.*}}, %{{.*}} bias %{{.*}} : tensor<4096xbf16> eps
  %2 = rlx.fused_residual_rms_norm %x, %r, %g bias %bias : tensor<4096xbf16> eps = 1.0e-06
      : tensor<?x4096xbf16>, tensor<4096xbf16>
  // CHECK: rlx.fused_residual_rms_norm %{{.*}}, %{{.*}}, %{{.*}} beta %{{.*}} : tensor<4096xbf16> bias %{{.*}} : tensor<4096xbf16> eps
  %3 = rlx.fused_residual_rms_norm %x, %r, %g beta %b : tensor<4096xbf16>
      bias %bias : tensor<4096xbf16> eps = 1.0e-06 : tensor<?x4096xbf16>, tensor<4096xbf16>
  return %0, %1, %2, %3 : tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?x4096xbf16>
}

//===----------------------------------------------------------------------===//
// rlx.fused_swiglu
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fused_swiglu
func.func @fused_swiglu(%x: tensor<2x8x512xf32>, %d: tensor<?x?xf32>)
    -> (tensor<2x8x256xf32>, tensor<2x8x256xf32>, tensor<2x8x256xf16>,
        tensor<2x8x256xbf16>, tensor<?x?xf32>) {
  // CHECK: rlx.fused_swiglu %{{.*}} : tensor<2x8x512xf32>
  %0 = rlx.fused_swiglu %x : tensor<2x8x512xf32>
  // CHECK: rlx.fused_swiglu %{{.*}} gate_first : tensor<2x8x512xf32>
  %1 = rlx.fused_swiglu %x gate_first : tensor<2x8x512xf32>
  // CHECK: rlx.fused_swiglu %{{.*}} cast_to f16 : tensor<2x8x512xf32>
  %2 = rlx.fused_swiglu %x cast_to f16 : tensor<2x8x512xf32>
  // CHECK: rlx.fused_swiglu %{{.*}} gate_first cast_to bf16 : tensor<2x8x512xf32>
  %3 = rlx.fused_swiglu %x gate_first cast_to bf16 : tensor<2x8x512xf32>
  // CHECK: rlx.fused_swiglu %{{.*}} : tensor<?x?xf32>
  %4 = rlx.fused_swiglu %d : tensor<?x?xf32>
  // CHECK: rlx.fused_swiglu %{{.*}} cast_to f8E4M3FN : tensor<2x8x512xf32>
  %5 = rlx.fused_swiglu %x cast_to f8E4M3FN : tensor<2x8x512xf32>
  // CHECK: return {{.*}} : tensor<2x8x256xf32>, tensor<2x8x256xf32>, tensor<2x8x256xf16>, tensor<2x8x256xbf16>, tensor<?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<2x8x256xf32>, tensor<2x8x256xf32>, tensor<2x8x256xf16>, tensor<2x8x256xbf16>, tensor<?x?xf32>
}

//===----------------------------------------------------------------------===//
// rlx.fused_transformer_layer
//===----------------------------------------------------------------------===//

// All 14 operands (RLX has_bias).
// CHECK-LABEL: func.func @fused_transformer_layer_bias
func.func @fused_transformer_layer_bias(
    %h: tensor<2x16x64xf32>, %wqkv: tensor<64x192xf32>, %bqkv: tensor<192xf32>,
    %wo: tensor<64x64xf32>, %bo: tensor<64xf32>, %g1: tensor<64xf32>,
    %b1: tensor<64xf32>, %w1: tensor<64x256xf32>, %bb1: tensor<256xf32>,
    %w2: tensor<256x64xf32>, %bb2: tensor<64xf32>, %g2: tensor<64xf32>,
    %b2: tensor<64xf32>, %m: tensor<2x16xf32>) -> tensor<2x16x64xf32> {
  // CHECK: rlx.fused_transformer_layer gelu %{{.*}} : tensor<2x16x64xf32> qkv_w %{{.*}} : tensor<64x192xf32> qkv_b %{{.*}} : tensor<192xf32> out_w %{{.*}} : tensor<64x64xf32> out_b %{{.*}} : tensor<64xf32> ln1_g %{{.*}} : tensor<64xf32> ln1_b %{{.*}} : tensor<64xf32> fc1_w %{{.*}} : tensor<64x256xf32> fc1_b %{{.*}} : tensor<256xf32> fc2_w %{{.*}} : tensor<256x64xf32> fc2_b %{{.*}} : tensor<64xf32> ln2_g %{{.*}} : tensor<64xf32> ln2_b %{{.*}} : tensor<64xf32> mask %{{.*}} : tensor<2x16xf32> {eps1 = 9.99999996E-13 : f32, eps2 = 9.99999996E-13 : f32, head_dim = 16 : i64, intermediate_size = 256 : i64, num_heads = 4 : i64}
  %y = rlx.fused_transformer_layer gelu %h : tensor<2x16x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> qkv_b %bqkv : tensor<192xf32>
      out_w %wo : tensor<64x64xf32> out_b %bo : tensor<64xf32>
      ln1_g %g1 : tensor<64xf32> ln1_b %b1 : tensor<64xf32>
      fc1_w %w1 : tensor<64x256xf32> fc1_b %bb1 : tensor<256xf32>
      fc2_w %w2 : tensor<256x64xf32> fc2_b %bb2 : tensor<64xf32>
      ln2_g %g2 : tensor<64xf32> ln2_b %b2 : tensor<64xf32>
      mask %m : tensor<2x16xf32>
      {eps1 = 1.0e-12 : f32, eps2 = 1.0e-12 : f32, head_dim = 16 : i64,
       intermediate_size = 256 : i64, num_heads = 4 : i64}
  return %y : tensor<2x16x64xf32>
}

// The 8-operand form (no biases, zero LN betas) and other combinations.
// CHECK-LABEL: func.func @fused_transformer_layer_no_bias
func.func @fused_transformer_layer_no_bias(
    %h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>,
    %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>,
    %g2: tensor<8xf32>, %b2: tensor<8xf32>, %m: tensor<1x4xi1>)
    -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  // CHECK: rlx.fused_transformer_layer relu %{{.*}} : tensor<1x4x8xf32> qkv_w %{{.*}} : tensor<8x24xf32> out_w %{{.*}} : tensor<8x8xf32> ln1_g %{{.*}} : tensor<8xf32> fc1_w %{{.*}} : tensor<8x32xf32> fc2_w %{{.*}} : tensor<32x8xf32> ln2_g %{{.*}} : tensor<8xf32> mask %{{.*}} : tensor<1x4xi1> {
  %0 = rlx.fused_transformer_layer relu %h : tensor<1x4x8xf32>
      qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32>
      ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32>
      fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32>
      mask %m : tensor<1x4xi1>
      {eps1 = 1.0e-05 : f32, eps2 = 1.0e-05 : f32, head_dim = 4 : i64,
       intermediate_size = 32 : i64, num_heads = 2 : i64}
  // No mask, only the second LN shift.
  // CHECK: rlx.fused_transformer_layer gelu_approx %{{.*}} : tensor<1x4x8xf32> qkv_w %{{.*}} : tensor<8x24xf32> out_w %{{.*}} : tensor<8x8xf32> ln1_g %{{.*}} : tensor<8xf32> fc1_w %{{.*}} : tensor<8x32xf32> fc2_w %{{.*}} : tensor<32x8xf32> ln2_g %{{.*}} : tensor<8xf32> ln2_b %{{.*}} : tensor<8xf32> {
  %1 = rlx.fused_transformer_layer gelu_approx %h : tensor<1x4x8xf32>
      qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32>
      ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32>
      fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32> ln2_b %b2 : tensor<8xf32>
      {eps1 = 1.0e-05 : f32, eps2 = 1.0e-06 : f32, head_dim = 4 : i64,
       intermediate_size = 32 : i64, num_heads = 2 : i64}
  return %0, %1 : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

//===----------------------------------------------------------------------===//
// rlx.fused_attention_block
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fused_attention_block
func.func @fused_attention_block(
    %h: tensor<2x8x64xf32>, %wqkv: tensor<64x192xf32>, %wo: tensor<64x32xf32>,
    %bqkv: tensor<192xf32>, %bo: tensor<32xf32>, %cos: tensor<8x8xf32>,
    %sin: tensor<8x8xf32>, %pad: tensor<2x8xf32>, %bias: tensor<2x4x8x8xf32>)
    -> (tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>,
        tensor<2x8x32xf32>, tensor<2x8x32xf32>) {
  // Plain: no mask, no bias, no rope.
  // CHECK: rlx.fused_attention_block %{{.*}} : tensor<2x8x64xf32> qkv_w %{{.*}} : tensor<64x192xf32> out_w %{{.*}} : tensor<64x32xf32> {head_dim = 16 : i64, num_heads = 4 : i64}
  %0 = rlx.fused_attention_block %h : tensor<2x8x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> out_w %wo : tensor<64x32xf32>
      {head_dim = 16 : i64, num_heads = 4 : i64}
  // Biases and a key-padding mask.
  // CHECK: rlx.fused_attention_block %{{.*}} : tensor<2x8x64xf32> qkv_w %{{.*}} : tensor<64x192xf32> qkv_b %{{.*}} : tensor<192xf32> out_w %{{.*}} : tensor<64x32xf32> out_b %{{.*}} : tensor<32xf32> mask %{{.*}} : tensor<2x8xf32> {head_dim = 16 : i64, mask_kind = #rlx.mask<custom>, num_heads = 4 : i64}
  %1 = rlx.fused_attention_block %h : tensor<2x8x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> qkv_b %bqkv : tensor<192xf32>
      out_w %wo : tensor<64x32xf32> out_b %bo : tensor<32xf32>
      mask %pad : tensor<2x8xf32>
      {head_dim = 16 : i64, mask_kind = #rlx.mask<custom>, num_heads = 4 : i64}
  // RoPE with a causal mask and an explicit score scale.
  // CHECK: rlx.fused_attention_block %{{.*}} : tensor<2x8x64xf32> qkv_w %{{.*}} : tensor<64x192xf32> out_w %{{.*}} : tensor<64x32xf32> rope_cos %{{.*}} : tensor<8x8xf32> rope_sin %{{.*}} : tensor<8x8xf32> {head_dim = 16 : i64, mask_kind = #rlx.mask<causal>, num_heads = 4 : i64, score_scale = 1.250000e-01 : f32}
  %2 = rlx.fused_attention_block %h : tensor<2x8x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> out_w %wo : tensor<64x32xf32>
      rope_cos %cos : tensor<8x8xf32> rope_sin %sin : tensor<8x8xf32>
      {head_dim = 16 : i64, mask_kind = #rlx.mask<causal>, num_heads = 4 : i64,
       score_scale = 0.125 : f32}
  // Everything: biases, additive mask, rope.
  // CHECK: rlx.fused_attention_block %{{.*}} qkv_b %{{.*}} out_b %{{.*}} mask %{{.*}} : tensor<2x4x8x8xf32> rope_cos %{{.*}} rope_sin %{{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<bias>, num_heads = 4 : i64}
  %3 = rlx.fused_attention_block %h : tensor<2x8x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> qkv_b %bqkv : tensor<192xf32>
      out_w %wo : tensor<64x32xf32> out_b %bo : tensor<32xf32>
      mask %bias : tensor<2x4x8x8xf32>
      rope_cos %cos : tensor<8x8xf32> rope_sin %sin : tensor<8x8xf32>
      {head_dim = 16 : i64, mask_kind = #rlx.mask<bias>, num_heads = 4 : i64}
  // Sliding window.
  // CHECK: rlx.fused_attention_block {{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 4 : i64, window = 3 : i64}
  %4 = rlx.fused_attention_block %h : tensor<2x8x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> out_w %wo : tensor<64x32xf32>
      {head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>,
       num_heads = 4 : i64, window = 3 : i64}
  // CHECK: return {{.*}} : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>
  return %0, %1, %2, %3, %4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<2x8x32xf32>
}

//===----------------------------------------------------------------------===//
// rlx.lora_matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @lora_matmul
func.func @lora_matmul(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>,
                       %a: tensor<64x4xf32>, %b: tensor<4x32xf32>,
                       %xd: tensor<?x64xf16>, %wd: tensor<64x32xf16>,
                       %ad: tensor<64x?xf16>, %bd: tensor<?x32xf16>)
    -> (tensor<16x32xf32>, tensor<?x32xf16>) {
  // CHECK: rlx.lora_matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scale = 2.000000e+00 : tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<4x32xf32>
  %0 = rlx.lora_matmul %x, %w, %a, %b scale = 2.0
      : tensor<16x64xf32>, tensor<64x32xf32>, tensor<64x4xf32>, tensor<4x32xf32>
  // CHECK: rlx.lora_matmul %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scale = 5.000000e-01 : tensor<?x64xf16>, tensor<64x32xf16>, tensor<64x?xf16>, tensor<?x32xf16>
  %1 = rlx.lora_matmul %xd, %wd, %ad, %bd scale = 0.5
      : tensor<?x64xf16>, tensor<64x32xf16>, tensor<64x?xf16>, tensor<?x32xf16>
  return %0, %1 : tensor<16x32xf32>, tensor<?x32xf16>
}
