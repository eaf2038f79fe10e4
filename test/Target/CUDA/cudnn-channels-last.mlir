// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=AUTO
// RUN: rlx-opt %s --rlx-cuda-form-kernels="cudnn-layout=nchw" --split-input-file | FileCheck %s --check-prefix=NCHW
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels --split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: not rlx-opt %s --rlx-cuda-form-kernels="cudnn-layout=chwn" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// A bf16 conv -> batch norm (as the importer writes it) -> ReLU -> conv
// chain with a residual add. By default (auto) half convolutions run
// channels-last: the graph input and the filters are transposed to NHWC /
// KRSC, the batch norm, ReLU and add compute in NHWC, and only the result
// is transposed back to NCHW; no transpose is left between the two
// convolutions. On buffers the entry points get the channels-last flag (2).

// AUTO-LABEL: func.func @block
// AUTO-SAME:    (%[[X:.*]]: tensor<2x8x6x6xbf16>, %[[W1:.*]]: tensor<8x8x3x3xbf16>, %[[W2:.*]]: tensor<8x8x1x1xbf16>, %[[MEAN:.*]]: tensor<8xbf16>)
// AUTO:         %[[XT:.*]] = rlx.transpose %[[X]] perm = [0, 2, 3, 1] : tensor<2x8x6x6xbf16>
// AUTO:         %[[W1T:.*]] = rlx.transpose %[[W1]] perm = [0, 2, 3, 1] : tensor<8x8x3x3xbf16>
// AUTO:         %[[Y1:.*]] = rlx_cuda.conv2d ins(%[[XT]], %[[W1T]] : tensor<2x6x6x8xbf16>, tensor<8x3x3x8xbf16>) outs(%{{.*}} : tensor<2x6x6x8xbf16>) stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 channels_last -> tensor<2x6x6x8xbf16>
// AUTO:         %[[SUB:.*]] = rlx.binary sub %[[Y1]], %{{.*}} : tensor<2x6x6x8xbf16>, tensor<1x1x1x8xbf16>
// AUTO:         %[[RELU:.*]] = rlx.activation relu %[[SUB]] : tensor<2x6x6x8xbf16>
// AUTO:         %[[Y2:.*]] = rlx_cuda.conv2d ins(%[[RELU]], %{{.*}} : tensor<2x6x6x8xbf16>, tensor<8x1x1x8xbf16>) outs(%{{.*}} : tensor<2x6x6x8xbf16>) {{.*}} channels_last
// AUTO:         %[[ADD:.*]] = rlx.binary add %[[Y2]], %[[XT]] : tensor<2x6x6x8xbf16>, tensor<2x6x6x8xbf16>
// AUTO:         %[[OUT:.*]] = rlx.transpose %[[ADD]] perm = [0, 3, 1, 2] : tensor<2x6x6x8xbf16>
// AUTO-NOT:     rlx.transpose
// AUTO:         return %[[OUT]]

// NCHW-LABEL: func.func @block
// NCHW-NOT:     rlx.transpose
// NCHW-NOT:     channels_last

// LOWER-LABEL: func.func @block
// LOWER:         %[[CL:.*]] = arith.constant 2 : i32
// LOWER-NEXT:    call @rlx_cuda_conv2d_bf16(%{{.*}}, %[[CL]])

// BAD: error: cudnn-layout is 'chwn'; expected auto, nchw or nhwc
func.func @block(%x: tensor<2x8x6x6xbf16>, %w1: tensor<8x8x3x3xbf16>,
                 %w2: tensor<8x8x1x1xbf16>, %mean: tensor<8xbf16>)
    -> tensor<2x8x6x6xbf16> {
  %y1 = rlx.conv %x, %w1 kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
          dilation = [1, 1], groups = 1 : tensor<2x8x6x6xbf16>, tensor<8x8x3x3xbf16>
  %m = rlx.reshape %mean new_shape = [8, 1, 1] : tensor<8xbf16>
  %s = rlx.binary sub %y1, %m : tensor<2x8x6x6xbf16>, tensor<8x1x1xbf16>
  %r = rlx.activation relu %s : tensor<2x8x6x6xbf16>
  %y2 = rlx.conv %r, %w2 kernel_size = [1, 1], stride = [1, 1], padding = [0, 0],
          dilation = [1, 1], groups = 1 : tensor<2x8x6x6xbf16>, tensor<8x8x1x1xbf16>
  %o = rlx.binary add %y2, %x : tensor<2x8x6x6xbf16>, tensor<2x8x6x6xbf16>
  return %o : tensor<2x8x6x6xbf16>
}

// -----

// f32 keeps NCHW under auto; nhwc asks for it.
// AUTO-LABEL: func.func @f32
// AUTO-NOT:     channels_last
// AUTO:         return
// NCHW-LABEL: func.func @f32
// NCHW-NOT:     channels_last
func.func @f32(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>)
    -> tensor<2x6x8x8xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1], groups = 1 : tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>
  return %y : tensor<2x6x8x8xf32>
}
