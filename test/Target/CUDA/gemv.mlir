// RUN: rlx-opt %s --rlx-cuda-linalg-to-cublas | FileCheck %s
// RUN: rlx-opt %s --rlx-cuda-linalg-to-cublas --rlx-cuda-map-to-gpu | FileCheck %s --check-prefix=DEVICE

// A row times a transposed weight (decode's x W^T), rounded once to bf16:
// with 8192 output columns a warp per column (8192 warps fill an H200)
// streams its weight row in 16-byte loads (the
// else branch, for rows that are not 16-byte aligned at run time, loads
// elements), the warp sums by xor shuffles and lane 0 writes the rounded
// dot. The zero fill goes: the kernel overwrites the product.
// CHECK-LABEL: func.func @decode_bf16
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     call @rlx_cuda_matmul
// CHECK:         %[[OUT:.*]] = memref.collapse_shape %arg2
// CHECK:         scf.if
// CHECK:           %[[BLOCKS:.*]] = arith.constant 1024 : index
// CHECK:           gpu.launch
// CHECK:             scf.for
// CHECK-COUNT-2:       vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<8192x2048xbf16>, vector<8xbf16>
// CHECK:               math.fma
// CHECK:             gpu.shuffle xor
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:             memref.store %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : memref<1x8192xbf16>
// CHECK:         } else {
// CHECK:           gpu.launch
// CHECK-NOT:         vector.load
// CHECK:             memref.load %arg1
// CHECK:             gpu.shuffle xor
// CHECK-NOT:     call @rlx_cuda_matmul
// CHECK-NOT:     linalg.generic
// CHECK:         return
// The buffers a GEMV kernel reads and writes are device buffers.
// DEVICE-LABEL: func.func @decode_bf16
// DEVICE:         gpu.launch
// DEVICE-NOT:     memref.alloc
// DEVICE:         return
func.func @decode_bf16(%x: memref<1x2048xbf16>, %w: memref<8192x2048xbf16>,
                       %y: memref<1x1x8192xbf16>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x8192xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x8192xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%x, %w : memref<1x2048xbf16>, memref<8192x2048xbf16>)
                outs(%p : memref<1x8192xf32>)
  %pv = memref.expand_shape %p [[0, 1], [2]] output_shape [1, 1, 8192]
      : memref<1x8192xf32> into memref<1x1x8192xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%pv : memref<1x1x8192xf32>) outs(%y : memref<1x1x8192xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %p : memref<1x8192xf32>
  return
}

// A product read in f32 is written in f32; three rows (an already
// transposed view of the weight) load three rows of A per step.
// CHECK-LABEL: func.func @f32_product
// CHECK-NOT:     linalg.fill
// CHECK-NOT:     call @rlx_cuda_matmul
// CHECK:         gpu.launch
// CHECK:           scf.for
// CHECK-COUNT-4:     vector.load {{.*}} : memref<3x1024xf16>, vector<8xf16>
// CHECK-NOT:       arith.truncf
// CHECK:           memref.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] : memref<3x8192xf32>
// CHECK:         linalg.generic
func.func @f32_product(%x: memref<3x1024xf16>, %w: memref<8192x1024xf16>,
                       %y: memref<3x8192xf32>, %z: memref<3x8192xf32>) {
  %zero = arith.constant 0.0 : f32
  %wt = memref.transpose %w (d0, d1) -> (d1, d0)
      : memref<8192x1024xf16> to memref<1024x8192xf16, strided<[1, 1024]>>
  linalg.fill ins(%zero : f32) outs(%y : memref<3x8192xf32>)
  linalg.matmul ins(%x, %wt : memref<3x1024xf16>, memref<1024x8192xf16, strided<[1, 1024]>>)
                outs(%y : memref<3x8192xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<3x8192xf32>) outs(%z : memref<3x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  }
  return
}

// 2048 output columns split each column's dot over 4 warps (a quarter of
// K each, 8192 warps in all): each warp's sums go to shared memory, and
// after the barrier lane 0 of the column's first warp adds the 4 in order.
// CHECK-LABEL: func.func @split_columns
// CHECK:         gpu.launch {{.*}} workgroup(%[[SUMS:.*]] : memref<8x1xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK:               vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<2048x2048xbf16>, vector<8xbf16>
// CHECK:             gpu.shuffle xor
// CHECK:             memref.store %{{.*}}, %[[SUMS]]
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK-COUNT-4:     memref.load %[[SUMS]]
// CHECK:             arith.truncf %{{.*}} : f32 to bf16
// CHECK:             memref.store %{{.*}}, %arg2
func.func @split_columns(%x: memref<1x2048xbf16>, %w: memref<2048x2048xbf16>,
                         %y: memref<1x2048xbf16>) {
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%y : memref<1x2048xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%x, %w : memref<1x2048xbf16>, memref<2048x2048xbf16>)
                outs(%y : memref<1x2048xbf16>)
  return
}

// Stay cuBLAS: 16 rows, K not a multiple of 8, B not transposed, a small
// product (N * K < 65536), a product that is accumulated into (no zero
// init), f32 operands.
// CHECK-LABEL: func.func @stay_cublas
// CHECK-NOT:     gpu.launch
// CHECK-COUNT-6: call @rlx_cuda_matmul_
// CHECK-NOT:     gpu.launch
func.func @stay_cublas(%x16: memref<16x2048xbf16>, %w: memref<512x2048xbf16>,
                       %y16: memref<16x512xbf16>,
                       %xo: memref<1x2044xbf16>, %wo: memref<512x2044xbf16>,
                       %x: memref<1x2048xbf16>, %wn: memref<2048x512xbf16>,
                       %y: memref<1x512xbf16>,
                       %ws: memref<16x2048xbf16>, %ys: memref<1x16xbf16>,
                       %xf: memref<1x2048xf32>, %wf: memref<512x2048xf32>,
                       %yf: memref<1x512xf32>) {
  %zero = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  linalg.fill ins(%zero : bf16) outs(%y16 : memref<16x512xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%x16, %w : memref<16x2048xbf16>, memref<512x2048xbf16>)
                outs(%y16 : memref<16x512xbf16>)
  linalg.fill ins(%zero : bf16) outs(%y : memref<1x512xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%xo, %wo : memref<1x2044xbf16>, memref<512x2044xbf16>)
                outs(%y : memref<1x512xbf16>)
  linalg.fill ins(%zero : bf16) outs(%y : memref<1x512xbf16>)
  linalg.matmul ins(%x, %wn : memref<1x2048xbf16>, memref<2048x512xbf16>)
                outs(%y : memref<1x512xbf16>)
  linalg.fill ins(%zero : bf16) outs(%ys : memref<1x16xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%x, %ws : memref<1x2048xbf16>, memref<16x2048xbf16>)
                outs(%ys : memref<1x16xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%x, %w : memref<1x2048xbf16>, memref<512x2048xbf16>)
                outs(%y : memref<1x512xbf16>)
  linalg.fill ins(%zf : f32) outs(%yf : memref<1x512xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%xf, %wf : memref<1x2048xf32>, memref<512x2048xf32>)
                outs(%yf : memref<1x512xf32>)
  return
}

// An elementwise op that is the product's only reader (a decode step's
// residual add, and what was fused into it) is computed by the GEMV in its
// place: the kernel stores the op's result at (m, n) from the rounded dot
// and the other operands' elements there (each viewed as [M, N]); the
// product is never written, and its buffer, the op and its kernel go. The
// op's output, allocated between the two, is allocated before the GEMV.
// CHECK-LABEL: func.func @residual_epilogue
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<1x1x2048xbf16>
// CHECK:         %[[X:.*]] = memref.expand_shape {{.*}} : memref<2048xbf16> into memref<1x2048xbf16>
// CHECK:         %[[Y:.*]] = memref.expand_shape {{.*}} : memref<2048xbf16> into memref<1x2048xbf16>
// CHECK:         gpu.launch
// CHECK:           gpu.shuffle xor
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           %[[XN:.*]] = memref.load %[[X]]
// CHECK:           arith.extf %[[XN]]
// CHECK:           arith.addf
// CHECK:           memref.store %{{.*}}, %[[Y]]
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     memref.alloc() {{.*}} : memref<1x2048xf32>
// CHECK:         return %[[OUT]]
func.func @residual_epilogue(%a: memref<1x2048xbf16>, %w: memref<2048x2048xbf16>,
                             %x: memref<1x1x2048xbf16>) -> memref<1x1x2048xbf16> {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x2048xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x2048xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %w : memref<1x2048xbf16>, memref<2048x2048xbf16>)
                outs(%p : memref<1x2048xf32>)
  %pv = memref.expand_shape %p [[0, 1], [2]] output_shape [1, 1, 2048]
      : memref<1x2048xf32> into memref<1x1x2048xf32>
  %y = memref.alloc() : memref<1x1x2048xbf16>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %pv : memref<1x1x2048xbf16>, memref<1x1x2048xf32>)
      outs(%y : memref<1x1x2048xbf16>) {
  ^bb0(%in: bf16, %prod: f32, %out: bf16):
    %r = arith.truncf %prod : f32 to bf16
    %e = arith.extf %in : bf16 to f32
    %f = arith.extf %r : bf16 to f32
    %s = arith.addf %e, %f : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %p : memref<1x2048xf32>
  return %y : memref<1x1x2048xbf16>
}

// The same op stays itself when something between the GEMM and it writes
// one of its operands, or when it reads the product at other points.
// CHECK-LABEL: func.func @epilogue_kept
// CHECK:         gpu.launch
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK:         gpu.launch
// CHECK:         linalg.generic
func.func @epilogue_kept(%a: memref<1x2048xbf16>, %w: memref<2048x2048xbf16>,
                         %x: memref<1x2048xbf16>, %y: memref<1x2048xbf16>,
                         %z: memref<2048x1xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : bf16
  %p = memref.alloc() : memref<1x2048xbf16>
  linalg.fill ins(%zero : bf16) outs(%p : memref<1x2048xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %w : memref<1x2048xbf16>, memref<2048x2048xbf16>)
                outs(%p : memref<1x2048xbf16>)
  linalg.fill ins(%one : bf16) outs(%x : memref<1x2048xbf16>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : memref<1x2048xbf16>, memref<1x2048xbf16>)
      outs(%y : memref<1x2048xbf16>) {
  ^bb0(%in: bf16, %prod: bf16, %out: bf16):
    %s = arith.addf %in, %prod : bf16
    linalg.yield %s : bf16
  }
  %q = memref.alloc() : memref<1x2048xbf16>
  linalg.fill ins(%zero : bf16) outs(%q : memref<1x2048xbf16>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %w : memref<1x2048xbf16>, memref<2048x2048xbf16>)
                outs(%q : memref<1x2048xbf16>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%q : memref<1x2048xbf16>) outs(%z : memref<2048x1xbf16>) {
  ^bb0(%prod: bf16, %out: bf16):
    linalg.yield %prod : bf16
  }
  return
}
