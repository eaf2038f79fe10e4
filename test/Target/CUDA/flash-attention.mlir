// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=FORM
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels --split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels=allow-tf32 --split-input-file | FileCheck %s --check-prefix=TF32

// rlx.attention becomes the fused kernel op with the default score scale
// 1/sqrt(64) made explicit; bufferized, the op writes into a fresh buffer,
// which one of two kernels fills, chosen by the host from the buffers'
// alignment.

// FORM-LABEL: func.func @causal
// FORM:         %[[INIT:.*]] = tensor.empty() : tensor<2x3x17x64xf32>
// FORM:         %[[O:.*]] = rlx_cuda.flash_attention ins(%arg0, %arg1, %arg2 : tensor<2x3x17x64xf32>, tensor<2x3x40x64xf32>, tensor<2x3x40x64xf32>) outs(%[[INIT]] : tensor<2x3x17x64xf32>) {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 3 : i64, score_scale = 1.250000e-01 : f32} -> tensor<2x3x17x64xf32>
// FORM:         return %[[O]]

// Aligned f32 takes the tensor-core kernel on TF32 parts: m16n8k8, f32
// tiles of 32 keys padded by 4 columns, each operand split into its TF32
// rounding and the rounding of the rest (the bitcast gives the rounded
// value back as f32), three products per step for f32 accuracy.
// Otherwise a block per 8 query rows of each (batch, head)
// (ceil(17 / 8) * 2 * 3 blocks), 256 threads, the query rows and the key
// and value tiles (the key rows padded by one column) in shared memory.
// LOWER-LABEL: func.func @causal
// LOWER-SAME:    (%[[Q:.*]]: memref<2x3x17x64xf32>, %[[K:.*]]: memref<2x3x40x64xf32>, %[[V:.*]]: memref<2x3x40x64xf32>)
// LOWER:         %[[OUT:.*]] = memref.alloc()
// LOWER-COUNT-4: memref.extract_aligned_pointer_as_index
// LOWER:         scf.if
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}) workgroup({{.*}} : memref<32x68xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<32x68xf32, #gpu.address_space<workgroup>>)
// LOWER:             %[[BIG:.*]] = nvvm.convert.float.to.tf32 %[[X:.*]] {rnd = #nvvm.fp_rnd_mode<rna>}
// LOWER:             %[[ROUNDED:.*]] = arith.bitcast %[[BIG]] : i32 to f32
// LOWER:             %[[REST:.*]] = arith.subf %[[X]], %[[ROUNDED]]
// LOWER:             nvvm.convert.float.to.tf32 %[[REST]]
// LOWER:             nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
// LOWER-NEXT:        llvm.extractvalue
// LOWER-COUNT-3:     llvm.extractvalue
// LOWER-NEXT:        nvvm.mma.sync
// LOWER-COUNT-4:     llvm.extractvalue
// LOWER-NEXT:        nvvm.mma.sync
// LOWER:         } else {
// LOWER:           %[[BLOCKS:.*]] = arith.maxsi
// LOWER:           gpu.launch blocks({{.*}}) in ({{.*}} = %[[BLOCKS]], {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup(%[[QT:.*]] : memref<8x64xf32, #gpu.address_space<workgroup>>, %[[KT:.*]] : memref<32x65xf32, #gpu.address_space<workgroup>>, %[[VT:.*]] : memref<32x64xf32, #gpu.address_space<workgroup>>)
// LOWER:             memref.load %[[Q]]
// LOWER:             memref.store {{.*}}, %[[QT]]
// LOWER:             scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// LOWER:               gpu.barrier
// LOWER:               memref.load %[[K]]
// LOWER:               memref.load %[[V]]
// LOWER:               gpu.barrier
// LOWER:               arith.cmpi sle
// LOWER:               gpu.shuffle  xor
// LOWER:               math.exp
// LOWER:               gpu.shuffle  idx
// LOWER:             memref.store {{.*}}, %[[OUT]]
// LOWER-NOT:     rlx_cuda.flash_attention
// LOWER:         return %[[OUT]]
// Under allow-tf32 the operands are rounded once: one product per step.
// TF32-LABEL: func.func @causal
// TF32-COUNT-4: memref.extract_aligned_pointer_as_index
// TF32:         scf.if
// TF32:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}) workgroup({{.*}} : memref<32x68xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<32x68xf32, #gpu.address_space<workgroup>>)
// TF32-NOT:         arith.bitcast
// TF32:             nvvm.convert.float.to.tf32 {{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
// TF32:             nvgpu.device_async_copy %arg1{{.*}}, 4, {{.*}} {bypassL1} : memref<2x3x40x64xf32> to memref<32x68xf32, #gpu.address_space<workgroup>>
// TF32:             nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
// TF32-NOT:         arith.bitcast
// TF32:             math.exp2
// TF32:             nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 8>
// TF32-NOT:         nvgpu.ldmatrix
// TF32-NOT:         arith.bitcast
// TF32:             vector.store {{.*}} {alignment = 8 : i64} : memref<2x3x17x64xf32>, vector<2xf32>
// TF32:         } else {
// TF32:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}})
func.func @causal(%q: tensor<2x3x17x64xf32>, %k: tensor<2x3x40x64xf32>,
                  %v: tensor<2x3x40x64xf32>) -> tensor<2x3x17x64xf32> {
  %o = rlx.attention %q, %k, %v {head_dim = 64 : i64,
      mask_kind = #rlx.mask<causal>, num_heads = 3 : i64}
      : tensor<2x3x17x64xf32>, tensor<2x3x40x64xf32>, tensor<2x3x40x64xf32>
  return %o : tensor<2x3x17x64xf32>
}

// -----

// Packed heads, a key-padding mask, bf16, a soft cap and a dynamic batch
// keep their attributes; the sizes come from the buffers at run time.
// 16-bit elements and a head dim in steps of 16 get the tensor-core kernel
// (a block per 128 rows, two tiles of 16 rows per warp, 128 threads, key
// and value tiles [64, 48 + 8] in shared memory filled by cp.async and read
// with ldmatrix, bf16 mma.sync) when the four buffers are 16-byte aligned,
// and the warp-per-row kernel otherwise. The first key tile is copied before the loop; in each step the
// values are copied after the wait for the keys, the next keys after the
// wait for the values.

// FORM-LABEL: func.func @packed_custom
// FORM:         %[[B:.*]] = tensor.dim %arg0, %c0
// FORM:         %[[INIT:.*]] = tensor.empty(%[[B]]) : tensor<?x5x96xbf16>
// FORM:         rlx_cuda.flash_attention ins(%arg0, %arg1, %arg2 mask %arg3 : tensor<?x5x96xbf16>, tensor<?x9x96xbf16>, tensor<?x9x96xbf16>, tensor<?x9xbf16>) outs(%[[INIT]] : tensor<?x5x96xbf16>) {attn_logit_softcap = 3.000000e+01 : f32, head_dim = 48 : i64, mask_kind = #rlx.mask<custom>, num_heads = 2 : i64, score_scale = 5.000000e-01 : f32}

// LOWER-LABEL: func.func @packed_custom
// LOWER:         %[[BATCH:.*]] = memref.dim %arg0, %c0
// LOWER-COUNT-4: memref.extract_aligned_pointer_as_index
// LOWER:         scf.if
// LOWER:           arith.ceildivui {{.*}}, %c128 : index
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}) workgroup({{.*}} : memref<64x56xbf16, #gpu.address_space<workgroup>>, {{.*}} : memref<64x56xbf16, #gpu.address_space<workgroup>>)
// LOWER:             nvgpu.device_async_copy %arg1{{.*}}, 8, {{.*}} {bypassL1} : memref<?x9x96xbf16> to memref<64x56xbf16, #gpu.address_space<workgroup>>
// LOWER:             nvgpu.device_async_create_group
// LOWER:             scf.for
// LOWER:               nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// LOWER-NEXT:          gpu.barrier
// LOWER:               nvgpu.device_async_copy %arg2{{.*}}, 8, {{.*}} {bypassL1}
// LOWER:             nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// LOWER:             nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// LOWER:             math.tanh
// LOWER:             arith.cmpf oge
// LOWER:             math.exp2
// LOWER:               nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// LOWER-NEXT:          gpu.barrier
// LOWER:               scf.if
// LOWER:                 nvgpu.device_async_copy %arg1{{.*}}, 8, {{.*}} {bypassL1}
// LOWER:             nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// LOWER:             arith.truncf {{.*}} : f32 to bf16
// LOWER:         } else {
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}})
// LOWER:             math.tanh
// LOWER:             arith.cmpf oge
// LOWER:             arith.truncf {{.*}} : f32 to bf16
func.func @packed_custom(%q: tensor<?x5x96xbf16>, %k: tensor<?x9x96xbf16>,
                         %v: tensor<?x9x96xbf16>, %m: tensor<?x9xbf16>)
    -> tensor<?x5x96xbf16> {
  %o = rlx.attention %q, %k, %v mask %m : tensor<?x9xbf16> {head_dim = 48 : i64,
      mask_kind = #rlx.mask<custom>, num_heads = 2 : i64,
      score_scale = 0.5 : f32, attn_logit_softcap = 30.0 : f32}
      : tensor<?x5x96xbf16>, tensor<?x9x96xbf16>, tensor<?x9x96xbf16>
  return %o : tensor<?x5x96xbf16>
}

// -----

// f64 and heads wider than 128 stay rlx.attention for the generic lowering.

// FORM-LABEL: func.func @not_fused
// FORM-NOT:     rlx_cuda.flash_attention
// FORM:         rlx.attention {{.*}} : tensor<1x1x4x8xf64>
// FORM:         rlx.attention {{.*}} : tensor<1x1x4x256xf32>
// LOWER-LABEL: func.func @not_fused
// LOWER-NOT:     gpu.launch
func.func @not_fused(%q: tensor<1x1x4x8xf64>, %w: tensor<1x1x4x256xf32>)
    -> (tensor<1x1x4x8xf64>, tensor<1x1x4x256xf32>) {
  %a = rlx.attention %q, %q, %q {head_dim = 8 : i64,
      mask_kind = #rlx.mask<none>, num_heads = 1 : i64}
      : tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>, tensor<1x1x4x8xf64>
  %b = rlx.attention %w, %w, %w {head_dim = 256 : i64,
      mask_kind = #rlx.mask<none>, num_heads = 1 : i64}
      : tensor<1x1x4x256xf32>, tensor<1x1x4x256xf32>, tensor<1x1x4x256xf32>
  return %a, %b : tensor<1x1x4x8xf64>, tensor<1x1x4x256xf32>
}

// -----

// Heads split off a packed QKV projection (narrow, reshape, transpose
// [0, 2, 1, 3]) are read from the projection in place: the kernel takes the
// narrows as slices, [B, S, H * D] views at a row stride of 3 H D (the
// lowering of rlx.narrow would copy), and its packed result replaces the
// merge of the heads (transpose back, reshape); the split chains are gone.
// Bufferized, the views are subviews of the projection, and the tensor-core
// kernel checks the alignment of their offsets and row strides at run time.
// FORM-LABEL: func.func @split_heads
// FORM-SAME:    (%[[QKV:.*]]: tensor<2x16x384xf16>
// FORM-DAG:     %[[Q:.*]] = tensor.extract_slice %[[QKV]][0, 0, 0] [2, 16, 128] [1, 1, 1]
// FORM-DAG:     %[[K:.*]] = tensor.extract_slice %[[QKV]][0, 0, 128] [2, 16, 128] [1, 1, 1]
// FORM-DAG:     %[[V:.*]] = tensor.extract_slice %[[QKV]][0, 0, 256] [2, 16, 128] [1, 1, 1]
// FORM-NOT:     rlx.narrow
// FORM:         %[[O:.*]] = rlx_cuda.flash_attention ins(%[[Q]], %[[K]], %[[V]] : tensor<2x16x128xf16>, tensor<2x16x128xf16>, tensor<2x16x128xf16>) outs(%{{.*}} : tensor<2x16x128xf16>) {head_dim = 64 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64
// FORM-NOT:     rlx.transpose
// FORM-NOT:     rlx.reshape
// FORM:         return %[[O]] : tensor<2x16x128xf16>
// LOWER-LABEL: func.func @split_heads
// LOWER-NOT:     memref.copy
// LOWER-COUNT-3: memref.subview {{.*}} to memref<2x16x128xf16, strided<[6144, 384, 1]{{(, offset: [0-9]+)?}}>>
// LOWER-NOT:     memref.copy
// LOWER:         memref.extract_strided_metadata
// LOWER:         scf.if
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}})
// LOWER:             nvgpu.ldmatrix
// LOWER:             nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// LOWER:         } else {
func.func @split_heads(%qkv: tensor<2x16x384xf16> {rlx.input = "qkv"}) -> tensor<2x16x128xf16> {
  %q0 = rlx.narrow %qkv axis = 2 start = 0 len = 128 : tensor<2x16x384xf16>
  %k0 = rlx.narrow %qkv axis = 2 start = 128 len = 128 : tensor<2x16x384xf16>
  %v0 = rlx.narrow %qkv axis = 2 start = 256 len = 128 : tensor<2x16x384xf16>
  %q1 = rlx.reshape %q0 new_shape = [2, 16, 2, 64] : tensor<2x16x128xf16>
  %k1 = rlx.reshape %k0 new_shape = [2, 16, 2, 64] : tensor<2x16x128xf16>
  %v1 = rlx.reshape %v0 new_shape = [2, 16, 2, 64] : tensor<2x16x128xf16>
  %q = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<2x16x2x64xf16>
  %k = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<2x16x2x64xf16>
  %v = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<2x16x2x64xf16>
  %a = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 64 : i64, mask_kind = #rlx.mask<causal>}
      : tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16>
  %a1 = rlx.transpose %a perm = [0, 2, 1, 3] : tensor<2x2x16x64xf16>
  %a2 = rlx.reshape %a1 new_shape = [2, 16, 128] : tensor<2x16x2x64xf16>
  return %a2 : tensor<2x16x128xf16>
}

// -----

// The heads' result used as it is: the packed result is split into heads
// again for that use.
// FORM-LABEL: func.func @split_heads_result_used
// FORM:         %[[O:.*]] = rlx_cuda.flash_attention ins({{.*}} : tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%{{.*}} : tensor<1x8x64xf32>)
// FORM:         %[[R:.*]] = rlx.reshape %[[O]] new_shape = [1, 8, 2, 32]
// FORM:         %[[T:.*]] = rlx.transpose %[[R]] perm = [0, 2, 1, 3]
// FORM:         return %[[T]] : tensor<1x2x8x32xf32>
func.func @split_heads_result_used(%q0: tensor<1x8x64xf32> {rlx.input = "q"}, %k0: tensor<1x8x64xf32> {rlx.input = "k"}, %v0: tensor<1x8x64xf32> {rlx.input = "v"}) -> tensor<1x2x8x32xf32> {
  %q1 = rlx.reshape %q0 new_shape = [1, 8, 2, 32] : tensor<1x8x64xf32>
  %k1 = rlx.reshape %k0 new_shape = [1, 8, 2, 32] : tensor<1x8x64xf32>
  %v1 = rlx.reshape %v0 new_shape = [1, 8, 2, 32] : tensor<1x8x64xf32>
  %q = rlx.transpose %q1 perm = [0, 2, 1, 3] : tensor<1x8x2x32xf32>
  %k = rlx.transpose %k1 perm = [0, 2, 1, 3] : tensor<1x8x2x32xf32>
  %v = rlx.transpose %v1 perm = [0, 2, 1, 3] : tensor<1x8x2x32xf32>
  %a = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 32 : i64, mask_kind = #rlx.mask<none>}
      : tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>
  return %a : tensor<1x2x8x32xf32>
}

// -----

// f16 at head dim 128: two row tiles per warp (128 query rows a block) with
// the block's query rows as a third shared tile, read back by ldmatrix at
// every K step; key and value tiles of 32 rows. The three tiles (2 x 8704
// and 34816 bytes, 128-byte aligned) take 52224 bytes of dynamic shared
// memory, carved by memref.view; the query rows arrive by cp.async before
// the first key tile.

// LOWER-LABEL: func.func @query_tile_in_shared_memory
// LOWER:         scf.if
// LOWER:           arith.ceildivui {{.*}}, %c128 : index
// LOWER:           %[[BYTES:.*]] = arith.constant 52224 : i32
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c128{{.*}}) dynamic_shared_memory_size %[[BYTES]]
// LOWER:             %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// LOWER:             memref.view %[[SHARED]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x136xf16, #gpu.address_space<workgroup>>
// LOWER:             memref.view %[[SHARED]][%c8704{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x136xf16, #gpu.address_space<workgroup>>
// LOWER:             %[[QTILE:.*]] = memref.view %[[SHARED]][%c17408{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x136xf16, #gpu.address_space<workgroup>>
// LOWER:             nvgpu.device_async_copy %arg0{{.*}}, %[[QTILE]]
// LOWER:             nvgpu.device_async_create_group
// LOWER:             nvgpu.device_async_copy %arg1
// LOWER:             scf.for
// LOWER:               nvgpu.ldmatrix %[[QTILE]]{{.*}} {numTiles = 4 : i32, transpose = false}
// LOWER:               nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
func.func @query_tile_in_shared_memory(%q: tensor<2x4x300x128xf16>,
                                       %k: tensor<2x4x70x128xf16>,
                                       %v: tensor<2x4x70x128xf16>)
    -> tensor<2x4x300x128xf16> {
  %o = rlx.attention %q, %k, %v {head_dim = 128 : i64,
      mask_kind = #rlx.mask<none>, num_heads = 4 : i64}
      : tensor<2x4x300x128xf16>, tensor<2x4x70x128xf16>, tensor<2x4x70x128xf16>
  return %o : tensor<2x4x300x128xf16>
}

// -----

// Grouped-query attention: keys and values of 2 heads repeated for 8 query
// heads (transformers' repeat_kv: unsqueeze, expand, merge) are read
// unrepeated, kv_heads = 2; the repetition is erased, so no copy of the
// cache is made. Query head h reads key head h / 4: the kernels divide the
// head index by the group.

// FORM-LABEL: func.func @grouped_query
// FORM-SAME:    (%[[Q:.*]]: tensor<1x8x1x64xbf16>, %[[K:.*]]: tensor<1x2x256x64xbf16>, %[[V:.*]]: tensor<1x2x256x64xbf16>, %[[BIAS:.*]]: tensor<1x8x1x256xbf16>)
// FORM-NOT:     rlx.expand
// FORM:         rlx_cuda.flash_attention ins(%[[Q]], %[[K]], %[[V]] mask %[[BIAS]] : tensor<1x8x1x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x8x1x256xbf16>) outs(%{{.*}} : tensor<1x8x1x64xbf16>) {head_dim = 64 : i64, kv_heads = 2 : i64, mask_kind = #rlx.mask<bias>, num_heads = 8 : i64, score_scale = 1.250000e-01 : f32}
// FORM-NOT:     rlx.expand
// FORM-NOT:     rlx.reshape
// LOWER-LABEL: func.func @grouped_query
// LOWER-NOT:     memref.copy
// LOWER:         gpu.launch
// LOWER:           arith.remui
// LOWER:           arith.divui {{.*}}, %c4
// LOWER-NOT:     rlx_cuda.flash_attention
func.func @grouped_query(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x256x64xbf16>,
                         %v: tensor<1x2x256x64xbf16>,
                         %bias: tensor<1x8x1x256xbf16>) -> tensor<1x8x1x64xbf16> {
  %k1 = rlx.reshape %k new_shape = [1, 2, 1, 256, 64] : tensor<1x2x256x64xbf16>
  %k2 = rlx.expand %k1 target_shape = [1, 2, 4, 256, 64] : tensor<1x2x1x256x64xbf16>
  %k3 = rlx.reshape %k2 new_shape = [1, 8, 256, 64] : tensor<1x2x4x256x64xbf16>
  %v1 = rlx.reshape %v new_shape = [1, 2, 1, 256, 64] : tensor<1x2x256x64xbf16>
  %v2 = rlx.expand %v1 target_shape = [1, 2, 4, 256, 64] : tensor<1x2x1x256x64xbf16>
  %v3 = rlx.reshape %v2 new_shape = [1, 8, 256, 64] : tensor<1x2x4x256x64xbf16>
  %o = rlx.attention %q, %k3, %v3 mask %bias : tensor<1x8x1x256xbf16> {
      head_dim = 64 : i64, mask_kind = #rlx.mask<bias>, num_heads = 8 : i64}
      : tensor<1x8x1x64xbf16>, tensor<1x8x256x64xbf16>, tensor<1x8x256x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

// A repetition whose other use still needs it is kept for that use; the
// kernel reads the unrepeated keys all the same.

// FORM-LABEL: func.func @grouped_query_kept
// FORM:         rlx.expand
// FORM:         rlx_cuda.flash_attention ins(%{{.*}}, %arg1, %arg2 : {{.*}}) {{.*}}kv_heads = 2 : i64
func.func @grouped_query_kept(%q: tensor<1x4x3x16xf32>, %k: tensor<1x2x5x16xf32>,
                              %v: tensor<1x2x5x16xf32>)
    -> (tensor<1x4x3x16xf32>, tensor<1x4x5x16xf32>) {
  %k1 = rlx.reshape %k new_shape = [1, 2, 1, 5, 16] : tensor<1x2x5x16xf32>
  %k2 = rlx.expand %k1 target_shape = [1, 2, 2, 5, 16] : tensor<1x2x1x5x16xf32>
  %k3 = rlx.reshape %k2 new_shape = [1, 4, 5, 16] : tensor<1x2x2x5x16xf32>
  %v1 = rlx.reshape %v new_shape = [1, 2, 1, 5, 16] : tensor<1x2x5x16xf32>
  %v2 = rlx.expand %v1 target_shape = [1, 2, 2, 5, 16] : tensor<1x2x1x5x16xf32>
  %v3 = rlx.reshape %v2 new_shape = [1, 4, 5, 16] : tensor<1x2x2x5x16xf32>
  %o = rlx.attention %q, %k3, %v3 {head_dim = 16 : i64,
      mask_kind = #rlx.mask<none>, num_heads = 4 : i64}
      : tensor<1x4x3x16xf32>, tensor<1x4x5x16xf32>, tensor<1x4x5x16xf32>
  return %o, %k3 : tensor<1x4x3x16xf32>, tensor<1x4x5x16xf32>
}
