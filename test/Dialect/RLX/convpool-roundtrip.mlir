// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @conv_basic
func.func @conv_basic(%x: tensor<8x3x224x224xf32>, %w: tensor<64x3x3x3xf32>)
    -> tensor<8x64x112x112xf32> {
  // CHECK: rlx.conv %{{.*}}, %{{.*}} kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<8x3x224x224xf32>, tensor<64x3x3x3xf32>
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1],
         dilation = [1, 1], groups = 1
         : tensor<8x3x224x224xf32>, tensor<64x3x3x3xf32>
  return %0 : tensor<8x64x112x112xf32>
}

// Grouped, depthwise, dilated and rectangular convolutions; the result type
// is inferred ([N, C_out, H_out, W_out]).
// CHECK-LABEL: func.func @conv_variants
func.func @conv_variants(%x: tensor<2x8x17x20xf16>, %wg: tensor<12x2x3x5xf16>,
                         %wd: tensor<8x1x3x3xf16>, %b: tensor<1x4x9x9xbf16>,
                         %wb: tensor<6x4x3x3xbf16>)
    -> (tensor<2x12x15x8xf16>, tensor<2x8x17x20xf16>, tensor<1x6x5x5xbf16>) {
  // CHECK: rlx.conv {{.*}} groups = 4 : tensor<2x8x17x20xf16>, tensor<12x2x3x5xf16>
  %0 = rlx.conv %x, %wg kernel_size = [3, 5], stride = [1, 2], padding = [0, 0],
         dilation = [1, 1], groups = 4
         : tensor<2x8x17x20xf16>, tensor<12x2x3x5xf16>
  // CHECK: rlx.conv {{.*}} groups = 8 : tensor<2x8x17x20xf16>, tensor<8x1x3x3xf16>
  %1 = rlx.conv %x, %wd kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1], groups = 8
         : tensor<2x8x17x20xf16>, tensor<8x1x3x3xf16>
  // CHECK: rlx.conv {{.*}} dilation = [2, 2], groups = 1 : tensor<1x4x9x9xbf16>, tensor<6x4x3x3xbf16>
  %2 = rlx.conv %b, %wb kernel_size = [3, 3], stride = [1, 1], padding = [0, 0],
         dilation = [2, 2], groups = 1
         : tensor<1x4x9x9xbf16>, tensor<6x4x3x3xbf16>
  // CHECK: return {{.*}} : tensor<2x12x15x8xf16>, tensor<2x8x17x20xf16>, tensor<1x6x5x5xbf16>
  return %0, %1, %2 : tensor<2x12x15x8xf16>, tensor<2x8x17x20xf16>, tensor<1x6x5x5xbf16>
}

// Dynamic batch and spatial dims stay dynamic.
// CHECK-LABEL: func.func @conv_dynamic
func.func @conv_dynamic(%x: tensor<?x3x?x32xf64>, %w: tensor<16x3x3x3xf64>)
    -> tensor<?x16x?x16xf64> {
  // CHECK: rlx.conv {{.*}} : tensor<?x3x?x32xf64>, tensor<16x3x3x3xf64>
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1],
         dilation = [1, 1], groups = 1
         : tensor<?x3x?x32xf64>, tensor<16x3x3x3xf64>
  return %0 : tensor<?x16x?x16xf64>
}

// Extra discardable attributes survive next to the geometry.
// CHECK-LABEL: func.func @conv_extra_attr
func.func @conv_extra_attr(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x1x1xf32>)
    -> tensor<1x1x4x4xf32> {
  // CHECK: rlx.conv {{.*}} groups = 1 {tag = "stem"} : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>
  %0 = rlx.conv %x, %w kernel_size = [1, 1], stride = [1, 1], padding = [0, 0],
         dilation = [1, 1], groups = 1 {tag = "stem"}
         : tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// CHECK-LABEL: func.func @im2col
func.func @im2col(%x: tensor<2x4x8x8xf32>, %i: tensor<1x3x7x5xi8>,
                  %d: tensor<?x4x8x8xf32>)
    -> (tensor<128x36xf32>, tensor<4x12xi8>, tensor<?x36xf32>) {
  // CHECK: rlx.im2col %{{.*}} kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1] : tensor<2x4x8x8xf32>
  %0 = rlx.im2col %x kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1] : tensor<2x4x8x8xf32>
  // CHECK: rlx.im2col {{.*}} kernel_size = [2, 2], stride = [3, 2], padding = [0, 0], dilation = [2, 1] : tensor<1x3x7x5xi8>
  %1 = rlx.im2col %i kernel_size = [2, 2], stride = [3, 2], padding = [0, 0],
         dilation = [2, 1] : tensor<1x3x7x5xi8>
  // CHECK: rlx.im2col {{.*}} : tensor<?x4x8x8xf32>
  %2 = rlx.im2col %d kernel_size = [3, 3], stride = [1, 1], padding = [1, 1],
         dilation = [1, 1] : tensor<?x4x8x8xf32>
  // CHECK: return {{.*}} : tensor<128x36xf32>, tensor<4x12xi8>, tensor<?x36xf32>
  return %0, %1, %2 : tensor<128x36xf32>, tensor<4x12xi8>, tensor<?x36xf32>
}

// CHECK-LABEL: func.func @conv_transpose2d
func.func @conv_transpose2d(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>,
                            %g: tensor<2x6x5x7xf32>, %wg: tensor<6x2x4x2xf32>,
                            %d: tensor<?x16x?x8xf32>)
    -> (tensor<1x4x16x16xf32>, tensor<2x6x8x10xf32>, tensor<?x4x?x16xf32>) {
  // CHECK: rlx.conv_transpose2d %{{.*}}, %{{.*}} kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], output_padding = [1, 1], groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  %0 = rlx.conv_transpose2d %x, %w kernel_size = [3, 3], stride = [2, 2],
         padding = [1, 1], dilation = [1, 1], output_padding = [1, 1],
         groups = 1 : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  // output_padding may reach the dilation minus one when the stride is 1.
  // CHECK: rlx.conv_transpose2d {{.*}} dilation = [1, 3], output_padding = [0, 2], groups = 3 : tensor<2x6x5x7xf32>, tensor<6x2x4x2xf32>
  %1 = rlx.conv_transpose2d %g, %wg kernel_size = [4, 2], stride = [1, 1],
         padding = [0, 1], dilation = [1, 3], output_padding = [0, 2],
         groups = 3 : tensor<2x6x5x7xf32>, tensor<6x2x4x2xf32>
  // CHECK: rlx.conv_transpose2d {{.*}} : tensor<?x16x?x8xf32>, tensor<16x4x3x3xf32>
  %2 = rlx.conv_transpose2d %d, %w kernel_size = [3, 3], stride = [2, 2],
         padding = [1, 1], dilation = [1, 1], output_padding = [1, 1],
         groups = 1 : tensor<?x16x?x8xf32>, tensor<16x4x3x3xf32>
  // CHECK: return {{.*}} : tensor<1x4x16x16xf32>, tensor<2x6x8x10xf32>, tensor<?x4x?x16xf32>
  return %0, %1, %2 : tensor<1x4x16x16xf32>, tensor<2x6x8x10xf32>, tensor<?x4x?x16xf32>
}

// CHECK-LABEL: func.func @pool_kinds
func.func @pool_kinds(%x: tensor<8x64x112x112xf32>) -> tensor<8x64x56x56xf32> {
  // CHECK: rlx.pool max %{{.*}} kernel_size = [2, 2], stride = [2, 2], padding = [0, 0] : tensor<8x64x112x112xf32>
  %0 = rlx.pool max %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<8x64x112x112xf32>
  // CHECK: rlx.pool min
  %1 = rlx.pool min %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<8x64x112x112xf32>
  // CHECK: rlx.pool sum
  %2 = rlx.pool sum %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<8x64x112x112xf32>
  // CHECK: rlx.pool mean
  %3 = rlx.pool mean %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<8x64x112x112xf32>
  // CHECK: rlx.pool prod
  %4 = rlx.pool prod %x kernel_size = [2, 2], stride = [2, 2], padding = [0, 0]
         : tensor<8x64x112x112xf32>
  return %3 : tensor<8x64x56x56xf32>
}

// Padded, overlapping and integer pools; dynamic dims stay dynamic.
// CHECK-LABEL: func.func @pool_variants
func.func @pool_variants(%x: tensor<1x3x7x7xf16>, %i: tensor<2x4x6x6xi32>,
                         %d: tensor<?x3x?x9xf32>)
    -> (tensor<1x3x4x4xf16>, tensor<2x4x3x2xi32>, tensor<?x3x?x7xf32>) {
  // CHECK: rlx.pool mean {{.*}} kernel_size = [3, 3], stride = [2, 2], padding = [1, 1] : tensor<1x3x7x7xf16>
  %0 = rlx.pool mean %x kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]
         : tensor<1x3x7x7xf16>
  // CHECK: rlx.pool max {{.*}} kernel_size = [2, 3], stride = [2, 3], padding = [0, 0] : tensor<2x4x6x6xi32>
  %1 = rlx.pool max %i kernel_size = [2, 3], stride = [2, 3], padding = [0, 0]
         : tensor<2x4x6x6xi32>
  // CHECK: rlx.pool sum {{.*}} : tensor<?x3x?x9xf32>
  %2 = rlx.pool sum %d kernel_size = [3, 3], stride = [1, 1], padding = [0, 0]
         : tensor<?x3x?x9xf32>
  // CHECK: return {{.*}} : tensor<1x3x4x4xf16>, tensor<2x4x3x2xi32>, tensor<?x3x?x7xf32>
  return %0, %1, %2 : tensor<1x3x4x4xf16>, tensor<2x4x3x2xi32>, tensor<?x3x?x7xf32>
}
