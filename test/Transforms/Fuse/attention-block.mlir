// RUN: rlx-opt %s --rlx-fuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-fuse="report=true" --split-input-file --verify-diagnostics > /dev/null
// RUN: rlx-opt %s --rlx-fuse="attention-block=false" --split-input-file | FileCheck %s --check-prefix=OFF

// The attention-block chain: QKV projection (+ bias) -> narrow x3 -> heads
// reshape/transpose -> [rope q, k] -> attention -> merge heads -> output
// projection (+ bias). B = 2, S = 4, E = N = 16, 2 heads of 4 (I = 8).

// Biases, no mask.
// CHECK-LABEL: func.func @bias_none
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x16xf32> out_b %arg4 : tensor<16xf32> {head_dim = 4 : i64, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
// OFF-LABEL: func.func @bias_none
// OFF: rlx.attention
// OFF-NOT: rlx.fused_attention_block
func.func @bias_none(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %bqkv: tensor<24xf32>, %bo: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %qkv = rlx.binary add %qkv0, %bqkv : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x16xf32>, tensor<16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// No biases, rope on q and k, causal.
// CHECK-LABEL: func.func @rope_causal
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> out_w %arg2 : tensor<8x16xf32> rope_cos %arg3 : tensor<4x2xf32> rope_sin %arg4 : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @rope_causal(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %cos: tensor<4x2xf32>, %sin: tensor<4x2xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %qr = rlx.rope %q2, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  %kr = rlx.rope %k2, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  %a = rlx.attention %qr, %kr, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// A custom i1 mask cast to f32 for rlx.attention: the fused op takes the i1 mask.
// CHECK-LABEL: func.func @custom_i1
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x16xf32> out_b %arg4 : tensor<16xf32> mask %arg5 : tensor<2x4xi1> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @custom_i1(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %bqkv: tensor<24xf32>, %bo: tensor<16xf32>, %m: tensor<2x4xi1>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %qkv = rlx.binary add %qkv0, %bqkv : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %mf = rlx.cast %m : tensor<2x4xi1> to f32
  %a = rlx.attention %q2, %k2, %v2 mask %mf : tensor<2x4xf32> {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x16xf32>, tensor<16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// A custom f32 mask and a score scale.
// CHECK-LABEL: func.func @custom_f32_scale
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> out_w %arg2 : tensor<8x16xf32> mask %arg3 : tensor<2x4xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 5.000000e-01 : f32}
// CHECK-NEXT: return %[[F]]
func.func @custom_f32_scale(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %m: tensor<2x4xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %a = rlx.attention %q2, %k2, %v2 mask %m : tensor<2x4xf32> {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, score_scale = 5.000000e-01 : f32} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// An additive [B, H, S, S] mask with rope and biases.
// CHECK-LABEL: func.func @bias_mask_rope
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x16xf32> out_b %arg4 : tensor<16xf32> mask %arg7 : tensor<2x2x4x4xf32> rope_cos %arg5 : tensor<4x2xf32> rope_sin %arg6 : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<bias>, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @bias_mask_rope(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %bqkv: tensor<24xf32>, %bo: tensor<16xf32>, %cos: tensor<4x2xf32>, %sin: tensor<4x2xf32>, %m: tensor<2x2x4x4xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %qkv = rlx.binary add %qkv0, %bqkv : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %qr = rlx.rope %q2, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  %kr = rlx.rope %k2, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  %a = rlx.attention %qr, %kr, %v2 mask %m : tensor<2x2x4x4xf32> {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x16xf32>, tensor<16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// A sliding window keeps its width.
// CHECK-LABEL: func.func @window
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> out_w %arg2 : tensor<8x16xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 2 : i64, window = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @window(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<sliding_window>, window = 2 : i64} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Rank-3 attention and rope on [B, S, H * D] (heads packed): no head reshapes.
// CHECK-LABEL: func.func @packed
// CHECK-NEXT: %[[F:.*]] = rlx.fused_attention_block %arg0 : tensor<2x4x16xf32> qkv_w %arg1 : tensor<16x24xf32> qkv_b %arg3 : tensor<24xf32> out_w %arg2 : tensor<8x16xf32> out_b %arg4 : tensor<16xf32> rope_cos %arg5 : tensor<4x2xf32> rope_sin %arg6 : tensor<4x2xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @packed(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %bqkv: tensor<24xf32>, %bo: tensor<16xf32>, %cos: tensor<4x2xf32>, %sin: tensor<4x2xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %qkv = rlx.binary add %qkv0, %bqkv : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %qr = rlx.rope %q0, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x4x8xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  %kr = rlx.rope %k0, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x4x8xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  %a = rlx.attention %qr, %kr, %v0 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %o0 = rlx.matmul %a, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x16xf32>, tensor<16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Near miss: the K slice is also returned.
// CHECK-LABEL: func.func @k_slice_used
// CHECK: rlx.attention
// CHECK-NOT: rlx.fused_attention_block
func.func @k_slice_used(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %bqkv: tensor<24xf32>, %bo: tensor<16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x8xf32>) {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %qkv = rlx.binary add %qkv0, %bqkv : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  // expected-remark @+1 {{not fused into rlx.fused_attention_block: the K slice has other uses}}
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x16xf32>, tensor<16xf32>
  return %o, %k0 : tensor<2x4x16xf32>, tensor<2x4x8xf32>
}

// -----

// Near miss: V is sliced at the offset of K.
// CHECK-LABEL: func.func @wrong_offsets
// CHECK: rlx.attention
// CHECK-NOT: rlx.fused_attention_block
func.func @wrong_offsets(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  // expected-remark @+1 {{not fused into rlx.fused_attention_block: the narrows do not split the projection in thirds of num_heads x head_dim}}
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Near miss: the heads reshape splits the sequence, not the slice, into heads
// ([2, 4, 8] -> [2, 2, 2, 8] for 2 heads of 8).
// CHECK-LABEL: func.func @scrambled_heads
// CHECK: rlx.attention
// CHECK-NOT: rlx.fused_attention_block
func.func @scrambled_heads(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 2, 2, 8] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x2x2x8xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 2, 2, 8] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x2x2x8xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 2, 2, 8] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x2x2x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_attention_block: the Q heads reshape does not match num_heads x head_dim}}
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>, tensor<2x2x2x8xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x2x8xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x2x2x8xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Near miss: only Q is rotated.
// CHECK-LABEL: func.func @rope_q_only
// CHECK: rlx.attention
// CHECK-NOT: rlx.fused_attention_block
func.func @rope_q_only(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %cos: tensor<4x2xf32>, %sin: tensor<4x2xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %qr = rlx.rope %q2, %cos, %sin {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<2x2x4x4xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  // expected-remark @+1 {{not fused into rlx.fused_attention_block: only one of Q and K is rotated}}
  %a = rlx.attention %qr, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Near miss: a logit soft cap, which the fused op cannot express.
// CHECK-LABEL: func.func @softcap
// CHECK: rlx.attention
// CHECK-NOT: rlx.fused_attention_block
func.func @softcap(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  // expected-remark @+1 {{not fused into rlx.fused_attention_block: the attention has a logit soft cap}}
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, attn_logit_softcap = 3.000000e+01 : f32} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Near miss: a QKV bias without an output bias (the op's has_bias covers both).
// CHECK-LABEL: func.func @no_out_bias
// CHECK: rlx.attention
// CHECK-NOT: rlx.fused_attention_block
func.func @no_out_bias(%h: tensor<2x4x16xf32>, %wqkv: tensor<16x24xf32>, %wo: tensor<8x16xf32>, %bqkv: tensor<24xf32>, %bo: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %qkv0 = rlx.matmul %h, %wqkv : tensor<2x4x16xf32>, tensor<16x24xf32>
  %qkv = rlx.binary add %qkv0, %bqkv : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  // expected-remark @+1 {{not fused into rlx.fused_attention_block: the QKV projection has a bias but the output projection has none}}
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x16xf32>
  return %o : tensor<2x4x16xf32>
}

// -----

// Not a candidate (q, k, v are not slices of a projection): no remark.
// CHECK-LABEL: func.func @plain_attention
// CHECK-NEXT: rlx.attention
func.func @plain_attention(%q: tensor<2x2x4x4xf32>, %k: tensor<2x2x4x4xf32>, %v: tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %a = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  return %a : tensor<2x2x4x4xf32>
}
