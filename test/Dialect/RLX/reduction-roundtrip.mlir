// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @reduce_kinds
func.func @reduce_kinds(%x: tensor<4x8x16xf32>) {
  // CHECK: rlx.reduce sum %{{.*}} axes = [1] : tensor<4x8x16xf32>
  %0 = rlx.reduce sum %x axes = [1] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce mean %{{.*}} axes = [1] : tensor<4x8x16xf32>
  %1 = rlx.reduce mean %x axes = [1] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce max %{{.*}} axes = [1] : tensor<4x8x16xf32>
  %2 = rlx.reduce max %x axes = [1] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce min %{{.*}} axes = [1] : tensor<4x8x16xf32>
  %3 = rlx.reduce min %x axes = [1] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce prod %{{.*}} axes = [1] : tensor<4x8x16xf32>
  %4 = rlx.reduce prod %x axes = [1] : tensor<4x8x16xf32>
  return
}

// The result type is inferred from axes and keep_dim.
// CHECK-LABEL: func.func @reduce_shapes
func.func @reduce_shapes(%x: tensor<4x8x16xf32>, %i: tensor<4x?xi32>,
                         %c: tensor<3x2xcomplex<f32>>, %u: tensor<6xui8>)
    -> (tensor<8xf32>, tensor<1x8x1xf32>, tensor<f32>, tensor<4x8x16xf32>,
        tensor<4x1xi32>, tensor<?xi32>, tensor<3xcomplex<f32>>, tensor<ui8>) {
  // CHECK: rlx.reduce sum %{{.*}} axes = [2, 0] : tensor<4x8x16xf32>
  %0 = rlx.reduce sum %x axes = [2, 0] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce mean %{{.*}} axes = [0, 2] keep_dim : tensor<4x8x16xf32>
  %1 = rlx.reduce mean %x axes = [0, 2] keep_dim : tensor<4x8x16xf32>
  // CHECK: rlx.reduce max %{{.*}} axes = [0, 1, 2] : tensor<4x8x16xf32>
  %2 = rlx.reduce max %x axes = [0, 1, 2] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce sum %{{.*}} axes = [] : tensor<4x8x16xf32>
  %3 = rlx.reduce sum %x axes = [] : tensor<4x8x16xf32>
  // CHECK: rlx.reduce min %{{.*}} axes = [1] keep_dim : tensor<4x?xi32>
  %4 = rlx.reduce min %i axes = [1] keep_dim : tensor<4x?xi32>
  // CHECK: rlx.reduce prod %{{.*}} axes = [0] : tensor<4x?xi32>
  %5 = rlx.reduce prod %i axes = [0] : tensor<4x?xi32>
  // CHECK: rlx.reduce mean %{{.*}} axes = [1] : tensor<3x2xcomplex<f32>>
  %6 = rlx.reduce mean %c axes = [1] : tensor<3x2xcomplex<f32>>
  // CHECK: rlx.reduce max %{{.*}} axes = [0] : tensor<6xui8>
  %7 = rlx.reduce max %u axes = [0] : tensor<6xui8>
  // CHECK: return {{.*}} : tensor<8xf32>, tensor<1x8x1xf32>, tensor<f32>, tensor<4x8x16xf32>, tensor<4x1xi32>, tensor<?xi32>, tensor<3xcomplex<f32>>, tensor<ui8>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8xf32>, tensor<1x8x1xf32>, tensor<f32>, tensor<4x8x16xf32>, tensor<4x1xi32>, tensor<?xi32>, tensor<3xcomplex<f32>>, tensor<ui8>
}

// CHECK-LABEL: func.func @cumsum
func.func @cumsum(%x: tensor<2x16xf32>, %n: tensor<8xi64>, %d: tensor<?x?xf16>)
    -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<8xi64>, tensor<?x?xf16>) {
  // CHECK: rlx.cumsum %{{.*}} {axis = -1 : i64} : tensor<2x16xf32>
  %0 = rlx.cumsum %x {axis = -1 : i64} : tensor<2x16xf32>
  // CHECK: rlx.cumsum %{{.*}} {axis = 0 : i64, exclusive} : tensor<2x16xf32>
  %1 = rlx.cumsum %x {axis = 0 : i64, exclusive} : tensor<2x16xf32>
  // CHECK: rlx.cumsum %{{.*}} {axis = 0 : i64, exclusive} : tensor<8xi64>
  %2 = rlx.cumsum %n {axis = 0 : i64, exclusive} : tensor<8xi64>
  // CHECK: rlx.cumsum %{{.*}} {axis = -2 : i64} : tensor<?x?xf16>
  %3 = rlx.cumsum %d {axis = -2 : i64} : tensor<?x?xf16>
  return %0, %1, %2, %3 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<8xi64>, tensor<?x?xf16>
}

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x12x128x128xf32>, %h: tensor<4x?xbf16>)
    -> (tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>, tensor<4x?xbf16>) {
  // CHECK: rlx.softmax %{{.*}} {axis = -1 : i64} : tensor<2x12x128x128xf32>
  %0 = rlx.softmax %x {axis = -1 : i64} : tensor<2x12x128x128xf32>
  // CHECK: rlx.softmax %{{.*}} {axis = 1 : i64} : tensor<2x12x128x128xf32>
  %1 = rlx.softmax %x {axis = 1 : i64} : tensor<2x12x128x128xf32>
  // CHECK: rlx.softmax %{{.*}} {axis = 0 : i64} : tensor<4x?xbf16>
  %2 = rlx.softmax %h {axis = 0 : i64} : tensor<4x?xbf16>
  return %0, %1, %2 : tensor<2x12x128x128xf32>, tensor<2x12x128x128xf32>, tensor<4x?xbf16>
}

// Two results: values with the input's element type, i64 indices.
// CHECK-LABEL: func.func @top_k
func.func @top_k(%x: tensor<16x8xf32>, %i: tensor<5xi32>, %d: tensor<?x?xf16>)
    -> (tensor<16x2xf32>, tensor<16x2xi64>, tensor<5xi32>, tensor<5xi64>,
        tensor<?x3xf16>, tensor<?x3xi64>) {
  // CHECK: %{{.*}}, %{{.*}} = rlx.top_k %{{.*}} {k = 2 : i64} : tensor<16x8xf32>
  %v0, %i0 = rlx.top_k %x {k = 2 : i64} : tensor<16x8xf32>
  // CHECK: rlx.top_k %{{.*}} {k = 5 : i64} : tensor<5xi32>
  %v1, %i1 = rlx.top_k %i {k = 5 : i64} : tensor<5xi32>
  // CHECK: rlx.top_k %{{.*}} {k = 3 : i64} : tensor<?x?xf16>
  %v2, %i2 = rlx.top_k %d {k = 3 : i64} : tensor<?x?xf16>
  // CHECK: return {{.*}} : tensor<16x2xf32>, tensor<16x2xi64>, tensor<5xi32>, tensor<5xi64>, tensor<?x3xf16>, tensor<?x3xi64>
  return %v0, %i0, %v1, %i1, %v2, %i2 : tensor<16x2xf32>, tensor<16x2xi64>, tensor<5xi32>, tensor<5xi64>, tensor<?x3xf16>, tensor<?x3xi64>
}

// CHECK-LABEL: func.func @sample
func.func @sample(%logits: tensor<4x32000xf32>, %d: tensor<?x?xbf16>)
    -> (tensor<4xi64>, tensor<4xi64>, tensor<?xi64>) {
  // CHECK: rlx.sample %{{.*}} {seed = 42 : i64, temperature = 0.699999988 : f32, top_k = 40 : i64, top_p = 0.949999988 : f32} : tensor<4x32000xf32>
  %0 = rlx.sample %logits {top_k = 40 : i64, top_p = 0.95 : f32, temperature = 0.7 : f32, seed = 42 : i64} : tensor<4x32000xf32>
  // Filters off; seed 0 is the fixed default key.
  // CHECK: rlx.sample %{{.*}} {seed = 0 : i64, temperature = 1.000000e+00 : f32, top_k = 0 : i64, top_p = 1.000000e+00 : f32} : tensor<4x32000xf32>
  %1 = rlx.sample %logits {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = 0 : i64} : tensor<4x32000xf32>
  // CHECK: rlx.sample %{{.*}} {seed = -1 : i64, temperature = 2.000000e+00 : f32, top_k = 1 : i64, top_p = 5.000000e-01 : f32} : tensor<?x?xbf16>
  %2 = rlx.sample %d {top_k = 1 : i64, top_p = 0.5 : f32, temperature = 2.0 : f32, seed = -1 : i64} : tensor<?x?xbf16>
  // CHECK: return {{.*}} : tensor<4xi64>, tensor<4xi64>, tensor<?xi64>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<?xi64>
}

// The output row count is stated by the result type.
// CHECK-LABEL: func.func @scatter_add
func.func @scatter_add(%u: tensor<6x64xf32>, %i64: tensor<6xi64>, %i32: tensor<6xi32>,
                       %n: tensor<?x3xi32>, %in: tensor<?xi64>)
    -> (tensor<10x64xf32>, tensor<2x64xf32>, tensor<?x3xi32>) {
  // CHECK: rlx.scatter_add %{{.*}}, %{{.*}} : tensor<6x64xf32>, tensor<6xi64> -> tensor<10x64xf32>
  %0 = rlx.scatter_add %u, %i64 : tensor<6x64xf32>, tensor<6xi64> -> tensor<10x64xf32>
  // CHECK: rlx.scatter_add %{{.*}}, %{{.*}} : tensor<6x64xf32>, tensor<6xi32> -> tensor<2x64xf32>
  %1 = rlx.scatter_add %u, %i32 : tensor<6x64xf32>, tensor<6xi32> -> tensor<2x64xf32>
  // CHECK: rlx.scatter_add %{{.*}}, %{{.*}} : tensor<?x3xi32>, tensor<?xi64> -> tensor<?x3xi32>
  %2 = rlx.scatter_add %n, %in : tensor<?x3xi32>, tensor<?xi64> -> tensor<?x3xi32>
  return %0, %1, %2 : tensor<10x64xf32>, tensor<2x64xf32>, tensor<?x3xi32>
}
