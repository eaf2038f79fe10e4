// Four forward convolutions of one geometry and one input gradient.
func.func @main(%x0: tensor<2x32x12x12xf32> {rlx.input = "x0"},
                %x1: tensor<2x32x12x12xf32> {rlx.input = "x1"},
                %x2: tensor<2x32x12x12xf32> {rlx.input = "x2"},
                %x3: tensor<2x32x12x12xf32> {rlx.input = "x3"},
                %w: tensor<48x32x3x3xf32> {rlx.param = "w"})
    -> (tensor<2x48x12x12xf32>, tensor<2x48x12x12xf32>,
        tensor<2x48x12x12xf32>, tensor<2x48x12x12xf32>,
        tensor<2x32x12x12xf32>) {
  %y0 = rlx.conv %x0, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<2x32x12x12xf32>, tensor<48x32x3x3xf32>
  %y1 = rlx.conv %x1, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<2x32x12x12xf32>, tensor<48x32x3x3xf32>
  %y2 = rlx.conv %x2, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<2x32x12x12xf32>, tensor<48x32x3x3xf32>
  %y3 = rlx.conv %x3, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<2x32x12x12xf32>, tensor<48x32x3x3xf32>
  %dx = rlx.conv2d_backward_input %y0, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<2x48x12x12xf32>, tensor<48x32x3x3xf32> -> tensor<2x32x12x12xf32>
  return %y0, %y1, %y2, %y3, %dx : tensor<2x48x12x12xf32>, tensor<2x48x12x12xf32>, tensor<2x48x12x12xf32>, tensor<2x48x12x12xf32>, tensor<2x32x12x12xf32>
}
