// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// A reshape that only merges adjacent dims is a collapse_shape.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: return %[[C]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = rlx.reshape %x new_shape = [6, 4] : tensor<2x3x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// One that only splits dims is an expand_shape; a dynamic dim is its
// source dim over the group's static sizes, which must divide the element
// count (checked at run time: an odd row count cannot become [-1, 2, 2, 4]).
// CHECK-LABEL: func.func @reshape_expand
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf32>)
// CHECK: cf.assert %{{.*}}, "{{.*}}the input's element count is not a multiple of 16
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf32>
// CHECK: %[[N:.*]] = arith.divui %[[D]], %{{.*}} : index
// CHECK: tensor.expand_shape %[[X]] {{\[}}[0, 1], [2, 3]] output_shape [%[[N]], 2, 2, 4] : tensor<?x8xf32> into tensor<?x2x2x4xf32>
func.func @reshape_expand(%x: tensor<?x8xf32>) -> tensor<?x2x2x4xf32> {
  %0 = rlx.reshape %x new_shape = [-1, 2, 2, 4] : tensor<?x8xf32>
  return %0 : tensor<?x2x2x4xf32>
}

// -----

// Neither: collapse to one dim, then expand (unsigned becomes signless).
// CHECK-LABEL: func.func @reshape_general
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<2x3x4xi8> into tensor<24xi8>
// CHECK: tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xi8> into tensor<4x6xi8>
func.func @reshape_general(%x: tensor<2x3x4xui8>) -> tensor<4x6xui8> {
  %0 = rlx.reshape %x new_shape = [4, 6] : tensor<2x3x4xui8>
  return %0 : tensor<4x6xui8>
}

// -----

// The same with a dynamic input: the -1 dim is the element count over the
// other sizes.
// CHECK-LABEL: func.func @reshape_general_dynamic
// CHECK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<?x3xf32> into tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[F]], %{{.*}} : tensor<?xf32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[N:.*]] = arith.divui %[[D]], %[[C3]] : index
// CHECK: tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, %[[N]]] : tensor<?xf32> into tensor<3x?xf32>
func.func @reshape_general_dynamic(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %0 = rlx.reshape %x new_shape = [3, -1] : tensor<?x3xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// Rank 0 at either end: no reassociation groups.
// CHECK-LABEL: func.func @reshape_rank0
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
func.func @reshape_rank0(%x: tensor<1x1xf32>, %s: tensor<f32>) -> (tensor<f32>, tensor<1x1x1xf32>) {
  %0 = rlx.reshape %x new_shape = [] : tensor<1x1xf32>
  %1 = rlx.reshape %s new_shape = [1, -1, 1] : tensor<f32>
  return %0, %1 : tensor<f32>, tensor<1x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x5xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<2x?x5xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<5x2x?xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<2x?x5xf32>) outs(%[[E]] : tensor<5x2x?xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x?x5xf32>) -> tensor<5x2x?xf32> {
  %0 = rlx.transpose %x perm = [2, 0, 1] : tensor<2x?x5xf32>
  return %0 : tensor<5x2x?xf32>
}

// -----

// A transpose that moves only unit dims is lowered as the reshape it
// equals (what canonicalization makes of it): no copy.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-NOT: linalg.transpose
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
// CHECK-NOT: linalg.transpose
func.func @transpose_of_unit_dims(%x: tensor<1x1x32x64xf32>) -> tensor<1x32x1x64xf32> {
  %0 = rlx.transpose %x perm = [0, 2, 1, 3] : tensor<1x1x32x64xf32>
  return %0 : tensor<1x32x1x64xf32>
}

// -----

// narrow reads through an offset indexing map (no strided subview); with
// start 0 the map would claim the input's size, so it reads by index.
// CHECK-DAG: #[[OFF:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2 + 4)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @narrow
// CHECK-SAME: (%[[X:.*]]: tensor<5x?x7xf32>)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<5x?x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[OFF]], #[[ID]]]
// CHECK-SAME: ins(%[[X]] : tensor<5x?x7xf32>) outs(%[[E]] : tensor<5x?x3xf32>)
// CHECK: %[[E2:.*]] = tensor.empty(%{{.*}}) : tensor<2x?x7xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]]]
// CHECK-SAME: outs(%[[E2]] : tensor<2x?x7xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0
// CHECK: %[[I1:.*]] = linalg.index 1
// CHECK: %[[I2:.*]] = linalg.index 2
// CHECK: tensor.extract %[[X]][%[[I0]], %[[I1]], %[[I2]]]
// CHECK-NOT: tensor.extract_slice
func.func @narrow(%x: tensor<5x?x7xf32>) -> (tensor<5x?x3xf32>, tensor<2x?x7xf32>) {
  %0 = rlx.narrow %x axis = 2 start = 4 len = 3 : tensor<5x?x7xf32>
  %1 = rlx.narrow %x axis = 0 start = 0 len = 2 : tensor<5x?x7xf32>
  return %0, %1 : tensor<5x?x3xf32>, tensor<2x?x7xf32>
}

// -----

// concat: one generic over the result; scf.if picks the input whose range
// along the axis holds the index and reads it at the index minus its offset.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x5xf32>, %[[C:.*]]: tensor<2x1xf32>)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x9xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<2x9xf32>)
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[J]], %[[C3]]
// CHECK: scf.if %[[IN0]] -> (f32)
// CHECK: tensor.extract %[[A]][%[[I]], %{{.*}}] : tensor<2x3xf32>
// CHECK: } else {
// CHECK: %[[J1:.*]] = arith.subi %[[J]], %[[C3]]
// CHECK: %[[IN1:.*]] = arith.cmpi ult, %[[J]], %[[C8]]
// CHECK: scf.if %[[IN1]] -> (f32)
// CHECK: tensor.extract %[[B]][%[[I]], %[[J1]]] : tensor<2x5xf32>
// CHECK: } else {
// CHECK: %[[J2:.*]] = arith.subi %[[J]], %[[C8]]
// CHECK: tensor.extract %[[C]][%[[I]], %[[J2]]] : tensor<2x1xf32>
// CHECK-NOT: tensor.insert_slice
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<2x1xf32>) -> tensor<2x9xf32> {
  %0 = rlx.concat %a, %b, %c axis = 1 : tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x1xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// A dynamic axis size is the sum of the inputs' sizes.
// CHECK-LABEL: func.func @concat_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x4xi64>, %[[B:.*]]: tensor<3x4xi64>)
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xi64>
// CHECK: %[[OFF:.*]] = arith.addi %{{.*}}, %[[D]] : index
// CHECK: %[[TOTAL:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK: tensor.empty(%[[TOTAL]]) : tensor<?x4xi64>
// CHECK: arith.cmpi ult, %{{.*}}, %[[OFF]] : index
func.func @concat_dynamic(%a: tensor<?x4xi64>, %b: tensor<3x4xi64>) -> tensor<?x4xi64> {
  %0 = rlx.concat %a, %b axis = 0 : tensor<?x4xi64>, tensor<3x4xi64>
  return %0 : tensor<?x4xi64>
}

// -----

// expand: a copy with broadcasting indexing maps (new leading dims dropped,
// size-1 dims read at 0, -1 dims kept and sized from the input).
// CHECK-DAG: #[[M0:.*]] = affine_map<(d0, d1, d2) -> (0, d2)>
// CHECK-DAG: #[[M1:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:.*]]: tensor<1x5xf32>, %[[Y:.*]]: tensor<2x1x?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[M0]], #[[ID]]]
// CHECK-SAME: ins(%[[X]] : tensor<1x5xf32>) outs(%{{.*}} : tensor<4x3x5xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[D:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<2x1x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<2x6x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[M1]], #[[ID]]]
// CHECK-SAME: ins(%[[Y]] : tensor<2x1x?xf32>) outs(%[[E]] : tensor<2x6x?xf32>)
func.func @expand(%x: tensor<1x5xf32>, %y: tensor<2x1x?xf32>) -> (tensor<4x3x5xf32>, tensor<2x6x?xf32>) {
  %0 = rlx.expand %x target_shape = [4, 3, -1] : tensor<1x5xf32>
  %1 = rlx.expand %y target_shape = [2, 6, -1] : tensor<2x1x?xf32>
  return %0, %1 : tensor<4x3x5xf32>, tensor<2x6x?xf32>
}

// -----

// A dynamic input dim under a static target size is 1 or that size only at
// run time: the index is chosen at run time (i where the input has it, else
// 0).
// CHECK-LABEL: func.func @expand_runtime
// CHECK-SAME: (%[[X:.*]]: tensor<?x5xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x5xf32>
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[D]] : index
// CHECK: %[[S:.*]] = arith.select %[[IN]], %[[I]], %{{.*}} : index
// CHECK: %[[J:.*]] = linalg.index 2
// CHECK: tensor.extract %[[X]][%[[S]], %[[J]]] : tensor<?x5xf32>
func.func @expand_runtime(%x: tensor<?x5xf32>) -> tensor<3x4x5xf32> {
  %0 = rlx.expand %x target_shape = [3, 4, 5] : tensor<?x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// -----

// gather: the indices are an input of the generic; an index outside
// [0, 50) (negative ones included: unsigned compare) reads row 0 and
// yields zero.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<50x8xf32>, %[[I:.*]]: tensor<4x3xi64>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x3x8xf32>
// CHECK: %[[N:.*]] = arith.constant 50 : index
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #[[ID]]]
// CHECK-SAME: ins(%[[I]] : tensor<4x3xi64>) outs(%[[E]] : tensor<4x3x8xf32>)
// CHECK: ^bb0(%[[V:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[X:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[X]], %[[N]] : index
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[X]], %{{.*}} : index
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[R:.*]] = tensor.extract %[[T]][%[[SAFE]], %[[K]]] : tensor<50x8xf32>
// CHECK: %[[Y:.*]] = arith.select %[[OK]], %[[R]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[Y]] : f32
func.func @gather(%t: tensor<50x8xf32>, %i: tensor<4x3xi64>) -> tensor<4x3x8xf32> {
  %0 = rlx.gather %t, %i axis = 0 : tensor<50x8xf32>, tensor<4x3xi64>
  return %0 : tensor<4x3x8xf32>
}

// -----

// A dynamic axis may be empty at run time: the read happens only in range.
// CHECK-LABEL: func.func @gather_dynamic
// CHECK-SAME: (%[[T:.*]]: tensor<5x?x3xcomplex<f32>>, %[[I:.*]]: tensor<?xi32>)
// CHECK: %[[D:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?xi32>
// CHECK: tensor.empty(%[[D]]) : tensor<5x?x3xcomplex<f32>>
// CHECK: %[[N:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<5x?x3xcomplex<f32>>
// CHECK: linalg.generic
// CHECK: %[[ZERO:.*]] = complex.constant [0.000000e+00 : f32, 0.000000e+00 : f32] : complex<f32>
// CHECK: %[[X:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[X]], %[[N]] : index
// CHECK: %[[A:.*]] = linalg.index 0
// CHECK: %[[B:.*]] = linalg.index 2
// CHECK: scf.if %[[OK]] -> (complex<f32>) {
// CHECK: tensor.extract %[[T]][%[[A]], %{{.*}}, %[[B]]]
// CHECK: } else {
// CHECK: scf.yield %[[ZERO]] : complex<f32>
func.func @gather_dynamic(%t: tensor<5x?x3xcomplex<f32>>, %i: tensor<?xi32>) -> tensor<5x?x3xcomplex<f32>> {
  %0 = rlx.gather %t, %i axis = 1 : tensor<5x?x3xcomplex<f32>>, tensor<?xi32>
  return %0 : tensor<5x?x3xcomplex<f32>>
}

// -----

// An empty axis has no row to read: every result element is zero.
// CHECK-LABEL: func.func @gather_empty_axis
// CHECK: linalg.generic
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.yield %[[Z]] : f32
// CHECK-NOT: tensor.extract
func.func @gather_empty_axis(%t: tensor<0x4xf32>, %i: tensor<2xi32>) -> tensor<2x4xf32> {
  %0 = rlx.gather %t, %i axis = 0 : tensor<0x4xf32>, tensor<2xi32>
  return %0 : tensor<2x4xf32>
}

// -----

// i1 and 8-bit float tables: the zero is false / built from its bits.
// CHECK-LABEL: func.func @gather_zeros
// CHECK: arith.constant false
// CHECK: %[[B:.*]] = arith.constant 0 : i8
// CHECK: arith.bitcast %[[B]] : i8 to f8E4M3FN
func.func @gather_zeros(%p: tensor<3xi1>, %f: tensor<3xf8E4M3FN>, %i: tensor<2xi32>) -> (tensor<2xi1>, tensor<2xf8E4M3FN>) {
  %0 = rlx.gather %p, %i axis = 0 : tensor<3xi1>, tensor<2xi32>
  %1 = rlx.gather %f, %i axis = 0 : tensor<3xf8E4M3FN>, tensor<2xi32>
  return %0, %1 : tensor<2xi1>, tensor<2xf8E4M3FN>
}
