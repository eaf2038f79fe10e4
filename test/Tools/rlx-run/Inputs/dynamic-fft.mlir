// A forward FFT of f32 real-block rows ([re..., im...]) of any length 2N.
func.func @spectrum(%x: tensor<2x?xf32> {rlx.input = "x"}) -> tensor<2x?xf32> {
  %0 = rlx.fft %x {norm = #rlx.fft_norm<ortho>} : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
