// RUN: rlx-opt %s --convert-rlx-to-linalg --canonicalize --split-input-file | FileCheck %s

// `?` rows reshaped to static sizes: the element count is checked at run
// time, then the flat tensor is cast to its static size (an expand_shape of
// a `?` into static dims is invalid IR).
// CHECK-LABEL: func.func @dynamic_to_static(
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x4xf32>
// CHECK: %[[N:.*]] = arith.muli %[[D]], %c4
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[N]], %c8
// CHECK: cf.assert %[[OK]], "shape mismatch in 'rlx.reshape' at {{.*}}: the input's element count differs from the 8 of new_shape"
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK: %[[CAST:.*]] = tensor.cast %[[FLAT]] : tensor<?xf32> to tensor<8xf32>
// CHECK: tensor.expand_shape %[[CAST]] {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
func.func @dynamic_to_static(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = rlx.reshape %x new_shape = [2, 4] : tensor<?x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A `?x0` input: the -1 is the element count (0) over 5, no check needed
// (any multiple of 0 elements... is 0, and 0 is a multiple of 5).
// CHECK-LABEL: func.func @empty_rows(
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<?x0xf32> into tensor<?xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[FLAT]], %c0
// CHECK: %[[ROWS:.*]] = arith.divui %[[D]], %c5
// CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [%[[ROWS]], 5] : tensor<?xf32> into tensor<?x5xf32>
func.func @empty_rows(%x: tensor<?x0xf32>) -> tensor<?x5xf32> {
  %0 = rlx.reshape %x new_shape = [-1, 5] : tensor<?x0xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// ?x6 -> [-1, 4]: the count must be a multiple of 4.
// CHECK-LABEL: func.func @regroup(
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %c6
// CHECK: %[[Q:.*]] = arith.divui %[[N]], %c4
// CHECK: %[[W:.*]] = arith.muli %[[Q]], %c4
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[N]], %[[W]]
// CHECK: cf.assert %[[OK]], "{{.*}}the input's element count is not a multiple of 4
// CHECK: tensor.expand_shape {{.*}} : tensor<?xf32> into tensor<?x4xf32>
func.func @regroup(%x: tensor<?x6xf32>) -> tensor<?x4xf32> {
  %0 = rlx.reshape %x new_shape = [-1, 4] : tensor<?x6xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// ?x4 -> [-1, 2, 2] splits the static dim: no check, a plain expand.
// CHECK-LABEL: func.func @split_static(
// CHECK-NOT: cf.assert
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 2, 2]
func.func @split_static(%x: tensor<?x4xf32>) -> tensor<?x2x2xf32> {
  %0 = rlx.reshape %x new_shape = [-1, 2, 2] : tensor<?x4xf32>
  return %0 : tensor<?x2x2xf32>
}

// -----

// Two `?` rows that must agree: the second operand's is checked against
// the result's (taken from the first); a `?` never broadcasts.
// CHECK-LABEL: func.func @add_rows(
// CHECK-SAME: %[[X:.*]]: tensor<?x4xf32>, %[[Y:.*]]: tensor<?x4xf32>
// CHECK-DAG: %[[DX:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[DY:.*]] = tensor.dim %[[Y]], %c0
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[DY]], %[[DX]]
// CHECK: cf.assert %[[OK]], "shape mismatch in 'rlx.binary' at {{.*}}: operand #1 dim 0 differs from the result's dim 0 (a `?` dim must match, it is never broadcast)"
// CHECK: linalg.generic
func.func @add_rows(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = rlx.binary add %x, %y : tensor<?x4xf32>, tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Static shapes need no check.
// CHECK-LABEL: func.func @add_static(
// CHECK-NOT: cf.assert
func.func @add_static(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = rlx.binary add %x, %y : tensor<3x4xf32>, tensor<4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A matmul's `?` K is checked.
// CHECK-LABEL: func.func @matmul_k(
// CHECK: cf.assert %{{.*}}, "shape mismatch in 'rlx.matmul' at {{.*}}: the rhs's K (dim 0) differs from the lhs's K (dim 1)"
// CHECK: linalg.matmul
func.func @matmul_k(%x: tensor<3x?xf32>, %w: tensor<?x8xf32>) -> tensor<3x8xf32> {
  %0 = rlx.matmul %x, %w : tensor<3x?xf32>, tensor<?x8xf32>
  return %0 : tensor<3x8xf32>
}
