func.func @forward(%x: tensor<4x32xf32> {rlx.input = "x"}, %w1: tensor<1088xui8> {rlx.param = "w1"},
                   %w2: tensor<1088xui8> {rlx.param = "w2"}, %w3: tensor<1088xui8> {rlx.param = "w3"}) -> tensor<4x32xf32> {
  %y = rlx.activation relu %x : tensor<4x32xf32>
  %a = rlx.dequant_matmul gguf_q8_0 %y, %w1 : tensor<4x32xf32>, tensor<1088xui8>
  %r = rlx.activation relu %a : tensor<4x32xf32>
  %b = rlx.dequant_matmul gguf_q8_0 %r, %w2 : tensor<4x32xf32>, tensor<1088xui8>
  %c = rlx.dequant_matmul gguf_q8_0 %y, %w3 : tensor<4x32xf32>, tensor<1088xui8>
  %o = rlx.binary add %b, %c : tensor<4x32xf32>, tensor<4x32xf32>
  return %o : tensor<4x32xf32>
}
