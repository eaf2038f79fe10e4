func.func @d(%a: tensor<2x3xf32> {rlx.input = "a"},
             %b: tensor<5xi32> {rlx.input = "b"},
             %c: tensor<f64> {rlx.input = "c"},
             %e: tensor<0x4xf32> {rlx.input = "empty"})
    -> (tensor<2x3xf32>, tensor<5xi32>, tensor<f64>, tensor<5xi1>,
        tensor<0x4xf32>) {
  %0 = rlx.binary add %a, %a : tensor<2x3xf32>, tensor<2x3xf32>
  %1 = rlx.binary mul %b, %b : tensor<5xi32>, tensor<5xi32>
  %3 = rlx.compare gt %1, %b : tensor<5xi32>, tensor<5xi32>
  return %0, %1, %c, %3, %e : tensor<2x3xf32>, tensor<5xi32>, tensor<f64>, tensor<5xi1>, tensor<0x4xf32>
}
