// RUN: rlx-opt %s --split-input-file --rlx-autodiff | FileCheck %s

// Representative rules: the dedicated backward ops carry the forward op's
// attributes; composed rules un-broadcast.

// Attention: one backward op per input, with the score scale, soft cap,
// window and mask of the forward op.
// CHECK-LABEL: func.func @attend_grad(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4x3xf32> {rlx.param = "q"}, %[[K:[^:]*]]: tensor<1x2x4x3xf32> {rlx.param = "k"}, %[[V:[^:]*]]: tensor<1x2x4x3xf32> {rlx.param = "v"}, %[[D:[^:]*]]: tensor<1x2x4x3xf32> {rlx.input = "d_loss"})
// CHECK: %[[O:.*]] = rlx.attention %[[Q]], %[[K]], %[[V]]
// CHECK: %[[DQ:.*]] = rlx.attention_backward %[[Q]], %[[K]], %[[V]], %[[D]] {attn_logit_softcap = 2.000000e+00 : f32, head_dim = 3 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 2 : i64, score_scale = 5.000000e-01 : f32, window = 1 : i64, wrt = #rlx.wrt<query>}
// CHECK: %[[DK:.*]] = rlx.attention_backward %[[Q]], %[[K]], %[[V]], %[[D]] {{.*}}wrt = #rlx.wrt<key>}
// CHECK: %[[DV:.*]] = rlx.attention_backward %[[Q]], %[[K]], %[[V]], %[[D]] {{.*}}wrt = #rlx.wrt<value>}
// CHECK: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @attend(%q: tensor<1x2x4x3xf32> {rlx.param = "q"},
                  %k: tensor<1x2x4x3xf32> {rlx.param = "k"},
                  %v: tensor<1x2x4x3xf32> {rlx.param = "v"})
    -> tensor<1x2x4x3xf32> {
  %o = rlx.attention %q, %k, %v {head_dim = 3 : i64, num_heads = 2 : i64,
         mask_kind = #rlx.mask<sliding_window>, window = 1 : i64,
         score_scale = 0.5 : f32, attn_logit_softcap = 2.0 : f32}
         : tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>, tensor<1x2x4x3xf32>
  return %o : tensor<1x2x4x3xf32>
}

// -----

// Layer norm: the dedicated backward ops for x and gamma, a sum for beta.
// CHECK-LABEL: func.func @norm_grad(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x4x6xf32> {rlx.param = "x"}, %[[G:[^:]*]]: tensor<6xf32> {rlx.param = "g"}, %[[B:[^:]*]]: tensor<6xf32> {rlx.param = "b"}, %[[D:[^:]*]]: tensor<2x4x6xf32> {rlx.input = "d_loss"})
// CHECK: %[[DX:.*]] = rlx.layer_norm_backward_input %[[X]], %[[G]], %[[D]] {axis = -1 : i64, eps = 9.99999974E-6 : f32}
// CHECK: %[[DG:.*]] = rlx.layer_norm_backward_gamma %[[X]], %[[D]] {axis = -1 : i64, eps = 9.99999974E-6 : f32}
// CHECK: %[[DB:.*]] = rlx.reduce sum %[[D]] axes = [0, 1] : tensor<2x4x6xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DG]], %[[DB]]
func.func @norm(%x: tensor<2x4x6xf32> {rlx.param = "x"},
                %g: tensor<6xf32> {rlx.param = "g"},
                %b: tensor<6xf32> {rlx.param = "b"}) -> tensor<2x4x6xf32> {
  %y = rlx.layer_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32}
         : tensor<2x4x6xf32>, tensor<6xf32>, tensor<6xf32>
  return %y : tensor<2x4x6xf32>
}

// -----

// Batched matmul with a broadcast weight: the weight's gradient is one
// product over the batch's rows, [3, 8] x [8, 5] (the GEMM sums the batch).
// CHECK-LABEL: func.func @mm_grad(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x4x3xf64> {rlx.input = "a"}, %[[W:[^:]*]]: tensor<3x5xf64> {rlx.param = "w"}, %[[D:[^:]*]]: tensor<2x4x5xf64> {rlx.input = "d_loss"})
// CHECK-DAG: %[[AR:.*]] = rlx.reshape %[[A]] new_shape = [-1, 3] : tensor<2x4x3xf64>
// CHECK-DAG: %[[DR:.*]] = rlx.reshape %[[D]] new_shape = [-1, 5] : tensor<2x4x5xf64>
// CHECK: %[[AT:.*]] = rlx.transpose %[[AR]] perm = [1, 0] : tensor<8x3xf64>
// CHECK: %[[DW:.*]] = rlx.matmul %[[AT]], %[[DR]] : tensor<3x8xf64>, tensor<8x5xf64>
// CHECK-NOT: rlx.reduce
// CHECK: return %{{.*}}, %[[DW]]
func.func @mm(%a: tensor<2x4x3xf64> {rlx.input = "a"},
              %w: tensor<3x5xf64> {rlx.param = "w"}) -> tensor<2x4x5xf64> {
  %y = rlx.matmul %a, %w : tensor<2x4x3xf64>, tensor<3x5xf64>
  return %y : tensor<2x4x5xf64>
}

// -----

// Max of two operands: ties split evenly, in the graph's dtype.
// CHECK-LABEL: func.func @maximum_grad(
// CHECK-SAME: %[[A:[^:]*]]: tensor<3xf64> {rlx.param = "a"}, %[[B:[^:]*]]: tensor<3xf64> {rlx.param = "b"}, %[[D:[^:]*]]: tensor<3xf64> {rlx.input = "d_loss"})
// CHECK: %[[Y:.*]] = rlx.binary max %[[A]], %[[B]]
// CHECK: %[[ONE:.*]] = rlx.constant dense<1.000000e+00> : tensor<f64>
// CHECK: %[[EA:.*]] = rlx.compare eq %[[A]], %[[Y]]
// CHECK: %[[CA:.*]] = rlx.cast %[[EA]] : tensor<3xi1> to f64
// CHECK: %[[EB:.*]] = rlx.compare eq %[[B]], %[[Y]]
// CHECK: %[[CB:.*]] = rlx.cast %[[EB]] : tensor<3xi1> to f64
// CHECK: %[[N:.*]] = rlx.binary add %[[CA]], %[[CB]]
// CHECK: %[[T:.*]] = rlx.binary max %[[N]], %[[ONE]]
// CHECK: %[[SA:.*]] = rlx.binary div %[[CA]], %[[T]]
// CHECK: %[[DA:.*]] = rlx.binary mul %[[D]], %[[SA]]
func.func @maximum(%a: tensor<3xf64> {rlx.param = "a"},
                   %b: tensor<3xf64> {rlx.param = "b"}) -> tensor<3xf64> {
  %y = rlx.binary max %a, %b : tensor<3xf64>, tensor<3xf64>
  return %y : tensor<3xf64>
}

// -----

// Convolution and max pooling: the dedicated kernels with the forward
// geometry.
// CHECK-LABEL: func.func @conv_grad(
// CHECK: rlx.max_pool2d_backward %{{.*}}, %{{.*}} kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
// CHECK: rlx.conv2d_backward_weight %{{.*}}, %{{.*}} kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1
func.func @conv(%x: tensor<1x2x4x4xf32> {rlx.input = "x"},
                %w: tensor<3x2x3x3xf32> {rlx.param = "w"}) -> tensor<1x3x2x2xf32> {
  %c = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1], groups = 1 : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>
  %p = rlx.pool max %c kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<1x3x4x4xf32>
  return %p : tensor<1x3x2x2xf32>
}

// -----

// Cross-entropy and embedding: the labels and ids get nothing; the table's
// gradient scatters back.
// CHECK-LABEL: func.func @ce_grad(
// CHECK-SAME: %[[E:[^:]*]]: tensor<10x4xf32> {rlx.param = "emb"}, %[[IDS:[^:]*]]: tensor<3xi64> {rlx.input = "ids"}, %[[LAB:[^:]*]]: tensor<3xi64> {rlx.input = "labels"})
// CHECK: %[[Z:.*]] = rlx.gather %[[E]], %[[IDS]] axis = 0
// CHECK: %[[DZ:.*]] = rlx.softmax_cross_entropy_backward %[[Z]], %[[LAB]], %{{.*}}
// CHECK: %[[DE:.*]] = rlx.gather_backward %[[DZ]], %[[IDS]] {axis = 0 : i64} : tensor<3x4xf32>, tensor<3xi64> -> tensor<10x4xf32>
// CHECK: return %{{.*}}, %[[DE]]
func.func @ce(%emb: tensor<10x4xf32> {rlx.param = "emb"},
              %ids: tensor<3xi64> {rlx.input = "ids"},
              %labels: tensor<3xi64> {rlx.input = "labels"}) -> tensor<f32> {
  %z = rlx.gather %emb, %ids axis = 0 : tensor<10x4xf32>, tensor<3xi64>
  %l = rlx.softmax_cross_entropy_with_logits %z, %labels
         : tensor<3x4xf32>, tensor<3xi64>
  %m = rlx.reduce mean %l axes = [0] : tensor<3xf32>
  return %m : tensor<f32>
}
