// Three graphs for entry.test. @cheap calls @double; @refused has a
// scatter_add whose output size only its result type knows, which the CPU
// target refuses to lower; @unused is called by nobody.
func.func private @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = rlx.binary add %x, %x : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @cheap(%x: tensor<4xf32> {rlx.input = "x"}) -> tensor<4xf32> {
  %0 = func.call @double(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @refused(%u: tensor<6x64xf32> {rlx.input = "u"},
                   %i: tensor<6xi64> {rlx.input = "i"}) -> tensor<?x64xf32> {
  %y = rlx.scatter_add %u, %i : tensor<6x64xf32>, tensor<6xi64> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

func.func private @unused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @double(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
