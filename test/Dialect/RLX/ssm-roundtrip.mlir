// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @selective_scan
func.func @selective_scan(%x: tensor<2x64x32xf32>, %a: tensor<32x16xf32>, %bc: tensor<2x64x16xf32>,
                          %xd: tensor<?x?x8xf64>, %ad: tensor<8x4xf64>, %bd: tensor<?x?x4xf64>)
    -> (tensor<2x64x32xf32>, tensor<?x?x8xf64>) {
  // CHECK: rlx.selective_scan %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} state_size = 16 : tensor<2x64x32xf32>, tensor<2x64x32xf32>, tensor<32x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>
  %0 = rlx.selective_scan %x, %x, %a, %bc, %bc state_size = 16 : tensor<2x64x32xf32>, tensor<2x64x32xf32>, tensor<32x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>
  // CHECK: rlx.selective_scan {{.*}} state_size = 4 : tensor<?x?x8xf64>, tensor<?x?x8xf64>, tensor<8x4xf64>, tensor<?x?x4xf64>, tensor<?x?x4xf64>
  %1 = rlx.selective_scan %xd, %xd, %ad, %bd, %bd state_size = 4 : tensor<?x?x8xf64>, tensor<?x?x8xf64>, tensor<8x4xf64>, tensor<?x?x4xf64>, tensor<?x?x4xf64>
  return %0, %1 : tensor<2x64x32xf32>, tensor<?x?x8xf64>
}

// CHECK-LABEL: func.func @gated_delta_net
func.func @gated_delta_net(%q: tensor<1x16x4x64xf32>, %g: tensor<1x16x4xf32>, %s: tensor<1x4x64x64xf32>)
    -> (tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x4x64x64xf32>) {
  // CHECK: rlx.gated_delta_net %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} state_size = 64 : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>
  %0 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 64 : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>
  // CHECK: %{{.*}}, %{{.*}} = rlx.gated_delta_net %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} state_size = 64 carry_state state %{{.*}} : tensor<1x4x64x64xf32> : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>
  %1:2 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 64 carry_state state %s : tensor<1x4x64x64xf32> : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>
  // CHECK: return {{.*}} : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x4x64x64xf32>
  return %0, %1#0, %1#1 : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x4x64x64xf32>
}

// CHECK-LABEL: func.func @gated_delta_net_dynamic
func.func @gated_delta_net_dynamic(%q: tensor<?x?x2x8xbf16>, %g: tensor<?x?x2xbf16>, %s: tensor<?x2x8x8xbf16>)
    -> (tensor<?x?x2x8xbf16>, tensor<?x2x8x8xbf16>) {
  // CHECK: rlx.gated_delta_net {{.*}} state_size = 8 carry_state state %{{.*}} : tensor<?x2x8x8xbf16> : tensor<?x?x2x8xbf16>
  %0:2 = rlx.gated_delta_net %q, %q, %q, %g, %g state_size = 8 carry_state state %s : tensor<?x2x8x8xbf16> : tensor<?x?x2x8xbf16>, tensor<?x?x2x8xbf16>, tensor<?x?x2x8xbf16>, tensor<?x?x2xbf16>, tensor<?x?x2xbf16>
  return %0#0, %0#1 : tensor<?x?x2x8xbf16>, tensor<?x2x8x8xbf16>
}
