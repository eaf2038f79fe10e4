// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// Any axis, counted from either end.
// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<4x8x16xf32>, %g16: tensor<16xf32>,
                      %g8: tensor<8xf32>, %g4: tensor<4xf32>,
                      %d: tensor<?x?xbf16>, %gd: tensor<?xbf16>)
    -> (tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<?x?xbf16>) {
  // CHECK: rlx.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, eps = 9.99999974E-6 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  %0 = rlx.layer_norm %x, %g16, %g16 {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK: rlx.layer_norm {{.*}} {axis = 1 : i64, eps = 0.000000e+00 : f32} : tensor<4x8x16xf32>, tensor<8xf32>, tensor<8xf32>
  %1 = rlx.layer_norm %x, %g8, %g8 {axis = 1 : i64, eps = 0.0 : f32} : tensor<4x8x16xf32>, tensor<8xf32>, tensor<8xf32>
  // CHECK: rlx.layer_norm {{.*}} {axis = -3 : i64, {{.*}}} : tensor<4x8x16xf32>, tensor<4xf32>, tensor<4xf32>
  %2 = rlx.layer_norm %x, %g4, %g4 {axis = -3 : i64, eps = 1.0e-05 : f32} : tensor<4x8x16xf32>, tensor<4xf32>, tensor<4xf32>
  // CHECK: rlx.layer_norm {{.*}} : tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>
  %3 = rlx.layer_norm %d, %gd, %gd {axis = -1 : i64, eps = 1.0e-05 : f32} : tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>
  // CHECK: return {{.*}} : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<?x?xbf16>
  return %0, %1, %2, %3 : tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<4x8x16xf32>, tensor<?x?xbf16>
}

// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<2x16x64xf16>, %g: tensor<64xf16>, %b: tensor<64xf16>,
                    %g16: tensor<16xf16>, %y: tensor<8xf64>, %gy: tensor<8xf64>)
    -> (tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<8xf64>) {
  // CHECK: rlx.rms_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64, eps = 9.99999997E-7 : f32} : tensor<2x16x64xf16>, tensor<64xf16>, tensor<64xf16>
  %0 = rlx.rms_norm %x, %g, %b {axis = -1 : i64, eps = 1.0e-06 : f32} : tensor<2x16x64xf16>, tensor<64xf16>, tensor<64xf16>
  // CHECK: rlx.rms_norm {{.*}} {axis = 1 : i64, {{.*}}} : tensor<2x16x64xf16>, tensor<16xf16>, tensor<16xf16>
  %1 = rlx.rms_norm %x, %g16, %g16 {axis = 1 : i64, eps = 1.0e-06 : f32} : tensor<2x16x64xf16>, tensor<16xf16>, tensor<16xf16>
  // CHECK: rlx.rms_norm {{.*}} {axis = 0 : i64, {{.*}}} : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
  %2 = rlx.rms_norm %y, %gy, %gy {axis = 0 : i64, eps = 1.0e-06 : f32} : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
  return %0, %1, %2 : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<8xf64>
}

// CHECK-LABEL: func.func @group_norm
func.func @group_norm(%x: tensor<2x32x8x8xf32>, %g: tensor<32xf32>,
                      %d: tensor<?x?x?x?xf32>, %gd: tensor<?xf32>)
    -> (tensor<2x32x8x8xf32>, tensor<2x32x8x8xf32>, tensor<?x?x?x?xf32>) {
  // CHECK: rlx.group_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32, num_groups = 8 : i64} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
  %0 = rlx.group_norm %x, %g, %g {num_groups = 8 : i64, eps = 1.0e-05 : f32} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
  // One group is a layer norm over C*H*W; C groups is an instance norm.
  // CHECK: rlx.group_norm {{.*}} {eps = {{.*}}, num_groups = 1 : i64}
  %1 = rlx.group_norm %x, %g, %g {num_groups = 1 : i64, eps = 1.0e-05 : f32} : tensor<2x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>
  // CHECK: rlx.group_norm {{.*}} {eps = {{.*}}, num_groups = 4 : i64} : tensor<?x?x?x?xf32>, tensor<?xf32>, tensor<?xf32>
  %2 = rlx.group_norm %d, %gd, %gd {num_groups = 4 : i64, eps = 1.0e-05 : f32} : tensor<?x?x?x?xf32>, tensor<?xf32>, tensor<?xf32>
  return %0, %1, %2 : tensor<2x32x8x8xf32>, tensor<2x32x8x8xf32>, tensor<?x?x?x?xf32>
}

// CHECK-LABEL: func.func @layer_norm2d
func.func @layer_norm2d(%x: tensor<1x256x16x16xf32>, %g: tensor<256xf32>,
                        %h: tensor<1x8x4x4xbf16>, %gh: tensor<8xbf16>)
    -> (tensor<1x256x16x16xf32>, tensor<1x8x4x4xbf16>) {
  // CHECK: rlx.layer_norm2d %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999997E-7 : f32} : tensor<1x256x16x16xf32>, tensor<256xf32>, tensor<256xf32>
  %0 = rlx.layer_norm2d %x, %g, %g {eps = 1.0e-06 : f32} : tensor<1x256x16x16xf32>, tensor<256xf32>, tensor<256xf32>
  // CHECK: rlx.layer_norm2d {{.*}} : tensor<1x8x4x4xbf16>, tensor<8xbf16>, tensor<8xbf16>
  %1 = rlx.layer_norm2d %h, %gh, %gh {eps = 1.0e-06 : f32} : tensor<1x8x4x4xbf16>, tensor<8xbf16>, tensor<8xbf16>
  return %0, %1 : tensor<1x256x16x16xf32>, tensor<1x8x4x4xbf16>
}

// The feature axis is the last one, whatever the rank.
// CHECK-LABEL: func.func @batch_norm_inference
func.func @batch_norm_inference(%x: tensor<8x4x4x64xf32>, %s: tensor<64xf32>,
                                %v: tensor<16xf64>, %sv: tensor<16xf64>,
                                %d: tensor<?x?xf32>, %sd: tensor<?xf32>)
    -> (tensor<8x4x4x64xf32>, tensor<16xf64>, tensor<?x?xf32>) {
  // CHECK: rlx.batch_norm_inference %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eps = 9.99999974E-6 : f32} : tensor<8x4x4x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  %0 = rlx.batch_norm_inference %x, %s, %s, %s, %s {eps = 1.0e-05 : f32} : tensor<8x4x4x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  // CHECK: rlx.batch_norm_inference {{.*}} : tensor<16xf64>, tensor<16xf64>, tensor<16xf64>, tensor<16xf64>, tensor<16xf64>
  %1 = rlx.batch_norm_inference %v, %sv, %sv, %sv, %sv {eps = 1.0e-05 : f32} : tensor<16xf64>, tensor<16xf64>, tensor<16xf64>, tensor<16xf64>, tensor<16xf64>
  // CHECK: rlx.batch_norm_inference {{.*}} : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  %2 = rlx.batch_norm_inference %d, %sd, %sd, %sd, %sd {eps = 1.0e-05 : f32} : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
  return %0, %1, %2 : tensor<8x4x4x64xf32>, tensor<16xf64>, tensor<?x?xf32>
}

// The result type is inferred: spatial dims double, dynamic ones stay dynamic.
// CHECK-LABEL: func.func @resize_nearest2x
func.func @resize_nearest2x(%x: tensor<1x3x4x5xf32>, %i: tensor<2x1x3x3xi8>,
                            %d: tensor<?x3x?x7xf16>)
    -> (tensor<1x3x8x10xf32>, tensor<2x1x6x6xi8>, tensor<?x3x?x14xf16>) {
  // CHECK: rlx.resize_nearest2x %{{.*}} : tensor<1x3x4x5xf32>
  %0 = rlx.resize_nearest2x %x : tensor<1x3x4x5xf32>
  // CHECK: rlx.resize_nearest2x %{{.*}} : tensor<2x1x3x3xi8>
  %1 = rlx.resize_nearest2x %i : tensor<2x1x3x3xi8>
  // CHECK: rlx.resize_nearest2x %{{.*}} : tensor<?x3x?x7xf16>
  %2 = rlx.resize_nearest2x %d : tensor<?x3x?x7xf16>
  // CHECK: return {{.*}} : tensor<1x3x8x10xf32>, tensor<2x1x6x6xi8>, tensor<?x3x?x14xf16>
  return %0, %1, %2 : tensor<1x3x8x10xf32>, tensor<2x1x6x6xi8>, tensor<?x3x?x14xf16>
}

// rlx.resize: every mode, 1 to 3 trailing dims, align_corners and scales,
// a dynamic leading dim, an integer nearest resize.
// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<2x3x4x5xf32>, %v: tensor<2x3x7xf64>,
                  %w: tensor<1x2x3x4x5xf16>, %d: tensor<?x3x4x5xf32>,
                  %i: tensor<1x1x3x3xi8>)
    -> (tensor<2x3x9x2xf32>, tensor<2x3x8x10xf32>, tensor<2x3x3xf64>,
        tensor<1x2x6x8x10xf16>, tensor<?x3x13x1xf32>, tensor<1x1x7x7xi8>,
        tensor<2x3x9x2xf32>) {
  // CHECK: rlx.resize linear %{{.*}} to [9, 2] {align_corners} : tensor<2x3x4x5xf32>
  %0 = rlx.resize linear %x to [9, 2] {align_corners} : tensor<2x3x4x5xf32>
  // CHECK: rlx.resize nearest %{{.*}} to [8, 10] {scales = array<f64: 2.000000e+00, 2.000000e+00>} : tensor<2x3x4x5xf32>
  %1 = rlx.resize nearest %x to [8, 10] {scales = array<f64: 2.0, 2.0>} : tensor<2x3x4x5xf32>
  // CHECK: rlx.resize nearest_exact %{{.*}} to [3] : tensor<2x3x7xf64>
  %2 = rlx.resize nearest_exact %v to [3] : tensor<2x3x7xf64>
  // CHECK: rlx.resize linear %{{.*}} to [6, 8, 10] : tensor<1x2x3x4x5xf16>
  %3 = rlx.resize linear %w to [6, 8, 10] : tensor<1x2x3x4x5xf16>
  // CHECK: rlx.resize linear %{{.*}} to [13, 1] : tensor<?x3x4x5xf32>
  %4 = rlx.resize linear %d to [13, 1] : tensor<?x3x4x5xf32>
  // CHECK: rlx.resize nearest %{{.*}} to [7, 7] : tensor<1x1x3x3xi8>
  %5 = rlx.resize nearest %i to [7, 7] : tensor<1x1x3x3xi8>
  // CHECK: rlx.resize cubic %{{.*}} to [9, 2] {align_corners} : tensor<2x3x4x5xf32>
  %6 = rlx.resize cubic %x to [9, 2] {align_corners} : tensor<2x3x4x5xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2x3x9x2xf32>, tensor<2x3x8x10xf32>, tensor<2x3x3xf64>,
        tensor<1x2x6x8x10xf16>, tensor<?x3x13x1xf32>, tensor<1x1x7x7xi8>, tensor<2x3x9x2xf32>
}
