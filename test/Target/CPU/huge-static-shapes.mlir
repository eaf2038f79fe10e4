// RUN: rlx-opt %s --split-input-file --rlx-unfuse --convert-rlx-to-linalg | FileCheck %s
// RUN: rlx-opt %s --split-input-file --rlx-cpu-pipeline -o /dev/null

// Decompositions and lowerings that need one value per element (a causal
// mask, a reversed index, the FFT's twiddle factors) compute it in the IR
// (linalg.index) instead of materialising a constant: compile time and
// memory stay independent of the element count. Before, an 8192-long causal
// attention backward took 15 s and 1.4 GB to compile and the others aborted
// with "SmallVector unable to grow". docs/security.md records the figures.

// CHECK-LABEL: func.func @causal_attention_backward_8192
// CHECK-NOT: dense<[
// CHECK: return
func.func @causal_attention_backward_8192(%q: tensor<1x1x8192x64xf32>, %k: tensor<1x1x8192x64xf32>, %v: tensor<1x1x8192x64xf32>, %dy: tensor<1x1x8192x64xf32>) -> (tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>) {
  %0 = rlx.attention_backward %q, %k, %v, %dy {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 1 : i64, wrt = #rlx.wrt<query>} : tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>
  %1 = rlx.attention_backward %q, %k, %v, %dy {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 1 : i64, wrt = #rlx.wrt<key>} : tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>
  %2 = rlx.attention_backward %q, %k, %v, %dy {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 1 : i64, wrt = #rlx.wrt<value>} : tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>
  return %0, %1, %2 : tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>, tensor<1x1x8192x64xf32>
}

// -----

// CHECK-LABEL: func.func @cumsum_backward_2_30
// CHECK-NOT: dense<[
// CHECK: return
func.func @cumsum_backward_2_30(%dy: tensor<4x1073741824xf32>) -> tensor<4x1073741824xf32> {
  %0 = rlx.cumsum_backward %dy {axis = 1 : i64} : tensor<4x1073741824xf32>
  return %0 : tensor<4x1073741824xf32>
}

// -----

// CHECK-LABEL: func.func @fft_2_30
// CHECK-NOT: dense<[
// CHECK: return
func.func @fft_2_30(%x: tensor<2x1073741824xf32>, %z: tensor<2x1073741824xcomplex<f32>>) -> (tensor<2x1073741824xf32>, tensor<2x1073741824xcomplex<f32>>) {
  %0 = rlx.fft %x : tensor<2x1073741824xf32>
  %1 = rlx.fft inverse %z {norm = #rlx.fft_norm<ortho>} : tensor<2x1073741824xcomplex<f32>>
  return %0, %1 : tensor<2x1073741824xf32>, tensor<2x1073741824xcomplex<f32>>
}
