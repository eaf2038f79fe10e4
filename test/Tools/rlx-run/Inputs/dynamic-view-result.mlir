// A graph whose results are views of its `?`-shaped input: a reshape and
// the input itself. The buffer deallocation pipeline clones each; the
// clones become an allocation and a copy.
func.func @views(%x: tensor<?x4xf32> {rlx.input = "x"})
    -> (tensor<?xf32>, tensor<?x4xf32>, tensor<?x2x2xf32>) {
  %flat = rlx.reshape %x new_shape = [-1] : tensor<?x4xf32>
  %split = rlx.reshape %x new_shape = [-1, 2, 2] : tensor<?x4xf32>
  return %flat, %x, %split : tensor<?xf32>, tensor<?x4xf32>, tensor<?x2x2xf32>
}
