// One post-LN transformer encoder block with a per-token classification
// head and a softmax cross-entropy loss: batch 2, sequence 4, hidden 8,
// 2 heads of 4, FFN 16 (gelu), 3 classes, f32.
//
//   a   = attention(split_heads(x @ qkv_w + qkv_b)) @ out_w + out_b
//   h1  = layer_norm(x + a)
//   h2  = layer_norm(h1 + gelu(h1 @ fc1_w + fc1_b) @ fc2_w + fc2_b)
//   loss = mean(cross_entropy(h2 @ cls_w + cls_b, labels))
//
// `rlx-opt examples/transformer_train.mlir --rlx-autodiff="func=encoder optimizer=adam lr=0.01"`
// adds @encoder_grad and @encoder_train_step (see examples/mlp_train.mlir).
func.func @encoder(%x: tensor<2x4x8xf32> {rlx.input = "x"},
                   %labels: tensor<8xi64> {rlx.input = "labels"},
                   %qkv_w: tensor<8x24xf32> {rlx.param = "qkv_w"},
                   %qkv_b: tensor<24xf32> {rlx.param = "qkv_b"},
                   %out_w: tensor<8x8xf32> {rlx.param = "out_w"},
                   %out_b: tensor<8xf32> {rlx.param = "out_b"},
                   %ln1_g: tensor<8xf32> {rlx.param = "ln1_g"},
                   %ln1_b: tensor<8xf32> {rlx.param = "ln1_b"},
                   %fc1_w: tensor<8x16xf32> {rlx.param = "fc1_w"},
                   %fc1_b: tensor<16xf32> {rlx.param = "fc1_b"},
                   %fc2_w: tensor<16x8xf32> {rlx.param = "fc2_w"},
                   %fc2_b: tensor<8xf32> {rlx.param = "fc2_b"},
                   %ln2_g: tensor<8xf32> {rlx.param = "ln2_g"},
                   %ln2_b: tensor<8xf32> {rlx.param = "ln2_b"},
                   %cls_w: tensor<8x3xf32> {rlx.param = "cls_w"},
                   %cls_b: tensor<3xf32> {rlx.param = "cls_b"}) -> tensor<f32> {
  // Self-attention: one QKV projection, split into heads [2, 2, 4, 4].
  %qkv0 = rlx.matmul %x, %qkv_w : tensor<2x4x8xf32>, tensor<8x24xf32>
  %qkv = rlx.binary add %qkv0, %qkv_b : tensor<2x4x24xf32>, tensor<24xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 8 : tensor<2x4x24xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 8 len = 8 : tensor<2x4x24xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 16 len = 8 : tensor<2x4x24xf32>
  %q1 = rlx.reshape %q0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %k1 = rlx.reshape %k0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %v1 = rlx.reshape %v0 new_shape = [2, 4, 2, 4] : tensor<2x4x8xf32>
  %q = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %k = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %v = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x4x2x4xf32>
  %o0 = rlx.attention %q, %k, %v {head_dim = 4 : i64, num_heads = 2 : i64,
          mask_kind = #rlx.mask<none>}
          : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32>
  %o1 = rlx.transpose %o0 perm = [0, 2, 1, 3] : tensor<2x2x4x4xf32>
  %o2 = rlx.reshape %o1 new_shape = [2, 4, 8] : tensor<2x4x2x4xf32>
  %a0 = rlx.matmul %o2, %out_w : tensor<2x4x8xf32>, tensor<8x8xf32>
  %a = rlx.binary add %a0, %out_b : tensor<2x4x8xf32>, tensor<8xf32>
  %r1 = rlx.binary add %x, %a : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %h1 = rlx.layer_norm %r1, %ln1_g, %ln1_b {axis = -1 : i64, eps = 1.0e-05 : f32}
          : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  // Feed-forward network.
  %f0 = rlx.matmul %h1, %fc1_w : tensor<2x4x8xf32>, tensor<8x16xf32>
  %f1 = rlx.binary add %f0, %fc1_b : tensor<2x4x16xf32>, tensor<16xf32>
  %f2 = rlx.activation gelu %f1 : tensor<2x4x16xf32>
  %f3 = rlx.matmul %f2, %fc2_w : tensor<2x4x16xf32>, tensor<16x8xf32>
  %f = rlx.binary add %f3, %fc2_b : tensor<2x4x8xf32>, tensor<8xf32>
  %r2 = rlx.binary add %h1, %f : tensor<2x4x8xf32>, tensor<2x4x8xf32>
  %h2 = rlx.layer_norm %r2, %ln2_g, %ln2_b {axis = -1 : i64, eps = 1.0e-05 : f32}
          : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  // Per-token classification head.
  %t = rlx.reshape %h2 new_shape = [8, 8] : tensor<2x4x8xf32>
  %z0 = rlx.matmul %t, %cls_w : tensor<8x8xf32>, tensor<8x3xf32>
  %z = rlx.binary add %z0, %cls_b : tensor<8x3xf32>, tensor<3xf32>
  %l = rlx.softmax_cross_entropy_with_logits %z, %labels
         : tensor<8x3xf32>, tensor<8xi64>
  %loss = rlx.reduce mean %l axes = [0] : tensor<8xf32>
  return %loss : tensor<f32>
}
