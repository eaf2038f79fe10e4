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

// -----

// A tanh-GELU layer and its gradient, as rlx-autodiff writes them: the
// forward GEMM also returns the pre-activation (GELU_AUX_BIAS, code 3),
// which the backward GEMM producing the layer output's cotangent reads to
// apply GELU's derivative and sum the bias gradient (DGELU_BGRAD, code 4);
// the reduce over the rows is replaced by that sum (reshaped for
// keep_dim). Both calls take the auxiliary buffer last.

// FORM-LABEL: func.func @gelu_training
// FORM:         %[[FWD:.*]]:2 = rlx_cuda.matmul_bias_gelu_aux ins(%arg0, %arg1, %arg2 : tensor<64x128xf32>, tensor<128x256xf32>, tensor<256xf32>) outs(%{{.*}}, %{{.*}} : tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>, tensor<64x256xf32>
// FORM:         rlx.matmul %[[FWD]]#0, %arg3
// FORM:         %[[BWD:.*]]:2 = rlx_cuda.matmul_dgelu ins(%arg4, %{{.*}}, %[[FWD]]#1 : tensor<64x32xf32>, tensor<32x256xf32>, tensor<64x256xf32>) outs(%{{.*}}, %{{.*}} : tensor<64x256xf32>, tensor<256xf32>) -> tensor<64x256xf32>, tensor<256xf32>
// FORM:         %[[KEEP:.*]] = rlx.reshape %[[BWD]]#1 new_shape = [1, 256]
// FORM-NOT:     rlx.activation
// FORM-NOT:     rlx.reduce
// FORM:         return {{.*}}, %[[BWD]]#0, %[[KEEP]]
// LOWER-LABEL: func.func @gelu_training
// LOWER:         %[[AUX:.*]] = arith.constant 3 : i32
// LOWER:         call @rlx_cuda_matmul_bias_aux_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AUX]], %{{.*}})
// LOWER:         %[[DGELU:.*]] = arith.constant 4 : i32
// LOWER:         call @rlx_cuda_matmul_bias_aux_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DGELU]], %{{.*}})
// LOWER-NOT:     linalg.generic
func.func @gelu_training(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>,
                         %b: tensor<256xf32>, %w2: tensor<256x32xf32>,
                         %dz: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<64x256xf32>, tensor<1x256xf32>) {
  %0 = rlx.matmul %x, %w : tensor<64x128xf32>, tensor<128x256xf32>
  %1 = rlx.binary add %0, %b : tensor<64x256xf32>, tensor<256xf32>
  %2 = rlx.activation gelu_approx %1 : tensor<64x256xf32>
  %3 = rlx.matmul %2, %w2 : tensor<64x256xf32>, tensor<256x32xf32>
  %4 = rlx.transpose %w2 perm = [1, 0] : tensor<256x32xf32>
  %5 = rlx.matmul %dz, %4 : tensor<64x32xf32>, tensor<32x256xf32>
  %6 = rlx.activation_backward gelu_approx %1, %5 : tensor<64x256xf32>, tensor<64x256xf32>
  %7 = rlx.reduce sum %6 axes = [0] keep_dim : tensor<64x256xf32>
  return %3, %6, %7 : tensor<64x32xf32>, tensor<64x256xf32>, tensor<1x256xf32>
}

// -----

// Not formed: exact gelu's derivative, and a layer whose columns are not
// a static multiple of 8 (the pre-activation then comes from the bias
// epilogue and gelu runs as a kernel after it). The activations' backward
// ops no kernel takes become primitives here.

// LOWER-LABEL: func.func @gelu_training_not_fused
// FORM-LABEL: func.func @gelu_training_not_fused
// FORM-NOT:     rlx_cuda.matmul_dgelu
// FORM:         %[[PRE:.*]] = rlx_cuda.matmul_bias ins(%arg3, %arg4, %arg5 : {{.*}}) outs(%{{.*}} : tensor<4x7xf32>) -> tensor<4x7xf32>
// FORM:         rlx.activation gelu_approx %[[PRE]]
// FORM-NOT:     rlx_cuda.matmul_bias_gelu_aux
// FORM-NOT:     rlx_cuda.matmul_dgelu
// FORM-NOT:     rlx.activation_backward
// FORM:         return
func.func @gelu_training_not_fused(%h: tensor<4x8xf32>, %dy: tensor<4x3xf32>,
                                   %w: tensor<3x8xf32>, %x: tensor<4x5xf32>,
                                   %w1: tensor<5x7xf32>, %b: tensor<7xf32>)
    -> (tensor<4x8xf32>, tensor<4x7xf32>, tensor<4x7xf32>) {
  %0 = rlx.matmul %dy, %w : tensor<4x3xf32>, tensor<3x8xf32>
  %1 = rlx.activation_backward gelu %h, %0 : tensor<4x8xf32>, tensor<4x8xf32>
  %2 = rlx.matmul %x, %w1 : tensor<4x5xf32>, tensor<5x7xf32>
  %3 = rlx.binary add %2, %b : tensor<4x7xf32>, tensor<7xf32>
  %4 = rlx.activation gelu_approx %3 : tensor<4x7xf32>
  %5 = rlx.activation_backward gelu_approx %3, %4 : tensor<4x7xf32>, tensor<4x7xf32>
  return %1, %4, %5 : tensor<4x8xf32>, tensor<4x7xf32>, tensor<4x7xf32>
}
