// Hand-written training steps for rlx-run --steps (steps.test).
// @step: loss = sum(w * x), then w -= 0.5 * x and the step count n += 1.
func.func @step(%x: tensor<3xf32> {rlx.input = "x"},
                %w: tensor<3xf32> {rlx.param = "w"},
                %n: tensor<f32> {rlx.param = "n"})
    -> (tensor<f32>, tensor<3xf32> {rlx.param = "w"},
        tensor<f32> {rlx.param = "n"}) {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %loss = rlx.reduce sum %0 axes = [0] : tensor<3xf32>
  %half = rlx.constant dense<0.5> : tensor<f32>
  %1 = rlx.binary mul %x, %half : tensor<3xf32>, tensor<f32>
  %w1 = rlx.binary sub %w, %1 : tensor<3xf32>, tensor<3xf32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %n1 = rlx.binary add %n, %one : tensor<f32>, tensor<f32>
  return %loss, %w1, %n1 : tensor<f32>, tensor<3xf32>, tensor<f32>
}

// No result carries a parameter name.
func.func @no_feedback(%x: tensor<3xf32> {rlx.input = "x"},
                       %w: tensor<3xf32> {rlx.param = "w"}) -> tensor<f32> {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %loss = rlx.reduce sum %0 axes = [0] : tensor<3xf32>
  return %loss : tensor<f32>
}

// The updated value names "v", which no argument is.
func.func @unknown_name(%x: tensor<3xf32> {rlx.input = "x"},
                        %w: tensor<3xf32> {rlx.param = "w"})
    -> (tensor<f32>, tensor<3xf32> {rlx.param = "v"}) {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %loss = rlx.reduce sum %0 axes = [0] : tensor<3xf32>
  return %loss, %0 : tensor<f32>, tensor<3xf32>
}

// The updated value names the input "x", which is no parameter.
func.func @input_name(%x: tensor<3xf32> {rlx.input = "x"},
                      %w: tensor<3xf32> {rlx.param = "w"})
    -> (tensor<f32>, tensor<3xf32> {rlx.param = "x"}) {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %loss = rlx.reduce sum %0 axes = [0] : tensor<3xf32>
  return %loss, %0 : tensor<f32>, tensor<3xf32>
}

// The updated value is f64, its parameter f32.
func.func @wrong_type(%x: tensor<3xf32> {rlx.input = "x"},
                      %w: tensor<3xf32> {rlx.param = "w"})
    -> (tensor<f32>, tensor<3xf64> {rlx.param = "w"}) {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %loss = rlx.reduce sum %0 axes = [0] : tensor<3xf32>
  %1 = rlx.cast %0 : tensor<3xf32> to f64
  return %loss, %1 : tensor<f32>, tensor<3xf64>
}

// The first result has three elements, so it is no loss to print.
func.func @vector_loss(%x: tensor<3xf32> {rlx.input = "x"},
                       %w: tensor<3xf32> {rlx.param = "w"})
    -> (tensor<3xf32>, tensor<3xf32> {rlx.param = "w"}) {
  %0 = rlx.binary mul %w, %x : tensor<3xf32>, tensor<3xf32>
  %1 = rlx.binary add %w, %x : tensor<3xf32>, tensor<3xf32>
  return %0, %1 : tensor<3xf32>, tensor<3xf32>
}

func.func @long_loss(%x: tensor<65xf32> {rlx.input = "x"},
                     %w: tensor<65xf32> {rlx.param = "w"})
    -> (tensor<65xf32>, tensor<65xf32> {rlx.param = "w"}) {
  %0 = rlx.binary mul %w, %x : tensor<65xf32>, tensor<65xf32>
  %1 = rlx.binary add %w, %x : tensor<65xf32>, tensor<65xf32>
  return %0, %1 : tensor<65xf32>, tensor<65xf32>
}
