// One output of 256 KiB, larger than the file size limit of
// atomic-outputs.test.
func.func @wide(%x: tensor<256x256xf32> {rlx.input = "x"}) -> tensor<256x256xf32> {
  %0 = rlx.activation tanh %x : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
