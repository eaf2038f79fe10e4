// Small input and output; the matmul's result in between is 16 TiB.
func.func @huge(%a: tensor<4194304x1xf32> {rlx.input = "a"}, %b: tensor<1x1048576xf32> {rlx.input = "b"}) -> tensor<4194304xf32> {
  %0 = rlx.matmul %a, %b : tensor<4194304x1xf32>, tensor<1x1048576xf32>
  %1 = rlx.reduce sum %0 axes = [1] : tensor<4194304x1048576xf32>
  return %1 : tensor<4194304xf32>
}
