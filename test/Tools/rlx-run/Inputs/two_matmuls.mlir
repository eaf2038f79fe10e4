// x @ w + x @ v: one product needs a temporary buffer (256 x 256 f32), the
// other and the sum are written to the output.
func.func @two(%x: tensor<256x256xf32> {rlx.input = "x"},
               %w: tensor<256x256xf32> {rlx.param = "w"},
               %v: tensor<256x256xf32> {rlx.param = "v"})
    -> tensor<256x256xf32> {
  %a = rlx.matmul %x, %w : tensor<256x256xf32>, tensor<256x256xf32>
  %b = rlx.matmul %x, %v : tensor<256x256xf32>, tensor<256x256xf32>
  %c = rlx.binary add %a, %b : tensor<256x256xf32>, tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
