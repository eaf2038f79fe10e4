func.func @twice(%x: tensor<4xf32> {rlx.input = "x"}) -> tensor<4xf32> {
  %0 = rlx.binary add %x, %x : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
