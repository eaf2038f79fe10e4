// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// A -1 entry is inferred from the element count, or stays dynamic.
// CHECK-LABEL: func.func @reshape
func.func @reshape(%x: tensor<4x128x768xf32>, %d: tensor<?x6xi64>,
                   %s: tensor<f16>, %e: tensor<0x3xi1>)
    -> (tensor<4x1536x64xf32>, tensor<393216xf32>, tensor<?xi64>,
        tensor<3x?x2xi64>, tensor<1x1xf16>, tensor<f16>, tensor<3x0xi1>) {
  // CHECK: rlx.reshape %{{.*}} new_shape = [4, -1, 64] : tensor<4x128x768xf32>
  %0 = rlx.reshape %x new_shape = [4, -1, 64] : tensor<4x128x768xf32>
  // CHECK: rlx.reshape %{{.*}} new_shape = [393216] : tensor<4x128x768xf32>
  %1 = rlx.reshape %x new_shape = [393216] : tensor<4x128x768xf32>
  // CHECK: rlx.reshape %{{.*}} new_shape = [-1] : tensor<?x6xi64>
  %2 = rlx.reshape %d new_shape = [-1] : tensor<?x6xi64>
  // CHECK: rlx.reshape %{{.*}} new_shape = [3, -1, 2] : tensor<?x6xi64>
  %3 = rlx.reshape %d new_shape = [3, -1, 2] : tensor<?x6xi64>
  // CHECK: rlx.reshape %{{.*}} new_shape = [1, 1] : tensor<f16>
  %4 = rlx.reshape %s new_shape = [1, 1] : tensor<f16>
  // CHECK: rlx.reshape %{{.*}} new_shape = [] : tensor<1x1xf16>
  %5 = rlx.reshape %4 new_shape = [] : tensor<1x1xf16>
  // CHECK: rlx.reshape %{{.*}} new_shape = [3, 0] : tensor<0x3xi1>
  %6 = rlx.reshape %e new_shape = [3, 0] : tensor<0x3xi1>
  // CHECK: return {{.*}} : tensor<4x1536x64xf32>, tensor<393216xf32>, tensor<?xi64>, tensor<3x?x2xi64>, tensor<1x1xf16>, tensor<f16>, tensor<3x0xi1>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<4x1536x64xf32>, tensor<393216xf32>, tensor<?xi64>,
        tensor<3x?x2xi64>, tensor<1x1xf16>, tensor<f16>, tensor<3x0xi1>
}

// CHECK-LABEL: func.func @transpose
func.func @transpose(%x: tensor<2x128x12x64xf32>, %m: tensor<4x?xbf16>,
                     %s: tensor<i32>)
    -> (tensor<2x12x128x64xf32>, tensor<?x4xbf16>, tensor<i32>) {
  // CHECK: rlx.transpose %{{.*}} perm = [0, 2, 1, 3] : tensor<2x128x12x64xf32>
  %0 = rlx.transpose %x perm = [0, 2, 1, 3] : tensor<2x128x12x64xf32>
  // CHECK: rlx.transpose %{{.*}} perm = [1, 0] : tensor<4x?xbf16>
  %1 = rlx.transpose %m perm = [1, 0] : tensor<4x?xbf16>
  // CHECK: rlx.transpose %{{.*}} perm = [] : tensor<i32>
  %2 = rlx.transpose %s perm = [] : tensor<i32>
  // CHECK: return {{.*}} : tensor<2x12x128x64xf32>, tensor<?x4xbf16>, tensor<i32>
  return %0, %1, %2 : tensor<2x12x128x64xf32>, tensor<?x4xbf16>, tensor<i32>
}

// CHECK-LABEL: func.func @narrow
func.func @narrow(%x: tensor<4x128x2304xf32>, %d: tensor<?x8xi8>)
    -> (tensor<4x128x768xf32>, tensor<1x128x2304xf32>, tensor<2x8xi8>,
        tensor<?x0xi8>) {
  // CHECK: rlx.narrow %{{.*}} axis = 2 start = 0 len = 768 : tensor<4x128x2304xf32>
  %0 = rlx.narrow %x axis = 2 start = 0 len = 768 : tensor<4x128x2304xf32>
  // CHECK: rlx.narrow %{{.*}} axis = 0 start = 3 len = 1 : tensor<4x128x2304xf32>
  %1 = rlx.narrow %x axis = 0 start = 3 len = 1 : tensor<4x128x2304xf32>
  // A dynamic dim is bounds-checked at run time.
  // CHECK: rlx.narrow %{{.*}} axis = 0 start = 5 len = 2 : tensor<?x8xi8>
  %2 = rlx.narrow %d axis = 0 start = 5 len = 2 : tensor<?x8xi8>
  // CHECK: rlx.narrow %{{.*}} axis = 1 start = 8 len = 0 : tensor<?x8xi8>
  %3 = rlx.narrow %d axis = 1 start = 8 len = 0 : tensor<?x8xi8>
  // CHECK: return {{.*}} : tensor<4x128x768xf32>, tensor<1x128x2304xf32>, tensor<2x8xi8>, tensor<?x0xi8>
  return %0, %1, %2, %3
      : tensor<4x128x768xf32>, tensor<1x128x2304xf32>, tensor<2x8xi8>,
        tensor<?x0xi8>
}

// CHECK-LABEL: func.func @concat
func.func @concat(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>, %c: tensor<?x5xf32>,
                  %d: tensor<2x?xf32>, %q: tensor<3xcomplex<f32>>)
    -> (tensor<4x8xf32>, tensor<?x5xf32>, tensor<4x3xf32>, tensor<6x5xf32>,
        tensor<6xcomplex<f32>>) {
  // CHECK: rlx.concat %{{.*}}, %{{.*}} axis = 1 : tensor<4x3xf32>, tensor<4x5xf32>
  %0 = rlx.concat %a, %b axis = 1 : tensor<4x3xf32>, tensor<4x5xf32>
  // CHECK: rlx.concat %{{.*}}, %{{.*}}, %{{.*}} axis = 0 : tensor<4x5xf32>, tensor<?x5xf32>, tensor<4x5xf32>
  %1 = rlx.concat %b, %c, %b axis = 0 : tensor<4x5xf32>, tensor<?x5xf32>, tensor<4x5xf32>
  // CHECK: rlx.concat %{{.*}} axis = 0 : tensor<4x3xf32>
  %2 = rlx.concat %a axis = 0 : tensor<4x3xf32>
  // A dynamic dim takes the static size of another input.
  // CHECK: rlx.concat %{{.*}}, %{{.*}} axis = 0 : tensor<2x?xf32>, tensor<4x5xf32>
  %3 = rlx.concat %d, %b axis = 0 : tensor<2x?xf32>, tensor<4x5xf32>
  // CHECK: rlx.concat %{{.*}}, %{{.*}} axis = 0 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
  %4 = rlx.concat %q, %q axis = 0 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
  // CHECK: return {{.*}} : tensor<4x8xf32>, tensor<?x5xf32>, tensor<4x3xf32>, tensor<6x5xf32>, tensor<6xcomplex<f32>>
  return %0, %1, %2, %3, %4
      : tensor<4x8xf32>, tensor<?x5xf32>, tensor<4x3xf32>, tensor<6x5xf32>,
        tensor<6xcomplex<f32>>
}

// NumPy broadcast to a target shape; -1 keeps the aligned input dim.
// CHECK-LABEL: func.func @expand
func.func @expand(%b: tensor<1x768xf32>, %d: tensor<?x1xi32>, %s: tensor<f16>)
    -> (tensor<4x128x768xf32>, tensor<2x?x5xi32>, tensor<2x3xf16>,
        tensor<?x4xi32>, tensor<1x768xf32>) {
  // CHECK: rlx.expand %{{.*}} target_shape = [4, 128, -1] : tensor<1x768xf32>
  %0 = rlx.expand %b target_shape = [4, 128, -1] : tensor<1x768xf32>
  // CHECK: rlx.expand %{{.*}} target_shape = [2, -1, 5] : tensor<?x1xi32>
  %1 = rlx.expand %d target_shape = [2, -1, 5] : tensor<?x1xi32>
  // CHECK: rlx.expand %{{.*}} target_shape = [2, 3] : tensor<f16>
  %2 = rlx.expand %s target_shape = [2, 3] : tensor<f16>
  // CHECK: rlx.expand %{{.*}} target_shape = [-1, 4] : tensor<?x1xi32>
  %3 = rlx.expand %d target_shape = [-1, 4] : tensor<?x1xi32>
  // CHECK: rlx.expand %{{.*}} target_shape = [1, 768] : tensor<1x768xf32>
  %4 = rlx.expand %b target_shape = [1, 768] : tensor<1x768xf32>
  // CHECK: return {{.*}} : tensor<4x128x768xf32>, tensor<2x?x5xi32>, tensor<2x3xf16>, tensor<?x4xi32>, tensor<1x768xf32>
  return %0, %1, %2, %3, %4
      : tensor<4x128x768xf32>, tensor<2x?x5xi32>, tensor<2x3xf16>,
        tensor<?x4xi32>, tensor<1x768xf32>
}

// result = table[:axis] + indices + table[axis+1:].
// CHECK-LABEL: func.func @gather
func.func @gather(%emb: tensor<50257x768xf32>, %tok: tensor<4x128xi64>,
                  %t: tensor<2x10x3xbf16>, %i: tensor<5xi32>, %s: tensor<i64>,
                  %dt: tensor<?x4xi8>, %di: tensor<?xi32>)
    -> (tensor<4x128x768xf32>, tensor<2x5x3xbf16>, tensor<2x3xbf16>,
        tensor<?x?xi8>, tensor<2x10x5xbf16>) {
  // CHECK: rlx.gather %{{.*}}, %{{.*}} axis = 0 : tensor<50257x768xf32>, tensor<4x128xi64>
  %0 = rlx.gather %emb, %tok axis = 0 : tensor<50257x768xf32>, tensor<4x128xi64>
  // CHECK: rlx.gather %{{.*}}, %{{.*}} axis = 1 : tensor<2x10x3xbf16>, tensor<5xi32>
  %1 = rlx.gather %t, %i axis = 1 : tensor<2x10x3xbf16>, tensor<5xi32>
  // A rank-0 index drops the axis.
  // CHECK: rlx.gather %{{.*}}, %{{.*}} axis = 1 : tensor<2x10x3xbf16>, tensor<i64>
  %2 = rlx.gather %t, %s axis = 1 : tensor<2x10x3xbf16>, tensor<i64>
  // CHECK: rlx.gather %{{.*}}, %{{.*}} axis = 1 : tensor<?x4xi8>, tensor<?xi32>
  %3 = rlx.gather %dt, %di axis = 1 : tensor<?x4xi8>, tensor<?xi32>
  // CHECK: rlx.gather %{{.*}}, %{{.*}} axis = 2 : tensor<2x10x3xbf16>, tensor<5xi32>
  %4 = rlx.gather %t, %i axis = 2 : tensor<2x10x3xbf16>, tensor<5xi32>
  // CHECK: return {{.*}} : tensor<4x128x768xf32>, tensor<2x5x3xbf16>, tensor<2x3xbf16>, tensor<?x?xi8>, tensor<2x10x5xbf16>
  return %0, %1, %2, %3, %4
      : tensor<4x128x768xf32>, tensor<2x5x3xbf16>, tensor<2x3xbf16>,
        tensor<?x?xi8>, tensor<2x10x5xbf16>
}
