// A small convolutional classifier on NCHW images, batch 2, 3x32x32, f32:
//
//   x1  = max_pool_2x2(relu(conv3x3(x, conv1_w, pad 1) + conv1_b))  [2, 16, 16, 16]
//   x2  = relu(conv3x3(x1, conv2_w, pad 1) + conv2_b)               [2, 32, 16, 16]
//   out = softmax(mean_hw(x2) @ fc_w + fc_b)                         [2, 10]
//
// `rlx-run examples/conv_net.mlir --random-inputs --print` compiles and runs
// it. Biases are per channel, `[C]`, reshaped to `[C, 1, 1]` to broadcast
// over H and W; `fc_w` is `[in, out]`.
func.func @conv_net(
    %x: tensor<2x3x32x32xf32> {rlx.input = "image"},
    %conv1_w: tensor<16x3x3x3xf32> {rlx.param = "conv1_w"},
    %conv1_b: tensor<16xf32> {rlx.param = "conv1_b"},
    %conv2_w: tensor<32x16x3x3xf32> {rlx.param = "conv2_w"},
    %conv2_b: tensor<32xf32> {rlx.param = "conv2_b"},
    %fc_w: tensor<32x10xf32> {rlx.param = "fc_w"},
    %fc_b: tensor<10xf32> {rlx.param = "fc_b"}) -> tensor<2x10xf32> {
  // conv 3x3, 3 -> 16 channels, same padding; bias; relu; 2x2 max pool.
  %c1 = rlx.conv %x, %conv1_w kernel_size = [3, 3], stride = [1, 1],
      padding = [1, 1], dilation = [1, 1], groups = 1
      : tensor<2x3x32x32xf32>, tensor<16x3x3x3xf32>
  %b1 = rlx.reshape %conv1_b new_shape = [16, 1, 1] : tensor<16xf32>
  %a1 = rlx.binary add %c1, %b1 : tensor<2x16x32x32xf32>, tensor<16x1x1xf32>
  %r1 = rlx.activation relu %a1 : tensor<2x16x32x32xf32>
  %p1 = rlx.pool max %r1 kernel_size = [2, 2], stride = [2, 2],
      padding = [0, 0] : tensor<2x16x32x32xf32>
  // conv 3x3, 16 -> 32 channels, same padding; bias; relu.
  %c2 = rlx.conv %p1, %conv2_w kernel_size = [3, 3], stride = [1, 1],
      padding = [1, 1], dilation = [1, 1], groups = 1
      : tensor<2x16x16x16xf32>, tensor<32x16x3x3xf32>
  %b2 = rlx.reshape %conv2_b new_shape = [32, 1, 1] : tensor<32xf32>
  %a2 = rlx.binary add %c2, %b2 : tensor<2x32x16x16xf32>, tensor<32x1x1xf32>
  %r2 = rlx.activation relu %a2 : tensor<2x32x16x16xf32>
  // Global average pool over H and W, linear classifier, softmax.
  %g = rlx.reduce mean %r2 axes = [2, 3] : tensor<2x32x16x16xf32>
  %l0 = rlx.matmul %g, %fc_w : tensor<2x32xf32>, tensor<32x10xf32>
  %l = rlx.binary add %l0, %fc_b : tensor<2x10xf32>, tensor<10xf32>
  %y = rlx.softmax %l {axis = -1 : i64} : tensor<2x10xf32>
  return %y : tensor<2x10xf32>
}
