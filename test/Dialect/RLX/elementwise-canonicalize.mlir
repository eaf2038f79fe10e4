// RUN: rlx-opt %s -canonicalize -split-input-file | FileCheck %s

// Exact float identities fold to the other operand.
// CHECK-LABEL: func.func @float_identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK-NOT: rlx.binary
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @float_identities(%x: tensor<4x6xf32>)
    -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
        tensor<4x6xf32>, tensor<4x6xf32>) {
  %nz = rlx.constant dense<-0.0> : tensor<f32>
  %z = rlx.constant dense<0.0> : tensor<6xf32>
  %one = rlx.constant dense<1.0> : tensor<6xf32>
  %0 = rlx.binary add %x, %nz : tensor<4x6xf32>, tensor<f32>
  %1 = rlx.binary add %nz, %x : tensor<f32>, tensor<4x6xf32>
  %2 = rlx.binary sub %x, %z : tensor<4x6xf32>, tensor<6xf32>
  %3 = rlx.binary mul %x, %one : tensor<4x6xf32>, tensor<6xf32>
  %4 = rlx.binary mul %one, %x : tensor<6xf32>, tensor<4x6xf32>
  %5 = rlx.binary div %x, %one : tensor<4x6xf32>, tensor<6xf32>
  return %0, %1, %2, %3, %4, %5
      : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
        tensor<4x6xf32>, tensor<4x6xf32>
}

// -----

// Not folded: x + (+0.0) maps -0.0 to +0.0, x - (-0.0) likewise, x * 0.0 is
// NaN for NaN/Inf and -0.0 for negative x, 1 / x is not x, and a constant
// that broadcasts x to a larger shape changes the type.
// CHECK-LABEL: func.func @float_non_identities
// CHECK: rlx.binary add
// CHECK: rlx.binary sub
// CHECK: rlx.binary mul
// CHECK: rlx.binary mul
// CHECK: rlx.binary div
// CHECK: rlx.binary mul
// CHECK: rlx.binary add
func.func @float_non_identities(%x: tensor<6xf32>)
    -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
        tensor<6xf32>, tensor<4x6xf32>, tensor<6xf32>) {
  %z = rlx.constant dense<0.0> : tensor<f32>
  %nz = rlx.constant dense<-0.0> : tensor<f32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %wide = rlx.constant dense<1.0> : tensor<4x6xf32>
  %mixed = rlx.constant dense<[0.0, 0.0, 0.0, 0.0, 0.0, -0.0]> : tensor<6xf32>
  %0 = rlx.binary add %x, %z : tensor<6xf32>, tensor<f32>
  %1 = rlx.binary sub %x, %nz : tensor<6xf32>, tensor<f32>
  %2 = rlx.binary mul %x, %z : tensor<6xf32>, tensor<f32>
  %3 = rlx.binary mul %z, %x : tensor<f32>, tensor<6xf32>
  %4 = rlx.binary div %one, %x : tensor<f32>, tensor<6xf32>
  %5 = rlx.binary mul %x, %wide : tensor<6xf32>, tensor<4x6xf32>
  %6 = rlx.binary add %x, %mixed : tensor<6xf32>, tensor<6xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
        tensor<6xf32>, tensor<4x6xf32>, tensor<6xf32>
}

// -----

// Integer identities, and x * 0 -> 0 (integers only).
// CHECK-LABEL: func.func @int_identities
// CHECK-SAME: (%[[N:.*]]: tensor<4xi32>, %[[U:.*]]: tensor<2x4xui8>)
// CHECK-DAG: %[[Z:.*]] = rlx.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[ZW:.*]] = rlx.constant dense<0> : tensor<3x4xi32>
// CHECK-DAG: %[[ZU:.*]] = rlx.constant dense<0> : tensor<2x4xui8>
// CHECK-NOT: rlx.binary
// CHECK: return %[[N]], %[[N]], %[[N]], %[[N]], %[[N]], %[[Z]], %[[Z]], %[[ZW]], %[[U]], %[[ZU]]
func.func @int_identities(%n: tensor<4xi32>, %u: tensor<2x4xui8>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<3x4xi32>,
        tensor<2x4xui8>, tensor<2x4xui8>) {
  %z = rlx.constant dense<0> : tensor<i32>
  %one = rlx.constant dense<1> : tensor<4xi32>
  %zw = rlx.constant dense<0> : tensor<3x1xi32>
  %uz = rlx.constant dense<0> : tensor<ui8>
  %0 = rlx.binary add %n, %z : tensor<4xi32>, tensor<i32>
  %1 = rlx.binary add %z, %n : tensor<i32>, tensor<4xi32>
  %2 = rlx.binary sub %n, %z : tensor<4xi32>, tensor<i32>
  %3 = rlx.binary mul %one, %n : tensor<4xi32>, tensor<4xi32>
  %4 = rlx.binary div %n, %one : tensor<4xi32>, tensor<4xi32>
  %5 = rlx.binary mul %n, %z : tensor<4xi32>, tensor<i32>
  %6 = rlx.binary mul %z, %n : tensor<i32>, tensor<4xi32>
  // The zero also broadcasts: the result is a zero of the result type.
  %7 = rlx.binary mul %n, %zw : tensor<4xi32>, tensor<3x1xi32>
  %8 = rlx.binary add %u, %uz : tensor<2x4xui8>, tensor<ui8>
  %9 = rlx.binary mul %u, %uz : tensor<2x4xui8>, tensor<ui8>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
      : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>,
        tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<3x4xi32>,
        tensor<2x4xui8>, tensor<2x4xui8>
}

// -----

// Not folded: 0 - x, 0 / x, x * 0 with a dynamic result shape, x / 0.
// CHECK-LABEL: func.func @int_non_identities
// CHECK: rlx.binary sub
// CHECK: rlx.binary div
// CHECK: rlx.binary mul
// CHECK: rlx.binary div
func.func @int_non_identities(%n: tensor<4xi32>, %d: tensor<?xi32>)
    -> (tensor<4xi32>, tensor<4xi32>, tensor<?xi32>, tensor<4xi32>) {
  %z = rlx.constant dense<0> : tensor<i32>
  %0 = rlx.binary sub %z, %n : tensor<i32>, tensor<4xi32>
  %1 = rlx.binary div %z, %n : tensor<i32>, tensor<4xi32>
  %2 = rlx.binary mul %d, %z : tensor<?xi32>, tensor<i32>
  %3 = rlx.binary div %n, %z : tensor<4xi32>, tensor<i32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<?xi32>, tensor<4xi32>
}

// -----

// Constant folding of binary ops, with broadcasting.
// CHECK-LABEL: func.func @binary_constants
// CHECK-DAG: rlx.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01, 3.300000e+01], [1.400000e+01, 2.500000e+01, 3.600000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: rlx.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00, 9.000000e+00], [1.600000e+01, 2.500000e+01, 3.600000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: rlx.constant dense<[-3, 3, -2, 127]> : tensor<4xi8>
// CHECK-DAG: rlx.constant dense<[-128, 126, 0, -1]> : tensor<4xi8>
// CHECK-DAG: rlx.constant dense<[127, 2, 0, 255]> : tensor<4xui8>
// CHECK-DAG: rlx.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: rlx.constant dense<[0x7FC00000, -0.000000e+00]> : tensor<2xf32>
// CHECK-NOT: rlx.binary
func.func @binary_constants()
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>, tensor<4xi8>,
        tensor<4xui8>, tensor<3xi1>, tensor<2xf32>) {
  %a = rlx.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = rlx.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %two = rlx.constant dense<2.0> : tensor<f32>
  %0 = rlx.binary add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = rlx.binary pow %a, %two : tensor<2x3xf32>, tensor<f32>
  // Signed division truncates toward zero.
  %i = rlx.constant dense<[-7, 7, -5, 127]> : tensor<4xi8>
  %j = rlx.constant dense<[2, 2, 2, 1]> : tensor<4xi8>
  %2 = rlx.binary div %i, %j : tensor<4xi8>, tensor<4xi8>
  // Integer arithmetic wraps around.
  %k = rlx.constant dense<[127, 127, -128, -128]> : tensor<4xi8>
  %l = rlx.constant dense<[1, -1, -128, 127]> : tensor<4xi8>
  %3 = rlx.binary add %k, %l : tensor<4xi8>, tensor<4xi8>
  // ui8 compares as unsigned.
  %u = rlx.constant dense<[127, 2, 0, 255]> : tensor<4xui8>
  %v = rlx.constant dense<[1, 2, 0, 128]> : tensor<4xui8>
  %4 = rlx.binary max %u, %v : tensor<4xui8>, tensor<4xui8>
  // i1 max is a logical or.
  %p = rlx.constant dense<[true, false, false]> : tensor<3xi1>
  %q = rlx.constant dense<[false, true, false]> : tensor<3xi1>
  %5 = rlx.binary max %p, %q : tensor<3xi1>, tensor<3xi1>
  // Float max propagates NaN; min orders -0.0 below +0.0.
  %n = rlx.constant dense<[0x7FC00000, 0.0]> : tensor<2xf32>
  %m = rlx.constant dense<[1.0, -0.0]> : tensor<2xf32>
  %6 = rlx.binary min %n, %m : tensor<2xf32>, tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xi8>, tensor<4xi8>,
        tensor<4xui8>, tensor<3xi1>, tensor<2xf32>
}

// -----

// Integer division folds as the lowered code computes it: `x / 0` is 0 and
// the overflowing MIN / -1 wraps to MIN.
// CHECK-LABEL: func.func @binary_division_constants
// CHECK-DAG: rlx.constant dense<[4, 0]> : tensor<2xi32>
// CHECK-DAG: rlx.constant dense<-128> : tensor<1xi8>
// CHECK-NOT: rlx.binary
func.func @binary_division_constants() -> (tensor<2xi32>, tensor<1xi8>) {
  %i = rlx.constant dense<[4, 5]> : tensor<2xi32>
  %z = rlx.constant dense<[1, 0]> : tensor<2xi32>
  %0 = rlx.binary div %i, %z : tensor<2xi32>, tensor<2xi32>
  %min = rlx.constant dense<-128> : tensor<1xi8>
  %m1 = rlx.constant dense<-1> : tensor<1xi8>
  %1 = rlx.binary div %min, %m1 : tensor<1xi8>, tensor<1xi8>
  return %0, %1 : tensor<2xi32>, tensor<1xi8>
}

// -----

// Not folded: complex operands (complex.add has no constant folder),
// results above 1024 elements, dense_resource operands.
// CHECK-LABEL: func.func @binary_constants_not_folded
// CHECK-COUNT-3: rlx.binary
func.func @binary_constants_not_folded()
    -> (tensor<2xcomplex<f32>>, tensor<2048xf32>, tensor<2xf32>) {
  %c = rlx.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f32>>
  %2 = rlx.binary add %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  %big = rlx.constant dense<2.0> : tensor<2048xf32>
  %3 = rlx.binary add %big, %big : tensor<2048xf32>, tensor<2048xf32>
  %r = rlx.constant dense_resource<blob> : tensor<2xf32>
  %4 = rlx.binary add %r, %r : tensor<2xf32>, tensor<2xf32>
  return %2, %3, %4 : tensor<2xcomplex<f32>>, tensor<2048xf32>, tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @activation_constants
// CHECK-DAG: rlx.constant dense<[0.000000e+00, 0.000000e+00, 2.500000e+00, 0x7FC00000]> : tensor<4xf32>
// CHECK-DAG: rlx.constant dense<[2.000000e+00, 2.000000e+00, -0.000000e+00, -4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: rlx.constant dense<[1.000000e+00, 2.71828175, 0.36787945]> : tensor<3xf32>
// CHECK-DAG: rlx.constant dense<[5.000000e-01, 0.731058597]> : tensor<2xf32>
// CHECK-DAG: rlx.constant dense<[-128, 127, 0]> : tensor<3xi8>
// CHECK-DAG: rlx.constant dense<[0, 5, 0]> : tensor<3xi8>
// CHECK-NOT: rlx.activation
func.func @activation_constants()
    -> (tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<2xf32>,
        tensor<3xi8>, tensor<3xi8>) {
  %x = rlx.constant dense<[-1.0, -0.0, 2.5, 0x7FC00000]> : tensor<4xf32>
  %0 = rlx.activation relu %x : tensor<4xf32>
  // round is half to even.
  %r = rlx.constant dense<[2.5, 1.5, -0.4, -3.5]> : tensor<4xf32>
  %1 = rlx.activation round %r : tensor<4xf32>
  %e = rlx.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %2 = rlx.activation exp %e : tensor<3xf32>
  %s = rlx.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %3 = rlx.activation sigmoid %s : tensor<2xf32>
  // Integer abs wraps for the most negative value.
  %i = rlx.constant dense<[-128, -127, 0]> : tensor<3xi8>
  %4 = rlx.activation abs %i : tensor<3xi8>
  %j = rlx.constant dense<[-3, 5, 0]> : tensor<3xi8>
  %5 = rlx.activation relu %j : tensor<3xi8>
  return %0, %1, %2, %3, %4, %5
      : tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<2xf32>,
        tensor<3xi8>, tensor<3xi8>
}

// -----

// CHECK-LABEL: func.func @activation_not_folded
// CHECK: rlx.activation gelu
// CHECK: rlx.activation neg
func.func @activation_not_folded(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2000xf32>) {
  %0 = rlx.activation gelu %x : tensor<4xf32>
  %big = rlx.constant dense<1.0> : tensor<2000xf32>
  %1 = rlx.activation neg %big : tensor<2000xf32>
  return %0, %1 : tensor<4xf32>, tensor<2000xf32>
}

// -----

// A cast to the input's own type is the identity.
// CHECK-LABEL: func.func @cast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>)
// CHECK-NEXT: return %[[X]]
func.func @cast_identity(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = rlx.cast %x : tensor<4x?xf32> to f32
  return %0 : tensor<4x?xf32>
}

// -----

// CHECK-LABEL: func.func @cast_not_identity
// CHECK: rlx.cast %{{.*}} : tensor<4xf32> to f16
// CHECK: rlx.cast %{{.*}} : tensor<4xf16> to f32
func.func @cast_not_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = rlx.cast %x : tensor<4xf32> to f16
  %1 = rlx.cast %0 : tensor<4xf16> to f32
  return %1 : tensor<4xf32>
}

// -----

// Cast constant folding: float -> int truncates toward zero and saturates,
// NaN -> 0; int -> int wraps; unsigned sources zero-extend; -> i1 is != 0.
// CHECK-LABEL: func.func @cast_constants
// CHECK-DAG: rlx.constant dense<[127, -2, 0, -128, 2]> : tensor<5xi8>
// CHECK-DAG: rlx.constant dense<[255, 0, 7]> : tensor<3xui8>
// CHECK-DAG: rlx.constant dense<[255, 1, 0]> : tensor<3xi32>
// CHECK-DAG: rlx.constant dense<true> : tensor<3xi1>
// CHECK-DAG: rlx.constant dense<[true, false, true, true]> : tensor<4xi1>
// CHECK-DAG: rlx.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: rlx.constant dense<[1.000000e+00, 1.500000e+00, 0x7C00]> : tensor<3xf16>
// CHECK-DAG: rlx.constant dense<[0, 0, 0, 200]> : tensor<4xui8>
// CHECK-NOT: rlx.cast
func.func @cast_constants()
    -> (tensor<5xi8>, tensor<3xui8>, tensor<3xi32>, tensor<3xi1>,
        tensor<4xi1>, tensor<2xf32>, tensor<3xf16>, tensor<4xui8>) {
  %f = rlx.constant dense<[300.5, -2.7, 0x7FC00000, -1.0e10, 2.99]> : tensor<5xf32>
  %0 = rlx.cast %f : tensor<5xf32> to i8
  %m = rlx.constant dense<[-1, 256, 7]> : tensor<3xi32>
  %1 = rlx.cast %m : tensor<3xi32> to ui8
  %u = rlx.constant dense<[255, 1, 0]> : tensor<3xui8>
  %2 = rlx.cast %u : tensor<3xui8> to i32
  %3 = rlx.cast %m : tensor<3xi32> to i1
  %g = rlx.constant dense<[0.5, -0.0, 0x7FC00000, -3.0]> : tensor<4xf32>
  %4 = rlx.cast %g : tensor<4xf32> to i1
  %b = rlx.constant dense<[true, false]> : tensor<2xi1>
  %5 = rlx.cast %b : tensor<2xi1> to f32
  %w = rlx.constant dense<[1.0, 1.5, 1.0e6]> : tensor<3xf64>
  %6 = rlx.cast %w : tensor<3xf64> to f16
  %n = rlx.constant dense<[-1.0, 0x7FC00000, 0.9, 200.0]> : tensor<4xf32>
  %7 = rlx.cast %n : tensor<4xf32> to ui8
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<5xi8>, tensor<3xui8>, tensor<3xi32>, tensor<3xi1>,
        tensor<4xi1>, tensor<2xf32>, tensor<3xf16>, tensor<4xui8>
}

// -----

// Float overflow: infinity where the format has one, NaN for f8E4M3FN. A
// NaN cast to an integer is 0; large unsigned values stay unsigned.
// CHECK-LABEL: func.func @cast_constants_f8
// CHECK-DAG: rlx.constant dense<[0x7F, 0xFF, 3.000000e+00]> : tensor<3xf8E4M3FN>
// CHECK-DAG: rlx.constant dense<[0x7C, 0xFC, 3.000000e+00]> : tensor<3xf8E5M2>
// CHECK-DAG: rlx.constant dense<[0, 0, 3]> : tensor<3xi64>
// CHECK-DAG: rlx.constant dense<[4294967295, 0]> : tensor<2xui32>
// CHECK-DAG: rlx.constant dense<[4.2949673E+9, 1.000000e+00]> : tensor<2xf32>
// CHECK-NOT: rlx.cast
func.func @cast_constants_f8()
    -> (tensor<3xf8E4M3FN>, tensor<3xf8E5M2>, tensor<3xi64>, tensor<2xui32>,
        tensor<2xf32>) {
  %x = rlx.constant dense<[1000.0, -1000.0, 3.0]> : tensor<3xf32>
  %0 = rlx.cast %x : tensor<3xf32> to f8E4M3FN
  %y = rlx.constant dense<[100000.0, -100000.0, 3.0]> : tensor<3xf32>
  %1 = rlx.cast %y : tensor<3xf32> to f8E5M2
  %2 = rlx.cast %0 : tensor<3xf8E4M3FN> to i64
  %u = rlx.constant dense<[5.0e9, -1.0]> : tensor<2xf32>
  %3 = rlx.cast %u : tensor<2xf32> to ui32
  %v = rlx.constant dense<[4294967295, 1]> : tensor<2xui32>
  %4 = rlx.cast %v : tensor<2xui32> to f32
  return %0, %1, %2, %3, %4
      : tensor<3xf8E4M3FN>, tensor<3xf8E5M2>, tensor<3xi64>, tensor<2xui32>,
        tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @cast_complex_not_folded
// CHECK: rlx.cast
func.func @cast_complex_not_folded() -> tensor<2xcomplex<f32>> {
  %x = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = rlx.cast %x : tensor<2xf32> to complex<f32>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

// stop_gradient is never folded, not even on a constant.
// CHECK-LABEL: func.func @stop_gradient_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[C:.*]] = rlx.constant dense<1.000000e+00>
// CHECK: %[[S0:.*]] = rlx.stop_gradient %[[X]] : tensor<4xf32>
// CHECK: %[[S1:.*]] = rlx.stop_gradient %[[C]] : tensor<2xf32>
// CHECK: return %[[S0]], %[[S1]]
func.func @stop_gradient_kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %0 = rlx.stop_gradient %x : tensor<4xf32>
  %c = rlx.constant dense<1.0> : tensor<2xf32>
  %1 = rlx.stop_gradient %c : tensor<2xf32>
  return %0, %1 : tensor<4xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @compare_constants
// CHECK-DAG: %[[GE:.*]] = rlx.constant dense<{{\[\[}}false, false, false], [true, true, true]]> : tensor<2x3xi1>
// CHECK-DAG: %[[EQ:.*]] = rlx.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: %[[NE:.*]] = rlx.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[LE:.*]] = rlx.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: rlx.compare
// CHECK: return %[[GE]], %[[EQ]], %[[NE]], %[[LE]], %[[NE]]
func.func @compare_constants()
    -> (tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<3xi1>) {
  %a = rlx.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %t = rlx.constant dense<[4.0]> : tensor<1xf32>
  %0 = rlx.compare ge %a, %t : tensor<2x3xf32>, tensor<1xf32>
  // NaN: only ne is true. -0.0 == +0.0.
  %n = rlx.constant dense<[0x7FC00000, 0.0, -0.0]> : tensor<3xf32>
  %z = rlx.constant dense<[0x7FC00000, -0.0, 0.0]> : tensor<3xf32>
  %1 = rlx.compare eq %n, %z : tensor<3xf32>, tensor<3xf32>
  %2 = rlx.compare ne %n, %z : tensor<3xf32>, tensor<3xf32>
  // ui8 compares unsigned, i8 signed (-56 < 100 although 200 > 100).
  %u = rlx.constant dense<[200, 1]> : tensor<2xui8>
  %v = rlx.constant dense<[100, 1]> : tensor<2xui8>
  %3 = rlx.compare le %u, %v : tensor<2xui8>, tensor<2xui8>
  %i = rlx.constant dense<[-56, 1, 3]> : tensor<3xi8>
  %j = rlx.constant dense<[100, 1, 2]> : tensor<3xi8>
  %4 = rlx.compare lt %i, %j : tensor<3xi8>, tensor<3xi8>
  return %0, %1, %2, %3, %4
      : tensor<2x3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi1>, tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @compare_not_folded
// CHECK: rlx.compare eq
func.func @compare_not_folded(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = rlx.compare eq %x, %x : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @where_folds
// CHECK-SAME: (%[[C:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: rlx.where
// CHECK: return %[[A]], %[[B]], %[[A]]
func.func @where_folds(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = rlx.constant dense<true> : tensor<i1>
  %f = rlx.constant dense<false> : tensor<4xi1>
  %0 = rlx.where %t, %a, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %1 = rlx.where %f, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %2 = rlx.where %c, %a, %a : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Not folded: a non-splat cond, and a chosen value that the cond broadcasts.
// CHECK-LABEL: func.func @where_not_folded
// CHECK: rlx.where
// CHECK: rlx.where
func.func @where_not_folded(%a: tensor<4xf32>, %b: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %c = rlx.constant dense<[true, false, true, true]> : tensor<4xi1>
  %0 = rlx.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %t = rlx.constant dense<true> : tensor<4xi1>
  %1 = rlx.where %t, %s, %b : tensor<4xi1>, tensor<f32>, tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// 2^32 x 2^32 x 2 elements overflow int64 (the count wrapped to 0 and the
// sum folded to `dense<>`): folders check the count and leave such an op.
// CHECK-LABEL: func.func @element_count_overflows
// CHECK: %[[A:.*]] = rlx.constant dense<1.000000e+00> : tensor<4294967296x4294967296x2xf32>
// CHECK: %[[B:.*]] = rlx.binary add %[[A]], %[[A]]
// CHECK: return %[[B]]
func.func @element_count_overflows() -> tensor<4294967296x4294967296x2xf32> {
  %a = rlx.constant dense<1.0> : tensor<4294967296x4294967296x2xf32>
  %b = rlx.binary add %a, %a : tensor<4294967296x4294967296x2xf32>, tensor<4294967296x4294967296x2xf32>
  return %b : tensor<4294967296x4294967296x2xf32>
}
