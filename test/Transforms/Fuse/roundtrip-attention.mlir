// RUN: rlx-opt %s --rlx-unfuse | rlx-opt --rlx-fuse | FileCheck %s

// rlx-unfuse then rlx-fuse gives back fused_attention_block (every mask kind,
// with/without biases and rope, score_scale, window, N != E) and
// fused_transformer_layer (with/without biases and norm shifts, f32/i1/no
// mask, differing eps), attributes and optional operands unchanged.

// CHECK-LABEL: func.func @attention_blocks
func.func @attention_blocks(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x12xf32>,
                            %bqkv: tensor<24xf32>, %bo: tensor<12xf32>, %cos: tensor<4x2xf32>, %sin: tensor<4x2xf32>,
                            %pad: tensor<2x4xi1>, %padf: tensor<2x4xf32>, %bias: tensor<2x2x4x4xf32>)
    -> (tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>) {
  // CHECK: rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x12xf32> out_b %arg4 : tensor<12xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  %0 = rlx.fused_attention_block %h : tensor<2x4x16xf32> qkv_w %wqkv : tensor<16x24xf32> qkv_b %bqkv : tensor<24xf32>
      out_w %wo : tensor<8x12xf32> out_b %bo : tensor<12xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
  // CHECK: rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> out_w %arg2 : tensor<8x12xf32> rope_cos %arg5 : tensor<4x2xf32> rope_sin %arg6 : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64}
  %1 = rlx.fused_attention_block %h : tensor<2x4x16xf32> qkv_w %wqkv : tensor<16x24xf32> out_w %wo : tensor<8x12xf32>
      rope_cos %cos : tensor<4x2xf32> rope_sin %sin : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64}
  // CHECK: rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x12xf32> out_b %arg4 : tensor<12xf32> mask %arg7 : tensor<2x4xi1> rope_cos %arg5 : tensor<4x2xf32> rope_sin %arg6 : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64}
  %2 = rlx.fused_attention_block %h : tensor<2x4x16xf32> qkv_w %wqkv : tensor<16x24xf32> qkv_b %bqkv : tensor<24xf32>
      out_w %wo : tensor<8x12xf32> out_b %bo : tensor<12xf32> mask %pad : tensor<2x4xi1>
      rope_cos %cos : tensor<4x2xf32> rope_sin %sin : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64}
  // CHECK: rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> out_w %arg2 : tensor<8x12xf32> mask %arg8 : tensor<2x4xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 2.500000e-01 : f32}
  %3 = rlx.fused_attention_block %h : tensor<2x4x16xf32> qkv_w %wqkv : tensor<16x24xf32> out_w %wo : tensor<8x12xf32>
      mask %padf : tensor<2x4xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 0.25 : f32}
  // CHECK: rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x12xf32> out_b %arg4 : tensor<12xf32> mask %arg9 : tensor<2x2x4x4xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<bias>, num_heads = 2 : i64}
  %4 = rlx.fused_attention_block %h : tensor<2x4x16xf32> qkv_w %wqkv : tensor<16x24xf32> qkv_b %bqkv : tensor<24xf32>
      out_w %wo : tensor<8x12xf32> out_b %bo : tensor<12xf32> mask %bias : tensor<2x2x4x4xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<bias>, num_heads = 2 : i64}
  // CHECK: rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> out_w %arg2 : tensor<8x12xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 2 : i64, window = 1 : i64}
  %5 = rlx.fused_attention_block %h : tensor<2x4x16xf32> qkv_w %wqkv : tensor<16x24xf32> out_w %wo : tensor<8x12xf32>
      {head_dim = 4 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 2 : i64, window = 1 : i64}
  // CHECK-NOT: rlx.attention
  // CHECK-NOT: rlx.matmul
  return %0, %1, %2, %3, %4, %5 : tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>, tensor<2x4x12xf32>
}

// CHECK-LABEL: func.func @transformer_layers
func.func @transformer_layers(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>,
                              %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>,
                              %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>,
                              %g2: tensor<8xf32>, %be2: tensor<8xf32>, %pad: tensor<2x4xi1>, %padf: tensor<2x4xf32>)
    -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  // CHECK: rlx.fused_transformer_layer gelu %arg0 : tensor<2x4x8xf32> qkv_w %arg1 : tensor<8x24xf32> qkv_b %arg2 : tensor<24xf32> out_w %arg3 : tensor<8x8xf32> out_b %arg4 : tensor<8xf32> ln1_g %arg5 : tensor<8xf32> ln1_b %arg6 : tensor<8xf32> fc1_w %arg7 : tensor<8x16xf32> fc1_b %arg8 : tensor<16xf32> fc2_w %arg9 : tensor<16x8xf32> fc2_b %arg10 : tensor<8xf32> ln2_g %arg11 : tensor<8xf32> ln2_b %arg12 : tensor<8xf32> {eps1 = 9.99999974E-6 : f32, eps2 = 9.99999996E-13 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
  %0 = rlx.fused_transformer_layer gelu %x : tensor<2x4x8xf32>
      qkv_w %wqkv : tensor<8x24xf32> qkv_b %bqkv : tensor<24xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32>
      ln1_g %g1 : tensor<8xf32> ln1_b %be1 : tensor<8xf32> fc1_w %w1 : tensor<8x16xf32> fc1_b %b1 : tensor<16xf32>
      fc2_w %w2 : tensor<16x8xf32> fc2_b %b2 : tensor<8xf32> ln2_g %g2 : tensor<8xf32> ln2_b %be2 : tensor<8xf32>
      {eps1 = 1.0e-5 : f32, eps2 = 1.0e-12 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
  // CHECK: rlx.fused_transformer_layer relu %arg0 : tensor<2x4x8xf32> qkv_w %arg1 : tensor<8x24xf32> out_w %arg3 : tensor<8x8xf32> ln1_g %arg5 : tensor<8xf32> fc1_w %arg7 : tensor<8x16xf32> fc2_w %arg9 : tensor<16x8xf32> ln2_g %arg11 : tensor<8xf32> mask %arg13 : tensor<2x4xi1> {eps1 = 9.99999974E-6 : f32, eps2 = 9.99999974E-6 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
  %1 = rlx.fused_transformer_layer relu %x : tensor<2x4x8xf32>
      qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32> ln1_g %g1 : tensor<8xf32>
      fc1_w %w1 : tensor<8x16xf32> fc2_w %w2 : tensor<16x8xf32> ln2_g %g2 : tensor<8xf32> mask %pad : tensor<2x4xi1>
      {eps1 = 1.0e-5 : f32, eps2 = 1.0e-5 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
  // CHECK: rlx.fused_transformer_layer silu %arg0 : tensor<2x4x8xf32> qkv_w %arg1 : tensor<8x24xf32> qkv_b %arg2 : tensor<24xf32> out_w %arg3 : tensor<8x8xf32> out_b %arg4 : tensor<8xf32> ln1_g %arg5 : tensor<8xf32> fc1_w %arg7 : tensor<8x16xf32> fc1_b %arg8 : tensor<16xf32> fc2_w %arg9 : tensor<16x8xf32> fc2_b %arg10 : tensor<8xf32> ln2_g %arg11 : tensor<8xf32> ln2_b %arg12 : tensor<8xf32> mask %arg14 : tensor<2x4xf32> {eps1 = 9.99999997E-7 : f32, eps2 = 9.99999974E-6 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
  %2 = rlx.fused_transformer_layer silu %x : tensor<2x4x8xf32>
      qkv_w %wqkv : tensor<8x24xf32> qkv_b %bqkv : tensor<24xf32> out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32>
      ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x16xf32> fc1_b %b1 : tensor<16xf32>
      fc2_w %w2 : tensor<16x8xf32> fc2_b %b2 : tensor<8xf32> ln2_g %g2 : tensor<8xf32> ln2_b %be2 : tensor<8xf32> mask %padf : tensor<2x4xf32>
      {eps1 = 1.0e-6 : f32, eps2 = 1.0e-5 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
  // CHECK-NOT: rlx.fused_attention_block
  // CHECK-NOT: rlx.fused_residual_ln
  // CHECK-NOT: rlx.matmul
  return %0, %1, %2 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
}
