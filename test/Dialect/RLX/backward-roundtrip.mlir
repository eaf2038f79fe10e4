// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @relu_backward
func.func @relu_backward(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>,
                         %a: tensor<?x8xbf16>, %b: tensor<3x8xbf16>)
    -> (tensor<4x8xf32>, tensor<?x8xbf16>) {
  // CHECK: rlx.relu_backward %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
  %0 = rlx.relu_backward %x, %dy : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK: rlx.relu_backward %{{.*}}, %{{.*}} : tensor<?x8xbf16>, tensor<3x8xbf16>
  %1 = rlx.relu_backward %a, %b : tensor<?x8xbf16>, tensor<3x8xbf16>
  // CHECK: return {{.*}} : tensor<4x8xf32>, tensor<?x8xbf16>
  return %0, %1 : tensor<4x8xf32>, tensor<?x8xbf16>
}

// CHECK-LABEL: func.func @activation_backward_kinds
func.func @activation_backward_kinds(%x: tensor<4x?xf32>, %dy: tensor<4x?xf32>) {
  // CHECK: rlx.activation_backward gelu %{{.*}}, %{{.*}} : tensor<4x?xf32>, tensor<4x?xf32>
  %0 = rlx.activation_backward gelu %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward gelu_approx
  %1 = rlx.activation_backward gelu_approx %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward silu
  %2 = rlx.activation_backward silu %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward relu
  %3 = rlx.activation_backward relu %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward sigmoid
  %4 = rlx.activation_backward sigmoid %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward tanh
  %5 = rlx.activation_backward tanh %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward exp
  %6 = rlx.activation_backward exp %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward log
  %7 = rlx.activation_backward log %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward sqrt
  %8 = rlx.activation_backward sqrt %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward rsqrt
  %9 = rlx.activation_backward rsqrt %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward neg
  %10 = rlx.activation_backward neg %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward abs
  %11 = rlx.activation_backward abs %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward sin
  %12 = rlx.activation_backward sin %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward cos
  %13 = rlx.activation_backward cos %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward tan
  %14 = rlx.activation_backward tan %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward atan
  %15 = rlx.activation_backward atan %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  // CHECK: rlx.activation_backward round
  %16 = rlx.activation_backward round %x, %dy : tensor<4x?xf32>, tensor<4x?xf32>
  return
}

// CHECK-LABEL: func.func @layer_norm_backward
func.func @layer_norm_backward(%x: tensor<4x128x768xf32>, %g: tensor<768xf32>,
                               %dy: tensor<4x128x768xf32>,
                               %y: tensor<2x16x5xf16>, %gy: tensor<16xf16>)
    -> (tensor<4x128x768xf32>, tensor<768xf32>, tensor<2x16x5xf16>, tensor<16xf16>) {
  // CHECK: rlx.layer_norm_backward_input %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, eps = 9.99999974E-6 : f32} : tensor<4x128x768xf32>, tensor<768xf32>, tensor<4x128x768xf32>
  %0 = rlx.layer_norm_backward_input %x, %g, %dy {axis = -1 : i64, eps = 1.0e-05 : f32}
         : tensor<4x128x768xf32>, tensor<768xf32>, tensor<4x128x768xf32>
  // CHECK: rlx.layer_norm_backward_gamma %{{.*}}, %{{.*}} {axis = -1 : i64, eps = 9.99999974E-6 : f32} : tensor<4x128x768xf32>, tensor<4x128x768xf32>
  %1 = rlx.layer_norm_backward_gamma %x, %dy {axis = -1 : i64, eps = 1.0e-05 : f32}
         : tensor<4x128x768xf32>, tensor<4x128x768xf32>
  // A feature axis other than the last one.
  // CHECK: rlx.layer_norm_backward_input {{.*}} {axis = 1 : i64, eps = 0.000000e+00 : f32} : tensor<2x16x5xf16>, tensor<16xf16>, tensor<2x16x5xf16>
  %2 = rlx.layer_norm_backward_input %y, %gy, %y {axis = 1 : i64, eps = 0.0 : f32}
         : tensor<2x16x5xf16>, tensor<16xf16>, tensor<2x16x5xf16>
  // CHECK: rlx.layer_norm_backward_gamma {{.*}} {axis = -2 : i64, eps = 1.000000e-03 : f32} : tensor<2x16x5xf16>, tensor<2x16x5xf16>
  %3 = rlx.layer_norm_backward_gamma %y, %y {axis = -2 : i64, eps = 1.0e-03 : f32}
         : tensor<2x16x5xf16>, tensor<2x16x5xf16>
  // CHECK: return {{.*}} : tensor<4x128x768xf32>, tensor<768xf32>, tensor<2x16x5xf16>, tensor<16xf16>
  return %0, %1, %2, %3 : tensor<4x128x768xf32>, tensor<768xf32>, tensor<2x16x5xf16>, tensor<16xf16>
}

// CHECK-LABEL: func.func @rms_norm_backward
func.func @rms_norm_backward(%x: tensor<2x16x512xf32>, %g: tensor<512xf32>,
                             %b: tensor<512xf32>, %dy: tensor<2x16x512xf32>)
    -> (tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>) {
  // CHECK: rlx.rms_norm_backward_input %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, eps = 9.99999997E-7 : f32} : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2x16x512xf32>
  %0 = rlx.rms_norm_backward_input %x, %g, %b, %dy {axis = -1 : i64, eps = 1.0e-06 : f32}
         : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2x16x512xf32>
  // CHECK: rlx.rms_norm_backward_gamma {{.*}} {axis = 2 : i64, eps = 9.99999997E-7 : f32}
  %1 = rlx.rms_norm_backward_gamma %x, %g, %b, %dy {axis = 2 : i64, eps = 1.0e-06 : f32}
         : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2x16x512xf32>
  // CHECK: rlx.rms_norm_backward_beta {{.*}} {axis = -1 : i64, eps = 9.99999997E-7 : f32}
  %2 = rlx.rms_norm_backward_beta %x, %g, %b, %dy {axis = -1 : i64, eps = 1.0e-06 : f32}
         : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>, tensor<2x16x512xf32>
  // CHECK: return {{.*}} : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>
  return %0, %1, %2 : tensor<2x16x512xf32>, tensor<512xf32>, tensor<512xf32>
}

// CHECK-LABEL: func.func @rope_backward
func.func @rope_backward(%dy: tensor<2x16x512xf32>, %cos: tensor<16x32xf32>,
                         %sin: tensor<16x32xf32>, %h: tensor<2x8x16x64xf32>,
                         %c2: tensor<16x16xf32>, %s2: tensor<16x16xf32>,
                         %d: tensor<?x?x256xbf16>, %c3: tensor<?x8xbf16>)
    -> (tensor<2x16x512xf32>, tensor<2x8x16x64xf32>, tensor<?x?x256xbf16>) {
  // CHECK: rlx.rope_backward %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  %0 = rlx.rope_backward %dy, %cos, %sin {head_dim = 64 : i64, n_rot = 64 : i64}
         : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  // Partial rotation on the [B, H, S, D] layout.
  // CHECK: rlx.rope_backward {{.*}} {head_dim = 64 : i64, n_rot = 32 : i64} : tensor<2x8x16x64xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  %1 = rlx.rope_backward %h, %c2, %s2 {head_dim = 64 : i64, n_rot = 32 : i64}
         : tensor<2x8x16x64xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  // CHECK: rlx.rope_backward {{.*}} : tensor<?x?x256xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16>
  %2 = rlx.rope_backward %d, %c3, %c3 {head_dim = 128 : i64, n_rot = 16 : i64}
         : tensor<?x?x256xbf16>, tensor<?x8xbf16>, tensor<?x8xbf16>
  return %0, %1, %2 : tensor<2x16x512xf32>, tensor<2x8x16x64xf32>, tensor<?x?x256xbf16>
}

// CHECK-LABEL: func.func @group_norm_backward
func.func @group_norm_backward(%x: tensor<2x32x16x16xf32>, %g: tensor<32xf32>,
                               %b: tensor<32xf32>, %dy: tensor<2x32x16x16xf32>,
                               %u: tensor<?x6x?x?xf64>)
    -> (tensor<2x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<6xf64>) {
  // CHECK: rlx.group_norm_backward_input %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32, num_groups = 8 : i64} : tensor<2x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<2x32x16x16xf32>
  %0 = rlx.group_norm_backward_input %x, %g, %b, %dy {eps = 1.0e-05 : f32, num_groups = 8 : i64}
         : tensor<2x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<2x32x16x16xf32>
  // CHECK: rlx.group_norm_backward_gamma %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32, num_groups = 8 : i64} : tensor<2x32x16x16xf32>, tensor<2x32x16x16xf32>
  %1 = rlx.group_norm_backward_gamma %x, %dy {eps = 1.0e-05 : f32, num_groups = 8 : i64}
         : tensor<2x32x16x16xf32>, tensor<2x32x16x16xf32>
  // CHECK: rlx.group_norm_backward_beta %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32, num_groups = 32 : i64} : tensor<2x32x16x16xf32>, tensor<2x32x16x16xf32>
  %2 = rlx.group_norm_backward_beta %x, %dy {eps = 1.0e-05 : f32, num_groups = 32 : i64}
         : tensor<2x32x16x16xf32>, tensor<2x32x16x16xf32>
  // CHECK: rlx.group_norm_backward_gamma {{.*}} : tensor<?x6x?x?xf64>, tensor<?x6x?x?xf64>
  %3 = rlx.group_norm_backward_gamma %u, %u {eps = 1.0e-05 : f32, num_groups = 3 : i64}
         : tensor<?x6x?x?xf64>, tensor<?x6x?x?xf64>
  // CHECK: return {{.*}} : tensor<2x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<6xf64>
  return %0, %1, %2, %3 : tensor<2x32x16x16xf32>, tensor<32xf32>, tensor<32xf32>, tensor<6xf64>
}

// CHECK-LABEL: func.func @batch_norm_inference_backward
func.func @batch_norm_inference_backward(%x: tensor<8x16x16x64xf32>,
                                         %g: tensor<64xf32>, %m: tensor<64xf32>,
                                         %v: tensor<64xf32>,
                                         %dy: tensor<8x16x16x64xf32>,
                                         %f: tensor<5xf16>)
    -> (tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<5xf16>) {
  // CHECK: rlx.batch_norm_inference_backward_input %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32} : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x16x64xf32>
  %0 = rlx.batch_norm_inference_backward_input %x, %g, %m, %v, %dy {eps = 1.0e-05 : f32}
         : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x16x64xf32>
  // CHECK: rlx.batch_norm_inference_backward_gamma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32} : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x16x64xf32>
  %1 = rlx.batch_norm_inference_backward_gamma %x, %m, %v, %dy {eps = 1.0e-05 : f32}
         : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<8x16x16x64xf32>
  // CHECK: rlx.batch_norm_inference_backward_beta %{{.*}} : tensor<8x16x16x64xf32>
  %2 = rlx.batch_norm_inference_backward_beta %dy : tensor<8x16x16x64xf32>
  // A rank-1 input is a single feature vector.
  // CHECK: rlx.batch_norm_inference_backward_beta %{{.*}} : tensor<5xf16>
  %3 = rlx.batch_norm_inference_backward_beta %f : tensor<5xf16>
  // CHECK: return {{.*}} : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<5xf16>
  return %0, %1, %2, %3 : tensor<8x16x16x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<5xf16>
}

// CHECK-LABEL: func.func @cumsum_backward
func.func @cumsum_backward(%dy: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK: rlx.cumsum_backward %{{.*}} {axis = 1 : i64} : tensor<4x16xf32>
  %0 = rlx.cumsum_backward %dy {axis = 1 : i64} : tensor<4x16xf32>
  // CHECK: rlx.cumsum_backward %{{.*}} {axis = -2 : i64, exclusive} : tensor<4x16xf32>
  %1 = rlx.cumsum_backward %dy {axis = -2 : i64, exclusive} : tensor<4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// The table type is stated; dy is table[:axis] ++ indices ++ table[axis+1:].
// CHECK-LABEL: func.func @gather_backward
func.func @gather_backward(%dy: tensor<4x16x768xf32>, %ids: tensor<4x16xi64>,
                           %dy2: tensor<3x5x7xf32>, %ids2: tensor<5xi32>,
                           %dy3: tensor<3x7xf32>, %ids3: tensor<i32>)
    -> (tensor<50257x768xf32>, tensor<3x10x7xf32>, tensor<3x9x7xf32>) {
  // CHECK: rlx.gather_backward %{{.*}}, %{{.*}} {axis = 0 : i64} : tensor<4x16x768xf32>, tensor<4x16xi64> -> tensor<50257x768xf32>
  %0 = rlx.gather_backward %dy, %ids {axis = 0 : i64}
         : tensor<4x16x768xf32>, tensor<4x16xi64> -> tensor<50257x768xf32>
  // CHECK: rlx.gather_backward {{.*}} {axis = -2 : i64} : tensor<3x5x7xf32>, tensor<5xi32> -> tensor<3x10x7xf32>
  %1 = rlx.gather_backward %dy2, %ids2 {axis = -2 : i64}
         : tensor<3x5x7xf32>, tensor<5xi32> -> tensor<3x10x7xf32>
  // A scalar index removes the axis from dy.
  // CHECK: rlx.gather_backward {{.*}} {axis = 1 : i64} : tensor<3x7xf32>, tensor<i32> -> tensor<3x9x7xf32>
  %2 = rlx.gather_backward %dy3, %ids3 {axis = 1 : i64}
         : tensor<3x7xf32>, tensor<i32> -> tensor<3x9x7xf32>
  return %0, %1, %2 : tensor<50257x768xf32>, tensor<3x10x7xf32>, tensor<3x9x7xf32>
}

// CHECK-LABEL: func.func @max_pool2d_backward
func.func @max_pool2d_backward(%x: tensor<1x8x32x32xf32>, %dy: tensor<1x8x16x16xf32>,
                               %p: tensor<2x3x7x7xf16>, %dp: tensor<2x3x4x4xf16>)
    -> (tensor<1x8x32x32xf32>, tensor<2x3x7x7xf16>) {
  // CHECK: rlx.max_pool2d_backward %{{.*}}, %{{.*}} kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2],
         padding = [0, 0] : tensor<1x8x32x32xf32>, tensor<1x8x16x16xf32>
  // CHECK: rlx.max_pool2d_backward {{.*}} kernel_size = [3, 3], stride = [2, 2], padding = [1, 1] : tensor<2x3x7x7xf16>, tensor<2x3x4x4xf16>
  %1 = rlx.max_pool2d_backward %p, %dp kernel_size = [3, 3], stride = [2, 2],
         padding = [1, 1] : tensor<2x3x7x7xf16>, tensor<2x3x4x4xf16>
  return %0, %1 : tensor<1x8x32x32xf32>, tensor<2x3x7x7xf16>
}

// CHECK-LABEL: func.func @conv2d_backward
func.func @conv2d_backward(%x: tensor<8x3x224x224xf32>, %w: tensor<64x3x3x3xf32>,
                           %dy: tensor<8x64x112x112xf32>,
                           %gx: tensor<2x8x17x20xf32>, %gw: tensor<12x2x3x5xf32>,
                           %gdy: tensor<2x12x15x8xf32>)
    -> (tensor<8x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<2x8x17x20xf32>,
        tensor<12x2x3x5xf32>) {
  // CHECK: rlx.conv2d_backward_input %{{.*}}, %{{.*}} kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2],
         padding = [1, 1], dilation = [1, 1], groups = 1
         : tensor<8x64x112x112xf32>, tensor<64x3x3x3xf32> -> tensor<8x3x224x224xf32>
  // CHECK: rlx.conv2d_backward_weight %{{.*}}, %{{.*}} kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x3x224x224xf32>, tensor<8x64x112x112xf32>
  %1 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2],
         padding = [1, 1], dilation = [1, 1], groups = 1
         : tensor<8x3x224x224xf32>, tensor<8x64x112x112xf32>
  // Grouped, strided convolution: the stride hides the last input column,
  // which is why the input gradient states its type.
  // CHECK: rlx.conv2d_backward_input {{.*}} groups = 4 : tensor<2x12x15x8xf32>, tensor<12x2x3x5xf32> -> tensor<2x8x17x20xf32>
  %2 = rlx.conv2d_backward_input %gdy, %gw kernel_size = [3, 5], stride = [1, 2],
         padding = [0, 0], dilation = [1, 1], groups = 4
         : tensor<2x12x15x8xf32>, tensor<12x2x3x5xf32> -> tensor<2x8x17x20xf32>
  // CHECK: rlx.conv2d_backward_weight {{.*}} groups = 4 : tensor<2x8x17x20xf32>, tensor<2x12x15x8xf32>
  %3 = rlx.conv2d_backward_weight %gx, %gdy kernel_size = [3, 5], stride = [1, 2],
         padding = [0, 0], dilation = [1, 1], groups = 4
         : tensor<2x8x17x20xf32>, tensor<2x12x15x8xf32>
  // CHECK: return {{.*}} : tensor<8x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<2x8x17x20xf32>, tensor<12x2x3x5xf32>
  return %0, %1, %2, %3 : tensor<8x3x224x224xf32>, tensor<64x3x3x3xf32>,
                          tensor<2x8x17x20xf32>, tensor<12x2x3x5xf32>
}

// CHECK-LABEL: func.func @softmax_cross_entropy
func.func @softmax_cross_entropy(%logits: tensor<32x10xf32>, %labels: tensor<32xi64>,
                                 %dloss: tensor<32xf32>, %l2: tensor<?x10xf16>,
                                 %y2: tensor<?xi32>)
    -> (tensor<32xf32>, tensor<32x10xf32>, tensor<?xf16>) {
  // CHECK: rlx.softmax_cross_entropy_with_logits %{{.*}}, %{{.*}} : tensor<32x10xf32>, tensor<32xi64>
  %0 = rlx.softmax_cross_entropy_with_logits %logits, %labels
         : tensor<32x10xf32>, tensor<32xi64>
  // CHECK: rlx.softmax_cross_entropy_backward %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x10xf32>, tensor<32xi64>, tensor<32xf32>
  %1 = rlx.softmax_cross_entropy_backward %logits, %labels, %dloss
         : tensor<32x10xf32>, tensor<32xi64>, tensor<32xf32>
  // CHECK: rlx.softmax_cross_entropy_with_logits {{.*}} : tensor<?x10xf16>, tensor<?xi32>
  %2 = rlx.softmax_cross_entropy_with_logits %l2, %y2 : tensor<?x10xf16>, tensor<?xi32>
  // CHECK: return {{.*}} : tensor<32xf32>, tensor<32x10xf32>, tensor<?xf16>
  return %0, %1, %2 : tensor<32xf32>, tensor<32x10xf32>, tensor<?xf16>
}

// Every mask kind and every wrt value; the result has the chosen input's
// shape (the key/value sequence may differ from the query's).
// CHECK-LABEL: func.func @attention_backward
func.func @attention_backward(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x24x64xf32>,
                              %v: tensor<2x8x24x64xf32>, %dy: tensor<2x8x16x64xf32>,
                              %pad: tensor<2x24xf32>, %bias: tensor<2x8x16x24xf32>)
    -> (tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>) {
  // CHECK: rlx.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64, wrt = #rlx.wrt<query>} : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  %0 = rlx.attention_backward %q, %k, %v, %dy
         {head_dim = 64 : i64, mask_kind = #rlx.mask<none>, num_heads = 8 : i64,
          wrt = #rlx.wrt<query>}
         : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  // CHECK: rlx.attention_backward {{.*}} {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 8 : i64, wrt = #rlx.wrt<key>}
  %1 = rlx.attention_backward %q, %k, %v, %dy
         {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 8 : i64,
          wrt = #rlx.wrt<key>}
         : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  // CHECK: rlx.attention_backward {{.*}} {head_dim = 64 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 8 : i64, window = 4 : i64, wrt = #rlx.wrt<value>}
  %2 = rlx.attention_backward %q, %k, %v, %dy
         {head_dim = 64 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 8 : i64,
          window = 4 : i64, wrt = #rlx.wrt<value>}
         : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  // CHECK: rlx.attention_backward {{.*}} mask %{{.*}} : tensor<2x24xf32> {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 8 : i64, score_scale = 1.250000e-01 : f32, wrt = #rlx.wrt<key>}
  %3 = rlx.attention_backward %q, %k, %v, %dy mask %pad : tensor<2x24xf32>
         {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 8 : i64,
          score_scale = 0.125 : f32, wrt = #rlx.wrt<key>}
         : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  // CHECK: rlx.attention_backward {{.*}} mask %{{.*}} : tensor<2x8x16x24xf32> {attn_logit_softcap = 5.000000e+01 : f32, head_dim = 64 : i64, mask_kind = #rlx.mask<bias>, num_heads = 8 : i64, score_scale = 6.250000e-02 : f32, wrt = #rlx.wrt<query>}
  %4 = rlx.attention_backward %q, %k, %v, %dy mask %bias : tensor<2x8x16x24xf32>
         {attn_logit_softcap = 50.0 : f32, head_dim = 64 : i64,
          mask_kind = #rlx.mask<bias>, num_heads = 8 : i64, score_scale = 0.0625 : f32,
          wrt = #rlx.wrt<query>}
         : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x16x64xf32>
  // CHECK: return {{.*}} : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>
  return %0, %1, %2 : tensor<2x8x16x64xf32>, tensor<2x8x24x64xf32>, tensor<2x8x24x64xf32>
}

// The rank-3 [B, S, H * D] layout, with a custom mask and dynamic sequences.
// CHECK-LABEL: func.func @attention_backward_rank3
func.func @attention_backward_rank3(%q: tensor<2x?x256xbf16>, %kv: tensor<2x?x256xbf16>,
                                    %pad: tensor<2x?xbf16>)
    -> (tensor<2x?x256xbf16>, tensor<2x?x256xbf16>) {
  // CHECK: rlx.attention_backward {{.*}} mask %{{.*}} : tensor<2x?xbf16> {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 4 : i64, wrt = #rlx.wrt<value>} : tensor<2x?x256xbf16>, tensor<2x?x256xbf16>, tensor<2x?x256xbf16>, tensor<2x?x256xbf16>
  %0 = rlx.attention_backward %q, %kv, %kv, %q mask %pad : tensor<2x?xbf16>
         {head_dim = 64 : i64, mask_kind = #rlx.mask<custom>, num_heads = 4 : i64,
          wrt = #rlx.wrt<value>}
         : tensor<2x?x256xbf16>, tensor<2x?x256xbf16>, tensor<2x?x256xbf16>, tensor<2x?x256xbf16>
  // CHECK: rlx.attention_backward {{.*}} {attn_logit_softcap = 3.000000e+01 : f32, head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 4 : i64, wrt = #rlx.wrt<query>}
  %1 = rlx.attention_backward %q, %kv, %kv, %q
         {attn_logit_softcap = 30.0 : f32, head_dim = 64 : i64,
          mask_kind = #rlx.mask<causal>, num_heads = 4 : i64, wrt = #rlx.wrt<query>}
         : tensor<2x?x256xbf16>, tensor<2x?x256xbf16>, tensor<2x?x256xbf16>, tensor<2x?x256xbf16>
  return %0, %1 : tensor<2x?x256xbf16>, tensor<2x?x256xbf16>
}

// CHECK-LABEL: func.func @resize_backward
func.func @resize_backward(%dy: tensor<2x3x9x16xf32>, %e: tensor<?x2x7xf64>)
    -> (tensor<2x3x4x5xf32>, tensor<?x2x3xf64>) {
  // CHECK: rlx.resize_backward linear %{{.*}} to [4, 5] {align_corners} : tensor<2x3x9x16xf32>
  %0 = rlx.resize_backward linear %dy to [4, 5] {align_corners} : tensor<2x3x9x16xf32>
  // CHECK: rlx.resize_backward nearest %{{.*}} to [3] {scales = array<f64: 2.500000e+00>} : tensor<?x2x7xf64>
  %1 = rlx.resize_backward nearest %e to [3] {scales = array<f64: 2.5>} : tensor<?x2x7xf64>
  return %0, %1 : tensor<2x3x4x5xf32>, tensor<?x2x3xf64>
}
