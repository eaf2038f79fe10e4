// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=FORM
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels="allow-tf32" --split-input-file | FileCheck %s --check-prefix=LOWER

// A linear layer with gelu_approx: matmul, the bias add (bias on the left)
// and the activation become one matmul_bias; on buffers, one call of the
// runtime's cuBLASLt entry point on device buffers, the rank-2 input and
// output given a unit batch, epilogue code 2 (GELU_BIAS), TF32 allowed.

// FORM-LABEL: func.func @gelu
// FORM:         %[[INIT:.*]] = tensor.empty() : tensor<8x33xf32>
// FORM:         %[[Y:.*]] = rlx_cuda.matmul_bias ins(%arg0, %arg1, %arg2 : tensor<8x64xf32>, tensor<64x33xf32>, tensor<33xf32>) outs(%[[INIT]] : tensor<8x33xf32>) {activation = #rlx.activation<gelu_approx>} -> tensor<8x33xf32>
// FORM-NOT:     rlx.
// FORM:         return %[[Y]]

// LOWER:       func.func private @rlx_cuda_matmul_bias_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// LOWER-LABEL: func.func @gelu
// LOWER-DAG:     %[[GELU:.*]] = arith.constant 2 : i32
// LOWER-DAG:     %[[TF32:.*]] = arith.constant 1 : i32
// LOWER-DAG:     %[[X3:.*]] = memref.expand_shape %arg0 {{\[\[}}0, 1], [2]] output_shape [1, 8, 64]
// LOWER-DAG:     %[[OUT:.*]] = memref.alloc() {{.*}} : memref<8x33xf32>
// LOWER:         call @rlx_cuda_matmul_bias_f32({{.*}}, %[[GELU]], %[[TF32]])
// LOWER-NOT:     linalg.
func.func @gelu(%x: tensor<8x64xf32>, %w: tensor<64x33xf32>, %b: tensor<33xf32>)
    -> tensor<8x33xf32> {
  %0 = rlx.matmul %x, %w : tensor<8x64xf32>, tensor<64x33xf32>
  %1 = rlx.binary add %b, %0 : tensor<33xf32>, tensor<8x33xf32>
  %2 = rlx.activation gelu_approx %1 : tensor<8x33xf32>
  return %2 : tensor<8x33xf32>
}

// -----

// Batched rows in f16 with relu (epilogue code 1).

// FORM-LABEL: func.func @relu_batched
// FORM:         rlx_cuda.matmul_bias ins(%arg0, %arg1, %arg2 : tensor<2x5x7xf16>, tensor<7x3xf16>, tensor<3xf16>) outs(%{{.*}} : tensor<2x5x3xf16>) {activation = #rlx.activation<relu>}
// LOWER-LABEL: func.func @relu_batched
// LOWER:         %[[RELU:.*]] = arith.constant 1 : i32
// LOWER:         call @rlx_cuda_matmul_bias_f16({{.*}}, %[[RELU]], %{{.*}})
func.func @relu_batched(%x: tensor<2x5x7xf16>, %w: tensor<7x3xf16>,
                        %b: tensor<3xf16>) -> tensor<2x5x3xf16> {
  %0 = rlx.matmul %x, %w : tensor<2x5x7xf16>, tensor<7x3xf16>
  %1 = rlx.binary add %0, %b : tensor<2x5x3xf16>, tensor<3xf16>
  %2 = rlx.activation relu %1 : tensor<2x5x3xf16>
  return %2 : tensor<2x5x3xf16>
}

// -----

// Exact gelu has no cuBLASLt epilogue: the GEMM takes the bias (epilogue
// code 0) and gelu stays an op of its own. The bias add of a product that
// has another use, and f64, are not formed.

// FORM-LABEL: func.func @not_fused
// FORM:         %[[Y:.*]] = rlx_cuda.matmul_bias ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%{{.*}}) -> tensor<4x3xf32>
// FORM:         rlx.activation gelu %[[Y]]
// FORM:         %[[P:.*]] = rlx.matmul %arg0, %arg1
// FORM:         rlx.binary add %[[P]], %arg2
// FORM:         rlx.binary add %[[P]], %[[P]]
// FORM:         rlx.matmul %arg3, %arg4 : tensor<4x5xf64>
// FORM-NOT:     rlx_cuda
func.func @not_fused(%x: tensor<4x5xf32>, %w: tensor<5x3xf32>,
                     %b: tensor<3xf32>, %x64: tensor<4x5xf64>,
                     %w64: tensor<5x3xf64>, %b64: tensor<3xf64>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf64>) {
  %0 = rlx.matmul %x, %w : tensor<4x5xf32>, tensor<5x3xf32>
  %1 = rlx.binary add %0, %b : tensor<4x3xf32>, tensor<3xf32>
  %2 = rlx.activation gelu %1 : tensor<4x3xf32>
  %3 = rlx.matmul %x, %w : tensor<4x5xf32>, tensor<5x3xf32>
  %4 = rlx.binary add %3, %b : tensor<4x3xf32>, tensor<3xf32>
  %5 = rlx.binary add %3, %3 : tensor<4x3xf32>, tensor<4x3xf32>
  %6 = rlx.matmul %x64, %w64 : tensor<4x5xf64>, tensor<5x3xf64>
  %7 = rlx.binary add %6, %b64 : tensor<4x3xf64>, tensor<3xf64>
  return %2, %4, %5, %7 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf64>
}

// -----

// Two functions with linear layers share one declaration of the runtime
// function.

// FORM-LABEL: func.func @first
// LOWER-COUNT-1: func.func private @rlx_cuda_matmul_bias_f32
// LOWER-LABEL: func.func @first
// LOWER:         call @rlx_cuda_matmul_bias_f32
// LOWER-LABEL: func.func @second
// LOWER:         call @rlx_cuda_matmul_bias_f32
func.func @first(%x: tensor<4x5xf32>, %w: tensor<5x3xf32>, %b: tensor<3xf32>)
    -> tensor<4x3xf32> {
  %0 = rlx.matmul %x, %w : tensor<4x5xf32>, tensor<5x3xf32>
  %1 = rlx.binary add %0, %b : tensor<4x3xf32>, tensor<3xf32>
  return %1 : tensor<4x3xf32>
}
func.func @second(%x: tensor<4x5xf32>, %w: tensor<5x3xf32>, %b: tensor<3xf32>)
    -> tensor<4x3xf32> {
  %0 = rlx.matmul %x, %w : tensor<4x5xf32>, tensor<5x3xf32>
  %1 = rlx.binary add %0, %b : tensor<4x3xf32>, tensor<3xf32>
  %2 = rlx.activation relu %1 : tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}
