// A BERT-base encoder layer (post-LN, as torch.nn.TransformerEncoderLayer
// with norm_first=False, activation="gelu", eval mode): hidden 768,
// 12 heads of 64, FFN 3072, batch 1, sequence 128, f32.
//
//   x1  = layer_norm(x + attention(x) @ out_w + out_b)
//   out = layer_norm(x1 + gelu(x1 @ fc1_w + fc1_b) @ fc2_w + fc2_b)
//
// `rlx-run examples/bert_layer.mlir --random-inputs --bench 20` compiles and
// times it.
func.func @bert_layer(
    %x: tensor<1x128x768xf32> {rlx.input = "hidden"},
    %qkv_w: tensor<768x2304xf32> {rlx.param = "qkv_w"},
    %qkv_b: tensor<2304xf32> {rlx.param = "qkv_b"},
    %out_w: tensor<768x768xf32> {rlx.param = "out_w"},
    %out_b: tensor<768xf32> {rlx.param = "out_b"},
    %ln1_g: tensor<768xf32> {rlx.param = "ln1_g"},
    %ln1_b: tensor<768xf32> {rlx.param = "ln1_b"},
    %fc1_w: tensor<768x3072xf32> {rlx.param = "fc1_w"},
    %fc1_b: tensor<3072xf32> {rlx.param = "fc1_b"},
    %fc2_w: tensor<3072x768xf32> {rlx.param = "fc2_w"},
    %fc2_b: tensor<768xf32> {rlx.param = "fc2_b"},
    %ln2_g: tensor<768xf32> {rlx.param = "ln2_g"},
    %ln2_b: tensor<768xf32> {rlx.param = "ln2_b"}) -> tensor<1x128x768xf32> {
  // Self-attention: one QKV projection, split into heads [1, 12, 128, 64].
  %qkv0 = rlx.matmul %x, %qkv_w : tensor<1x128x768xf32>, tensor<768x2304xf32>
  %qkv = rlx.binary add %qkv0, %qkv_b : tensor<1x128x2304xf32>, tensor<2304xf32>
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 768 : tensor<1x128x2304xf32>
  %k0 = rlx.narrow %qkv axis = 2 start = 768 len = 768 : tensor<1x128x2304xf32>
  %v0 = rlx.narrow %qkv axis = 2 start = 1536 len = 768 : tensor<1x128x2304xf32>
  %q1 = rlx.reshape %q0 new_shape = [1, 128, 12, 64] : tensor<1x128x768xf32>
  %k1 = rlx.reshape %k0 new_shape = [1, 128, 12, 64] : tensor<1x128x768xf32>
  %v1 = rlx.reshape %v0 new_shape = [1, 128, 12, 64] : tensor<1x128x768xf32>
  %q = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x128x12x64xf32>
  %k = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x128x12x64xf32>
  %v = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x128x12x64xf32>
  %a = rlx.attention %q, %k, %v {num_heads = 12 : i64, head_dim = 64 : i64, mask_kind = #rlx.mask<none>}
      : tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<1x12x128x64xf32>
  %a2 = rlx.reshape %a1 new_shape = [1, 128, 768] : tensor<1x128x12x64xf32>
  %o0 = rlx.matmul %a2, %out_w : tensor<1x128x768xf32>, tensor<768x768xf32>
  %o = rlx.binary add %o0, %out_b : tensor<1x128x768xf32>, tensor<768xf32>
  // Residual + LayerNorm.
  %r1 = rlx.binary add %x, %o : tensor<1x128x768xf32>, tensor<1x128x768xf32>
  %x1 = rlx.layer_norm %r1, %ln1_g, %ln1_b {axis = -1 : i64, eps = 1.0e-5 : f32}
      : tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>
  // Feed-forward.
  %f0 = rlx.matmul %x1, %fc1_w : tensor<1x128x768xf32>, tensor<768x3072xf32>
  %f1 = rlx.binary add %f0, %fc1_b : tensor<1x128x3072xf32>, tensor<3072xf32>
  %f2 = rlx.activation gelu %f1 : tensor<1x128x3072xf32>
  %f3 = rlx.matmul %f2, %fc2_w : tensor<1x128x3072xf32>, tensor<3072x768xf32>
  %f4 = rlx.binary add %f3, %fc2_b : tensor<1x128x768xf32>, tensor<768xf32>
  // Residual + LayerNorm.
  %r2 = rlx.binary add %x1, %f4 : tensor<1x128x768xf32>, tensor<1x128x768xf32>
  %out = rlx.layer_norm %r2, %ln2_g, %ln2_b {axis = -1 : i64, eps = 1.0e-5 : f32}
      : tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>
  return %out : tensor<1x128x768xf32>
}
