// Gaussian elimination updates its operands in place.
func.func @solve(%a: tensor<5x5xf32> {rlx.input = "a"},
                 %b: tensor<5x3xf32> {rlx.input = "b"}) -> tensor<5x3xf32> {
  %x = rlx.dense_solve %a, %b : tensor<5x5xf32>, tensor<5x3xf32>
  return %x : tensor<5x3xf32>
}
