func.func @double(%x: tensor<2x3xf32> {rlx.input = "x"}) -> tensor<2x3xf32> {
  %0 = rlx.binary add %x, %x : tensor<2x3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
