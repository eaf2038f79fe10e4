// RUN: rlx-opt %s --rlx-unfuse | FileCheck %s --check-prefix=UNFUSED
// RUN: rlx-opt %s --rlx-unfuse | rlx-opt --rlx-fuse | FileCheck %s

// rlx-unfuse then rlx-fuse gives each rlx.fused_swiglu back, with its
// gate_first and cast_to.
// UNFUSED-LABEL: func.func @swiglu
// UNFUSED-NOT: rlx.fused_swiglu
// UNFUSED-COUNT-8: rlx.narrow
// UNFUSED-NOT: rlx.fused_swiglu
// CHECK-LABEL: func.func @swiglu
// CHECK-NEXT: %[[A:.*]] = rlx.fused_swiglu %arg0 : tensor<3x5x12xf32>
// CHECK-NEXT: %[[B:.*]] = rlx.fused_swiglu %arg0 gate_first : tensor<3x5x12xf32>
// CHECK-NEXT: %[[C:.*]] = rlx.fused_swiglu %arg0 cast_to f16 : tensor<3x5x12xf32>
// CHECK-NEXT: %[[D:.*]] = rlx.fused_swiglu %arg1 gate_first cast_to f32 : tensor<7x6xf64>
// CHECK-NEXT: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @swiglu(%x: tensor<3x5x12xf32>, %z: tensor<7x6xf64>)
    -> (tensor<3x5x6xf32>, tensor<3x5x6xf32>, tensor<3x5x6xf16>, tensor<7x3xf32>) {
  %0 = rlx.fused_swiglu %x : tensor<3x5x12xf32>
  %1 = rlx.fused_swiglu %x gate_first : tensor<3x5x12xf32>
  %2 = rlx.fused_swiglu %x cast_to f16 : tensor<3x5x12xf32>
  %3 = rlx.fused_swiglu %z gate_first cast_to f32 : tensor<7x6xf64>
  return %0, %1, %2, %3 : tensor<3x5x6xf32>, tensor<3x5x6xf32>, tensor<3x5x6xf16>, tensor<7x3xf32>
}
