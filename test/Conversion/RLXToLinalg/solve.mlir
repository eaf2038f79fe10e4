// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// rlx.dense_solve -> Gaussian elimination with partial pivoting and back
// substitution in scf loops on tensors (a one-entry batch loop around).
// Column c: find the row of largest |a[r, c]|, swap it up in a and b,
// eliminate below the diagonal; then solve rows N-1 .. 0.
// CHECK-LABEL: func.func @solve_vector(
// CHECK-SAME: %[[A:.*]]: tensor<3x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[A]], %{{.*}} = %[[B]]) -> (tensor<3x3xf32>, tensor<3xf32>)
// CHECK: %[[F:.*]]:2 = scf.for %[[C:.*]] = %{{.*}} iter_args(%[[FA:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<3x3xf32>, tensor<3xf32>)
// CHECK: math.absf
// CHECK: %[[PIV:.*]]:2 = scf.for %{{.*}} -> (index, f32)
// CHECK: arith.cmpf ogt
// CHECK: %[[SA:.*]] = scf.for %{{.*}} -> (tensor<3x3xf32>)
// CHECK: tensor.extract %{{.*}}[%[[PIV]]#0, %{{.*}}] : tensor<3x3xf32>
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: %[[SB:.*]] = scf.for %{{.*}} -> (tensor<3xf32>)
// CHECK: %[[DIAG:.*]] = tensor.extract %[[SA]][%[[C]], %[[C]]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[SA]], %{{.*}} = %[[SB]])
// CHECK: arith.divf %{{.*}}, %[[DIAG]] : f32
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: %[[X:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[F]]#1) -> (tensor<3xf32>)
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.divf
// CHECK: return %[[R]]#1 : tensor<3xf32>
func.func @solve_vector(%a: tensor<3x3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %x = rlx.dense_solve %a, %b : tensor<3x3xf32>, tensor<3xf32>
  return %x : tensor<3xf32>
}

// -----

// f16 is solved in f32 and rounded once; the batch dim indexes every access.
// CHECK-LABEL: func.func @batched_f16(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: %[[R:.*]]:2 = scf.for %[[BI:[a-z0-9_]+]] = %{{.*}} -> (tensor<4x3x3xf32>, tensor<4x3x2xf32>)
// CHECK: tensor.extract %{{.*}}[%[[BI]], %{{.*}}, %{{.*}}] : tensor<4x3x3xf32>
// CHECK: linalg.generic {{.*}} ins(%[[R]]#1 : tensor<4x3x2xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @batched_f16(%a: tensor<4x3x3xf16>, %b: tensor<4x3x2xf16>) -> tensor<4x3x2xf16> {
  %x = rlx.batched_dense_solve %a, %b : tensor<4x3x3xf16>, tensor<4x3x2xf16>
  return %x : tensor<4x3x2xf16>
}

// -----

// Dynamic sizes are read with tensor.dim.
// CHECK-LABEL: func.func @solve_dynamic(
// CHECK-SAME: %{{.*}}: tensor<?x?xf64>, %[[B:.*]]: tensor<?x?xf64>)
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf64>
// CHECK-DAG: %[[K:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x?xf64>
// CHECK: scf.for
func.func @solve_dynamic(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %x = rlx.dense_solve %a, %b : tensor<?x?xf64>, tensor<?x?xf64>
  return %x : tensor<?x?xf64>
}
