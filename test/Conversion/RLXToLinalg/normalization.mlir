// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// A middle (negative) axis: the reduced dim is innermost in the iteration
// space of the reductions; mean and variance are two passes, mean and
// 1/sqrt(var + eps) one two-result generic, the rest one parallel generic.
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[STAT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @layer_norm_middle_axis
// CHECK-SAME: (%[[X:.*]]: tensor<3x5x7xf32>, %[[G:.*]]: tensor<5xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK-DAG: %[[N:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[RED]], #[[KEPT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<3x5x7xf32>) outs(%{{.*}} : tensor<3x7xf32>)
// CHECK: arith.addf
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[RED]], #[[KEPT]], #[[KEPT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[SUM]] :
// CHECK: arith.divf %{{.*}}, %[[N]]
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: %[[STATS:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%[[SUM]], %[[SQ]] :
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[STAT]], #[[STAT]], #[[CHAN]], #[[CHAN]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[STATS]]#0, %[[STATS]]#1, %[[G]], %[[B]] :
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[Y]]
func.func @layer_norm_middle_axis(%x: tensor<3x5x7xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<3x5x7xf32> {
  %0 = rlx.layer_norm %x, %g, %b {axis = -2 : i64, eps = 1.0e-05 : f32} : tensor<3x5x7xf32>, tensor<5xf32>, tensor<5xf32>
  return %0 : tensor<3x5x7xf32>
}

// -----

// A reduced dim of static size 1 gets no loop (it is read at index 0).
// CHECK-DAG: #[[UNIT:.*]] = affine_map<(d0, d1) -> (d0, 0, d1)>
// CHECK-LABEL: func.func @layer_norm_unit_axis
// CHECK: linalg.generic {indexing_maps = [#[[UNIT]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
func.func @layer_norm_unit_axis(%x: tensor<2x1x9xf64>, %g: tensor<1xf64>, %b: tensor<1xf64>) -> tensor<2x1x9xf64> {
  %0 = rlx.layer_norm %x, %g, %b {axis = 1 : i64, eps = 1.0e-05 : f32} : tensor<2x1x9xf64>, tensor<1xf64>, tensor<1xf64>
  return %0 : tensor<2x1x9xf64>
}

// -----

// rms_norm: one reduction of x^2, no mean; bf16 is computed in f32 and
// rounded once; dynamic dims are read with tensor.dim, the element count
// too.
// CHECK-LABEL: func.func @rms_norm_bf16_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xbf16>
// CHECK: %[[DIM:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[CNT:.*]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[N:.*]] = arith.sitofp %[[CNT]] : i64 to f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<?x?xbf16>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: arith.subf
// CHECK: arith.divf %{{.*}}, %[[N]]
// CHECK: math.sqrt
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: -> tensor<?x?xbf16>
func.func @rms_norm_bf16_dynamic(%x: tensor<?x?xbf16>, %g: tensor<?xbf16>, %b: tensor<?xbf16>) -> tensor<?x?xbf16> {
  %0 = rlx.rms_norm %x, %g, %b {axis = 1 : i64, eps = 1.0e-06 : f32} : tensor<?x?xbf16>, tensor<?xbf16>, tensor<?xbf16>
  return %0 : tensor<?x?xbf16>
}

// -----

// group_norm: [N, C, H, W] viewed as [N, G, C/G, H, W], reduced over the
// last three dims; gamma and beta viewed as [G, C/G].
// CHECK-DAG: #[[ID5:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[NG:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
// CHECK-DAG: #[[GC:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>
// CHECK-LABEL: func.func @group_norm
// CHECK: %[[XE:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 3, 2, 5, 3] : tensor<2x6x5x3xf32> into tensor<2x3x2x5x3xf32>
// CHECK: %[[GE:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: arith.constant 3.000000e+01 : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID5]], #[[NG]]], iterator_types = ["parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID5]], #[[NG]], #[[NG]], #[[GC]], #[[GC]], #[[ID5]]]
// CHECK-SAME: ins(%[[XE]], %{{.*}}, %{{.*}}, %[[GE]], %{{.*}} :
// CHECK: tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x3x2x5x3xf32> into tensor<2x6x5x3xf32>
func.func @group_norm(%x: tensor<2x6x5x3xf32>, %g: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<2x6x5x3xf32> {
  %0 = rlx.group_norm %x, %g, %b {eps = 1.0e-05 : f32, num_groups = 3 : i64} : tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>
  return %0 : tensor<2x6x5x3xf32>
}

// -----

// A dynamic channel count: C/G is computed at run time.
// CHECK-LABEL: func.func @group_norm_dynamic
// CHECK: %[[C:.*]] = tensor.dim %{{.*}}, %c1 : tensor<?x?x4x4xf32>
// CHECK: %[[CG:.*]] = arith.divui %[[C]], %c2
// CHECK: tensor.expand_shape %{{.*}} output_shape [%{{.*}}, 2, %[[CG]], 4, 4] : tensor<?x?x4x4xf32> into tensor<?x2x?x4x4xf32>
// CHECK: tensor.collapse_shape {{.*}} into tensor<?x?x4x4xf32>
func.func @group_norm_dynamic(%x: tensor<?x?x4x4xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?x4x4xf32> {
  %0 = rlx.group_norm %x, %g, %b {eps = 1.0e-05 : f32, num_groups = 2 : i64} : tensor<?x?x4x4xf32>, tensor<?xf32>, tensor<?xf32>
  return %0 : tensor<?x?x4x4xf32>
}

// -----

// layer_norm2d normalizes over dim 1 of NCHW.
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @layer_norm2d
// CHECK: linalg.generic {indexing_maps = [#[[RED]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<1x4x4xf32>)
// CHECK: linalg.generic {indexing_maps = [{{.*}}, #[[CHAN]], #[[CHAN]], {{.*}}]
func.func @layer_norm2d(%x: tensor<1x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = rlx.layer_norm2d %x, %g, %b {eps = 1.0e-06 : f32} : tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// batch_norm_inference: 1/sqrt(var + eps) per channel, then one parallel
// generic with the last dim indexing the per-channel operands.
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf16>, %[[G:.*]]: tensor<5xf16>, %[[B:.*]]: tensor<5xf16>, %[[M:.*]]: tensor<5xf16>, %[[V:.*]]: tensor<5xf16>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<5xf16>) outs(%{{.*}} : tensor<5xf32>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[LAST]], #[[LAST]], #[[LAST]], #[[LAST]], #{{.*}}]
// CHECK-SAME: ins(%[[X]], %[[M]], %[[R]], %[[G]], %[[B]] :
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @batch_norm_inference(%x: tensor<2x3x5xf16>, %g: tensor<5xf16>, %b: tensor<5xf16>, %m: tensor<5xf16>, %v: tensor<5xf16>) -> tensor<2x3x5xf16> {
  %0 = rlx.batch_norm_inference %x, %g, %b, %m, %v {eps = 1.0e-05 : f32} : tensor<2x3x5xf16>, tensor<5xf16>, tensor<5xf16>, tensor<5xf16>, tensor<5xf16>
  return %0 : tensor<2x3x5xf16>
}

// -----

// resize_nearest2x: the result viewed as [N, C, H, 2, W, 2]; unsigned
// elements become signless.
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func.func @resize_nearest2x
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x5xi8>) -> tensor<1x2x6x10xi8>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x2x3x2x5x2xi8>
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[READ]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<1x2x3x5xi8>) outs(%[[E]] :
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x2x3x2x5x2xi8> into tensor<1x2x6x10xi8>
// CHECK-NOT: ui8
func.func @resize_nearest2x(%x: tensor<1x2x3x5xui8>) -> tensor<1x2x6x10xui8> {
  %0 = rlx.resize_nearest2x %x : tensor<1x2x3x5xui8>
  return %0 : tensor<1x2x6x10xui8>
}

// -----

// Dynamic H and W double at run time.
// CHECK-LABEL: func.func @resize_nearest2x_dynamic
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<1x3x?x2x?x2xf32>
// CHECK: tensor.collapse_shape {{.*}} : tensor<1x3x?x2x?x2xf32> into tensor<1x3x?x?xf32>
func.func @resize_nearest2x_dynamic(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32> {
  %0 = rlx.resize_nearest2x %x : tensor<1x3x?x?xf32>
  return %0 : tensor<1x3x?x?xf32>
}

// -----

// rlx.resize linear over two dims: one parallel generic reading the input
// at the four combinations of its per-dim taps, whose indices and weights
// are constant vectors computed with PyTorch's rules (here 4 -> 8 rows:
// source (o + 0.5) / 2 - 0.5, clamped at 0; 5 -> 3 columns: scale 5/3).
// A dynamic batch stays dynamic.
// CHECK-LABEL: func.func @resize_bilinear
// CHECK-DAG: arith.constant dense<[0, 0, 0, 1, 1, 2, 2, 3]> : tensor<8xi64>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01]> : tensor<8xf32>
// CHECK-DAG: arith.constant dense<[1, 1, 1, 2, 2, 3, 3, 3]> : tensor<8xi64>
// CHECK-DAG: arith.constant dense<[0, 2, 3]> : tensor<3xi64>
// CHECK-DAG: arith.constant dense<[1, 3, 4]> : tensor<3xi64>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<?x3x4x5xf32>
// CHECK-NOT: tensor.extract
// CHECK: } -> tensor<?x3x8x3xf32>
func.func @resize_bilinear(%x: tensor<?x3x4x5xf32>) -> tensor<?x3x8x3xf32> {
  %0 = rlx.resize linear %x to [8, 3] : tensor<?x3x4x5xf32>
  return %0 : tensor<?x3x8x3xf32>
}

// -----

// Cubic over one dim (4 -> 8): four taps per position, floor(src) - 1
// to floor(src) + 2, with the source (o + 0.5) / 2 - 0.5 not clamped at 0
// and the positions clamped to the input (at o = 0, src = -0.25 reads
// position 0 three times); Keys' weights for A = -0.75, here the first
// tap's: -0.03515625 at t = 0.75 (even o), -0.10546875 at t = 0.25.
// CHECK-LABEL: func.func @resize_cubic
// CHECK-DAG: arith.constant dense<[0, 0, 0, 0, 0, 1, 1, 2]> : tensor<8xi64>
// CHECK-DAG: arith.constant dense<[1, 2, 2, 3, 3, 3, 3, 3]> : tensor<8xi64>
// CHECK-DAG: arith.constant dense<[-0.03515625, -0.10546875, -0.03515625, -0.10546875, -0.03515625, -0.10546875, -0.03515625, -0.10546875]> : tensor<8xf32>
// CHECK: linalg.generic
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<2x3x4xf32>
// CHECK-NOT: tensor.extract
// CHECK: } -> tensor<2x3x8xf32>
func.func @resize_cubic(%x: tensor<2x3x4xf32>) -> tensor<2x3x8xf32> {
  %0 = rlx.resize cubic %x to [8] : tensor<2x3x4xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// Nearest: one unweighted gather of any element type (the 2x dim reads
// o >> 1; 5 -> 10 likewise).
// CHECK-LABEL: func.func @resize_nearest
// CHECK-DAG: arith.constant dense<[0, 0, 1, 1, 2, 2, 3]> : tensor<7xi64>
// CHECK: linalg.generic
// CHECK-NOT: arith.mulf
// CHECK: %[[E:.*]] = tensor.extract %{{.*}} : tensor<2x4x5xi8>
// CHECK-NEXT: linalg.yield %[[E]] : i8
func.func @resize_nearest(%x: tensor<2x4x5xi8>) -> tensor<2x7x10xi8> {
  %0 = rlx.resize nearest %x to [7, 10] : tensor<2x4x5xi8>
  return %0 : tensor<2x7x10xi8>
}

// -----

// rlx.resize_backward of a 3x bilinear upsampling: each input position
// gathers up to 7 output positions per dim, too many to combine, so the
// dims are applied one at a time (columns, then rows); positions with
// fewer taps are padded with index -1 and masked.
// CHECK-LABEL: func.func @resize_backward
// CHECK: arith.constant dense<[-1, 4, 8, 11]> : tensor<4xi64>
// CHECK: %[[COLS:.*]] = linalg.generic
// CHECK: arith.cmpi sge
// CHECK: } -> tensor<1x2x12x4xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<4xi64>, tensor<4xf32>
// CHECK: tensor.extract %[[COLS]]
// CHECK: } -> tensor<1x2x4x4xf32>
func.func @resize_backward(%dy: tensor<1x2x12x12xf32>) -> tensor<1x2x4x4xf32> {
  %0 = rlx.resize_backward linear %dy to [4, 4] : tensor<1x2x12x12xf32>
  return %0 : tensor<1x2x4x4xf32>
}
