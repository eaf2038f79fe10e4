// A 2-layer MLP classifier with a softmax cross-entropy loss: 16 samples
// of 8 features, 32 hidden units (tanh), 4 classes, f32.
//
//   loss = mean(cross_entropy(tanh(x @ w1 + b1) @ w2 + b2, labels))
//
// `rlx-opt examples/mlp_train.mlir --rlx-autodiff="func=mlp optimizer=sgd lr=0.1 momentum=0.9"`
// adds @mlp_grad (the loss and the gradient of every parameter) and
// @mlp_train_step (the loss and every parameter after one SGD step, each
// result marked {rlx.param = "<name>"} so it can be fed back as the
// argument of that name; the momentum buffers are the extra rlx.param
// arguments "<name>.momentum", zeros at the start).
func.func @mlp(%x: tensor<16x8xf32> {rlx.input = "x"},
               %labels: tensor<16xi64> {rlx.input = "labels"},
               %w1: tensor<8x32xf32> {rlx.param = "w1"},
               %b1: tensor<32xf32> {rlx.param = "b1"},
               %w2: tensor<32x4xf32> {rlx.param = "w2"},
               %b2: tensor<4xf32> {rlx.param = "b2"}) -> tensor<f32> {
  %h0 = rlx.matmul %x, %w1 : tensor<16x8xf32>, tensor<8x32xf32>
  %h1 = rlx.binary add %h0, %b1 : tensor<16x32xf32>, tensor<32xf32>
  %h = rlx.activation tanh %h1 : tensor<16x32xf32>
  %z0 = rlx.matmul %h, %w2 : tensor<16x32xf32>, tensor<32x4xf32>
  %z = rlx.binary add %z0, %b2 : tensor<16x4xf32>, tensor<4xf32>
  %l = rlx.softmax_cross_entropy_with_logits %z, %labels
         : tensor<16x4xf32>, tensor<16xi64>
  %loss = rlx.reduce mean %l axes = [0] : tensor<16xf32>
  return %loss : tensor<f32>
}
