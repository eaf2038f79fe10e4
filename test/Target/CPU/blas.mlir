// RUN: rlx-opt %s --rlx-linalg-to-blas="min-flops=1000" | FileCheck %s
// RUN: rlx-opt %s --rlx-linalg-to-blas="min-flops=1000 f32-library=openblas" | FileCheck %s --check-prefix=OPENBLAS
// RUN: rlx-opt %s --rlx-linalg-to-blas="min-flops=1000 matmul-precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: not rlx-opt %s --rlx-linalg-to-blas="matmul-precision=fp8" 2>&1 | FileCheck %s --check-prefix=BADPREC
// RUN: not rlx-opt %s --rlx-linalg-to-blas="f32-library=mkl" 2>&1 | FileCheck %s --check-prefix=BADLIB

// f32 products call oneDNN's sgemm by default, OpenBLAS with
// f32-library=openblas, and the bf16-input GEMM with matmul-precision=bf16;
// f64 products call OpenBLAS whatever the options.
// OPENBLAS-LABEL: func.func @large
// OPENBLAS: call @rlx_rt_matmul_f32(
// OPENBLAS-LABEL: func.func @batched_f64
// OPENBLAS: call @rlx_rt_batch_matmul_f64(
// OPENBLAS-LABEL: func.func @batched_f32
// OPENBLAS: call @rlx_rt_batch_matmul_f32(
// BF16-LABEL: func.func @large
// BF16: call @rlx_rt_matmul_f32_bf16(
// BF16-LABEL: func.func @batched_f64
// BF16: call @rlx_rt_batch_matmul_f64(
// BF16-LABEL: func.func @batched_f32
// BF16: call @rlx_rt_batch_matmul_f32_bf16(
// BADPREC: error: rlx-linalg-to-blas: matmul-precision must be f32 or bf16, not 'fp8'
// BADLIB: error: rlx-linalg-to-blas: f32-library must be onednn or openblas, not 'mkl'

// The runtime functions are declared once each, with a C interface.
// CHECK-DAG: func.func private @rlx_rt_matmul_f32_onednn(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @rlx_rt_batch_matmul_f64(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>
// CHECK-DAG: func.func private @rlx_rt_matmul_f16_f32(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @rlx_rt_batch_matmul_bf16_f32(memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @large
// CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<64x32xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[B:.*]] = memref.cast %{{.*}} : memref<32x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[C:.*]] = memref.cast %{{.*}} : memref<64x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @rlx_rt_matmul_f32_onednn(%[[A]], %[[B]], %[[C]])
// CHECK-NOT: linalg.matmul
func.func @large(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Below min-flops the loops stay.
// CHECK-LABEL: func.func @small
// CHECK: linalg.matmul
func.func @small(%a: memref<4x8xf32>, %b: memref<8x3xf32>, %c: memref<4x3xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return
}

// CHECK-LABEL: func.func @batched_f64
// CHECK: call @rlx_rt_batch_matmul_f64
func.func @batched_f64(%a: memref<2x16x32xf64>, %b: memref<2x32x16xf64>, %c: memref<2x16x16xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x16x32xf64>, memref<2x32x16xf64>) outs(%c : memref<2x16x16xf64>)
  return
}

// CHECK-LABEL: func.func @batched_f32
// CHECK: call @rlx_rt_batch_matmul_f32_onednn(
func.func @batched_f32(%a: memref<2x16x32xf32>, %b: memref<2x32x16xf32>, %c: memref<2x16x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x16x32xf32>, memref<2x32x16xf32>) outs(%c : memref<2x16x16xf32>)
  return
}

// f16/bf16 operands accumulated into f32 (what the f16/bf16 matmul lowering
// makes) call the runtime's half-precision GEMMs, named by the operands'
// type, whatever the f32 options; a transposed operand is a transposed view.
// CHECK-LABEL: func.func @mixed_f16
// CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<64x32xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK: %[[B:.*]] = memref.cast %{{.*}} : memref<32x16xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK: %[[C:.*]] = memref.cast %{{.*}} : memref<64x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @rlx_rt_matmul_f16_f32(%[[A]], %[[B]], %[[C]])
// CHECK-NOT: linalg.matmul
// OPENBLAS-LABEL: func.func @mixed_f16
// OPENBLAS: call @rlx_rt_matmul_f16_f32(
// BF16-LABEL: func.func @mixed_f16
// BF16: call @rlx_rt_matmul_f16_f32(
func.func @mixed_f16(%a: memref<64x32xf16>, %b: memref<32x16xf16>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf16>, memref<32x16xf16>) outs(%c : memref<64x16xf32>)
  return
}

// CHECK-LABEL: func.func @mixed_bf16_batched_transposed_rhs
// CHECK-SAME: %[[A:[^:]*]]: memref<4x64x32xbf16>, %[[W:[^:]*]]: memref<4x16x32xbf16>
// CHECK: %[[T:.*]] = memref.transpose %[[W]] (d0, d1, d2) -> (d0, d2, d1) : memref<4x16x32xbf16> to memref<4x32x16xbf16, strided<[512, 1, 32]>>
// CHECK: %[[B:.*]] = memref.cast %[[T]] : memref<4x32x16xbf16, strided<[512, 1, 32]>> to memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>
// CHECK: call @rlx_rt_batch_matmul_bf16_f32(%{{.*}}, %[[B]], %{{.*}})
// CHECK-NOT: linalg.batch_matmul
func.func @mixed_bf16_batched_transposed_rhs(%a: memref<4x64x32xbf16>, %w: memref<4x16x32xbf16>, %c: memref<4x64x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %w : memref<4x64x32xbf16>, memref<4x16x32xbf16>) outs(%c : memref<4x64x16xf32>)
  return
}

// An f32 operand and an f16/bf16 one (the f16/bf16 attention's f32
// probabilities times its values) into f32: named by both operand types.
// CHECK-LABEL: func.func @mixed_f32_bf16_batched
// CHECK: call @rlx_rt_batch_matmul_f32_bf16_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
// CHECK-LABEL: func.func @mixed_f16_f32
// CHECK: call @rlx_rt_matmul_f16_f32_f32(
func.func @mixed_f32_bf16_batched(%p: memref<4x64x64xf32>, %v: memref<4x64x16xbf16>, %c: memref<4x64x16xf32>) {
  linalg.batch_matmul ins(%p, %v : memref<4x64x64xf32>, memref<4x64x16xbf16>) outs(%c : memref<4x64x16xf32>)
  return
}
func.func @mixed_f16_f32(%a: memref<64x32xf16>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf16>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// Other combinations keep their loops: a half-precision accumulator, f16
// times bf16, an f64 accumulator, and small products.
// CHECK-LABEL: func.func @half_kept_as_loops
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT: call
func.func @half_kept_as_loops(%a: memref<64x32xbf16>, %b: memref<32x16xbf16>, %c: memref<64x16xbf16>,
                              %h: memref<32x16xf16>, %c32: memref<64x16xf32>, %c64: memref<64x16xf64>,
                              %s: memref<4x8xbf16>, %t: memref<8x3xbf16>, %u: memref<4x3xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c : memref<64x16xbf16>)
  linalg.matmul ins(%a, %h : memref<64x32xbf16>, memref<32x16xf16>) outs(%c32 : memref<64x16xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xbf16>, memref<32x16xbf16>) outs(%c64 : memref<64x16xf64>)
  linalg.matmul ins(%s, %t : memref<4x8xbf16>, memref<8x3xbf16>) outs(%u : memref<4x3xf32>)
  return
}

// Tensors are not touched: the rewrite runs after bufferization.
// CHECK-LABEL: func.func @tensors
// CHECK: linalg.matmul
func.func @tensors(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// An operand read transposed (as rlx-transposed-gemm-operands makes it)
// is passed as a transposed view.
// CHECK-LABEL: func.func @transposed_rhs
// CHECK-SAME: %[[A:[^:]*]]: memref<64x32xf32>, %[[W:[^:]*]]: memref<16x32xf32>
// CHECK: %[[T:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<16x32xf32> to memref<32x16xf32, strided<[1, 32]>>
// CHECK: %[[B:.*]] = memref.cast %[[T]] : memref<32x16xf32, strided<[1, 32]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @rlx_rt_matmul_f32_onednn(%{{.*}}, %[[B]], %{{.*}})
func.func @transposed_rhs(%a: memref<64x32xf32>, %w: memref<16x32xf32>, %c: memref<64x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : memref<64x32xf32>, memref<16x32xf32>) outs(%c : memref<64x16xf32>)
  return
}

// CHECK-LABEL: func.func @transposed_lhs_batched
// CHECK-SAME: %[[X:[^:]*]]: memref<2x32x64xf64>
// CHECK: %[[T:.*]] = memref.transpose %[[X]] (d0, d1, d2) -> (d0, d2, d1) : memref<2x32x64xf64> to memref<2x64x32xf64, strided<[2048, 1, 64]>>
// CHECK: call @rlx_rt_batch_matmul_f64
func.func @transposed_lhs_batched(%x: memref<2x32x64xf64>, %b: memref<2x32x16xf64>, %c: memref<2x64x16xf64>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%x, %b : memref<2x32x64xf64>, memref<2x32x16xf64>) outs(%c : memref<2x64x16xf64>)
  return
}

// Other maps (here: a broadcast lhs) keep their loops.
// CHECK-LABEL: func.func @broadcast_lhs
// CHECK: linalg.matmul
func.func @broadcast_lhs(%a: memref<32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}
