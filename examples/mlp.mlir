// A two-layer MLP: gelu(x @ w1 + b1) @ w2 + b2.
func.func @mlp(%x: tensor<8x64xf32> {rlx.input = "x"},
               %w1: tensor<64x256xf32> {rlx.param = "w1"},
               %b1: tensor<256xf32> {rlx.param = "b1"},
               %w2: tensor<256x10xf32> {rlx.param = "w2"},
               %b2: tensor<10xf32> {rlx.param = "b2"}) -> tensor<8x10xf32> {
  %0 = rlx.matmul %x, %w1 : tensor<8x64xf32>, tensor<64x256xf32>
  %1 = rlx.binary add %0, %b1 : tensor<8x256xf32>, tensor<256xf32>
  %2 = rlx.activation gelu %1 : tensor<8x256xf32>
  %3 = rlx.matmul %2, %w2 : tensor<8x256xf32>, tensor<256x10xf32>
  %4 = rlx.binary add %3, %b2 : tensor<8x10xf32>, tensor<10xf32>
  return %4 : tensor<8x10xf32>
}
