// A graph with a `?` batch dim (dynamic.test): y = tanh(x @ w + b) per row,
// and the row sums.
func.func @rows(%x: tensor<?x3xf32> {rlx.input = "x"},
                %w: tensor<3x4xf32> {rlx.input = "w"},
                %b: tensor<?x4xf32> {rlx.input = "b"})
    -> (tensor<?x4xf32>, tensor<?xf32>) {
  %0 = rlx.matmul %x, %w : tensor<?x3xf32>, tensor<3x4xf32>
  %1 = rlx.binary add %0, %b : tensor<?x4xf32>, tensor<?x4xf32>
  %2 = rlx.activation tanh %1 : tensor<?x4xf32>
  %3 = rlx.reduce sum %2 axes = [1] : tensor<?x4xf32>
  return %2, %3 : tensor<?x4xf32>, tensor<?xf32>
}
