// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Float -> integer truncates and saturates without ever handing fptosi an
// out-of-range value: NaN and the rest select 0 first. Dynamic dims come
// from the input.
// CHECK-LABEL: func.func @cast_f32_to_i32
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>) -> tensor<4x?xi32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<4x?xi32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4x?xf32>) outs(%[[E]] : tensor<4x?xi32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK-DAG: %[[HI:.*]] = arith.constant 2.14748365E+9 : f32
// CHECK-DAG: %[[LO:.*]] = arith.constant -2.14748365E+9 : f32
// CHECK: %[[ABOVE:.*]] = arith.cmpf oge, %[[IN]], %[[HI]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[IN]], %[[HI]] : f32
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[IN]], %[[LO]] : f32
// CHECK: %[[OK:.*]] = arith.andi %[[LT]], %[[GT]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[IN]], %{{.*}} : f32
// CHECK: %[[I:.*]] = arith.fptosi %[[SAFE]] : f32 to i32
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK: %[[S1:.*]] = arith.select %[[ABOVE]], %[[MAX]], %[[I]] : i32
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[BELOW:.*]] = arith.cmpf ole, %[[IN]], %[[LO]] : f32
// CHECK: %[[S2:.*]] = arith.select %[[BELOW]], %[[MIN]], %[[S1]] : i32
// CHECK: linalg.yield %[[S2]] : i32
func.func @cast_f32_to_i32(%x: tensor<4x?xf32>) -> tensor<4x?xi32> {
  %0 = rlx.cast %x : tensor<4x?xf32> to i32
  return %0 : tensor<4x?xi32>
}

// -----

// Unsigned targets: fptoui below 2^8, 255 at or above it; the result is
// signless.
// CHECK-LABEL: func.func @cast_to_ui8
// CHECK-SAME: -> tensor<4xi8>
// CHECK: arith.constant 2.560000e+02 : f32
// CHECK: arith.constant -1.000000e+00 : f32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.constant -1 : i8
// CHECK-NOT: arith.constant -128
// CHECK: linalg.yield
func.func @cast_to_ui8(%x: tensor<4xf32>) -> tensor<4xui8> {
  %0 = rlx.cast %x : tensor<4xf32> to ui8
  return %0 : tensor<4xui8>
}

// -----

// Integers: signed sources sign-extend, unsigned ones zero-extend, narrower
// targets truncate; ui8 <-> i8 is no op at all; -> i1 is != 0.
// CHECK-LABEL: func.func @cast_ints
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>, %[[U:.*]]: tensor<4xi8>, %[[L:.*]]: tensor<4xi64>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.trunci %{{.*}} : i64 to i16
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: arith.cmpi ne, %{{.*}}, %[[ZERO]] : i64
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[U]], %{{.*}} :
func.func @cast_ints(%a: tensor<4xi8>, %u: tensor<4xui8>, %l: tensor<4xi64>) -> (tensor<4xui32>, tensor<4xi32>, tensor<4xi16>, tensor<4xi8>, tensor<4xi1>) {
  %0 = rlx.cast %a : tensor<4xi8> to ui32
  %1 = rlx.cast %u : tensor<4xui8> to i32
  %2 = rlx.cast %l : tensor<4xi64> to i16
  %3 = rlx.cast %u : tensor<4xui8> to i8
  %4 = rlx.cast %l : tensor<4xi64> to i1
  return %0, %1, %2, %3, %4 : tensor<4xui32>, tensor<4xi32>, tensor<4xi16>, tensor<4xi8>, tensor<4xi1>
}

// -----

// Floats: f16 and f32 through truncf/extf; bf16 is rounded to nearest even
// by integer arithmetic (no runtime call, subnormals kept); f64 -> bf16
// first rounds to an f32 with an odd last bit, so there is one rounding.
// CHECK-LABEL: func.func @cast_floats
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: ^bb0(%[[F:.*]]: f32, %{{.*}}: bf16):
// CHECK: %[[B:.*]] = arith.bitcast %[[F]] : f32 to i32
// CHECK: arith.constant 32767 : i32
// CHECK: arith.shrui %[[B]]
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: ^bb0(%[[D:.*]]: f64, %{{.*}}: bf16):
// CHECK: %[[N:.*]] = arith.truncf %[[D]] : f64 to f32
// CHECK: %[[BACK:.*]] = arith.extf %[[N]] : f32 to f64
// CHECK: arith.cmpf one, %[[BACK]], %[[D]] : f64
// CHECK: math.absf
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK-NOT: arith.truncf {{.*}} to bf16
func.func @cast_floats(%x: tensor<4xf32>, %d: tensor<4xf64>, %h: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xf64>) {
  %0 = rlx.cast %x : tensor<4xf32> to f16
  %1 = rlx.cast %h : tensor<4xf16> to f32
  %2 = rlx.cast %x : tensor<4xf32> to bf16
  %3 = rlx.cast %d : tensor<4xf64> to bf16
  %4 = rlx.cast %x : tensor<4xf32> to f64
  return %0, %1, %2, %3, %4 : tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xf64>
}

// -----

// 8-bit floats are built and read bit by bit (LLVM has no such types):
// normal results round off the low 20 mantissa bits, subnormal ones go
// through an f32 add of 2^14; overflow and NaN give 0x7f (NaN).
// CHECK-LABEL: func.func @cast_float8
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f8E4M3FN):
// CHECK: arith.constant 524287 : i32
// CHECK: arith.constant 960 : i32
// CHECK: %[[MAGIC:.*]] = arith.constant 1182793728 : i32
// CHECK: arith.bitcast %[[MAGIC]] : i32 to f32
// CHECK: arith.addf
// CHECK: arith.constant 1.562500e-02 : f32
// CHECK: arith.constant 126 : i32
// CHECK: arith.constant 127 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
// CHECK: arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: ^bb0(%[[E:.*]]: f8E5M2, %{{.*}}: f32):
// CHECK: arith.bitcast %[[E]] : f8E5M2 to i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.constant 112 : i32
// CHECK: arith.uitofp
// CHECK: arith.constant 2139095040 : i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: ^bb0(%[[E2:.*]]: f8E5M2, %{{.*}}: i1):
// CHECK: %[[R:.*]] = arith.bitcast %[[E2]] : f8E5M2 to i8
// CHECK: %[[M:.*]] = arith.constant 127 : i8
// CHECK: arith.andi %[[R]], %[[M]] : i8
// CHECK: arith.cmpi ne
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
func.func @cast_float8(%x: tensor<4xf32>, %e: tensor<4xf8E5M2>) -> (tensor<4xf8E4M3FN>, tensor<4xf32>, tensor<4xi1>) {
  %0 = rlx.cast %x : tensor<4xf32> to f8E4M3FN
  %1 = rlx.cast %e : tensor<4xf8E5M2> to f32
  %2 = rlx.cast %e : tensor<4xf8E5M2> to i1
  return %0, %1, %2 : tensor<4xf8E4M3FN>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Integer -> f32/f64 converts directly (unsigned with uitofp); into bf16 a
// wide integer keeps a sticky bit below its 24 leading bits first.
// CHECK-LABEL: func.func @cast_int_to_float
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.uitofp %{{.*}} : i32 to f64
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: math.ctlz
// CHECK: arith.uitofp %{{.*}} : i64 to f32
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.uitofp %{{.*}} : i1 to f32
func.func @cast_int_to_float(%i: tensor<4xi32>, %u: tensor<4xui32>, %b: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf32>) {
  %0 = rlx.cast %i : tensor<4xi32> to f32
  %1 = rlx.cast %u : tensor<4xui32> to f64
  %2 = rlx.cast %i : tensor<4xi32> to bf16
  %3 = rlx.cast %b : tensor<4xi1> to f32
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf64>, tensor<4xbf16>, tensor<4xf32>
}

// -----

// complex -> real converts the real part; -> i1 tests both parts (NaN is
// non-zero: une); real -> complex has imaginary part 0.
// CHECK-LABEL: func.func @cast_complex
// CHECK: %[[RE:.*]] = complex.re %{{.*}} : complex<f32>
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[RE2:.*]] = complex.re
// CHECK: %[[IM2:.*]] = complex.im
// CHECK: %[[A:.*]] = arith.cmpf une, %[[RE2]]
// CHECK: %[[B:.*]] = arith.cmpf une, %[[IM2]]
// CHECK: arith.ori %[[A]], %[[B]] : i1
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: complex.create %[[T]], %{{.*}} : complex<f32>
func.func @cast_complex(%c: tensor<4xcomplex<f32>>, %x: tensor<4xf64>) -> (tensor<4xi32>, tensor<4xi1>, tensor<4xcomplex<f32>>) {
  %0 = rlx.cast %c : tensor<4xcomplex<f32>> to i32
  %1 = rlx.cast %c : tensor<4xcomplex<f32>> to i1
  %2 = rlx.cast %x : tensor<4xf64> to complex<f32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi1>, tensor<4xcomplex<f32>>
}

// -----

// float -> i1 is an unordered != 0: NaN is true.
// CHECK-LABEL: func.func @cast_float_to_i1
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.*}}, %[[Z]] : f32
func.func @cast_float_to_i1(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = rlx.cast %x : tensor<4xf32> to i1
  return %0 : tensor<4xi1>
}

// -----

// stop_gradient is its input.
// CHECK-LABEL: func.func @stop_gradient
// CHECK-SAME: (%[[X:.*]]: tensor<2x?xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x?xf32>
func.func @stop_gradient(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = rlx.stop_gradient %x : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// Comparisons broadcast like binary ops and produce i1; float lt is
// ordered, ne unordered.
// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @compare
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3x5xi1>
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[ID]]]
// CHECK-SAME: outs(%[[E]] : tensor<4x3x5xi1>)
// CHECK: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: i1):
// CHECK: arith.cmpf olt, %[[L]], %[[R]] : f32
// CHECK: arith.cmpf une
func.func @compare(%a: tensor<4x1x5xf32>, %b: tensor<3x1xf32>) -> (tensor<4x3x5xi1>, tensor<4x3x5xi1>) {
  %0 = rlx.compare lt %a, %b : tensor<4x1x5xf32>, tensor<3x1xf32>
  %1 = rlx.compare ne %a, %b : tensor<4x1x5xf32>, tensor<3x1xf32>
  return %0, %1 : tensor<4x3x5xi1>, tensor<4x3x5xi1>
}

// -----

// Every kind; ui8 and i1 order as unsigned numbers; complex eq / ne.
// CHECK-LABEL: func.func @compare_kinds
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
// CHECK: complex.eq
// CHECK: complex.neq
func.func @compare_kinds(%f: tensor<2xf64>, %i: tensor<2xi32>, %u: tensor<2xui8>, %p: tensor<2xi1>, %c: tensor<2xcomplex<f32>>) {
  %0 = rlx.compare eq %f, %f : tensor<2xf64>, tensor<2xf64>
  %1 = rlx.compare le %f, %f : tensor<2xf64>, tensor<2xf64>
  %2 = rlx.compare gt %f, %f : tensor<2xf64>, tensor<2xf64>
  %3 = rlx.compare ge %f, %f : tensor<2xf64>, tensor<2xf64>
  %4 = rlx.compare lt %i, %i : tensor<2xi32>, tensor<2xi32>
  %5 = rlx.compare ge %u, %u : tensor<2xui8>, tensor<2xui8>
  %6 = rlx.compare gt %p, %p : tensor<2xi1>, tensor<2xi1>
  %7 = rlx.compare eq %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  %8 = rlx.compare ne %c, %c : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  return
}

// -----

// where: all three operands broadcast in the indexing maps.
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[F:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[C]], #[[T]], #[[F]], #[[ID]]]
// CHECK: ^bb0(%[[CI:.*]]: i1, %[[TI:.*]]: f32, %[[FI:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.select %[[CI]], %[[TI]], %[[FI]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @where(%c: tensor<4x1x5xi1>, %t: tensor<3x1xf32>, %f: tensor<5xf32>) -> tensor<4x3x5xf32> {
  %0 = rlx.where %c, %t, %f : tensor<4x1x5xi1>, tensor<3x1xf32>, tensor<5xf32>
  return %0 : tensor<4x3x5xf32>
}

// -----

// A dynamic dim comes from the operand that has it; a rank-0 operand maps
// to (); ui8 values are signless.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where_dynamic
// CHECK-SAME: (%[[C:.*]]: tensor<?x4xi1>, %{{.*}}: tensor<4xi8>, %{{.*}}: tensor<i8>) -> tensor<?x4xi8>
// CHECK: %[[D:.*]] = tensor.dim %[[C]], %{{.*}} : tensor<?x4xi1>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4xi8>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[SCALAR]], #{{.*}}]
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i8
func.func @where_dynamic(%c: tensor<?x4xi1>, %t: tensor<4xui8>, %f: tensor<ui8>) -> tensor<?x4xui8> {
  %0 = rlx.where %c, %t, %f : tensor<?x4xi1>, tensor<4xui8>, tensor<ui8>
  return %0 : tensor<?x4xui8>
}
