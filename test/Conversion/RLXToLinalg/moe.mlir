// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Each row reads its expert's weight in the body, over (m, k, n) so that n
// is innermost; an out-of-range id gives a zero term instead of an
// out-of-bounds read. The generic is marked rlx.grouped_matmul for the
// CPU's per-expert GEMM calls.
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[M:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @grouped_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<6x16xf32>, %[[W:.*]]: tensor<4x16x32xf32>, %[[I:.*]]: tensor<6xi32>)
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<6x32xf32>)
// CHECK: %[[E:.*]] = arith.constant 4 : index
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[MK]], #[[M]], #[[MN]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[I]] : tensor<6x16xf32>, tensor<6xi32>) outs(%[[Z]] : tensor<6x32xf32>) attrs = {rlx.grouped_matmul}
// CHECK: ^bb0(%[[A:.*]]: f32, %[[ID:.*]]: i32, %[[ACC:.*]]: f32):
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: %[[N:.*]] = linalg.index 2 : index
// CHECK: %[[IX:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[IX]], %[[E]] : index
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[IX]], %{{.*}} : index
// CHECK: %[[WV:.*]] = tensor.extract %[[W]][%[[SAFE]], %[[K]], %[[N]]] : tensor<4x16x32xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[A]], %[[WV]] : f32
// CHECK: %[[T:.*]] = arith.select %[[OK]], %[[P]], %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[T]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]] : tensor<6x32xf32>
func.func @grouped_matmul(%x: tensor<6x16xf32>, %w: tensor<4x16x32xf32>, %i: tensor<6xi32>) -> tensor<6x32xf32> {
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<6xi32>
  return %0 : tensor<6x32xf32>
}

// -----

// bf16 accumulates in f32 and rounds once at the end.
// CHECK-LABEL: func.func @grouped_matmul_bf16
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x5xf32>)
// CHECK: tensor.extract %{{.*}} : tensor<2x7x5xbf16>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf %{{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: -> tensor<3x5xbf16>
func.func @grouped_matmul_bf16(%x: tensor<3x7xbf16>, %w: tensor<2x7x5xbf16>, %i: tensor<3xi64>) -> tensor<3x5xbf16> {
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<3x7xbf16>, tensor<2x7x5xbf16>, tensor<3xi64>
  return %0 : tensor<3x5xbf16>
}

// -----

// With a dynamic expert count there may be no expert 0 to read in place of
// an out-of-range id, so the read is guarded; dynamic M and N come from the
// input and the weight.
// CHECK-LABEL: func.func @grouped_matmul_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x8xf64>, %[[W:.*]]: tensor<?x8x?xf64>, %[[I:.*]]: tensor<?xi64>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x8xf64>
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[W]], %{{.*}} : tensor<?x8x?xf64>
// CHECK: tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf64>
// CHECK: %[[E:.*]] = tensor.dim %[[W]], %{{.*}} : tensor<?x8x?xf64>
// CHECK: linalg.generic
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %[[E]] : index
// CHECK: scf.if %[[OK]] -> (f64)
// CHECK: tensor.extract %[[W]]
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : f64
func.func @grouped_matmul_dynamic(%x: tensor<?x8xf64>, %w: tensor<?x8x?xf64>, %i: tensor<?xi64>) -> tensor<?x?xf64> {
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<?x8xf64>, tensor<?x8x?xf64>, tensor<?xi64>
  return %0 : tensor<?x?xf64>
}

// -----

// i32 accumulation seeded with the bias, then requantization in f64.
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @q_matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xi8>, %[[W:.*]]: tensor<16x8xi8>, %[[B:.*]]: tensor<8xi32>)
// CHECK: %[[SEED:.*]] = linalg.generic {indexing_maps = [#[[COL]], #[[ID2]]], {{.*}}} ins(%[[B]] : tensor<8xi32>) outs(%{{.*}} : tensor<4x8xi32>)
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[MK]], #[[KN]], #[[MN]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[W]] : tensor<4x16xi8>, tensor<16x8xi8>) outs(%[[SEED]] : tensor<4x8xi32>)
// CHECK: ^bb0(%[[A:.*]]: i8, %[[C:.*]]: i8, %[[O:.*]]: i32):
// CHECK: %[[AW:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK: %[[XZ:.*]] = arith.constant 3 : i32
// CHECK: %[[AC:.*]] = arith.subi %[[AW]], %[[XZ]] : i32
// CHECK: %[[CW:.*]] = arith.extsi %[[C]] : i8 to i32
// CHECK-NOT: arith.subi
// CHECK: %[[P:.*]] = arith.muli %[[AC]], %[[CW]] : i32
// CHECK: arith.addi %[[O]], %[[P]] : i32
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8xi8>)
// CHECK: %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f64
// CHECK: %[[MUL:.*]] = arith.constant 0.012500000186264515 : f64
// CHECK: %[[S:.*]] = arith.mulf %[[F]], %[[MUL]] : f64
// CHECK: %[[RE:.*]] = math.roundeven %[[S]] : f64
// CHECK: %[[OZ:.*]] = arith.constant -5.000000e+00 : f64
// CHECK: %[[SH:.*]] = arith.addf %[[RE]], %[[OZ]] : f64
// CHECK: %[[LO:.*]] = arith.maximumf %[[SH]], %{{.*}} : f64
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %{{.*}} : f64
// CHECK: arith.fptosi %[[HI]] : f64 to i8
func.func @q_matmul(%x: tensor<4x16xi8>, %w: tensor<16x8xi8>, %b: tensor<8xi32>) -> tensor<4x8xi8> {
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 3 : i64, w_zp = 0 : i64, out_zp = -5 : i64, mult = 0.0125 : f32} : tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi32>
  return %0 : tensor<4x8xi8>
}

// -----

// Dynamic M and N; a nonzero weight zero point is subtracted too.
// CHECK-LABEL: func.func @q_matmul_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x5xi8>, %[[W:.*]]: tensor<5x?xi8>, %[[B:.*]]: tensor<?xi32>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x5xi8>
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[W]], %{{.*}} : tensor<5x?xi8>
// CHECK: tensor.empty(%[[M]], %[[N]]) : tensor<?x?xi32>
// CHECK: arith.constant -7 : i32
// CHECK: arith.constant 2 : i32
// CHECK: -> tensor<?x?xi8>
func.func @q_matmul_dynamic(%x: tensor<?x5xi8>, %w: tensor<5x?xi8>, %b: tensor<?xi32>) -> tensor<?x?xi8> {
  %0 = rlx.q_matmul %x, %w, %b {x_zp = -7 : i64, w_zp = 2 : i64, out_zp = 0 : i64, mult = 1.0 : f32} : tensor<?x5xi8>, tensor<5x?xi8>, tensor<?xi32>
  return %0 : tensor<?x?xi8>
}
