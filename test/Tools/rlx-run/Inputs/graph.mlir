func.func @g(%x: tensor<2x3xf32> {rlx.input = "x"},
             %w: tensor<3x4xf32> {rlx.param = "w"}) -> tensor<2x4xf32> {
  %0 = rlx.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32>
  %1 = rlx.activation relu %0 : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
