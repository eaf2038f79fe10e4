// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @constant
func.func @constant() -> (tensor<2xf32>, tensor<2x2xi64>, tensor<3xi1>) {
  // CHECK: rlx.constant dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
  %0 = rlx.constant dense<[0.5, -1.0]> : tensor<2xf32>
  // CHECK: rlx.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>
  %1 = rlx.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK: rlx.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = rlx.constant dense<[true, false, true]> : tensor<3xi1>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xi64>, tensor<3xi1>
}

// CHECK-LABEL: func.func @constant_resource
func.func @constant_resource() -> tensor<2xf32> {
  // CHECK: rlx.constant dense_resource<blob> : tensor<2xf32>
  %0 = rlx.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @activation_kinds
func.func @activation_kinds(%x: tensor<4x?xf32>) {
  // CHECK: rlx.activation gelu %{{.*}} : tensor<4x?xf32>
  %0 = rlx.activation gelu %x : tensor<4x?xf32>
  // CHECK: rlx.activation gelu_approx
  %1 = rlx.activation gelu_approx %x : tensor<4x?xf32>
  // CHECK: rlx.activation silu
  %2 = rlx.activation silu %x : tensor<4x?xf32>
  // CHECK: rlx.activation relu
  %3 = rlx.activation relu %x : tensor<4x?xf32>
  // CHECK: rlx.activation sigmoid
  %4 = rlx.activation sigmoid %x : tensor<4x?xf32>
  // CHECK: rlx.activation tanh
  %5 = rlx.activation tanh %x : tensor<4x?xf32>
  // CHECK: rlx.activation exp
  %6 = rlx.activation exp %x : tensor<4x?xf32>
  // CHECK: rlx.activation log
  %7 = rlx.activation log %x : tensor<4x?xf32>
  // CHECK: rlx.activation sqrt
  %8 = rlx.activation sqrt %x : tensor<4x?xf32>
  // CHECK: rlx.activation rsqrt
  %9 = rlx.activation rsqrt %x : tensor<4x?xf32>
  // CHECK: rlx.activation neg
  %10 = rlx.activation neg %x : tensor<4x?xf32>
  // CHECK: rlx.activation abs
  %11 = rlx.activation abs %x : tensor<4x?xf32>
  // CHECK: rlx.activation sin
  %12 = rlx.activation sin %x : tensor<4x?xf32>
  // CHECK: rlx.activation cos
  %13 = rlx.activation cos %x : tensor<4x?xf32>
  // CHECK: rlx.activation tan
  %14 = rlx.activation tan %x : tensor<4x?xf32>
  // CHECK: rlx.activation atan
  %15 = rlx.activation atan %x : tensor<4x?xf32>
  // CHECK: rlx.activation round
  %16 = rlx.activation round %x : tensor<4x?xf32>
  // CHECK: rlx.activation floor
  %17 = rlx.activation floor %x : tensor<4x?xf32>
  // CHECK: rlx.activation ceil
  %18 = rlx.activation ceil %x : tensor<4x?xf32>
  // CHECK: rlx.activation trunc
  %19 = rlx.activation trunc %x : tensor<4x?xf32>
  return
}

// CHECK-LABEL: func.func @activation_dtypes
func.func @activation_dtypes(%h: tensor<8xf16>, %b: tensor<8xbf16>,
                             %d: tensor<8xf64>, %i: tensor<8xi32>) {
  // CHECK: rlx.activation exp %{{.*}} : tensor<8xf16>
  %0 = rlx.activation exp %h : tensor<8xf16>
  // CHECK: rlx.activation tanh %{{.*}} : tensor<8xbf16>
  %1 = rlx.activation tanh %b : tensor<8xbf16>
  // CHECK: rlx.activation gelu %{{.*}} : tensor<8xf64>
  %2 = rlx.activation gelu %d : tensor<8xf64>
  // CHECK: rlx.activation relu %{{.*}} : tensor<8xi32>
  %3 = rlx.activation relu %i : tensor<8xi32>
  // CHECK: rlx.activation abs %{{.*}} : tensor<8xi32>
  %4 = rlx.activation abs %i : tensor<8xi32>
  // CHECK: rlx.activation neg %{{.*}} : tensor<8xi32>
  %5 = rlx.activation neg %i : tensor<8xi32>
  return
}

// CHECK-LABEL: func.func @binary_kinds
func.func @binary_kinds(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // CHECK: rlx.binary add %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32>
  %0 = rlx.binary add %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary sub
  %1 = rlx.binary sub %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary mul
  %2 = rlx.binary mul %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary div
  %3 = rlx.binary div %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary max
  %4 = rlx.binary max %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary min
  %5 = rlx.binary min %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary pow
  %6 = rlx.binary pow %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary floor_div
  %7 = rlx.binary floor_div %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary remainder
  %8 = rlx.binary remainder %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.binary fmod
  %9 = rlx.binary fmod %a, %b : tensor<4x3xf32>, tensor<3xf32>
  return
}

// The result type is inferred from NumPy broadcasting, middle axes included.
// CHECK-LABEL: func.func @binary_broadcast
func.func @binary_broadcast(%a: tensor<4x1x8xf32>, %b: tensor<3x1xf32>,
                            %d: tensor<?x8xi32>, %e: tensor<5x8xi32>,
                            %p: tensor<2xi1>, %q: tensor<2xi1>,
                            %c: tensor<2xcomplex<f32>>)
    -> (tensor<4x3x8xf32>, tensor<5x8xi32>, tensor<2xi1>, tensor<2xcomplex<f32>>) {
  // CHECK: rlx.binary mul
  %0 = rlx.binary mul %a, %b : tensor<4x1x8xf32>, tensor<3x1xf32>
  // CHECK: rlx.binary add
  %1 = rlx.binary add %d, %e : tensor<?x8xi32>, tensor<5x8xi32>
  // CHECK: rlx.binary max
  %2 = rlx.binary max %p, %q : tensor<2xi1>, tensor<2xi1>
  // CHECK: rlx.binary mul {{.*}} : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  %3 = rlx.binary mul %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  // CHECK: return {{.*}} : tensor<4x3x8xf32>, tensor<5x8xi32>, tensor<2xi1>, tensor<2xcomplex<f32>>
  return %0, %1, %2, %3 : tensor<4x3x8xf32>, tensor<5x8xi32>, tensor<2xi1>, tensor<2xcomplex<f32>>
}

// The result element type is `to`; the shape is kept.
// CHECK-LABEL: func.func @cast
func.func @cast(%x: tensor<4x?xf32>, %m: tensor<4x?xi1>, %i: tensor<8xi32>,
                %u: tensor<8xui8>, %c: tensor<8xcomplex<f32>>, %h: tensor<8xbf16>)
    -> (tensor<4x?xi32>, tensor<4x?xf32>, tensor<4x?xf16>, tensor<8xui8>,
        tensor<8xi64>, tensor<8xf32>, tensor<8xcomplex<f32>>,
        tensor<8xf8E4M3FN>, tensor<8xf8E5M2>, tensor<8xi1>, tensor<4x?xf64>,
        tensor<8xi8>, tensor<8xi16>, tensor<8xui32>) {
  // CHECK: rlx.cast %{{.*}} : tensor<4x?xf32> to i32
  %0 = rlx.cast %x : tensor<4x?xf32> to i32
  // CHECK: rlx.cast %{{.*}} : tensor<4x?xi1> to f32
  %1 = rlx.cast %m : tensor<4x?xi1> to f32
  // CHECK: rlx.cast %{{.*}} : tensor<4x?xf32> to f16
  %2 = rlx.cast %x : tensor<4x?xf32> to f16
  // CHECK: rlx.cast %{{.*}} : tensor<8xi32> to ui8
  %3 = rlx.cast %i : tensor<8xi32> to ui8
  // CHECK: rlx.cast %{{.*}} : tensor<8xui8> to i64
  %4 = rlx.cast %u : tensor<8xui8> to i64
  // CHECK: rlx.cast %{{.*}} : tensor<8xcomplex<f32>> to f32
  %5 = rlx.cast %c : tensor<8xcomplex<f32>> to f32
  // CHECK: rlx.cast %{{.*}} : tensor<8xbf16> to complex<f32>
  %6 = rlx.cast %h : tensor<8xbf16> to complex<f32>
  // CHECK: rlx.cast %{{.*}} : tensor<8xbf16> to f8E4M3FN
  %7 = rlx.cast %h : tensor<8xbf16> to f8E4M3FN
  // CHECK: rlx.cast %{{.*}} : tensor<8xf8E4M3FN> to f8E5M2
  %8 = rlx.cast %7 : tensor<8xf8E4M3FN> to f8E5M2
  // CHECK: rlx.cast %{{.*}} : tensor<8xi32> to i1
  %9 = rlx.cast %i : tensor<8xi32> to i1
  // CHECK: rlx.cast %{{.*}} : tensor<4x?xf32> to f64
  %10 = rlx.cast %x : tensor<4x?xf32> to f64
  // CHECK: rlx.cast %{{.*}} : tensor<8xi32> to i8
  %11 = rlx.cast %i : tensor<8xi32> to i8
  // CHECK: rlx.cast %{{.*}} : tensor<8xui8> to i16
  %12 = rlx.cast %u : tensor<8xui8> to i16
  // CHECK: rlx.cast %{{.*}} : tensor<8xi32> to ui32
  %13 = rlx.cast %i : tensor<8xi32> to ui32
  // CHECK: return {{.*}} : tensor<4x?xi32>, tensor<4x?xf32>, tensor<4x?xf16>, tensor<8xui8>, tensor<8xi64>, tensor<8xf32>, tensor<8xcomplex<f32>>, tensor<8xf8E4M3FN>, tensor<8xf8E5M2>, tensor<8xi1>, tensor<4x?xf64>, tensor<8xi8>, tensor<8xi16>, tensor<8xui32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : tensor<4x?xi32>, tensor<4x?xf32>, tensor<4x?xf16>, tensor<8xui8>,
        tensor<8xi64>, tensor<8xf32>, tensor<8xcomplex<f32>>,
        tensor<8xf8E4M3FN>, tensor<8xf8E5M2>, tensor<8xi1>, tensor<4x?xf64>,
        tensor<8xi8>, tensor<8xi16>, tensor<8xui32>
}

// CHECK-LABEL: func.func @stop_gradient
func.func @stop_gradient(%x: tensor<4x?xf32>, %i: tensor<3xi64>)
    -> (tensor<4x?xf32>, tensor<3xi64>) {
  // CHECK: rlx.stop_gradient %{{.*}} : tensor<4x?xf32>
  %0 = rlx.stop_gradient %x : tensor<4x?xf32>
  // CHECK: rlx.stop_gradient %{{.*}} : tensor<3xi64>
  %1 = rlx.stop_gradient %i : tensor<3xi64>
  return %0, %1 : tensor<4x?xf32>, tensor<3xi64>
}

// CHECK-LABEL: func.func @compare_kinds
func.func @compare_kinds(%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // CHECK: rlx.compare eq %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<3xf32>
  %0 = rlx.compare eq %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.compare ne
  %1 = rlx.compare ne %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.compare lt
  %2 = rlx.compare lt %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.compare le
  %3 = rlx.compare le %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.compare gt
  %4 = rlx.compare gt %a, %b : tensor<4x3xf32>, tensor<3xf32>
  // CHECK: rlx.compare ge
  %5 = rlx.compare ge %a, %b : tensor<4x3xf32>, tensor<3xf32>
  return
}

// The result is i1 with the broadcast shape.
// CHECK-LABEL: func.func @compare_broadcast
func.func @compare_broadcast(%a: tensor<4x1x8xf32>, %b: tensor<3x1xf32>,
                             %i: tensor<?x8xi32>, %j: tensor<5x8xi32>,
                             %p: tensor<2xi1>, %c: tensor<2xcomplex<f32>>,
                             %u: tensor<ui8>)
    -> (tensor<4x3x8xi1>, tensor<5x8xi1>, tensor<2xi1>, tensor<2xi1>, tensor<ui8>) {
  // CHECK: rlx.compare gt {{.*}} : tensor<4x1x8xf32>, tensor<3x1xf32>
  %0 = rlx.compare gt %a, %b : tensor<4x1x8xf32>, tensor<3x1xf32>
  // CHECK: rlx.compare le {{.*}} : tensor<?x8xi32>, tensor<5x8xi32>
  %1 = rlx.compare le %i, %j : tensor<?x8xi32>, tensor<5x8xi32>
  // CHECK: rlx.compare lt {{.*}} : tensor<2xi1>, tensor<2xi1>
  %2 = rlx.compare lt %p, %p : tensor<2xi1>, tensor<2xi1>
  // CHECK: rlx.compare ne {{.*}} : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  %3 = rlx.compare ne %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  // CHECK: return {{.*}} : tensor<4x3x8xi1>, tensor<5x8xi1>, tensor<2xi1>, tensor<2xi1>, tensor<ui8>
  return %0, %1, %2, %3, %u : tensor<4x3x8xi1>, tensor<5x8xi1>, tensor<2xi1>, tensor<2xi1>, tensor<ui8>
}

// cond, on_true and on_false all broadcast; the result takes the values'
// element type.
// CHECK-LABEL: func.func @where
func.func @where(%c: tensor<4x1xi1>, %a: tensor<8xf32>, %z: tensor<f32>,
                 %d: tensor<?x1x8xi1>, %i: tensor<3x1xi64>, %j: tensor<1x8xi64>)
    -> (tensor<4x8xf32>, tensor<?x3x8xi64>, tensor<8xf32>) {
  // CHECK: rlx.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x1xi1>, tensor<8xf32>, tensor<f32>
  %0 = rlx.where %c, %a, %z : tensor<4x1xi1>, tensor<8xf32>, tensor<f32>
  // CHECK: rlx.where {{.*}} : tensor<?x1x8xi1>, tensor<3x1xi64>, tensor<1x8xi64>
  %1 = rlx.where %d, %i, %j : tensor<?x1x8xi1>, tensor<3x1xi64>, tensor<1x8xi64>
  %t = rlx.constant dense<true> : tensor<i1>
  // CHECK: rlx.where {{.*}} : tensor<i1>, tensor<8xf32>, tensor<8xf32>
  %2 = rlx.where %t, %a, %a : tensor<i1>, tensor<8xf32>, tensor<8xf32>
  // CHECK: return {{.*}} : tensor<4x8xf32>, tensor<?x3x8xi64>, tensor<8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<?x3x8xi64>, tensor<8xf32>
}

// Graph leaves are named function arguments.
// CHECK-LABEL: func.func @leaves
// CHECK-SAME: {rlx.input = "hidden"}
// CHECK-SAME: {rlx.param = "w"}
func.func @leaves(%x: tensor<2x3xf32> {rlx.input = "hidden"},
                  %w: tensor<3xf32> {rlx.param = "w"}) -> tensor<2x3xf32> {
  %0 = rlx.binary mul %x, %w : tensor<2x3xf32>, tensor<3xf32>
  return %0 : tensor<2x3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
