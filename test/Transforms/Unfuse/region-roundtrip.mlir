// RUN: rlx-opt %s --rlx-fuse | FileCheck %s --check-prefix=FUSED
// RUN: rlx-opt %s --rlx-fuse --rlx-unfuse | FileCheck %s

// Fusing a chain and unfusing the regions gives back the chain: the bodies
// hold the chain's ops, and unfusing inlines them on the full-size
// operands. (The product has two uses, so it ends the first region.)
// FUSED-LABEL: func.func @chain
// FUSED-COUNT-2: rlx.elementwise_region
// FUSED-NOT: rlx.elementwise_region
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8xf16>, %[[I:.*]]: tensor<4x1xi32>)
// CHECK: %[[HALF:.*]] = rlx.constant dense<5.000000e-01> : tensor<f16>
// CHECK: %[[A:.*]] = rlx.binary add %[[X]], %[[B]] : tensor<4x8xf16>, tensor<8xf16>
// CHECK: %[[G:.*]] = rlx.activation gelu %[[A]] : tensor<4x8xf16>
// CHECK: %[[M:.*]] = rlx.binary mul %[[G]], %[[HALF]] : tensor<4x8xf16>, tensor<f16>
// CHECK: %[[C:.*]] = rlx.cast %[[I]] : tensor<4x1xi32> to f16
// CHECK: %[[P:.*]] = rlx.compare gt %[[M]], %[[C]] : tensor<4x8xf16>, tensor<4x1xf16>
// CHECK: %[[W:.*]] = rlx.where %[[P]], %[[M]], %[[X]] : tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>
// CHECK: return %[[W]]
// CHECK-NOT: rlx.elementwise_region
func.func @chain(%x: tensor<4x8xf16>, %b: tensor<8xf16>, %i: tensor<4x1xi32>) -> tensor<4x8xf16> {
  %half = rlx.constant dense<0.5> : tensor<4x8xf16>
  %0 = rlx.binary add %x, %b : tensor<4x8xf16>, tensor<8xf16>
  %1 = rlx.activation gelu %0 : tensor<4x8xf16>
  %2 = rlx.binary mul %1, %half : tensor<4x8xf16>, tensor<4x8xf16>
  %c = rlx.cast %i : tensor<4x1xi32> to f16
  %3 = rlx.compare gt %2, %c : tensor<4x8xf16>, tensor<4x1xf16>
  %4 = rlx.where %3, %2, %x : tensor<4x8xi1>, tensor<4x8xf16>, tensor<4x8xf16>
  return %4 : tensor<4x8xf16>
}
