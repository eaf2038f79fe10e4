// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=FORM
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels --split-input-file | FileCheck %s --check-prefix=LOWER

// softmax, layer_norm and rms_norm along the last axis become row kernels:
// one launch each, a block of 256 threads per row of the flattened leading
// dims (3 * 5 rows), the eight warps' partial states in shared memory (2
// values for softmax, 3 for Welford, 1 for a sum of squares), two sweeps
// over the row. Rows of 9000 f32 are read and written 4 elements (16 bytes)
// at a time when the buffers are 16-byte aligned (checked on the host), one
// at a time otherwise; they are longer than the 8 groups per thread kept in
// registers, so the second sweep reads the row again.

// FORM-LABEL: func.func @rows
// FORM:         rlx_cuda.softmax ins(%arg0 : tensor<3x5x9000xf32>) outs(%{{.*}} : tensor<3x5x9000xf32>) -> tensor<3x5x9000xf32>
// FORM:         rlx_cuda.norm ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%{{.*}}) {eps = 9.99999974E-6 : f32} -> tensor<3x5x9000xf32>
// FORM:         rlx_cuda.norm ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%{{.*}}) {eps = 9.99999974E-6 : f32, rms} -> tensor<3x5x9000xf32>

// LOWER-LABEL: func.func @rows
// LOWER-COUNT-2: memref.extract_aligned_pointer_as_index
// LOWER:         scf.if
// LOWER:         gpu.launch blocks({{.*}}) in ({{.*}} = %[[ROWS:.*]], {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup({{.*}} : memref<8x2xf32, #gpu.address_space<workgroup>>)
// LOWER:           scf.for {{.*}} iter_args({{.*}}) -> (f32, f32)
// LOWER:             vector.load %arg0{{.*}} {alignment = 16 : i64} : memref<3x5x9000xf32>, vector<4xf32>
// LOWER:             arith.maximumf
// LOWER:             math.exp
// LOWER:           gpu.shuffle  xor
// LOWER:           gpu.barrier
// LOWER:           scf.for
// LOWER:             arith.divf
// LOWER:             vector.store {{.*}} {alignment = 16 : i64} : memref<3x5x9000xf32>, vector<4xf32>
// LOWER:         } else {
// LOWER:         gpu.launch
// LOWER:             memref.load %arg0
// LOWER:             memref.store
// The norms check gamma's and beta's alignment with the row's and read
// them a group of 16 bytes at a time beside it.
// LOWER-COUNT-4: memref.extract_aligned_pointer_as_index
// LOWER:         scf.if
// LOWER:         gpu.launch {{.*}} workgroup({{.*}} : memref<8x3xf32, #gpu.address_space<workgroup>>)
// LOWER:           scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32)
// LOWER:           math.rsqrt
// LOWER:           scf.for
// LOWER:             vector.load %arg1{{.*}} {alignment = 16 : i64} : memref<9000xf32>, vector<4xf32>
// LOWER:             vector.load %arg2{{.*}} {alignment = 16 : i64} : memref<9000xf32>, vector<4xf32>
// LOWER:             math.fma
// LOWER:         gpu.launch {{.*}} workgroup({{.*}} : memref<8x3xf32, #gpu.address_space<workgroup>>)
// LOWER:           scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32)
// LOWER:           math.rsqrt
// LOWER:             memref.load %arg1
// LOWER:         gpu.launch {{.*}} workgroup({{.*}} : memref<8x1xf32, #gpu.address_space<workgroup>>)
// LOWER:           scf.for {{.*}} iter_args({{.*}}) -> (f32)
// LOWER:           math.rsqrt
// LOWER-NOT:     linalg.
func.func @rows(%x: tensor<3x5x9000xf32>, %g: tensor<9000xf32>,
                %b: tensor<9000xf32>)
    -> (tensor<3x5x9000xf32>, tensor<3x5x9000xf32>, tensor<3x5x9000xf32>) {
  %0 = rlx.softmax %x {axis = -1 : i64} : tensor<3x5x9000xf32>
  %1 = rlx.layer_norm %x, %g, %b {axis = 2 : i64, eps = 1.0e-05 : f32}
      : tensor<3x5x9000xf32>, tensor<9000xf32>, tensor<9000xf32>
  %2 = rlx.rms_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32}
      : tensor<3x5x9000xf32>, tensor<9000xf32>, tensor<9000xf32>
  return %0, %1, %2
      : tensor<3x5x9000xf32>, tensor<3x5x9000xf32>, tensor<3x5x9000xf32>
}

// -----

// Rows of 1000 f32 kept in registers. 16-byte aligned: 250 groups of 4,
// at most 8 per lane of a warp, so each warp takes a row (8 rows per block
// of 256 threads, 64 / 8 blocks; 64 rows or more, see @few_rows), its reductions warp shuffles only,
// without barriers. Unaligned: 1000 single elements, 4 per thread of a
// block per row. Either way the sweeps are unrolled, the row is loaded
// once, and a thread stores its results only for groups inside the row.
// From registers, softmax takes the row's maximum, then its sum of
// exponentials (one exponential per element instead of the online fold's
// two), and layer norm its mean, then its squared deviations (no division
// per element): two reductions each.

// LOWER-LABEL: func.func @cached_rows
// LOWER:         scf.if
// LOWER:           arith.ceildivui %{{.*}}, %c8
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}})
// LOWER-NOT:         scf.for
// LOWER-NOT:         gpu.barrier
// LOWER-COUNT-8:     vector.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<8x8x1000xf32>, vector<4xf32>
// LOWER-NOT:         gpu.barrier
// LOWER:             arith.maximumf
// LOWER-NOT:         gpu.barrier
// LOWER:             gpu.shuffle  xor
// LOWER-NOT:         gpu.barrier
// LOWER:             math.exp
// LOWER-NOT:         gpu.barrier
// LOWER:             scf.if
// LOWER:               math.exp
// LOWER:               arith.divf
// LOWER:               vector.store {{.*}} {alignment = 16 : i64} : memref<8x8x1000xf32>, vector<4xf32>
// LOWER:         } else {
// LOWER:           gpu.launch
// LOWER-NOT:         scf.for
// LOWER-COUNT-4:     memref.load %arg0
// LOWER:             gpu.barrier
// LOWER-NOT:         memref.load %arg0
// LOWER:             memref.store
// LOWER:         gpu.launch {{.*}} workgroup({{.*}} : memref<8x3xf32, #gpu.address_space<workgroup>>)
// LOWER:           vector.load %arg0
// LOWER-NOT:       arith.divf
// LOWER:           gpu.shuffle  xor
// LOWER:           arith.divf
// LOWER-NOT:       arith.divf
// LOWER:           gpu.shuffle  xor
// LOWER:           math.rsqrt
func.func @cached_rows(%x: tensor<8x8x1000xf32>, %g: tensor<1000xf32>,
                       %b: tensor<1000xf32>)
    -> (tensor<8x8x1000xf32>, tensor<8x8x1000xf32>) {
  %0 = rlx.softmax %x {axis = -1 : i64} : tensor<8x8x1000xf32>
  %1 = rlx.layer_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32}
      : tensor<8x8x1000xf32>, tensor<1000xf32>, tensor<1000xf32>
  return %0, %1 : tensor<8x8x1000xf32>, tensor<8x8x1000xf32>
}

// -----

// Other axes and f64 keep the generic lowering.

// FORM-LABEL: func.func @generic
// FORM-NOT:     rlx_cuda
// FORM:         rlx.softmax %arg0 {axis = 0 : i64}
// FORM:         rlx.softmax %arg1 {axis = -1 : i64} : tensor<4x8xf64>
// LOWER-LABEL: func.func @generic
// LOWER:         linalg.generic
func.func @generic(%x: tensor<4x8xf32>, %y: tensor<4x8xf64>)
    -> (tensor<4x8xf32>, tensor<4x8xf64>) {
  %0 = rlx.softmax %x {axis = 0 : i64} : tensor<4x8xf32>
  %1 = rlx.softmax %y {axis = -1 : i64} : tensor<4x8xf64>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf64>
}

// -----

// The layer norm's input gradient along the last axis is a row kernel too:
// one sweep folds Welford's state of x with sum(g dy) and the shifted
// sum(g dy (x - x[0])), the second writes dx (64 rows of 96: a warp per row,
// 24 groups of 4 kept in registers, reduced by shuffles alone). Along
// another axis, and for gamma, the backward ops become primitives.

// FORM-LABEL: func.func @norm_backward
// FORM:         rlx_cuda.norm_backward_input ins(%arg0, %arg1, %arg2 : tensor<64x96xf32>, tensor<96xf32>, tensor<64x96xf32>) outs(%{{.*}} : tensor<64x96xf32>) {eps = 9.99999974E-6 : f32} -> tensor<64x96xf32>
// FORM-NOT:     rlx.layer_norm_backward_gamma
// FORM:         rlx.reduce
// FORM-NOT:     rlx.layer_norm_backward

// LOWER-LABEL: func.func @norm_backward
// LOWER:         gpu.launch {{.*}} workgroup({{.*}} : memref<8x5xf32, #gpu.address_space<workgroup>>)
// LOWER:           scf.if {{.*}} -> (f32)
// LOWER-NOT:       scf.for
// LOWER:           vector.load %arg0{{.*}} {alignment = 16 : i64} : memref<64x96xf32>, vector<4xf32>
// LOWER:           memref.load %arg1
// LOWER:           memref.load %arg2
// LOWER-NOT:       gpu.barrier
// LOWER:           gpu.shuffle  xor
// LOWER-NOT:       gpu.barrier
// LOWER:           math.rsqrt
// LOWER:           scf.if
// LOWER:             vector.store {{.*}} {alignment = 16 : i64} : memref<64x96xf32>, vector<4xf32>
func.func @norm_backward(%x: tensor<64x96xf32>, %g: tensor<96xf32>, %dy: tensor<64x96xf32>) -> (tensor<64x96xf32>, tensor<96xf32>) {
  %dx = rlx.layer_norm_backward_input %x, %g, %dy {axis = -1 : i64, eps = 1.0e-5 : f32} : tensor<64x96xf32>, tensor<96xf32>, tensor<64x96xf32>
  %dg = rlx.layer_norm_backward_gamma %x, %dy {axis = -1 : i64, eps = 1.0e-5 : f32} : tensor<64x96xf32>, tensor<64x96xf32>
  return %dx, %dg : tensor<64x96xf32>, tensor<96xf32>
}

// -----

// FORM-LABEL: func.func @norm_backward_first_axis
// FORM-NOT:     rlx_cuda.norm_backward_input
// FORM-NOT:     rlx.layer_norm_backward_input
// FORM:         return
func.func @norm_backward_first_axis(%x: tensor<4x96xf32>, %g: tensor<4xf32>, %dy: tensor<4x96xf32>) -> tensor<4x96xf32> {
  %dx = rlx.layer_norm_backward_input %x, %g, %dy {axis = 0 : i64, eps = 1.0e-5 : f32} : tensor<4x96xf32>, tensor<4xf32>, tensor<4x96xf32>
  return %dx : tensor<4x96xf32>
}

// -----

// Rows of 65536 f32 (16384 groups of 16 bytes) split over a cluster of 8
// blocks, each keeping its slice (8 groups per thread) in registers: 8
// blocks per row, launched as clusters of 8. Each reduction (the maximum,
// then the sum of exponentials) goes across the cluster: each block's thread
// 0 leaves the block's value in shared memory, a cluster barrier, every
// thread reads the 8 blocks' values through distributed shared memory, a
// second barrier.

// LOWER-LABEL: func.func @cluster_rows
// LOWER:         arith.muli %{{.*}}, %c8 : index
// LOWER:         gpu.launch clusters({{.*}}) in ({{.*}} = %c8{{.*}}, {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}}) blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup({{.*}} : memref<8x2xf32, #gpu.address_space<workgroup>>, {{.*}} : memref<2xf32, #gpu.address_space<workgroup>>)
// LOWER-COUNT-8: vector.load %arg0{{.*}} {alignment = 16 : i64} : memref<6x65536xf32>, vector<4xf32>
// LOWER:         nvvm.cluster.arrive {aligned}
// LOWER-NEXT:    nvvm.cluster.wait {aligned}
// LOWER-COUNT-8: nvvm.mapa {{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// LOWER:         nvvm.cluster.arrive {aligned}
// LOWER-NEXT:    nvvm.cluster.wait {aligned}
// LOWER:         math.exp
// LOWER:         nvvm.cluster.arrive {aligned}
// LOWER-COUNT-8: vector.store {{.*}} {alignment = 16 : i64} : memref<6x65536xf32>, vector<4xf32>
func.func @cluster_rows(%x: tensor<6x65536xf32>) -> tensor<6x65536xf32> {
  %0 = rlx.softmax %x {axis = 1 : i64} : tensor<6x65536xf32>
  return %0 : tensor<6x65536xf32>
}

// -----

// Fewer than 64 rows (a decode step's norms: one row per sequence): a
// block per row even where a warp could keep it, so that each thread waits
// for one 16-byte load, not eight, and the reduction crosses the block's
// warps through shared memory. 2048 bf16 are 256 groups of 8: one per
// thread.

// LOWER-LABEL: func.func @few_rows
// LOWER:         scf.if
// LOWER:           gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c256{{.*}}) workgroup({{.*}} : memref<8x1xf32, #gpu.address_space<workgroup>>)
// LOWER-NOT:         scf.for
// LOWER-COUNT-1:     vector.load %arg0{{.*}} {alignment = 16 : i64} : memref<1x1x2048xbf16>, vector<8xbf16>
// LOWER-NOT:         vector.load %arg0
// LOWER:             gpu.shuffle  xor
// LOWER:             gpu.barrier
// LOWER:             math.rsqrt
// LOWER:             vector.store {{.*}} {alignment = 16 : i64} : memref<1x1x2048xbf16>, vector<8xbf16>
func.func @few_rows(%x: tensor<1x1x2048xbf16>, %g: tensor<2048xbf16>,
                    %b: tensor<2048xbf16>) -> tensor<1x1x2048xbf16> {
  %0 = rlx.rms_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-05 : f32}
      : tensor<1x1x2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>
  return %0 : tensor<1x1x2048xbf16>
}
