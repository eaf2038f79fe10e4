// RUN: rlx-opt %s --rlx-fuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-fuse="report=true" --split-input-file --verify-diagnostics > /dev/null
// RUN: rlx-opt %s --rlx-fuse="transformer-layer=false" --split-input-file | FileCheck %s --check-prefix=OFF

// The post-LN encoder layer: attention block + residual + layer_norm (eps1)
// + FFN (matmul + bias + activation, matmul + bias) + residual + layer_norm
// (eps2). B = 2, S = 4, E = 8 (2 heads of 4), F = 16.

// Primitive form with biases, gelu, eps1 != eps2.
// CHECK-LABEL: func.func @bias_gelu
// CHECK-NEXT: %[[F:.*]] = rlx.fused_transformer_layer gelu %arg0 : tensor<2x4x8xf32> qkv_w %arg1 : tensor<8x24xf32> qkv_b %arg2 : tensor<24xf32> out_w %arg3 : tensor<8x8xf32> out_b %arg4 : tensor<8xf32> ln1_g %arg5 : tensor<8xf32> ln1_b %arg6 : tensor<8xf32> fc1_w %arg7 : tensor<8x16xf32> fc1_b %arg8 : tensor<16xf32> fc2_w %arg9 : tensor<16x8xf32> fc2_b %arg10 : tensor<8xf32> ln2_g %arg11 : tensor<8xf32> ln2_b %arg12 : tensor<8xf32> {eps1 = 9.99999974E-6 : f32, eps2 = 9.99999996E-13 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
// OFF-LABEL: func.func @bias_gelu
// OFF: rlx.fused_attention_block
// OFF: rlx.fused_residual_ln
// OFF: rlx.fused_residual_ln
// OFF-NOT: rlx.fused_transformer_layer
func.func @bias_gelu(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %b1 : tensor<2x4x16xf32>, tensor<16xf32>
  %f2 = rlx.activation gelu %f1 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f4 = rlx.binary add %f3, %b2 : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %x1, %f4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-12 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// No biases, relu, a key-padding mask; the first residual add has the
// attention output first.
// CHECK-LABEL: func.func @nobias_relu_mask
// CHECK-NEXT: %[[F:.*]] = rlx.fused_transformer_layer relu %arg0 : tensor<2x4x8xf32> qkv_w %arg1 : tensor<8x24xf32> out_w %arg2 : tensor<8x8xf32> ln1_g %arg3 : tensor<8xf32> ln1_b %arg4 : tensor<8xf32> fc1_w %arg5 : tensor<8x16xf32> fc2_w %arg6 : tensor<16x8xf32> ln2_g %arg7 : tensor<8xf32> ln2_b %arg8 : tensor<8xf32> mask %arg9 : tensor<2x4xf32> {eps1 = 9.99999974E-6 : f32, eps2 = 9.99999974E-6 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @nobias_relu_mask(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>, %m: tensor<2x4xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
  %q0 = rlx.narrow %qkv0 axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q2 = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k0 = rlx.narrow %qkv0 axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k2 = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v0 = rlx.narrow %qkv0 axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v2 = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %a = rlx.attention %q2, %k2, %v2 mask %m : tensor<2x4xf32> {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %r1 = rlx.binary add %o, %x : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f2 = rlx.activation relu %f0 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %r2 = rlx.binary add %x1, %f3 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// The fused ops of the earlier phases, an i1 mask, the default score scale
// spelled out, and zero norm shifts (dropped: the op's absent shift is zero).
// CHECK-LABEL: func.func @prefused
// CHECK-NEXT: %[[F:.*]] = rlx.fused_transformer_layer silu %arg0 : tensor<2x4x8xf32> qkv_w %arg1 : tensor<8x24xf32> out_w %arg2 : tensor<8x8xf32> ln1_g %arg3 : tensor<8xf32> fc1_w %arg4 : tensor<8x16xf32> fc2_w %arg5 : tensor<16x8xf32> ln2_g %arg6 : tensor<8xf32> mask %arg7 : tensor<2x4xi1> {eps1 = 9.99999997E-7 : f32, eps2 = 9.99999974E-6 : f32, head_dim = 4 : i64, intermediate_size = 16 : i64, num_heads = 2 : i64}
// CHECK-NEXT: return %[[F]]
func.func @prefused(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>,
                    %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>, %g2: tensor<8xf32>, %m: tensor<2x4xi1>) -> tensor<2x4x8xf32> {
  %zero = rlx.constant dense<0.0> : tensor<8xf32>
  %o = rlx.fused_attention_block %x : tensor<2x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32>
      mask %m : tensor<2x4xi1> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 0.5 : f32}
  %x1 = rlx.fused_residual_ln %x, %o, %g1, %zero eps = 1.0e-6 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.activation silu %f0 : tensor<2x4x16xf32>
  %f2 = rlx.matmul %f1, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %y = rlx.fused_residual_ln %f2, %x1, %g2, %zero eps = 1.0e-5 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: the first residual is not the layer input.
// CHECK-LABEL: func.func @residual_elsewhere
// CHECK-NOT: rlx.fused_transformer_layer
func.func @residual_elsewhere(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>, %other: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %other, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %b1 : tensor<2x4x16xf32>, tensor<16xf32>
  %f2 = rlx.activation gelu %f1 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f4 = rlx.binary add %f3, %b2 : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %x1, %f4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the residual is not the layer input}}
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: the second residual is the layer input, not the first norm's
// output.
// CHECK-LABEL: func.func @second_residual
// CHECK-NOT: rlx.fused_transformer_layer
func.func @second_residual(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %b1 : tensor<2x4x16xf32>, tensor<16xf32>
  %f2 = rlx.activation gelu %f1 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f4 = rlx.binary add %f3, %b2 : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %x, %f4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the second residual is not the first norm's output}}
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: the first norm's output is also returned.
// CHECK-LABEL: func.func @ln1_used
// CHECK-NOT: rlx.fused_transformer_layer
func.func @ln1_used(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %b1 : tensor<2x4x16xf32>, tensor<16xf32>
  %f2 = rlx.activation gelu %f1 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f4 = rlx.binary add %f3, %b2 : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %x1, %f4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the first norm's output has other uses}}
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y, %x1 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// -----

// Near miss: a causal mask (the layer takes a key-padding mask or none).
// CHECK-LABEL: func.func @causal
// CHECK: rlx.fused_attention_block
// CHECK-NOT: rlx.fused_transformer_layer
func.func @causal(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %a = rlx.attention %q2, %k2, %v2 {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %a2 = rlx.reshape %a1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %b1 : tensor<2x4x16xf32>, tensor<16xf32>
  %f2 = rlx.activation gelu %f1 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f4 = rlx.binary add %f3, %b2 : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %x1, %f4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the mask kind is not none or custom (key padding)}}
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: biased attention projections but an FFN without biases.
// CHECK-LABEL: func.func @ffn_no_bias
// CHECK-NOT: rlx.fused_transformer_layer
func.func @ffn_no_bias(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f2 = rlx.activation gelu %f0 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %r2 = rlx.binary add %x1, %f3 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the projection biases are not all present or all absent (has_bias)}}
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: no activation between the FFN projections.
// CHECK-LABEL: func.func @no_act
// CHECK-NOT: rlx.fused_transformer_layer
func.func @no_act(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>, %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %qkv0 = rlx.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32>
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
  %o0 = rlx.matmul %a2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32>
  %o = rlx.binary add %o0, %bo : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %o : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %x1 = rlx.layer_norm %r1, %g1, %be1 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %b1 : tensor<2x4x16xf32>, tensor<16xf32>
  %f3 = rlx.matmul %f1, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f4 = rlx.binary add %f3, %b2 : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %x1, %f4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the FFN has no activation between its projections}}
  %y = rlx.layer_norm %r2, %g2, %be2 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: rope in the attention block.
// CHECK-LABEL: func.func @rope
// CHECK-NOT: rlx.fused_transformer_layer
func.func @rope(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %bqkv: tensor<24xf32>, %wo: tensor<8x8xf32>, %bo: tensor<8xf32>,
                %cos: tensor<4x2xf32>, %sin: tensor<4x2xf32>, %g1: tensor<8xf32>, %be1: tensor<8xf32>,
                %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x8xf32>, %b2: tensor<8xf32>,
                %g2: tensor<8xf32>, %be2: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %o = rlx.fused_attention_block %x : tensor<2x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> qkv_b %bqkv : tensor<24xf32>
      out_w %wo : tensor<8x8xf32> out_b %bo : tensor<8xf32> rope_cos %cos : tensor<4x2xf32> rope_sin %sin : tensor<4x2xf32>
      {head_dim = 4 : i64, num_heads = 2 : i64}
  %x1 = rlx.fused_residual_ln %x, %o, %g1, %be1 eps = 1.0e-5 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f1 = rlx.fused_matmul_bias_act %x1, %w1, %b1 activation gelu : tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
  %f2 = rlx.fused_matmul_bias_act %f1, %w2, %b2 : tensor<2x4x16xf32>, tensor<16x8xf32>, tensor<8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the attention block applies rope}}
  %y = rlx.fused_residual_ln %x1, %f2, %g2, %be2 eps = 1.0e-5 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// Near miss: a score scale other than 1/sqrt(head_dim).
// CHECK-LABEL: func.func @other_scale
// CHECK-NOT: rlx.fused_transformer_layer
func.func @other_scale(%x: tensor<2x4x8xf32>, %wqkv: tensor<8x24xf32>, %wo: tensor<8x8xf32>, %g1: tensor<8xf32>,
                    %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>, %g2: tensor<8xf32>, %m: tensor<2x4xi1>) -> tensor<2x4x8xf32> {
  %zero = rlx.constant dense<0.0> : tensor<8xf32>
  %o = rlx.fused_attention_block %x : tensor<2x4x8xf32> qkv_w %wqkv : tensor<8x24xf32> out_w %wo : tensor<8x8xf32>
      mask %m : tensor<2x4xi1> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 0.25 : f32}
  %x1 = rlx.fused_residual_ln %x, %o, %g1, %zero eps = 1.0e-6 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %f0 = rlx.matmul %x1, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.activation silu %f0 : tensor<2x4x16xf32>
  %f2 = rlx.matmul %f1, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32>
  // expected-remark @+1 {{not fused into rlx.fused_transformer_layer: the attention scales scores by other than 1/sqrt(head_dim)}}
  %y = rlx.fused_residual_ln %f2, %x1, %g2, %zero eps = 1.0e-5 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x8xf32>
}
