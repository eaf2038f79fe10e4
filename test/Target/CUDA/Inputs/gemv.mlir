// A decode step's projection: one row times a transposed bf16 weight,
// which rlx-cuda-linalg-to-cublas runs as the GEMV kernel.
func.func @gemv(%x: tensor<1x1x2048xbf16> {rlx.input = "x"},
                %w: tensor<512x2048xbf16> {rlx.param = "w"})
    -> tensor<1x1x512xbf16> {
  %t = rlx.transpose %w perm = [1, 0] : tensor<512x2048xbf16>
  %y = rlx.matmul %x, %t : tensor<1x1x2048xbf16>, tensor<2048x512xbf16>
  return %y : tensor<1x1x512xbf16>
}
