// Integer inputs that index something: labels of a 3-class cross-entropy
// (through a reshape and a cast), ids of a 5-row embedding table, and an
// integer input that indexes nothing.
func.func @f(%logits: tensor<64x3xf32> {rlx.input = "logits"},
             %labels: tensor<8x8xi32> {rlx.input = "labels"},
             %ids: tensor<64xi64> {rlx.input = "ids"},
             %table: tensor<5x2xf32> {rlx.param = "table"},
             %counts: tensor<64xi64> {rlx.input = "counts"})
    -> (tensor<64xf32>, tensor<8x8xi32>, tensor<64xi64>, tensor<64x2xf32>, tensor<64xi64>) {
  %flat = rlx.reshape %labels new_shape = [64] : tensor<8x8xi32>
  %wide = rlx.cast %flat : tensor<64xi32> to i64
  %loss = rlx.softmax_cross_entropy_with_logits %logits, %wide : tensor<64x3xf32>, tensor<64xi64>
  %rows = rlx.gather %table, %ids axis = 0 : tensor<5x2xf32>, tensor<64xi64>
  return %loss, %labels, %ids, %rows, %counts : tensor<64xf32>, tensor<8x8xi32>, tensor<64xi64>, tensor<64x2xf32>, tensor<64xi64>
}
