func.func @forward(%x: tensor<1x4x8x8xf32> {rlx.input = "x"}, %w1: tensor<4x4x1x1xf32> {rlx.input = "w1"},
                   %w2: tensor<4x4x1x1xf32> {rlx.input = "w2"}, %w3: tensor<4x4x1x1xf32> {rlx.input = "w3"}) -> tensor<1x4x8x8xf32> {
  %y = rlx.activation relu %x : tensor<1x4x8x8xf32>
  %a = rlx.conv %y, %w1 kernel_size = [1, 1], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>
  %r = rlx.activation relu %a : tensor<1x4x8x8xf32>
  %b = rlx.conv %r, %w2 kernel_size = [1, 1], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>
  %c = rlx.conv %y, %w3 kernel_size = [1, 1], stride = [1, 1], padding = [0, 0], dilation = [1, 1], groups = 1 : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>
  %o = rlx.binary add %b, %c : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}
