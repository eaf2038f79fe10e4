// 2^42 f32 elements (16 TiB) in; more than any test machine has.
func.func @huge(%x: tensor<4194304x1048576xf32> {rlx.input = "x"}) -> tensor<4194304xf32> {
  %0 = rlx.reduce sum %x axes = [1] : tensor<4194304x1048576xf32>
  return %0 : tensor<4194304xf32>
}
