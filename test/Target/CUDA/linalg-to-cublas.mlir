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

// Integer GEMMs, mixed element types, transposed indexing and strided rows
// stay loops.
// CHECK-LABEL: func.func @stay_loops
// CHECK-NOT:     call
// CHECK-COUNT-4: linalg.matmul
func.func @stay_loops(%ai: memref<8x8xi32>, %ci: memref<8x8xi32>,
                      %ah: memref<8x8xf16>, %c: memref<8x8xf32>,
                      %a: memref<8x8xf32>,
                      %s: memref<8x8xf32, strided<[16, 2]>>) {
  linalg.matmul ins(%ai, %ai : memref<8x8xi32>, memref<8x8xi32>)
                outs(%ci : memref<8x8xi32>)
  linalg.matmul ins(%ah, %ah : memref<8x8xf16>, memref<8x8xf16>)
                outs(%c : memref<8x8xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>)
                outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%s, %a : memref<8x8xf32, strided<[16, 2]>>, memref<8x8xf32>)
                outs(%c : memref<8x8xf32>)
  return
}

// A buffer a GEMM writes is a device buffer; the call runs on the host.
// DEVICE-LABEL: func.func @through_temporary
// DEVICE:         %[[T:.*]] = gpu.alloc () : memref<16x16xf32>
// DEVICE:         gpu.launch
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
