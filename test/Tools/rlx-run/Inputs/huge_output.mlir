// A small input broadcast to a 16 TiB output.
func.func @huge(%x: tensor<1x1048576xf32> {rlx.input = "x"}) -> tensor<4194304x1048576xf32> {
  %0 = rlx.expand %x target_shape = [4194304, 1048576] : tensor<1x1048576xf32>
  return %0 : tensor<4194304x1048576xf32>
}
