// RUN: not rlx-opt %s --convert-rlx-to-linalg 2>&1 | FileCheck %s

// Dynamic channel or spatial dims are reported at the op.
// CHECK: error: 'rlx.conv' op the CPU lowering needs static channel and spatial dims (only the batch dim may be dynamic), got 'tensor<1x3x?x9xf32>'
func.func @conv_dynamic_height(%x: tensor<1x3x?x9xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x?x9xf32> {
  %y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x?x9xf32>, tensor<8x3x3x3xf32>
  return %y : tensor<1x8x?x9xf32>
}
