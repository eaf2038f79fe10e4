func.func @forward(%a: tensor<4x8xf32> {rlx.input = "a"}, %b: tensor<4x8xf32> {rlx.input = "b"}) -> tensor<4x8xf32> {
  %o = rlx.binary remainder %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}
