// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file -verify-diagnostics | FileCheck %s

// Reduced dims go innermost, in any order of `axes`; keep_dim re-inserts
// them as unit dims with tensor.expand_shape. Float max starts at -inf and
// propagates NaN (maximumf).
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_max_keep_dim
// CHECK-SAME: (%[[X:.*]]: tensor<3x5x7xf32>) -> tensor<1x5x1xf32>
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<5xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<3x5x7xf32>) outs(%[[INIT]] : tensor<5xf32>)
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1, 2]] output_shape [1, 5, 1] : tensor<5xf32> into tensor<1x5x1xf32>
func.func @reduce_max_keep_dim(%x: tensor<3x5x7xf32>) -> tensor<1x5x1xf32> {
  %0 = rlx.reduce max %x axes = [2, 0] keep_dim : tensor<3x5x7xf32>
  return %0 : tensor<1x5x1xf32>
}

// -----

// The start value and step of every kind; unsigned max/min use unsigned
// order and start at 0 / all ones.
// CHECK-LABEL: func.func @reduce_kinds
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: arith.addf
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.mulf
// CHECK: arith.constant 0x7F800000 : f32
// CHECK: arith.minimumf
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
// CHECK: arith.constant 1 : i32
// CHECK: arith.muli
// CHECK: arith.constant 0 : i8
// CHECK: arith.maxui
// CHECK: arith.constant -1 : i8
// CHECK: arith.minui
// CHECK-NOT: ui8
func.func @reduce_kinds(%f: tensor<4x6xf32>, %i: tensor<4x6xi32>, %u: tensor<4x6xui8>) {
  %0 = rlx.reduce sum %f axes = [1] : tensor<4x6xf32>
  %1 = rlx.reduce prod %f axes = [1] : tensor<4x6xf32>
  %2 = rlx.reduce min %f axes = [1] : tensor<4x6xf32>
  %3 = rlx.reduce max %i axes = [0] : tensor<4x6xi32>
  %4 = rlx.reduce prod %i axes = [0] : tensor<4x6xi32>
  %5 = rlx.reduce max %u axes = [0, 1] : tensor<4x6xui8>
  %6 = rlx.reduce min %u axes = [0, 1] : tensor<4x6xui8>
  return
}

// -----

// mean: f16 is summed in f32, divided by the element count (read at run
// time for a dynamic dim) and rounded once.
// CHECK-LABEL: func.func @reduce_mean_f16_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf16>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<?x8xf16>) outs(%{{.*}} : tensor<8xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[DI:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[N:.*]] = arith.sitofp %[[DI]] : i64 to f32
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf16>)
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @reduce_mean_f16_dynamic(%x: tensor<?x8xf16>) -> tensor<8xf16> {
  %0 = rlx.reduce mean %x axes = [0] : tensor<?x8xf16>
  return %0 : tensor<8xf16>
}

// -----

// Complex mean divides both parts by the count.
// CHECK-LABEL: func.func @reduce_mean_complex
// CHECK: complex.constant [0.000000e+00 : f32, 0.000000e+00 : f32]
// CHECK: complex.add
// CHECK: complex.re
// CHECK: arith.divf
// CHECK: complex.im
// CHECK: arith.divf
// CHECK: complex.create
func.func @reduce_mean_complex(%x: tensor<3x4xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %0 = rlx.reduce mean %x axes = [1] : tensor<3x4xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

// Reducing all dims gives a rank-0 tensor; keep_dim expands it with no
// groups. No axes, or kept unit dims, is the input itself.
// CHECK-LABEL: func.func @reduce_all_and_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xi64>, %[[Y:.*]]: tensor<1x3xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<i64>)
// CHECK: arith.addi
// CHECK: %[[K:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<i64> into tensor<1x1xi64>
// CHECK: return %[[K]], %[[Y]], %[[X]]
func.func @reduce_all_and_identity(%x: tensor<2x3xi64>, %y: tensor<1x3xf32>) -> (tensor<1x1xi64>, tensor<1x3xf32>, tensor<2x3xi64>) {
  %0 = rlx.reduce sum %x axes = [0, 1] keep_dim : tensor<2x3xi64>
  %1 = rlx.reduce mean %y axes = [0] keep_dim : tensor<1x3xf32>
  %2 = rlx.reduce max %x axes = [] : tensor<2x3xi64>
  return %0, %1, %2 : tensor<1x1xi64>, tensor<1x3xf32>, tensor<2x3xi64>
}

// -----

// softmax: max reduction, sum of exp(x - max) reduction, one parallel
// generic; a middle axis is innermost in the reductions.
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax_middle_axis
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x3xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[RED]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x5x3xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[RED]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KEPT]], #[[KEPT]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax_middle_axis(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = rlx.softmax %x {axis = -2 : i64} : tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}

// -----

// cumsum: the axis is the innermost loop, carrying the running sum; the
// exclusive form stores the sum before adding.
// CHECK-LABEL: func.func @cumsum_exclusive
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xi32>)
// CHECK: scf.for %[[J:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:[a-z0-9_]+]] = %{{.*}}) -> (tensor<4x?xi32>)
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %c4 step %{{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[OUT]], %[[SUM:[a-z0-9_]+]] = %c0_i32) -> (tensor<4x?xi32>, i32)
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[SUM]], %[[E]]
// CHECK: %[[INS:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[I]], %[[J]]]
// CHECK: scf.yield %[[INS]], %[[NEXT]]
func.func @cumsum_exclusive(%x: tensor<4x?xi32>) -> tensor<4x?xi32> {
  %0 = rlx.cumsum %x {axis = 0 : i64, exclusive} : tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
}

// -----

// Inclusive stores the updated sum; f16 accumulates in f32.
// CHECK-LABEL: func.func @cumsum_inclusive_f16
// CHECK: %[[E:.*]] = tensor.extract
// CHECK: %[[W:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK: %[[NEXT:.*]] = arith.addf %{{.*}}, %[[W]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[NEXT]] : f32 to f16
// CHECK: tensor.insert %[[T]]
func.func @cumsum_inclusive_f16(%x: tensor<3x7xf16>) -> tensor<3x7xf16> {
  %0 = rlx.cumsum %x {axis = -1 : i64} : tensor<3x7xf16>
  return %0 : tensor<3x7xf16>
}

// -----

// top_k: per row, one scan keeping the k results sorted; an element that
// comes before the current k-th is inserted, the later ones shift down (a
// while loop). NaN compares above numbers, ties go to the smaller index.
// CHECK-LABEL: func.func @top_k
// CHECK-SAME: (%[[X:.*]]: tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi64>)
// CHECK: scf.for %[[ROW:[a-z0-9_]+]] = {{.*}} -> (tensor<16x2xf32>, tensor<16x2xi64>)
// CHECK: scf.for %[[I:[a-z0-9_]+]] = %{{.*}} to %c8 {{.*}} iter_args(%[[V:[a-z0-9_]+]] = %{{.*}}, %[[IX:[a-z0-9_]+]] = %{{.*}}, %[[N:[a-z0-9_]+]] = %{{.*}}) -> (tensor<16x2xf32>, tensor<16x2xi64>, index)
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[ROW]], %[[I]]]
// CHECK: arith.cmpi eq, %[[N]], %c2 : index
// CHECK: tensor.extract %[[V]][%[[ROW]], %c1{{(_[0-9]+)?}}] : tensor<16x2xf32>
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: } do {
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: tensor.insert %[[E]] into
// CHECK: } else {
// CHECK: scf.yield %[[V]], %[[IX]], %[[N]]
func.func @top_k(%x: tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi64>) {
  %v, %i = rlx.top_k %x {k = 2 : i64} : tensor<16x8xf32>
  return %v, %i : tensor<16x2xf32>, tensor<16x2xi64>
}

// -----

// Unsigned top_k compares unsigned.
// CHECK-LABEL: func.func @top_k_unsigned
// CHECK: arith.cmpi ugt
// CHECK-NOT: ui8
func.func @top_k_unsigned(%x: tensor<9xui8>) -> (tensor<4xui8>, tensor<4xi64>) {
  %v, %i = rlx.top_k %x {k = 4 : i64} : tensor<9xui8>
  return %v, %i : tensor<4xui8>, tensor<4xi64>
}

// -----

// scatter_add: zeros, then each in-range row accumulated in order.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[U:.*]]: tensor<6x64xf32>, %[[I:.*]]: tensor<6xi32>)
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<10x64xf32>)
// CHECK: scf.for %[[R:[a-z0-9_]+]] = %{{.*}} to %c6 {{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[Z]])
// CHECK: %[[IDX:.*]] = tensor.extract %[[I]][%[[R]]] : tensor<6xi32>
// CHECK: %[[IDX64:.*]] = arith.extsi %[[IDX]] : i32 to i64
// CHECK: arith.cmpi sge, %[[IDX64]], %c0_i64
// CHECK: arith.cmpi slt, %[[IDX64]], %c10_i64
// CHECK: scf.if
// CHECK: scf.for
// CHECK: tensor.extract %[[U]]
// CHECK: arith.addf
// CHECK: tensor.insert
// CHECK: } else {
// CHECK: scf.yield %[[ACC]]
func.func @scatter_add(%u: tensor<6x64xf32>, %i: tensor<6xi32>) -> tensor<10x64xf32> {
  %y = rlx.scatter_add %u, %i : tensor<6x64xf32>, tensor<6xi32> -> tensor<10x64xf32>
  return %y : tensor<10x64xf32>
}

// -----

// out_dim is only known from the result type.
func.func @scatter_add_dynamic_out_dim(%u: tensor<6x64xf32>, %i: tensor<6xi64>) -> tensor<?x64xf32> {
  // expected-error @below {{'rlx.scatter_add' op cannot be lowered with a dynamic out_dim: the result size is not determined by the operands}}
  // expected-error @below {{failed to legalize operation 'rlx.scatter_add' that was explicitly marked illegal}}
  %y = rlx.scatter_add %u, %i : tensor<6x64xf32>, tensor<6xi64> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
