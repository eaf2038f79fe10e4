// RUN: rlx-opt %s --rlx-propagate-transposes --split-input-file | FileCheck %s

// Between a channels-last producer and consumer: the batch norm's
// arithmetic on [C, 1, 1] vectors, the ReLU and the transpose back to NHWC.
// Every full-size transpose cancels; the per-channel operands are brought
// to [1, 1, 1, C] (a reshape: no element moves).
// CHECK-LABEL: func.func @bn_relu
// CHECK-SAME:    (%[[Y:.*]]: tensor<2x8x8x4xf32>, %[[MEAN:.*]]: tensor<4x1x1xf32>, %[[SCALE:.*]]: tensor<4x1x1xf32>)
// CHECK:         %[[MT:.*]] = rlx.reshape %[[MEAN]] new_shape = [1, 1, 1, 4] : tensor<4x1x1xf32>
// CHECK:         %[[SUB:.*]] = rlx.binary sub %[[Y]], %[[MT]] : tensor<2x8x8x4xf32>, tensor<1x1x1x4xf32>
// CHECK:         %[[MUL:.*]] = rlx.binary mul %[[SUB]], %{{.*}} : tensor<2x8x8x4xf32>, tensor<1x1x1x4xf32>
// CHECK:         %[[RELU:.*]] = rlx.activation relu %[[MUL]] : tensor<2x8x8x4xf32>
// CHECK-NOT:     rlx.transpose %{{.*}} : tensor<2x
// CHECK:         return %[[RELU]]
func.func @bn_relu(%y: tensor<2x8x8x4xf32>, %mean: tensor<4x1x1xf32>,
                   %scale: tensor<4x1x1xf32>) -> tensor<2x8x8x4xf32> {
  %t = rlx.transpose %y perm = [0, 3, 1, 2] : tensor<2x8x8x4xf32>
  %s = rlx.binary sub %t, %mean : tensor<2x4x8x8xf32>, tensor<4x1x1xf32>
  %m = rlx.binary mul %s, %scale : tensor<2x4x8x8xf32>, tensor<4x1x1xf32>
  %r = rlx.activation relu %m : tensor<2x4x8x8xf32>
  %n = rlx.transpose %r perm = [0, 2, 3, 1] : tensor<2x4x8x8xf32>
  return %n : tensor<2x8x8x4xf32>
}

// -----

// A residual add of two transposed values with the same permutation, a
// scalar operand, and a comparison: the transpose moves below all of them.
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    (%[[A:.*]]: tensor<1x5x5x3xf32>, %[[B:.*]]: tensor<1x5x5x3xf32>, %[[S:.*]]: tensor<f32>)
// CHECK:         %[[ADD:.*]] = rlx.binary add %[[A]], %[[B]] : tensor<1x5x5x3xf32>, tensor<1x5x5x3xf32>
// CHECK:         %[[MUL:.*]] = rlx.binary mul %[[ADD]], %[[S]] : tensor<1x5x5x3xf32>, tensor<f32>
// CHECK:         %[[GT:.*]] = rlx.compare gt %[[MUL]], %[[S]]
// CHECK:         %[[BACK:.*]] = rlx.transpose %[[GT]] perm = [0, 3, 1, 2] : tensor<1x5x5x3xi1>
// CHECK:         return %[[BACK]]
func.func @residual(%a: tensor<1x5x5x3xf32>, %b: tensor<1x5x5x3xf32>,
                    %s: tensor<f32>) -> tensor<1x3x5x5xi1> {
  %ta = rlx.transpose %a perm = [0, 3, 1, 2] : tensor<1x5x5x3xf32>
  %tb = rlx.transpose %b perm = [0, 3, 1, 2] : tensor<1x5x5x3xf32>
  %add = rlx.binary add %ta, %tb : tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>
  %mul = rlx.binary mul %add, %s : tensor<1x3x5x5xf32>, tensor<f32>
  %gt = rlx.compare gt %mul, %s : tensor<1x3x5x5xf32>, tensor<f32>
  return %gt : tensor<1x3x5x5xi1>
}

// -----

// An operand of the full shape that is not transposed stops the move:
// moving would trade one full-size transpose for another.
// CHECK-LABEL: func.func @full_size_operand
// CHECK:         %[[T:.*]] = rlx.transpose %arg0 perm = [0, 3, 1, 2]
// CHECK:         rlx.binary add %[[T]], %arg1
func.func @full_size_operand(%a: tensor<1x5x5x3xf32>,
                             %b: tensor<1x3x5x5xf32>) -> tensor<1x3x5x5xf32> {
  %t = rlx.transpose %a perm = [0, 3, 1, 2] : tensor<1x5x5x3xf32>
  %add = rlx.binary add %t, %b : tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>
  return %add : tensor<1x3x5x5xf32>
}

// -----

// A global average pool (mean over H and W) of an NHWC value: the axes
// follow the permutation and the kept dims [N, C] come out in order, so no
// transpose is left. With keep_dim the result is transposed back, which,
// moving only dims of size 1, is a reshape.
// CHECK-LABEL: func.func @pool
// CHECK-SAME:    (%[[X:.*]]: tensor<2x7x7x16xf32>)
// CHECK:         %[[MEAN:.*]] = rlx.reduce mean %[[X]] axes = [1, 2] : tensor<2x7x7x16xf32>
// CHECK:         %[[KEPT:.*]] = rlx.reduce max %[[X]] axes = [1, 2] keep_dim : tensor<2x7x7x16xf32>
// CHECK:         %[[BACK:.*]] = rlx.reshape %[[KEPT]] new_shape = [2, 16, 1, 1] : tensor<2x1x1x16xf32>
// CHECK:         return %[[MEAN]], %[[BACK]]
func.func @pool(%x: tensor<2x7x7x16xf32>)
    -> (tensor<2x16xf32>, tensor<2x16x1x1xf32>) {
  %t = rlx.transpose %x perm = [0, 3, 1, 2] : tensor<2x7x7x16xf32>
  %m = rlx.reduce mean %t axes = [2, 3] : tensor<2x16x7x7xf32>
  %k = rlx.reduce max %t axes = [2, 3] keep_dim : tensor<2x16x7x7xf32>
  return %m, %k : tensor<2x16xf32>, tensor<2x16x1x1xf32>
}

// -----

// Kept dims whose order changes: dim 0 of a [0, 2, 1] transpose is x's dim
// 0, and the original result keeps x's dims 2 and 1 in that order, so the
// new reduction's [3, 4] is transposed to [4, 3].
// CHECK-LABEL: func.func @reorder
// CHECK:         %[[R:.*]] = rlx.reduce sum %arg0 axes = [0] : tensor<2x3x4xf32>
// CHECK:         %[[T:.*]] = rlx.transpose %[[R]] perm = [1, 0] : tensor<3x4xf32>
// CHECK:         return %[[T]]
func.func @reorder(%x: tensor<2x3x4xf32>) -> tensor<4x3xf32> {
  %t = rlx.transpose %x perm = [0, 2, 1] : tensor<2x3x4xf32>
  %r = rlx.reduce sum %t axes = [0] : tensor<2x4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// A residual shortcut in NCHW that the graph already transposes to NHWC
// (for a convolution, here an opaque user): the add takes that transpose,
// and the result moves on.
// CHECK-LABEL: func.func @shortcut
// CHECK-SAME:    (%[[Y:.*]]: tensor<1x5x5x3xf32>, %[[P:.*]]: tensor<1x3x5x5xf32>)
// CHECK:         %[[PT:.*]] = rlx.transpose %[[P]] perm = [0, 2, 3, 1]
// CHECK:         %[[ADD:.*]] = rlx.binary add %[[Y]], %[[PT]] : tensor<1x5x5x3xf32>, tensor<1x5x5x3xf32>
// CHECK:         %[[RELU:.*]] = rlx.activation relu %[[ADD]]
// CHECK:         return %[[PT]], %[[RELU]]
func.func @shortcut(%y: tensor<1x5x5x3xf32>, %p: tensor<1x3x5x5xf32>)
    -> (tensor<1x5x5x3xf32>, tensor<1x5x5x3xf32>) {
  %pt = rlx.transpose %p perm = [0, 2, 3, 1] : tensor<1x3x5x5xf32>
  %t = rlx.transpose %y perm = [0, 3, 1, 2] : tensor<1x5x5x3xf32>
  %add = rlx.binary add %t, %p : tensor<1x3x5x5xf32>, tensor<1x3x5x5xf32>
  %r = rlx.activation relu %add : tensor<1x3x5x5xf32>
  %n = rlx.transpose %r perm = [0, 2, 3, 1] : tensor<1x3x5x5xf32>
  return %pt, %n : tensor<1x5x5x3xf32>, tensor<1x5x5x3xf32>
}

// -----

// A broadcast operand whose non-unit dims change order is transposed.
// CHECK-LABEL: func.func @small_transposed
// CHECK:         %[[R:.*]] = rlx.reshape %arg1 new_shape = [1, 3, 1, 5] : tensor<3x1x5xf32>
// CHECK:         %[[T:.*]] = rlx.transpose %[[R]] perm = [0, 2, 3, 1] : tensor<1x3x1x5xf32>
// CHECK:         rlx.binary add %arg0, %[[T]] : tensor<2x4x5x3xf32>, tensor<1x1x5x3xf32>
func.func @small_transposed(%y: tensor<2x4x5x3xf32>, %b: tensor<3x1x5xf32>)
    -> tensor<2x3x4x5xf32> {
  %t = rlx.transpose %y perm = [0, 3, 1, 2] : tensor<2x4x5x3xf32>
  %add = rlx.binary add %t, %b : tensor<2x3x4x5xf32>, tensor<3x1x5xf32>
  return %add : tensor<2x3x4x5xf32>
}
