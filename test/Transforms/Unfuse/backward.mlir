// RUN: rlx-opt %s --rlx-unfuse="target=cpu" --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-unfuse="target=cuda" --split-input-file | FileCheck %s --check-prefix=CUDA
// RUN: rlx-opt %s --rlx-unfuse="target=all" --split-input-file | FileCheck %s --check-prefix=ALL

// The backward kernel ops as primitives. Shapes a decomposition cannot
// express (dynamic extents) leave the op in place. CUDA decomposes them
// as the CPU does (its generic kernels run the primitives).

// relu_backward: x > 0 ? dy : 0.
// CHECK-LABEL: func.func @relu
// CHECK: %[[Z:.*]] = rlx.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[P:.*]] = rlx.compare gt %arg0, %[[Z]]
// CHECK: %[[R:.*]] = rlx.where %[[P]], %arg1, %[[Z]]
// CHECK: return %[[R]]
// CHECK-NOT: relu_backward
func.func @relu(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = rlx.relu_backward %x, %dy : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu: Phi(x) + x phi(x) with Phi(x) = gelu(x) / x (1/2 at 0), times dy.
// CHECK-LABEL: func.func @gelu
// CHECK-DAG: %[[PDF:.*]] = rlx.constant dense<0.398942292> : tensor<f32>
// CHECK-DAG: %[[HALF:.*]] = rlx.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[Z:.*]] = rlx.compare eq %arg0
// CHECK: %[[G:.*]] = rlx.activation gelu %arg0
// CHECK: %[[Q:.*]] = rlx.binary div %[[G]], %arg0
// CHECK: %[[CDF:.*]] = rlx.where %[[Z]], %[[HALF]], %[[Q]]
// CHECK: rlx.activation exp
// CHECK: %[[D:.*]] = rlx.binary add %[[CDF]]
// CHECK: %[[R:.*]] = rlx.binary mul %[[D]], %arg1
// CHECK: return %[[R]]
func.func @gelu(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = rlx.activation_backward gelu %x, %dy : tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// abs: sign(x) dy, 0 at 0, in the operand's dtype.
// CHECK-LABEL: func.func @abs
// CHECK: %[[Z:.*]] = rlx.constant dense<0.000000e+00> : tensor<f64>
// CHECK-DAG: %[[GT:.*]] = rlx.compare gt %arg0, %[[Z]]
// CHECK-DAG: %[[LT:.*]] = rlx.compare lt %arg0, %[[Z]]
// CHECK-DAG: %[[N:.*]] = rlx.activation neg %arg1
// CHECK-DAG: %[[W:.*]] = rlx.where %[[LT]], %[[N]], %[[Z]]
// CHECK: %[[R:.*]] = rlx.where %[[GT]], %arg1, %[[W]]
// CHECK: return %[[R]]
func.func @abs(%x: tensor<4xf64>, %dy: tensor<4xf64>) -> tensor<4xf64> {
  %0 = rlx.activation_backward abs %x, %dy : tensor<4xf64>, tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// round: the straight-through estimator passes dy.
// CHECK-LABEL: func.func @round
// CHECK-NEXT: return %arg1
func.func @round(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %0 = rlx.activation_backward round %x, %dy : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Layer norm along a middle axis: keep-dim statistics, gamma reshaped to
// broadcast along axis 1, eps in the element type.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[EPS:.*]] = rlx.constant dense<9.99999974E-6> : tensor<f32>
// CHECK: %[[MEAN:.*]] = rlx.reduce mean %arg0 axes = [1] keep_dim
// CHECK: %[[C:.*]] = rlx.binary sub %arg0, %[[MEAN]]
// CHECK: %[[VAR:.*]] = rlx.reduce mean {{.*}} axes = [1] keep_dim
// CHECK: %[[VE:.*]] = rlx.binary add %[[VAR]], %[[EPS]]
// CHECK: %[[INV:.*]] = rlx.activation rsqrt %[[VE]]
// CHECK: %[[XHAT:.*]] = rlx.binary mul %[[C]], %[[INV]]
// CHECK: %[[GB:.*]] = rlx.reshape %arg1 new_shape = [-1, 1] : tensor<5xf32>
// CHECK: %[[G:.*]] = rlx.binary mul %arg2, %[[GB]]
// CHECK: %[[MG:.*]] = rlx.reduce mean %[[G]] axes = [1] keep_dim
// CHECK: %[[GX:.*]] = rlx.binary mul %[[G]], %[[XHAT]]
// CHECK: %[[MGX:.*]] = rlx.reduce mean %[[GX]] axes = [1] keep_dim
// CHECK: %[[T1:.*]] = rlx.binary sub %[[G]], %[[MG]]
// CHECK: %[[T2:.*]] = rlx.binary mul %[[XHAT]], %[[MGX]]
// CHECK: %[[T3:.*]] = rlx.binary sub %[[T1]], %[[T2]]
// CHECK: %[[DX:.*]] = rlx.binary mul %[[INV]], %[[T3]]
// CHECK: %[[DYX:.*]] = rlx.binary mul %arg2, %{{.*}} : tensor<3x5x7xf32>, tensor<3x5x7xf32>
// CHECK: %[[DG:.*]] = rlx.reduce sum %[[DYX]] axes = [0, 2] : tensor<3x5x7xf32>
// CHECK: return %[[DX]], %[[DG]]
func.func @layer_norm(%x: tensor<3x5x7xf32>, %g: tensor<5xf32>, %dy: tensor<3x5x7xf32>) -> (tensor<3x5x7xf32>, tensor<5xf32>) {
  %0 = rlx.layer_norm_backward_input %x, %g, %dy {axis = 1 : i64, eps = 1.0e-05 : f32} : tensor<3x5x7xf32>, tensor<5xf32>, tensor<3x5x7xf32>
  %1 = rlx.layer_norm_backward_gamma %x, %dy {axis = 1 : i64, eps = 1.0e-05 : f32} : tensor<3x5x7xf32>, tensor<3x5x7xf32>
  return %0, %1 : tensor<3x5x7xf32>, tensor<5xf32>
}

// -----

// RMS norm: r = rsqrt(mean(x^2) + eps); d_x = r (g - x r^2 mean(g x)).
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[EPS:.*]] = rlx.constant dense<9.9999999747524271E-7> : tensor<f64>
// CHECK: %[[SQ:.*]] = rlx.binary mul %arg0, %arg0
// CHECK: %[[MS:.*]] = rlx.reduce mean %[[SQ]] axes = [1] keep_dim
// CHECK: %[[R:.*]] = rlx.activation rsqrt
// CHECK: %[[G:.*]] = rlx.binary mul %arg3, %arg1
// CHECK: %[[GX:.*]] = rlx.binary mul %[[G]], %arg0
// CHECK: %[[M:.*]] = rlx.reduce mean %[[GX]] axes = [1] keep_dim
// CHECK: %[[R2:.*]] = rlx.binary mul %[[R]], %[[R]]
// CHECK: %[[DX:.*]] = rlx.binary mul %[[R]], %{{.*}} : tensor<2x1xf64>, tensor<2x8xf64>
// CHECK: %[[DG:.*]] = rlx.reduce sum %{{.*}} axes = [0] : tensor<2x8xf64>
// CHECK: %[[DB:.*]] = rlx.reduce sum %arg3 axes = [0] : tensor<2x8xf64>
// CHECK: return %[[DX]], %[[DG]], %[[DB]]
func.func @rms_norm(%x: tensor<2x8xf64>, %g: tensor<8xf64>, %b: tensor<8xf64>, %dy: tensor<2x8xf64>) -> (tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %0 = rlx.rms_norm_backward_input %x, %g, %b, %dy {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<2x8xf64>
  %1 = rlx.rms_norm_backward_gamma %x, %g, %b, %dy {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<2x8xf64>
  %2 = rlx.rms_norm_backward_beta %x, %g, %b, %dy {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<2x8xf64>
  return %0, %1, %2 : tensor<2x8xf64>, tensor<8xf64>, tensor<8xf64>
}

// -----

// Group norm: statistics over [N, G, C/G * H * W], parameter grads summed
// over n, h, w.
// CHECK-LABEL: func.func @group_norm
// CHECK: %[[XG:.*]] = rlx.reshape %arg0 new_shape = [-1, 3, 18] : tensor<2x6x3x3xf32>
// CHECK: rlx.reduce mean %[[XG]] axes = [2] keep_dim
// CHECK: %[[GB:.*]] = rlx.reshape %arg1 new_shape = [-1, 1, 1] : tensor<6xf32>
// CHECK: %[[G:.*]] = rlx.binary mul %arg3, %[[GB]]
// CHECK: %[[GG:.*]] = rlx.reshape %[[G]] new_shape = [2, 3, 18]
// CHECK: rlx.reduce mean %[[GG]] axes = [2] keep_dim
// CHECK: %[[DX:.*]] = rlx.reshape %{{.*}} new_shape = [-1, 6, 3, 3] : tensor<2x3x18xf32>
// CHECK: %[[DG:.*]] = rlx.reduce sum %{{.*}} axes = [0, 2, 3] : tensor<2x6x3x3xf32>
// CHECK: %[[DB:.*]] = rlx.reduce sum %arg3 axes = [0, 2, 3] : tensor<2x6x3x3xf32>
// CHECK: return %[[DX]], %[[DG]], %[[DB]]
func.func @group_norm(%x: tensor<2x6x3x3xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>, %dy: tensor<2x6x3x3xf32>) -> (tensor<2x6x3x3xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = rlx.group_norm_backward_input %x, %g, %b, %dy {eps = 1.0e-05 : f32, num_groups = 3 : i64} : tensor<2x6x3x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x6x3x3xf32>
  %1 = rlx.group_norm_backward_gamma %x, %dy {eps = 1.0e-05 : f32, num_groups = 3 : i64} : tensor<2x6x3x3xf32>, tensor<2x6x3x3xf32>
  %2 = rlx.group_norm_backward_beta %x, %dy {eps = 1.0e-05 : f32, num_groups = 3 : i64} : tensor<2x6x3x3xf32>, tensor<2x6x3x3xf32>
  return %0, %1, %2 : tensor<2x6x3x3xf32>, tensor<6xf32>, tensor<6xf32>
}

// -----

// The group reshape needs static C, H and W: the op stays.
// CHECK-LABEL: func.func @group_norm_dynamic
// CHECK: rlx.group_norm_backward_gamma
func.func @group_norm_dynamic(%x: tensor<2x6x?x3xf32>, %dy: tensor<2x6x?x3xf32>) -> tensor<6xf32> {
  %0 = rlx.group_norm_backward_gamma %x, %dy {eps = 1.0e-05 : f32, num_groups = 3 : i64} : tensor<2x6x?x3xf32>, tensor<2x6x?x3xf32>
  return %0 : tensor<6xf32>
}

// -----

// Batch norm with frozen statistics (features last).
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[VE:.*]] = rlx.binary add %arg3, %{{.*}} : tensor<3xf32>, tensor<f32>
// CHECK: %[[INV:.*]] = rlx.activation rsqrt %[[VE]]
// CHECK: %[[S:.*]] = rlx.binary mul %arg1, %[[INV]]
// CHECK: %[[DX:.*]] = rlx.binary mul %arg4, %[[S]] : tensor<4x3xf32>, tensor<3xf32>
// CHECK: %[[C:.*]] = rlx.binary sub %arg0, %arg2
// CHECK: %[[DG:.*]] = rlx.reduce sum %{{.*}} axes = [0] : tensor<4x3xf32>
// CHECK: %[[DB:.*]] = rlx.reduce sum %arg4 axes = [0] : tensor<4x3xf32>
// CHECK: return %[[DX]], %[[DG]], %[[DB]]
func.func @batch_norm(%x: tensor<4x3xf32>, %g: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %dy: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = rlx.batch_norm_inference_backward_input %x, %g, %m, %v, %dy {eps = 1.0e-05 : f32} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>
  %1 = rlx.batch_norm_inference_backward_gamma %x, %m, %v, %dy {eps = 1.0e-05 : f32} : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3xf32>
  %2 = rlx.batch_norm_inference_backward_beta %dy : tensor<4x3xf32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// RoPE backward: rope by the negated angle.
// CHECK-LABEL: func.func @rope
// CHECK: %[[NS:.*]] = rlx.activation neg %arg2 : tensor<16x32xf32>
// CHECK: %[[R:.*]] = rlx.rope %arg0, %arg1, %[[NS]] {head_dim = 64 : i64, n_rot = 64 : i64}
// CHECK: return %[[R]]
// CUDA-LABEL: func.func @rope
// CUDA-NOT: rlx.rope_backward
// CUDA: rlx.rope %arg0, %arg1, %{{.*}} {head_dim = 64 : i64, n_rot = 64 : i64}
func.func @rope(%dy: tensor<2x16x512xf32>, %c: tensor<16x32xf32>, %s: tensor<16x32xf32>) -> tensor<2x16x512xf32> {
  %0 = rlx.rope_backward %dy, %c, %s {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x512xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  return %0 : tensor<2x16x512xf32>
}

// -----

// Cumsum backward: reverse, scan with the same exclusivity, reverse. The
// reversed index 4, 3, .., 0 is computed (a running sum of -1 plus 4), not
// a constant of one value per element.
// CHECK-LABEL: func.func @cumsum
// CHECK-DAG: %[[LAST:.*]] = rlx.constant dense<4> : tensor<i64>
// CHECK-DAG: %[[STEP:.*]] = rlx.constant dense<-1> : tensor<5xi64>
// CHECK: %[[DOWN:.*]] = rlx.cumsum %[[STEP]] {axis = 0 : i64, exclusive} : tensor<5xi64>
// CHECK: %[[REV:.*]] = rlx.binary add %[[DOWN]], %[[LAST]]
// CHECK: %[[F:.*]] = rlx.gather %arg0, %[[REV]] axis = 1
// CHECK: %[[S:.*]] = rlx.cumsum %[[F]] {axis = 1 : i64, exclusive}
// CHECK: %[[R:.*]] = rlx.gather %[[S]], %[[REV]] axis = 1
// CHECK: return %[[R]]
func.func @cumsum(%dy: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = rlx.cumsum_backward %dy {axis = -1 : i64, exclusive} : tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func.func @cumsum_dynamic
// CHECK: rlx.cumsum_backward
func.func @cumsum_dynamic(%dy: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = rlx.cumsum_backward %dy {axis = 1 : i64} : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Gather backward along axis 1 with 2-D indices: indices dims to the front,
// scatter_add rows, then the table axis back in place.
// CHECK-LABEL: func.func @gather
// CHECK: %[[T:.*]] = rlx.transpose %arg0 perm = [1, 2, 0, 3]
// CHECK: %[[U:.*]] = rlx.reshape %[[T]] new_shape = [8, 15]
// CHECK: %[[I:.*]] = rlx.reshape %arg1 new_shape = [8] : tensor<2x4xi32>
// CHECK: %[[S:.*]] = rlx.scatter_add %[[U]], %[[I]] : tensor<8x15xf32>, tensor<8xi32> -> tensor<9x15xf32>
// CHECK: %[[B:.*]] = rlx.reshape %[[S]] new_shape = [9, 3, 5]
// CHECK: %[[R:.*]] = rlx.transpose %[[B]] perm = [1, 0, 2]
// CHECK: return %[[R]] : tensor<3x9x5xf32>
func.func @gather(%dy: tensor<3x2x4x5xf32>, %ids: tensor<2x4xi32>) -> tensor<3x9x5xf32> {
  %0 = rlx.gather_backward %dy, %ids {axis = 1 : i64} : tensor<3x2x4x5xf32>, tensor<2x4xi32> -> tensor<3x9x5xf32>
  return %0 : tensor<3x9x5xf32>
}

// -----

// Softmax cross-entropy: (softmax - onehot(labels)) * d_loss[:, None], with
// the rows whose label is outside [0, C) ignored (multiplied by 0). The CPU
// lowers the op directly, so its policy keeps it.
// CHECK-LABEL: func.func @sce
// CHECK: rlx.softmax_cross_entropy_backward
// ALL-LABEL: func.func @sce
// ALL-DAG: %[[C:.*]] = rlx.constant dense<10> : tensor<i64>
// ALL-DAG: %[[ZERO:.*]] = rlx.constant dense<0> : tensor<i64>
// ALL-DAG: %[[ONES:.*]] = rlx.constant dense<1> : tensor<10xi64>
// ALL-DAG: %[[L:.*]] = rlx.cast %arg1 : tensor<4xi32> to i64
// ALL-DAG: %[[LC:.*]] = rlx.reshape %[[L]] new_shape = [-1, 1]
// ALL: %[[IOTA:.*]] = rlx.cumsum %[[ONES]] {axis = 0 : i64, exclusive} : tensor<10xi64>
// ALL: %[[EQ:.*]] = rlx.compare eq %[[IOTA]], %[[LC]]
// ALL: %[[OH:.*]] = rlx.cast %[[EQ]] : tensor<4x10xi1> to f32
// ALL: %[[P:.*]] = rlx.softmax %arg0 {axis = 1 : i64}
// ALL: %[[DL:.*]] = rlx.reshape %arg2 new_shape = [-1, 1]
// ALL: %[[GE:.*]] = rlx.compare ge %[[LC]], %[[ZERO]]
// ALL: %[[GEF:.*]] = rlx.cast %[[GE]] : tensor<4x1xi1> to f32
// ALL: %[[LT:.*]] = rlx.compare lt %[[LC]], %[[C]]
// ALL: %[[LTF:.*]] = rlx.cast %[[LT]] : tensor<4x1xi1> to f32
// ALL: %[[VALID:.*]] = rlx.binary mul %[[GEF]], %[[LTF]]
// ALL: %[[DLV:.*]] = rlx.binary mul %[[DL]], %[[VALID]]
// ALL: %[[D:.*]] = rlx.binary sub %[[P]], %[[OH]]
// ALL: %[[R:.*]] = rlx.binary mul %[[D]], %[[DLV]]
// ALL: return %[[R]]
func.func @sce(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<4xf32>) -> tensor<4x10xf32> {
  %0 = rlx.softmax_cross_entropy_backward %l, %y, %d : tensor<4x10xf32>, tensor<4xi32>, tensor<4xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// CHECK-LABEL: func.func @complex
// CHECK: %[[G:.*]] = rlx.cast %arg1 : tensor<4x8xf32> to complex<f32>
// CHECK: %[[R:.*]] = rlx.binary mul %[[G]], %arg0 : tensor<4x8xcomplex<f32>>
// CHECK: return %[[R]]
func.func @complex(%z: tensor<4x8xcomplex<f32>>, %g: tensor<4x8xf32>) -> tensor<4x8xcomplex<f32>> {
  %0 = rlx.complex_norm_sq_backward %z, %g : tensor<4x8xcomplex<f32>>, tensor<4x8xf32>
  return %0 : tensor<4x8xcomplex<f32>>
}

// -----

// dQ with a causal mask and a soft cap: the probabilities are recomputed,
// the mask compares key and query positions computed in IR (no Sq x Sk
// constant) and selects -inf, and dS goes through the cap's 1 - tanh^2 and
// the default scale 1/sqrt(4).
// CHECK-LABEL: func.func @attention_query
// CHECK-DAG: %[[ONE:.*]] = rlx.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = rlx.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[ONES:.*]] = rlx.constant dense<1> : tensor<3xi64>
// CHECK-DAG: %[[CAP:.*]] = rlx.constant dense<5.000000e+00> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = rlx.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[KT:.*]] = rlx.transpose %arg1 perm = [0, 1, 3, 2]
// CHECK: %[[QK:.*]] = rlx.matmul %arg0, %[[KT]]
// CHECK: %[[S:.*]] = rlx.binary mul %[[QK]], %[[SCALE]]
// CHECK: %[[SC:.*]] = rlx.binary div %[[S]], %[[CAP]]
// CHECK: %[[TH:.*]] = rlx.activation tanh %[[SC]]
// CHECK: %[[CAPPED:.*]] = rlx.binary mul %[[TH]], %[[CAP]]
// CHECK: %[[KEYS:.*]] = rlx.cumsum %[[ONES]] {axis = 0 : i64, exclusive}
// CHECK: %[[KEYROW:.*]] = rlx.reshape %[[KEYS]] new_shape = [1, 3]
// CHECK: %[[QUERIES:.*]] = rlx.cumsum %[[ONES]] {axis = 0 : i64, exclusive}
// CHECK: %[[QUERYCOL:.*]] = rlx.reshape %[[QUERIES]] new_shape = [3, 1]
// CHECK: %[[VISIBLE:.*]] = rlx.compare le %[[KEYROW]], %[[QUERYCOL]]
// CHECK: %[[MASKED:.*]] = rlx.where %[[VISIBLE]], %[[CAPPED]], %[[NINF]]
// CHECK: %[[P:.*]] = rlx.softmax %[[MASKED]] {axis = 3 : i64}
// CHECK: %[[VT:.*]] = rlx.transpose %arg2 perm = [0, 1, 3, 2]
// CHECK: %[[DP:.*]] = rlx.matmul %arg3, %[[VT]]
// CHECK: %[[PDP:.*]] = rlx.binary mul %[[P]], %[[DP]]
// CHECK: %[[ROW:.*]] = rlx.reduce sum %[[PDP]] axes = [3] keep_dim
// CHECK: %[[C:.*]] = rlx.binary sub %[[DP]], %[[ROW]]
// CHECK: %[[DS:.*]] = rlx.binary mul %[[P]], %[[C]]
// CHECK: %[[T2:.*]] = rlx.binary mul %[[TH]], %[[TH]]
// CHECK: %[[SECH:.*]] = rlx.binary sub %[[ONE]], %[[T2]]
// CHECK: %[[DSC:.*]] = rlx.binary mul %[[DS]], %[[SECH]]
// CHECK: %[[DSS:.*]] = rlx.binary mul %[[DSC]], %[[SCALE]]
// CHECK: %[[DQ:.*]] = rlx.matmul %[[DSS]], %arg1
// CHECK: return %[[DQ]]
func.func @attention_query(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>, %dy: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %0 = rlx.attention_backward %q, %k, %v, %dy {head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64, attn_logit_softcap = 5.0 : f32, wrt = #rlx.wrt<query>} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

// dK, packed [B, S, H * D] layout, key-padding mask and explicit scale.
// CHECK-LABEL: func.func @attention_key_custom
// CHECK: %[[NINF:.*]] = rlx.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[Q1:.*]] = rlx.reshape %arg0 new_shape = [-1, 3, 2, 4]
// CHECK: %[[Q:.*]] = rlx.transpose %[[Q1]] perm = [0, 2, 1, 3]
// CHECK: %[[VIS:.*]] = rlx.compare ge %arg4
// CHECK: %[[VIS4:.*]] = rlx.reshape %[[VIS]] new_shape = [-1, 1, 1, 5] : tensor<2x5xi1>
// CHECK: rlx.where %[[VIS4]], %{{.*}}, %[[NINF]]
// CHECK: %[[DST:.*]] = rlx.transpose %{{.*}} perm = [0, 1, 3, 2] : tensor<2x2x3x5xf32>
// CHECK: %[[DK:.*]] = rlx.matmul %[[DST]], %[[Q]]
// CHECK: %[[DK1:.*]] = rlx.transpose %[[DK]] perm = [0, 2, 1, 3]
// CHECK: %[[R:.*]] = rlx.reshape %[[DK1]] new_shape = [-1, 5, 8]
// CHECK: return %[[R]] : tensor<2x5x8xf32>
func.func @attention_key_custom(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>, %dy: tensor<2x3x8xf32>, %m: tensor<2x5xf32>) -> tensor<2x5x8xf32> {
  %0 = rlx.attention_backward %q, %k, %v, %dy mask %m : tensor<2x5xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 2.5e-01 : f32, wrt = #rlx.wrt<key>} : tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x3x8xf32>
  return %0 : tensor<2x5x8xf32>
}

// -----

// dV = p^T dy, the bias added to the scaled scores.
// CHECK-LABEL: func.func @attention_value_bias
// CHECK: %[[S:.*]] = rlx.binary mul
// CHECK: %[[B:.*]] = rlx.binary add %[[S]], %arg4
// CHECK: %[[P:.*]] = rlx.softmax %[[B]]
// CHECK: %[[PT:.*]] = rlx.transpose %[[P]] perm = [0, 1, 3, 2]
// CHECK: %[[DV:.*]] = rlx.matmul %[[PT]], %arg3
// CHECK: return %[[DV]]
func.func @attention_value_bias(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>, %dy: tensor<1x1x2x4xf32>, %m: tensor<1x1x2x3xf32>) -> tensor<1x1x3x4xf32> {
  %0 = rlx.attention_backward %q, %k, %v, %dy mask %m : tensor<1x1x2x3xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<bias>, num_heads = 1 : i64, wrt = #rlx.wrt<value>} : tensor<1x1x2x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x3x4xf32>
}

// -----

// A causal mask over a dynamic sequence length cannot be built: the op
// stays.
// CHECK-LABEL: func.func @attention_dynamic
// CHECK: rlx.attention_backward
func.func @attention_dynamic(%q: tensor<1x1x?x4xf32>, %dy: tensor<1x1x?x4xf32>) -> tensor<1x1x?x4xf32> {
  %0 = rlx.attention_backward %q, %q, %q, %dy {head_dim = 4 : i64, mask_kind = #rlx.mask<causal>, num_heads = 1 : i64, wrt = #rlx.wrt<query>} : tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32>
  return %0 : tensor<1x1x?x4xf32>
}

// -----

// A key-padding mask over a dynamic key length cannot be reshaped to
// [B, 1, 1, Sk]: the op stays.
// CHECK-LABEL: func.func @attention_custom_dynamic
// CHECK: rlx.attention_backward
func.func @attention_custom_dynamic(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x?x4xf32>, %dy: tensor<1x1x2x4xf32>, %m: tensor<1x?xf32>) -> tensor<1x1x2x4xf32> {
  %0 = rlx.attention_backward %q, %k, %k, %dy mask %m : tensor<1x?xf32> {head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, num_heads = 1 : i64, wrt = #rlx.wrt<query>} : tensor<1x1x2x4xf32>, tensor<1x1x?x4xf32>, tensor<1x1x?x4xf32>, tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}

// -----

// The input gradient is the transposed convolution with the forward weight;
// output_padding recovers the rows a strided window dropped.
// CHECK-LABEL: func.func @conv_input
// CHECK: %[[R:.*]] = rlx.conv_transpose2d %arg0, %arg1 kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1], output_padding = [1, 0], groups = 2
// CHECK: return %[[R]] : tensor<2x4x10x9xf32>
func.func @conv_input(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x10x9xf32> {
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1], groups = 2 : tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32> -> tensor<2x4x10x9xf32>
  return %0 : tensor<2x4x10x9xf32>
}

// -----

// The weight gradient per group: dy [C_out/g, N Ho Wo] @ im2col [N Ho Wo, C_in/g kH kW].
// CHECK-LABEL: func.func @conv_weight
// CHECK: %[[COLS:.*]] = rlx.im2col %arg0 kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1]
// CHECK: %[[C1:.*]] = rlx.reshape %[[COLS]] new_shape = [-1, 2, 18]
// CHECK: %[[C2:.*]] = rlx.transpose %[[C1]] perm = [1, 0, 2]
// CHECK: %[[D1:.*]] = rlx.transpose %arg1 perm = [1, 0, 2, 3]
// CHECK: %[[D2:.*]] = rlx.reshape %[[D1]] new_shape = [2, 3, -1]
// CHECK: %[[M:.*]] = rlx.matmul %[[D2]], %[[C2]] : tensor<2x3x32xf32>, tensor<2x32x18xf32>
// CHECK: %[[R:.*]] = rlx.reshape %[[M]] new_shape = [6, 2, 3, 3]
// CHECK: return %[[R]]
func.func @conv_weight(%x: tensor<2x4x9x9xf32>, %dy: tensor<2x6x4x4xf32>) -> tensor<6x2x3x3xf32> {
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2], padding = [0, 0], dilation = [1, 1], groups = 2 : tensor<2x4x9x9xf32>, tensor<2x6x4x4xf32>
  return %0 : tensor<6x2x3x3xf32>
}

// -----

// Max-pool backward: windows as im2col rows (padding masked to -inf), the
// first tap equal to the maximum gets dy, col2im through conv_transpose2d
// with an identity kernel.
// CHECK-LABEL: func.func @max_pool
// CHECK-DAG: %[[NTAPS:.*]] = rlx.constant dense<4> : tensor<i64>
// CHECK-DAG: %[[ONESI:.*]] = rlx.constant dense<1> : tensor<4xi64>
// CHECK-DAG: %[[NINF:.*]] = rlx.constant dense<0xFF800000> : tensor<f32>
// CHECK-DAG: %[[ONES:.*]] = rlx.constant dense<1.000000e+00> : tensor<1x1x4x4xf32>
// CHECK: %[[PL:.*]] = rlx.reshape %arg0 new_shape = [-1, 1, 4, 4]
// CHECK: %[[COLS:.*]] = rlx.im2col %[[PL]] kernel_size = [2, 2], stride = [2, 2], padding = [1, 1]
// CHECK: %[[W:.*]] = rlx.reshape %[[COLS]] new_shape = [-1, 9, 4]
// CHECK: %[[IN:.*]] = rlx.im2col %[[ONES]]
// CHECK: %[[INSIDE:.*]] = rlx.compare ne %[[IN]]
// CHECK: %[[WM:.*]] = rlx.where %[[INSIDE]], %[[W]], %[[NINF]]
// CHECK: %[[MAX:.*]] = rlx.reduce max %[[WM]] axes = [2] keep_dim
// CHECK: %[[TAP:.*]] = rlx.cumsum %[[ONESI]] {axis = 0 : i64, exclusive}
// CHECK: %[[EQ:.*]] = rlx.compare eq %[[WM]], %[[MAX]]
// CHECK: %[[CAND:.*]] = rlx.where %[[EQ]], %[[TAP]], %[[NTAPS]]
// CHECK: %[[FIRST:.*]] = rlx.reduce min %[[CAND]] axes = [2] keep_dim
// CHECK: %[[SEL:.*]] = rlx.compare eq %[[TAP]], %[[FIRST]]
// CHECK: %[[DY:.*]] = rlx.reshape %arg1 new_shape = [-1, 9, 1]
// CHECK: %[[ROUTED:.*]] = rlx.where %[[SEL]], %[[DY]]
// CHECK: %[[T:.*]] = rlx.transpose %[[ROUTED]] perm = [0, 2, 1]
// CHECK: %[[G:.*]] = rlx.reshape %[[T]] new_shape = [-1, 4, 3, 3]
// CHECK: %[[TAPROW:.*]] = rlx.reshape %{{.*}} new_shape = [4, 1, 1, 1]
// CHECK: %[[TAPGRID:.*]] = rlx.reshape %{{.*}} new_shape = [1, 1, 2, 2]
// CHECK: %[[IDB:.*]] = rlx.compare eq %[[TAPROW]], %[[TAPGRID]]
// CHECK: %[[ID:.*]] = rlx.cast %[[IDB]] : tensor<4x1x2x2xi1> to f32
// CHECK: %[[DX:.*]] = rlx.conv_transpose2d %[[G]], %[[ID]] kernel_size = [2, 2], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [0, 0], groups = 1
// CHECK: %[[R:.*]] = rlx.reshape %[[DX]] new_shape = [-1, 2, 4, 4]
// CHECK: return %[[R]]
func.func @max_pool(%x: tensor<1x2x4x4xf32>, %dy: tensor<1x2x3x3xf32>) -> tensor<1x2x4x4xf32> {
  %0 = rlx.max_pool2d_backward %x, %dy kernel_size = [2, 2], stride = [2, 2], padding = [1, 1] : tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x4x4xf32>
}
