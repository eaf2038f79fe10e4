// RUN: rlx-opt %s --rlx-cpu-pipeline | FileCheck %s
// RUN: rlx-opt %s --rlx-cpu-pipeline="use-blas=false" | FileCheck %s --check-prefix=NOBLAS
// RUN: rlx-opt %s --rlx-cpu-pipeline="matmul-precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: rlx-opt %s --rlx-cpu-pipeline="f32-library=openblas" | FileCheck %s --check-prefix=OPENBLAS

// The graph becomes LLVM dialect with a C interface taking the output as a
// trailing out-parameter; the large matmul calls the BLAS runtime, the
// bias + gelu loop nest runs on OpenMP threads with 16-wide vectors and a
// polynomial erf.
// CHECK-NOT: rlx.
// CHECK-DAG: llvm.func @_mlir_ciface_rlx_rt_matmul_f32_onednn(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-LABEL: llvm.func @layer(
// CHECK: llvm.call @rlx_rt_matmul_f32_onednn(
// CHECK: omp.parallel
// CHECK: omp.wsloop
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK-NOT: llvm.call @erff
// CHECK: llvm.func @_mlir_ciface_layer(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// NOBLAS-NOT: rlx_rt_matmul
// The pipeline passes matmul-precision and f32-library to
// rlx-linalg-to-blas.
// BF16-LABEL: llvm.func @layer(
// BF16: llvm.call @rlx_rt_matmul_f32_bf16(
// OPENBLAS-LABEL: llvm.func @layer(
// OPENBLAS: llvm.call @rlx_rt_matmul_f32(
func.func @layer(%x: tensor<64x128xf32> {rlx.input = "x"},
                 %w: tensor<128x256xf32> {rlx.param = "w"},
                 %b: tensor<256xf32> {rlx.param = "b"}) -> tensor<64x256xf32> {
  %0 = rlx.matmul %x, %w : tensor<64x128xf32>, tensor<128x256xf32>
  %1 = rlx.binary add %0, %b : tensor<64x256xf32>, tensor<256xf32>
  %2 = rlx.activation gelu %1 : tensor<64x256xf32>
  return %2 : tensor<64x256xf32>
}

// Rows of a batch times a matrix stay one named GEMM through fusion, so
// BLAS computes them.
// CHECK-LABEL: llvm.func @rows(
// CHECK: llvm.call @rlx_rt_matmul_f32_onednn(
func.func @rows(%a: tensor<4x64x128xf32>, %b: tensor<128x96xf32>) -> tensor<4x64x96xf32> {
  %0 = rlx.matmul %a, %b : tensor<4x64x128xf32>, tensor<128x96xf32>
  return %0 : tensor<4x64x96xf32>
}
