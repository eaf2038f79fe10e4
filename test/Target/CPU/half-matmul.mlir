// RUN: rlx-opt %s --rlx-cpu-pipeline --mlir-print-ir-after=rlx-linalg-to-blas -o /dev/null 2>&1 | FileCheck %s
// RUN: rlx-opt %s --rlx-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: rlx-opt %s --rlx-cpu-pipeline="use-blas=false" | FileCheck %s --check-prefix=NOBLAS

// bf16 and f16 rlx.matmul on the CPU: the lowering accumulates the product
// of the f16/bf16 operands into a zeroed f32 buffer and rounds it to the
// result type once; rlx-linalg-to-blas, on the bufferized IR, hands that
// product to the runtime (oneDNN) on the buffers bufferization named. A
// weight transposed in the graph (`x @ W^T`) is read through a transposed
// view, not copied.

// CHECK-LABEL: func.func @linear_bf16
// CHECK-SAME: %[[X:[^:]*]]: memref<128x768xbf16>, %[[W:[^:]*]]: memref<3072x768xbf16>, %[[OUT:[^:]*]]: memref<128x3072xbf16>
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<128x3072xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : memref<128x3072xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[WT:.*]] = memref.transpose %[[W]] (d0, d1) -> (d1, d0) : memref<3072x768xbf16> to memref<768x3072xbf16, strided<[1, 768]>>
// CHECK-DAG: %[[A:.*]] = memref.cast %[[X]] : memref<128x768xbf16> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[B:.*]] = memref.cast %[[WT]] : memref<768x3072xbf16, strided<[1, 768]>> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[C:.*]] = memref.cast %[[ACC]] : memref<128x3072xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: call @rlx_rt_matmul_bf16_f32(%[[A]], %[[B]], %[[C]])
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<128x3072xf32>) outs(%[[OUT]] : memref<128x3072xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: memref.dealloc %[[ACC]]
// LLVM-DAG: llvm.func @_mlir_ciface_rlx_rt_matmul_bf16_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// LLVM-DAG: llvm.func @_mlir_ciface_rlx_rt_batch_matmul_f16_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// NOBLAS: llvm.func @linear_bf16
// NOBLAS-NOT: rlx_rt_{{(batch_)?}}matmul
func.func @linear_bf16(%x: tensor<128x768xbf16>, %w: tensor<3072x768xbf16>) -> tensor<128x3072xbf16> {
  %wt = rlx.transpose %w perm = [1, 0] : tensor<3072x768xbf16>
  %0 = rlx.matmul %x, %wt : tensor<128x768xbf16>, tensor<768x3072xbf16>
  return %0 : tensor<128x3072xbf16>
}

// Per-head scores in f16 (`q k^T` of [heads, S, D]): one batched call, k
// read transposed.
// CHECK-LABEL: func.func @scores_f16
// CHECK-NOT: linalg.transpose
// CHECK: memref.transpose %{{.*}} (d0, d1, d2) -> (d0, d2, d1) : memref<12x128x64xf16> to memref<12x64x128xf16, strided<[8192, 1, 64]>>
// CHECK: call @rlx_rt_batch_matmul_f16_f32(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) -> ()
// CHECK-NOT: linalg.batch_matmul
func.func @scores_f16(%q: tensor<12x128x64xf16>, %k: tensor<12x128x64xf16>) -> tensor<12x128x128xf16> {
  %kt = rlx.transpose %k perm = [0, 2, 1] : tensor<12x128x64xf16>
  %0 = rlx.matmul %q, %kt : tensor<12x128x64xf16>, tensor<12x64x128xf16>
  return %0 : tensor<12x128x128xf16>
}
