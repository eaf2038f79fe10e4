// RUN: rlx-opt %s --rlx-cuda-linalg-to-cublas | FileCheck %s
// RUN: rlx-opt %s --rlx-cuda-linalg-to-cublas=allow-tf32 | FileCheck %s --check-prefix=TF32
// RUN: rlx-opt %s --rlx-cuda-linalg-to-cublas --rlx-cuda-map-to-gpu | FileCheck %s --check-prefix=DEVICE

// The runtime entry points take memref descriptors (C interface) and a
// flags word; their buffers are device buffers.
// CHECK-DAG: func.func private @rlx_cuda_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// CHECK-DAG: func.func private @rlx_cuda_batch_matmul_bf16(memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, {{.*}}, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}

// CHECK-LABEL: func.func @gemm
// CHECK:         %[[A:.*]] = memref.cast %arg0 : memref<128x64xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[B:.*]] = memref.cast %arg1
// CHECK:         %[[C:.*]] = memref.cast %arg2
// CHECK:         %[[FLAGS:.*]] = arith.constant 0 : i32
// CHECK:         call @rlx_cuda_matmul_f32(%[[A]], %[[B]], %[[C]], %[[FLAGS]])
// CHECK-NOT:     linalg.matmul
// TF32-LABEL:  func.func @gemm
// TF32:          arith.constant 1 : i32
// TF32:          call @rlx_cuda_matmul_f32
func.func @gemm(%a: memref<128x64xf32>, %b: memref<64x32xf32>,
                %c: memref<128x32xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x32xf32>)
                outs(%c : memref<128x32xf32>)
  return
}

// CHECK-LABEL: func.func @batched_bf16
// CHECK:         call @rlx_cuda_batch_matmul_bf16
func.func @batched_bf16(%a: memref<4x8x16xbf16>, %b: memref<4x16x8xbf16>,
                        %c: memref<4x8x8xbf16>) {
  linalg.batch_matmul ins(%a, %b : memref<4x8x16xbf16>, memref<4x16x8xbf16>)
                      outs(%c : memref<4x8x8xbf16>)
  return
}

// f16/bf16 operands accumulated into an f32 product (the half matmul
// lowering's form) call the mixed entry point.
// CHECK-LABEL: func.func @half_into_f32
// CHECK:         call @rlx_cuda_matmul_bf16_f32({{.*}}) : (memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) -> ()
// CHECK:         call @rlx_cuda_batch_matmul_f16_f32
// CHECK-NOT:     linalg.
func.func @half_into_f32(%a: memref<32x16xbf16>, %b: memref<16x8xbf16>,
                         %c: memref<32x8xf32>, %ha: memref<2x4x8xf16>,
                         %hb: memref<2x8x4xf16>, %hc: memref<2x4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<32x16xbf16>, memref<16x8xbf16>)
                outs(%c : memref<32x8xf32>)
  linalg.batch_matmul ins(%ha, %hb : memref<2x4x8xf16>, memref<2x8x4xf16>)
                      outs(%hc : memref<2x4x4xf32>)
  return
}

// An operand read through a transposed indexing map is passed as a
// transposed view of its buffer (unit row stride), which the runtime has
// cuBLAS read transposed; so is an operand that is such a view already.
// CHECK-LABEL: func.func @transposed
// CHECK:         %[[AT:.*]] = memref.transpose %arg0 (d0, d1) -> (d1, d0) : memref<16x32xf32> to memref<32x16xf32, strided<[1, 32]>>
// CHECK:         %[[BT:.*]] = memref.transpose %arg1 (d0, d1) -> (d1, d0) : memref<8x16xf32> to memref<16x8xf32, strided<[1, 16]>>
// CHECK:         %[[A:.*]] = memref.cast %[[AT]]
// CHECK:         %[[B:.*]] = memref.cast %[[BT]]
// CHECK:         call @rlx_cuda_matmul_f32(%[[A]], %[[B]], {{.*}})
// CHECK:         memref.transpose %arg3 (d0, d1, d2) -> (d0, d2, d1) : memref<2x4x8xbf16> to memref<2x8x4xbf16, strided<[32, 1, 8]>>
// CHECK:         call @rlx_cuda_batch_matmul_bf16
// CHECK-NOT:     memref.transpose
// CHECK:         memref.cast %arg6 : memref<32x16xf32, strided<[1, 32]>> to
// CHECK:         call @rlx_cuda_matmul_f32
// CHECK-NOT:     linalg.
func.func @transposed(%a: memref<16x32xf32>, %b: memref<8x16xf32>,
                      %c: memref<32x8xf32>, %bb: memref<2x4x8xbf16>,
                      %ba: memref<2x4x8xbf16>, %bc: memref<2x4x4xbf16>,
                      %view: memref<32x16xf32, strided<[1, 32]>>,
                      %b2: memref<16x8xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %b : memref<16x32xf32>, memref<8x16xf32>)
                outs(%c : memref<32x8xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                       affine_map<(b, m, n, k) -> (b, n, k)>,
                                       affine_map<(b, m, n, k) -> (b, m, n)>]
                      ins(%ba, %bb : memref<2x4x8xbf16>, memref<2x4x8xbf16>)
                      outs(%bc : memref<2x4x4xbf16>)
  linalg.matmul ins(%view, %b2 : memref<32x16xf32, strided<[1, 32]>>, memref<16x8xf32>)
                outs(%c : memref<32x8xf32>)
  return
}

// Integer GEMMs, an f32 operand beside a half one, rows of neither unit
// stride, a leading stride shorter than the rows (overlapping rows) and a
// transposed product stay loops.
// CHECK-LABEL: func.func @stay_loops
// CHECK-NOT:     call
// CHECK-NOT:     memref.transpose
// CHECK-COUNT-5: linalg.matmul
func.func @stay_loops(%ai: memref<8x8xi32>, %ci: memref<8x8xi32>,
                      %ah: memref<8x8xf16>, %c: memref<8x8xf32>,
                      %a: memref<8x8xf32>,
                      %s: memref<8x8xf32, strided<[16, 2]>>,
                      %o: memref<8x8xf32, strided<[4, 1]>>,
                      %ct: memref<8x8xf32, strided<[1, 8]>>) {
  linalg.matmul ins(%ai, %ai : memref<8x8xi32>, memref<8x8xi32>)
                outs(%ci : memref<8x8xi32>)
  linalg.matmul ins(%a, %ah : memref<8x8xf32>, memref<8x8xf16>)
                outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%s, %a : memref<8x8xf32, strided<[16, 2]>>, memref<8x8xf32>)
                outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%o, %a : memref<8x8xf32, strided<[4, 1]>>, memref<8x8xf32>)
                outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>)
                outs(%ct : memref<8x8xf32, strided<[1, 8]>>)
  return
}

// A buffer a GEMM writes is a device buffer; the call runs on the host.
// DEVICE-LABEL: func.func @through_temporary
// DEVICE:         %[[T:.*]] = gpu.alloc () : memref<16x16xf32>
// DEVICE-NOT:     gpu.launch
// DEVICE:         %[[TC:.*]] = memref.cast %[[T]]
// DEVICE:         call @rlx_cuda_matmul_f32({{.*}}, {{.*}}, %[[TC]], {{.*}})
// DEVICE:         gpu.launch
// DEVICE:         gpu.dealloc %[[T]]
func.func @through_temporary(%a: memref<16x16xf32>, %out: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<16x16xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<16x16xf32>)
  linalg.matmul ins(%a, %a : memref<16x16xf32>, memref<16x16xf32>)
                outs(%t : memref<16x16xf32>)
  memref.copy %t, %out : memref<16x16xf32> to memref<16x16xf32>
  memref.dealloc %t : memref<16x16xf32>
  return
}

// The product's zero fill goes: the GEMM overwrites it (flag 4,
// RLX_CUDA_GEMM_OVERWRITE), and so does a copy of zeros into it (the fill
// copied stays, its buffer being the caller's). A product that was not
// zeroed is still accumulated into.
// CHECK-LABEL: func.func @zero_fill
// CHECK-NOT:     linalg.fill
// CHECK:         %[[OVERWRITE:.*]] = arith.constant 4 : i32
// CHECK:         call @rlx_cuda_matmul_f32({{.*}}, {{.*}}, {{.*}}, %[[OVERWRITE]])
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%arg2
// CHECK-NOT:     memref.copy
// CHECK:         %[[FLAGS:.*]] = arith.constant 4 : i32
// CHECK:         call @rlx_cuda_matmul_f32({{.*}}, {{.*}}, {{.*}}, %[[FLAGS]])
// CHECK:         %[[ACCUMULATE:.*]] = arith.constant 0 : i32
// CHECK:         call @rlx_cuda_matmul_f32({{.*}}, {{.*}}, {{.*}}, %[[ACCUMULATE]])
func.func @zero_fill(%a: memref<16x16xf32>, %c: memref<16x16xf32>,
                     %d: memref<16x16xf32>, %e: memref<16x16xf32>,
                     %f: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<16x16xf32>)
  linalg.matmul ins(%a, %a : memref<16x16xf32>, memref<16x16xf32>)
                outs(%c : memref<16x16xf32>)
  // Bufferization shares one fill between products of a shape: a copy of
  // zeros initialises the second.
  linalg.fill ins(%zero : f32) outs(%d : memref<16x16xf32>)
  memref.copy %d, %e : memref<16x16xf32> to memref<16x16xf32>
  linalg.matmul ins(%a, %a : memref<16x16xf32>, memref<16x16xf32>)
                outs(%e : memref<16x16xf32>)
  linalg.matmul ins(%a, %a : memref<16x16xf32>, memref<16x16xf32>)
                outs(%f : memref<16x16xf32>)
  return
}

// A bf16 product accumulated in f32 and only rounded (the half matmul
// lowering) is written in bf16 by the GEMM: into the rounding's output
// when that is all that reads it, else into a bf16 buffer that the readers,
// which rounded it first, take as it is.
// CHECK-LABEL: func.func @rounded_product
// CHECK-NOT:     memref<1x512xf32>
// CHECK:         %[[OUT:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : memref<1x1x512xbf16> into memref<1x512xbf16>
// CHECK:         %[[OUTC:.*]] = memref.cast %[[OUT]]
// CHECK:         call @rlx_cuda_matmul_bf16({{.*}}, {{.*}}, %[[OUTC]], {{.*}})
// CHECK:         %[[HALF:.*]] = memref.alloc() : memref<1x512xbf16>
// CHECK:         %[[HALFC:.*]] = memref.cast %[[HALF]]
// CHECK:         call @rlx_cuda_matmul_bf16({{.*}}, {{.*}}, %[[HALFC]], {{.*}})
// CHECK:         %[[VIEW:.*]] = memref.expand_shape %[[HALF]]
// CHECK:         linalg.generic {{.*}} ins(%[[VIEW]] : memref<1x1x512xbf16>) outs(%arg3 : memref<1x1x512xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT:      arith.extf %[[IN]] : bf16 to f32
// CHECK:         memref.dealloc %[[HALF]] : memref<1x512xbf16>
// CHECK-NOT:     linalg.generic
func.func @rounded_product(%x: memref<1x2048xbf16>, %w: memref<2048x512xbf16>,
                           %y: memref<1x1x512xbf16>, %z: memref<1x1x512xbf16>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x512xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x512xf32>)
  linalg.matmul ins(%x, %w : memref<1x2048xbf16>, memref<2048x512xbf16>)
                outs(%p : memref<1x512xf32>)
  %pv = memref.expand_shape %p [[0, 1], [2]] output_shape [1, 1, 512]
      : memref<1x512xf32> into memref<1x1x512xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%pv : memref<1x1x512xf32>) outs(%y : memref<1x1x512xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %p : memref<1x512xf32>
  %q = memref.alloc() : memref<1x512xf32>
  linalg.fill ins(%zero : f32) outs(%q : memref<1x512xf32>)
  linalg.matmul ins(%x, %w : memref<1x2048xbf16>, memref<2048x512xbf16>)
                outs(%q : memref<1x512xf32>)
  %qv = memref.expand_shape %q [[0, 1], [2]] output_shape [1, 1, 512]
      : memref<1x512xf32> into memref<1x1x512xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%qv : memref<1x1x512xf32>) outs(%z : memref<1x1x512xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    %e = arith.extf %r : bf16 to f32
    %s = arith.mulf %e, %e : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %q : memref<1x512xf32>
  return
}

// A product read as f32 (not only rounded) stays f32.
// CHECK-LABEL: func.func @product_read_in_f32
// CHECK:         call @rlx_cuda_matmul_bf16_f32(
// CHECK:         linalg.generic
func.func @product_read_in_f32(%x: memref<1x2048xbf16>,
                               %w: memref<2048x512xbf16>,
                               %y: memref<1x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<1x512xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<1x512xf32>)
  linalg.matmul ins(%x, %w : memref<1x2048xbf16>, memref<2048x512xbf16>)
                outs(%p : memref<1x512xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<1x512xf32>) outs(%y : memref<1x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  }
  memref.dealloc %p : memref<1x512xf32>
  return
}

// The same for a product the rounding reads directly (no reshape between).
// CHECK-LABEL: func.func @rounded_product_2d
// CHECK-NOT:     memref.alloc
// CHECK:         %[[OUTC:.*]] = memref.cast %arg2
// CHECK:         call @rlx_cuda_matmul_bf16({{.*}}, {{.*}}, %[[OUTC]], {{.*}})
// CHECK-NOT:     linalg.generic
func.func @rounded_product_2d(%x: memref<16x64xbf16>, %w: memref<64x32xbf16>,
                              %y: memref<16x32xbf16>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<16x32xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<16x32xf32>)
  linalg.matmul ins(%x, %w : memref<16x64xbf16>, memref<64x32xbf16>)
                outs(%p : memref<16x32xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<16x32xf32>) outs(%y : memref<16x32xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  }
  memref.dealloc %p : memref<16x32xf32>
  return
}
