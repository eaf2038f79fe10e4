// RUN: rlx-opt %s -canonicalize -split-input-file | FileCheck %s

// A resize to the input's own sizes reads every position once: it folds to
// its input, with or without align_corners or unit scales, in every mode.
// CHECK-LABEL: func.func @resize_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>, %[[D:.*]]: tensor<?x7xi8>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[D]]
func.func @resize_identity(%x: tensor<2x3x4x5xf32>, %d: tensor<?x7xi8>)
    -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<?x7xi8>) {
  %0 = rlx.resize linear %x to [4, 5] : tensor<2x3x4x5xf32>
  %1 = rlx.resize linear %x to [4, 5] {align_corners} : tensor<2x3x4x5xf32>
  %2 = rlx.resize nearest_exact %x to [4, 5] {scales = array<f64: 1.0, 1.0>} : tensor<2x3x4x5xf32>
  %3 = rlx.resize nearest %d to [7] : tensor<?x7xi8>
  return %0, %1, %2, %3 : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<?x7xi8>
}

// -----

// A resize to other sizes, or to the same sizes with a scale factor other
// than 1 (whose coordinates differ), stays.
// CHECK-LABEL: func.func @resize_kept
// CHECK-COUNT-2: rlx.resize
func.func @resize_kept(%x: tensor<1x1x4x5xf32>)
    -> (tensor<1x1x4x6xf32>, tensor<1x1x4x5xf32>) {
  %0 = rlx.resize linear %x to [4, 6] : tensor<1x1x4x5xf32>
  %1 = rlx.resize linear %x to [4, 5] {scales = array<f64: 1.0, 1.1>} : tensor<1x1x4x5xf32>
  return %0, %1 : tensor<1x1x4x6xf32>, tensor<1x1x4x5xf32>
}
