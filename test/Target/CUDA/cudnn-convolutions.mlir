// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=FORM
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels="allow-tf32" --split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: rlx-opt %s --rlx-cuda-form-kernels="cudnn-convolutions=false" --split-input-file | FileCheck %s --check-prefix=GENERIC
// RUN: rlx-opt %s --rlx-cuda-form-kernels="cudnn-min-batch=1" --split-input-file | FileCheck %s --check-prefix=ONE

// A strided, padded, dilated, grouped convolution: one rlx_cuda.conv2d
// writing a tensor.empty; on buffers one call of the runtime's cuDNN entry
// point with padding, stride and dilation as (H, W) i32 pairs and the TF32
// flag last. Without cuDNN the rlx.conv stays for the generic lowering.

// FORM-LABEL: func.func @forward
// FORM:         %[[INIT:.*]] = tensor.empty() : tensor<2x8x5x4xf32>
// FORM:         %[[Y:.*]] = rlx_cuda.conv2d ins(%arg0, %arg1 : tensor<2x4x9x11xf32>, tensor<8x2x3x3xf32>) outs(%[[INIT]] : tensor<2x8x5x4xf32>) stride = [2, 2], padding = [1, 0], dilation = [1, 2], groups = 2 -> tensor<2x8x5x4xf32>
// FORM-NOT:     rlx.conv
// FORM:         return %[[Y]]

// LOWER:       func.func private @rlx_cuda_conv2d_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// LOWER-LABEL: func.func @forward
// LOWER:         %[[OUT:.*]] = memref.alloc() {{.*}} : memref<2x8x5x4xf32>
// LOWER:         %[[PH:.*]] = arith.constant 1 : i32
// LOWER-NEXT:    %[[PW:.*]] = arith.constant 0 : i32
// LOWER-NEXT:    %[[SH:.*]] = arith.constant 2 : i32
// LOWER-NEXT:    %[[SW:.*]] = arith.constant 2 : i32
// LOWER-NEXT:    %[[DH:.*]] = arith.constant 1 : i32
// LOWER-NEXT:    %[[DW:.*]] = arith.constant 2 : i32
// LOWER-NEXT:    %[[TF32:.*]] = arith.constant 1 : i32
// LOWER-NEXT:    call @rlx_cuda_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[PH]], %[[PW]], %[[SH]], %[[SW]], %[[DH]], %[[DW]], %[[TF32]])
// LOWER-NOT:     linalg.

// GENERIC-LABEL: func.func @forward
// GENERIC:         rlx.conv %arg0, %arg1
// GENERIC-NOT:     rlx_cuda
func.func @forward(%x: tensor<2x4x9x11xf32>, %w: tensor<8x2x3x3xf32>)
    -> tensor<2x8x5x4xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 0],
         dilation = [1, 2], groups = 2 : tensor<2x4x9x11xf32>, tensor<8x2x3x3xf32>
  return %y : tensor<2x8x5x4xf32>
}

// -----

// Both gradients of a bf16 convolution: backward data takes the output
// gradient and the filter, backward filter the input and the output
// gradient; each writes its own tensor.empty and calls its entry point
// (TF32 does not apply to bf16: the flag is still passed). Without cuDNN
// the CUDA unfuse policy's leftovers decompose them into conv_transpose2d
// and an im2col GEMM.

// FORM-LABEL: func.func @gradients
// FORM:         rlx_cuda.conv2d_backward_data ins(%arg1, %arg2 : tensor<2x6x8x8xbf16>, tensor<6x3x3x3xbf16>) outs(%{{.*}} : tensor<2x3x8x8xbf16>) stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 -> tensor<2x3x8x8xbf16>
// FORM:         rlx_cuda.conv2d_backward_filter ins(%arg0, %arg1 : tensor<2x3x8x8xbf16>, tensor<2x6x8x8xbf16>) outs(%{{.*}} : tensor<6x3x3x3xbf16>) stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 -> tensor<6x3x3x3xbf16>

// LOWER-LABEL: func.func @gradients
// LOWER:         call @rlx_cuda_conv2d_backward_data_bf16(
// LOWER:         call @rlx_cuda_conv2d_backward_filter_bf16(

// GENERIC-LABEL: func.func @gradients
// GENERIC-NOT:     rlx.conv2d_backward
// GENERIC:         rlx.conv_transpose2d
// GENERIC:         rlx.im2col
// GENERIC-NOT:     rlx_cuda
func.func @gradients(%x: tensor<2x3x8x8xbf16>, %dy: tensor<2x6x8x8xbf16>,
                     %w: tensor<6x3x3x3xbf16>)
    -> (tensor<2x3x8x8xbf16>, tensor<6x3x3x3xbf16>) {
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3],
          stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1
          : tensor<2x6x8x8xbf16>, tensor<6x3x3x3xbf16> -> tensor<2x3x8x8xbf16>
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3],
          stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1
          : tensor<2x3x8x8xbf16>, tensor<2x6x8x8xbf16>
  return %dx, %dw : tensor<2x3x8x8xbf16>, tensor<6x3x3x3xbf16>
}

// -----

// f64 has no cuDNN entry point here: the convolution stays generic.

// FORM-LABEL: func.func @f64
// FORM:         rlx.conv
// FORM-NOT:     rlx_cuda
func.func @f64(%x: tensor<1x1x4x4xf64>, %w: tensor<1x1x3x3xf64>)
    -> tensor<1x1x2x2xf64> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [0, 0],
         dilation = [1, 1], groups = 1 : tensor<1x1x4x4xf64>, tensor<1x1x3x3xf64>
  return %y : tensor<1x1x2x2xf64>
}

// -----

// A dynamic batch: the destination takes it from the input (forward) or
// from the output gradient (the filter gradient's leading extent is its
// output channels, read from dim 1), computed before the op.

// FORM-LABEL: func.func @dynamic_batch
// FORM-DAG:     %[[C0:.*]] = arith.constant 0 : index
// FORM-DAG:     %[[C1:.*]] = arith.constant 1 : index
// FORM:         %[[N:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x4x8x8xf32>
// FORM:         %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x6x8x8xf32>
// FORM:         rlx_cuda.conv2d ins(%arg0, %arg1 : tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32>) outs(%[[INIT]] : tensor<?x6x8x8xf32>)
// FORM:         %[[K:.*]] = tensor.dim %arg2, %[[C1]] : tensor<?x?x8x8xf32>
// FORM:         %[[DW:.*]] = tensor.empty(%[[K]]) : tensor<?x4x3x3xf32>
// FORM:         rlx_cuda.conv2d_backward_filter ins(%arg0, %arg2 : tensor<?x4x8x8xf32>, tensor<?x?x8x8xf32>) outs(%[[DW]] : tensor<?x4x3x3xf32>)
func.func @dynamic_batch(%x: tensor<?x4x8x8xf32>, %w: tensor<6x4x3x3xf32>,
                         %dy: tensor<?x?x8x8xf32>)
    -> (tensor<?x6x8x8xf32>, tensor<?x4x3x3xf32>) {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1], groups = 1 : tensor<?x4x8x8xf32>, tensor<6x4x3x3xf32>
  %dw = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3],
          stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1
          : tensor<?x4x8x8xf32>, tensor<?x?x8x8xf32>
  return %y, %dw : tensor<?x6x8x8xf32>, tensor<?x4x3x3xf32>
}

// -----

// Batch 1 stays with the generic kernels unless cudnn-min-batch allows it;
// its gradient is then decomposed.

// FORM-LABEL: func.func @batch_one
// FORM:         rlx.conv %arg0, %arg1
// FORM-NOT:     rlx_cuda
// FORM-NOT:     rlx.conv2d_backward_input
// FORM:         rlx.conv_transpose2d
// ONE-LABEL:   func.func @batch_one
// ONE:           rlx_cuda.conv2d ins(%arg0, %arg1
// ONE:           rlx_cuda.conv2d_backward_data ins(%arg2, %arg1
func.func @batch_one(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>,
                     %dy: tensor<1x6x8x8xf32>)
    -> (tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>) {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1], groups = 1 : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>
  %dx = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3],
          stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1
          : tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x4x8x8xf32>
  return %y, %dx : tensor<1x6x8x8xf32>, tensor<1x4x8x8xf32>
}
