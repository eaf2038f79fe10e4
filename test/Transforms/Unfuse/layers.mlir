// RUN: rlx-opt %s --rlx-unfuse --split-input-file | FileCheck %s

// The post-LN encoder layer with biases and a key-padding mask.
// CHECK-LABEL: func.func @transformer_layer_bias
// CHECK: %[[QKV0:.*]] = rlx.matmul %[[H:arg0]], %arg1 : tensor<2x16x64xf32>, tensor<64x192xf32>
// CHECK: %[[QKV:.*]] = rlx.binary add %[[QKV0]], %arg2
// CHECK: %[[Q:.*]] = rlx.narrow %[[QKV]] axis = 2 start = 0 len = 64
// CHECK: %[[QR:.*]] = rlx.reshape %[[Q]] new_shape = [-1, 16, 4, 16]
// CHECK: %[[QH:.*]] = rlx.transpose %[[QR]] perm = [0, 2, 1, 3] : tensor<2x16x4x16xf32>
// CHECK: rlx.narrow %[[QKV]] axis = 2 start = 64 len = 64
// CHECK: rlx.narrow %[[QKV]] axis = 2 start = 128 len = 64
// CHECK: %[[ATT:.*]] = rlx.attention %[[QH]], %{{.*}}, %{{.*}} mask %arg13 : tensor<2x16xf32> {head_dim = 16 : i64, mask_kind = #rlx.mask<custom>, num_heads = 4 : i64}
// CHECK: %[[MT:.*]] = rlx.transpose %[[ATT]] perm = [0, 2, 1, 3]
// CHECK: %[[M:.*]] = rlx.reshape %[[MT]] new_shape = [-1, 16, 64]
// CHECK: %[[O0:.*]] = rlx.matmul %[[M]], %arg3
// CHECK: %[[O:.*]] = rlx.binary add %[[O0]], %arg4
// CHECK: %[[R1:.*]] = rlx.binary add %arg0, %[[O]]
// CHECK: %[[H1:.*]] = rlx.layer_norm %[[R1]], %arg5, %arg6 {axis = -1 : i64, eps = 9.99999996E-13 : f32}
// CHECK: %[[F0:.*]] = rlx.matmul %[[H1]], %arg7
// CHECK: %[[F1:.*]] = rlx.binary add %[[F0]], %arg8
// CHECK: %[[F2:.*]] = rlx.activation gelu %[[F1]]
// CHECK: %[[F3:.*]] = rlx.matmul %[[F2]], %arg9
// CHECK: %[[F4:.*]] = rlx.binary add %[[F3]], %arg10
// CHECK: %[[R2:.*]] = rlx.binary add %[[H1]], %[[F4]]
// CHECK: %[[OUT:.*]] = rlx.layer_norm %[[R2]], %arg11, %arg12
// CHECK: return %[[OUT]]
// CHECK-NOT: rlx.fused_transformer_layer
func.func @transformer_layer_bias(
    %h: tensor<2x16x64xf32>, %wqkv: tensor<64x192xf32>, %bqkv: tensor<192xf32>,
    %wo: tensor<64x64xf32>, %bo: tensor<64xf32>, %g1: tensor<64xf32>,
    %b1: tensor<64xf32>, %w1: tensor<64x256xf32>, %bb1: tensor<256xf32>,
    %w2: tensor<256x64xf32>, %bb2: tensor<64xf32>, %g2: tensor<64xf32>,
    %b2: tensor<64xf32>, %m: tensor<2x16xf32>) -> tensor<2x16x64xf32> {
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

// -----

// Without biases, LN betas or mask: no bias adds, zero betas, no mask; an
// i1 mask would be cast to the activation type.
// CHECK-LABEL: func.func @transformer_layer_no_bias
// CHECK: %[[ZERO:.*]] = rlx.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK: %[[QKV:.*]] = rlx.matmul %arg0, %arg1
// CHECK-NOT: rlx.binary add %[[QKV]]
// CHECK: %[[MF:.*]] = rlx.cast %arg7 : tensor<1x4xi1> to f32
// CHECK: rlx.attention {{.*}} mask %[[MF]] : tensor<1x4xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64}
// CHECK: rlx.layer_norm %{{.*}}, %arg3, %[[ZERO]]
// CHECK: rlx.activation relu
// CHECK: rlx.layer_norm %{{.*}}, %arg6, %[[ZERO]]
func.func @transformer_layer_no_bias(
    %h: tensor<1x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>,
    %g1: tensor<8xf32>, %w1: tensor<8x32xf32>, %w2: tensor<32x8xf32>,
    %g2: tensor<8xf32>, %m: tensor<1x4xi1>) -> tensor<1x4x8xf32> {
  %0 = rlx.fused_transformer_layer relu %h : tensor<1x4x8xf32>
      qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32>
      ln1_g %g1 : tensor<8xf32> fc1_w %w1 : tensor<8x32xf32>
      fc2_w %w2 : tensor<32x8xf32> ln2_g %g2 : tensor<8xf32>
      mask %m : tensor<1x4xi1>
      {eps1 = 1.0e-5 : f32, eps2 = 1.0e-5 : f32, head_dim = 4 : i64,
       intermediate_size = 32 : i64, num_heads = 2 : i64}
  return %0 : tensor<1x4x8xf32>
}

// -----

// The attention block keeps its mask kind, window and score scale, and
// rotates q and k over the whole head dim.
// CHECK-LABEL: func.func @attention_block
// CHECK: %[[QKV:.*]] = rlx.matmul %arg0, %arg1
// CHECK: %[[Q:.*]] = rlx.transpose
// CHECK: %[[K:.*]] = rlx.transpose
// CHECK: %[[V:.*]] = rlx.transpose
// CHECK: %[[QR:.*]] = rlx.rope %[[Q]], %arg3, %arg4 {head_dim = 16 : i64, n_rot = 16 : i64}
// CHECK: %[[KR:.*]] = rlx.rope %[[K]], %arg3, %arg4 {head_dim = 16 : i64, n_rot = 16 : i64}
// CHECK: rlx.attention %[[QR]], %[[KR]], %[[V]] {head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 4 : i64, score_scale = 1.250000e-01 : f32, window = 3 : i64}
// CHECK: rlx.matmul %{{.*}}, %arg2
// CHECK-NOT: rlx.fused_attention_block
func.func @attention_block(%h: tensor<1x8x64xf32>, %wqkv: tensor<64x192xf32>,
                           %wo: tensor<64x64xf32>, %c: tensor<8x8xf32>,
                           %s: tensor<8x8xf32>) -> tensor<1x8x64xf32> {
  %y = rlx.fused_attention_block %h : tensor<1x8x64xf32>
      qkv_w %wqkv : tensor<64x192xf32> out_w %wo : tensor<64x64xf32>
      rope_cos %c : tensor<8x8xf32> rope_sin %s : tensor<8x8xf32>
      {head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 4 : i64,
       score_scale = 0.125 : f32, window = 3 : i64}
  return %y : tensor<1x8x64xf32>
}
