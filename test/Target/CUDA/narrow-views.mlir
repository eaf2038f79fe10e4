// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --split-input-file | FileCheck %s --check-prefix=BUFFERS

// A fused q/k/v projection split by narrows of its last dim: the queries
// and keys rotated together, the keys and values written into caches, the
// queries attended with them. Every narrow is read only by kernels
// generated here (rope, where) or the attention kernel, through reshapes
// and transposes, so each becomes a tensor.extract_slice, a view once
// bufferized: no copy splits the projection.

// CHECK-LABEL: func.func @split_projection
// CHECK-NOT:     rlx.narrow
// CHECK:         tensor.extract_slice %{{.*}}[0, 0, 0] [1, 1, 2560] [1, 1, 1] : tensor<1x1x3072xbf16> to tensor<1x1x2560xbf16>
// CHECK:         rlx.rope
// CHECK-DAG:     tensor.extract_slice %{{.*}}[0, 0, 0] [1, 1, 2048] [1, 1, 1] : tensor<1x1x2560xbf16> to tensor<1x1x2048xbf16>
// CHECK-DAG:     tensor.extract_slice %{{.*}}[0, 0, 2048] [1, 1, 512] [1, 1, 1] : tensor<1x1x2560xbf16> to tensor<1x1x512xbf16>
// CHECK-DAG:     tensor.extract_slice %{{.*}}[0, 0, 2560] [1, 1, 512] [1, 1, 1] : tensor<1x1x3072xbf16> to tensor<1x1x512xbf16>
// CHECK:         rlx_cuda.flash_attention
// CHECK-NOT:     rlx.narrow

// BUFFERS-LABEL: func.func @split_projection
// BUFFERS-NOT:   memref.copy
// BUFFERS:       memref.subview {{.*}} : memref<1x1x3072xbf16> to memref<1x1x2560xbf16, strided<[3072, 3072, 1]>>
// BUFFERS-NOT:   memref.copy
// BUFFERS:       return
func.func @split_projection(%qkv: tensor<1x1x3072xbf16>, %cos: tensor<1x32xbf16>,
                            %sin: tensor<1x32xbf16>, %kc: tensor<1x8x256x64xbf16>,
                            %vc: tensor<1x8x256x64xbf16>, %written: tensor<1x1x256x1xi1>,
                            %bias: tensor<1x32x1x256xbf16>)
    -> (tensor<1x32x1x64xbf16>, tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16>) {
  %qk0 = rlx.narrow %qkv axis = 2 start = 0 len = 2560 : tensor<1x1x3072xbf16>
  %qk1 = rlx.reshape %qk0 new_shape = [-1, 2560] : tensor<1x1x2560xbf16>
  %qk2 = rlx.rope %qk1, %cos, %sin {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<1x2560xbf16>, tensor<1x32xbf16>, tensor<1x32xbf16>
  %qk = rlx.reshape %qk2 new_shape = [1, -1, 2560] : tensor<1x2560xbf16>
  %q0 = rlx.narrow %qk axis = 2 start = 0 len = 2048 : tensor<1x1x2560xbf16>
  %k0 = rlx.narrow %qk axis = 2 start = 2048 len = 512 : tensor<1x1x2560xbf16>
  %v0 = rlx.narrow %qkv axis = 2 start = 2560 len = 512 : tensor<1x1x3072xbf16>
  %q1 = rlx.reshape %q0 new_shape = [1, -1, 32, 64] : tensor<1x1x2048xbf16>
  %q = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x1x32x64xbf16>
  %k1 = rlx.reshape %k0 new_shape = [1, -1, 8, 64] : tensor<1x1x512xbf16>
  %k = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x1x8x64xbf16>
  %v1 = rlx.reshape %v0 new_shape = [1, -1, 8, 64] : tensor<1x1x512xbf16>
  %v = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x1x8x64xbf16>
  %kn = rlx.where %written, %k, %kc : tensor<1x1x256x1xi1>, tensor<1x8x1x64xbf16>, tensor<1x8x256x64xbf16>
  %vn = rlx.where %written, %v, %vc : tensor<1x1x256x1xi1>, tensor<1x8x1x64xbf16>, tensor<1x8x256x64xbf16>
  %kr0 = rlx.reshape %kn new_shape = [1, 8, 1, 256, 64] : tensor<1x8x256x64xbf16>
  %kr1 = rlx.expand %kr0 target_shape = [1, 8, 4, 256, 64] : tensor<1x8x1x256x64xbf16>
  %kr = rlx.reshape %kr1 new_shape = [1, 32, 256, 64] : tensor<1x8x4x256x64xbf16>
  %vr0 = rlx.reshape %vn new_shape = [1, 8, 1, 256, 64] : tensor<1x8x256x64xbf16>
  %vr1 = rlx.expand %vr0 target_shape = [1, 8, 4, 256, 64] : tensor<1x8x1x256x64xbf16>
  %vr = rlx.reshape %vr1 new_shape = [1, 32, 256, 64] : tensor<1x8x4x256x64xbf16>
  %o = rlx.attention %q, %kr, %vr mask %bias : tensor<1x32x1x256xbf16> {
      head_dim = 64 : i64, mask_kind = #rlx.mask<bias>, num_heads = 32 : i64}
      : tensor<1x32x1x64xbf16>, tensor<1x32x256x64xbf16>, tensor<1x32x256x64xbf16>
  return %o, %kn, %vn : tensor<1x32x1x64xbf16>, tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16>
}

// -----

// Narrows that a library would read keep their copy: a GEMM's operand
// (cuBLAS), a result of the graph; so does a narrow of another dim.

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: rlx.narrow
// CHECK-NOT:     tensor.extract_slice
func.func @kept(%x: tensor<4x64xf32>, %w: tensor<32x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x16xf32>, tensor<2x64xf32>) {
  %a = rlx.narrow %x axis = 1 start = 0 len = 32 : tensor<4x64xf32>
  %p = rlx.matmul %a, %w : tensor<4x32xf32>, tensor<32x8xf32>
  %b = rlx.narrow %x axis = 1 start = 32 len = 16 : tensor<4x64xf32>
  %c = rlx.narrow %x axis = 0 start = 2 len = 2 : tensor<4x64xf32>
  %d = rlx.activation relu %c : tensor<2x64xf32>
  return %p, %b, %d : tensor<4x8xf32>, tensor<4x16xf32>, tensor<2x64xf32>
}
