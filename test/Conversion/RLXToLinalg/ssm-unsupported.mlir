// RUN: not rlx-opt %s --convert-rlx-to-linalg --split-input-file 2>&1 | FileCheck %s

// The per-step slices of the time loop need static shapes.
// CHECK: error: 'rlx.selective_scan' op the CPU lowering needs static shapes
func.func @selective_scan_dynamic(%x: tensor<?x5x3xf32>, %a: tensor<3x4xf32>, %b: tensor<?x5x4xf32>) -> tensor<?x5x3xf32> {
  %y = rlx.selective_scan %x, %x, %a, %b, %b state_size = 4 : tensor<?x5x3xf32>, tensor<?x5x3xf32>, tensor<3x4xf32>, tensor<?x5x4xf32>, tensor<?x5x4xf32>
  return %y : tensor<?x5x3xf32>
}

// -----

// CHECK: error: 'rlx.gated_delta_net' op the CPU lowering needs static shapes
func.func @gated_delta_net_dynamic(%q: tensor<1x?x2x4xf32>, %g: tensor<1x?x2xf32>) -> tensor<1x?x2x4xf32> {
  %o = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 4 : tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2x4xf32>, tensor<1x?x2xf32>, tensor<1x?x2xf32>
  return %o : tensor<1x?x2x4xf32>
}
