func.func @h(%a: tensor<4xbf16> {rlx.input = "a"}) -> tensor<4xbf16> {
  %0 = rlx.binary add %a, %a : tensor<4xbf16>, tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
