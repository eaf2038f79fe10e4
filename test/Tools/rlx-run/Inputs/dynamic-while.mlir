// A while loop carrying a tensor with a `?` dim (dynamic.test): doubles x
// three times.
func.func @doubles(%x: tensor<?xf32> {rlx.input = "x"},
                   %p: tensor<i1> {rlx.input = "p"}) -> tensor<?xf32> {
  %r = rlx.while %x : tensor<?xf32> max_iterations = 3 cond {
  ^bb0(%c: tensor<?xf32>):
    rlx.yield %p, %c : tensor<i1>, tensor<?xf32>
  } do {
  ^bb0(%c: tensor<?xf32>):
    %d = rlx.binary add %c, %c : tensor<?xf32>, tensor<?xf32>
    rlx.yield %d : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
