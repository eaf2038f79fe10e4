// z = x * sigmoid(1.5 x) + y through the plugin's op:
//   rlx-run examples/custom-op/swish_add.mlir \
//     --plugin build/lib/libswish_add_plugin.so \
//     --random-inputs --print
func.func @swish_add(%x: tensor<4x8xf32> {rlx.input = "x"},
                     %y: tensor<8xf32> {rlx.input = "y"}) -> tensor<4x8xf32> {
  %z = rlx.custom "example.swish_add"(%x, %y) pure attrs {beta = 1.5 : f32}
      : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
