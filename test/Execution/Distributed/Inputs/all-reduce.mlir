func.func @sum(%x: tensor<2x3xf32> {rlx.input = "x"}) -> tensor<2x3xf32> {
  %0 = rlx.all_reduce sum %x mesh [2] : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
