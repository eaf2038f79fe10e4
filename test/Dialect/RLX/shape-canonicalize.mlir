// RUN: rlx-opt %s -canonicalize -split-input-file | FileCheck %s

// Identity reshape, transpose, expand, narrow and concat fold to the input.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>, %[[D:.*]]: tensor<?x6xf32>)
// CHECK-NOT: rlx.
// CHECK: return %[[X]], %[[D]], %[[X]], %[[X]], %[[D]], %[[X]], %[[D]], %[[X]]
func.func @identities(%x: tensor<4x6xf32>, %d: tensor<?x6xf32>)
    -> (tensor<4x6xf32>, tensor<?x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
        tensor<?x6xf32>, tensor<4x6xf32>, tensor<?x6xf32>, tensor<4x6xf32>) {
  %0 = rlx.reshape %x new_shape = [4, 6] : tensor<4x6xf32>
  %1 = rlx.reshape %d new_shape = [-1, 6] : tensor<?x6xf32>
  %2 = rlx.transpose %x perm = [0, 1] : tensor<4x6xf32>
  %3 = rlx.expand %x target_shape = [-1, 6] : tensor<4x6xf32>
  %4 = rlx.expand %d target_shape = [-1, -1] : tensor<?x6xf32>
  %5 = rlx.narrow %x axis = 1 start = 0 len = 6 : tensor<4x6xf32>
  %6 = rlx.narrow %d axis = 1 start = 0 len = 6 : tensor<?x6xf32>
  %7 = rlx.concat %x axis = 0 : tensor<4x6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<4x6xf32>, tensor<?x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
        tensor<?x6xf32>, tensor<4x6xf32>, tensor<?x6xf32>, tensor<4x6xf32>
}

// -----

// Not identities: a real reshape, a non-identity perm (even on a square
// tensor), broadcasting expands, a strict narrow, a narrow of a dynamic dim
// and a multi-input concat.
// CHECK-LABEL: func.func @non_identities
// CHECK: rlx.reshape
// CHECK: rlx.transpose
// CHECK: rlx.expand
// CHECK: rlx.narrow
// CHECK: rlx.narrow
// CHECK: rlx.concat
// CHECK: rlx.expand
func.func @non_identities(%x: tensor<4x6xf32>, %d: tensor<?x6xf32>,
                          %s: tensor<6x6xf32>, %o: tensor<1x6xf32>)
    -> (tensor<6x4xf32>, tensor<6x6xf32>, tensor<3x4x6xf32>, tensor<4x5xf32>,
        tensor<2x6xf32>, tensor<8x6xf32>, tensor<4x6xf32>) {
  %0 = rlx.reshape %x new_shape = [6, 4] : tensor<4x6xf32>
  %1 = rlx.transpose %s perm = [1, 0] : tensor<6x6xf32>
  %2 = rlx.expand %x target_shape = [3, 4, 6] : tensor<4x6xf32>
  %3 = rlx.narrow %x axis = 1 start = 1 len = 5 : tensor<4x6xf32>
  %4 = rlx.narrow %d axis = 0 start = 0 len = 2 : tensor<?x6xf32>
  %5 = rlx.concat %x, %x axis = 0 : tensor<4x6xf32>, tensor<4x6xf32>
  %6 = rlx.expand %o target_shape = [4, 6] : tensor<1x6xf32>
  return %0, %1, %2, %3, %4, %5, %6
      : tensor<6x4xf32>, tensor<6x6xf32>, tensor<3x4x6xf32>, tensor<4x5xf32>,
        tensor<2x6xf32>, tensor<8x6xf32>, tensor<4x6xf32>
}

// -----

// reshape(reshape(x)) -> reshape(x).
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>, %[[D:.*]]: tensor<?x6xf32>)
// CHECK: %[[R0:.*]] = rlx.reshape %[[X]] new_shape = [3, -1] : tensor<4x6xf32>
// CHECK: %[[R1:.*]] = rlx.reshape %[[D]] new_shape = [-1, 3] : tensor<?x6xf32>
// CHECK: %[[R2:.*]] = rlx.reshape %[[D]] new_shape = [12] : tensor<?x6xf32>
// CHECK: return %[[R0]], %[[X]], %[[R1]], %[[R2]]
func.func @reshape_chain(%x: tensor<4x6xf32>, %d: tensor<?x6xf32>)
    -> (tensor<3x8xf32>, tensor<4x6xf32>, tensor<?x3xf32>, tensor<12xf32>) {
  %0 = rlx.reshape %x new_shape = [24] : tensor<4x6xf32>
  %1 = rlx.reshape %0 new_shape = [2, 12] : tensor<24xf32>
  %2 = rlx.reshape %1 new_shape = [3, -1] : tensor<2x12xf32>
  // Back to the original shape: the chain disappears.
  %3 = rlx.reshape %0 new_shape = [4, 6] : tensor<24xf32>
  %4 = rlx.reshape %d new_shape = [-1] : tensor<?x6xf32>
  %5 = rlx.reshape %4 new_shape = [-1, 3] : tensor<?xf32>
  // The inner reshape pinned the size: inferring -1 from %d would lose it,
  // so the composed reshape spells out the static shape.
  %6 = rlx.reshape %d new_shape = [2, 6] : tensor<?x6xf32>
  %7 = rlx.reshape %6 new_shape = [-1] : tensor<2x6xf32>
  return %2, %3, %5, %7 : tensor<3x8xf32>, tensor<4x6xf32>, tensor<?x3xf32>, tensor<12xf32>
}

// -----

// Dynamic chains compose as well.
// CHECK-LABEL: func.func @reshape_chain_dynamic
// CHECK-SAME: (%[[D:.*]]: tensor<?x?xf32>)
// CHECK-NEXT: %[[R:.*]] = rlx.reshape %[[D]] new_shape = [-1, 6] : tensor<?x?xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain_dynamic(%d: tensor<?x?xf32>) -> tensor<?x6xf32> {
  %0 = rlx.reshape %d new_shape = [-1, 3, 2] : tensor<?x?xf32>
  %1 = rlx.reshape %0 new_shape = [-1, 6] : tensor<?x3x2xf32>
  return %1 : tensor<?x6xf32>
}

// -----

// transpose(transpose(x)) composes; the identity composition disappears.
// CHECK-LABEL: func.func @transpose_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = rlx.transpose %[[X]] perm = [2, 1, 0] : tensor<2x3x4xf32>
// CHECK-NOT: rlx.transpose
// CHECK: return %[[X]], %[[T]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>) {
  %0 = rlx.transpose %x perm = [1, 2, 0] : tensor<2x3x4xf32>
  %1 = rlx.transpose %0 perm = [2, 0, 1] : tensor<3x4x2xf32>
  // [1, 2, 0] then [1, 0, 2]: result dim i = x dim inner[outer[i]].
  %2 = rlx.transpose %0 perm = [1, 0, 2] : tensor<3x4x2xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<4x3x2xf32>
}

// -----

// Constant folding of reshape and transpose, expand of a splat.
// CHECK-LABEL: func.func @shape_constants
// CHECK-DAG: %[[R:.*]] = rlx.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
// CHECK-DAG: %[[T:.*]] = rlx.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[F:.*]] = rlx.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: %[[B:.*]] = rlx.constant dense<{{\[\[}}true, false], [false, false], [true, true]]> : tensor<3x2xi1>
// CHECK-DAG: %[[S:.*]] = rlx.constant dense<5.000000e-01> : tensor<4x3xf32>
// CHECK-DAG: %[[E:.*]] = rlx.constant dense<7> : tensor<2x3xi64>
// CHECK-NOT: rlx.reshape
// CHECK-NOT: rlx.transpose
// CHECK-NOT: rlx.expand
// CHECK: return %[[R]], %[[T]], %[[F]], %[[B]], %[[S]], %[[E]]
func.func @shape_constants()
    -> (tensor<6xi32>, tensor<3x2xi32>, tensor<2x2xf32>, tensor<3x2xi1>,
        tensor<4x3xf32>, tensor<2x3xi64>) {
  %i = rlx.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = rlx.reshape %i new_shape = [-1] : tensor<2x3xi32>
  %1 = rlx.transpose %i perm = [1, 0] : tensor<2x3xi32>
  %f = rlx.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %2 = rlx.transpose %f perm = [1, 0] : tensor<2x2xf32>
  %b = rlx.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %3 = rlx.transpose %b perm = [1, 0] : tensor<2x3xi1>
  %s = rlx.constant dense<0.5> : tensor<3x4xf32>
  %4 = rlx.transpose %s perm = [1, 0] : tensor<3x4xf32>
  %e = rlx.constant dense<7> : tensor<1x3xi64>
  %5 = rlx.expand %e target_shape = [2, -1] : tensor<1x3xi64>
  return %0, %1, %2, %3, %4, %5
      : tensor<6xi32>, tensor<3x2xi32>, tensor<2x2xf32>, tensor<3x2xi1>,
        tensor<4x3xf32>, tensor<2x3xi64>
}

// -----

// A 3-D transpose of a constant.
// CHECK-LABEL: func.func @transpose_constant_3d
// CHECK: rlx.constant dense<{{\[\[\[}}0, 3], [6, 9]], {{\[\[}}1, 4], [7, 10]], {{\[\[}}2, 5], [8, 11]]]> : tensor<3x2x2xi8>
// CHECK-NOT: rlx.transpose
func.func @transpose_constant_3d() -> tensor<3x2x2xi8> {
  %c = rlx.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]> : tensor<2x2x3xi8>
  %0 = rlx.transpose %c perm = [2, 0, 1] : tensor<2x2x3xi8>
  return %0 : tensor<3x2x2xi8>
}

// -----

// i1 and complex constants fold too.
// CHECK-LABEL: func.func @shape_constants_bool_complex
// CHECK-DAG: %[[B:.*]] = rlx.constant dense<[true, false, true, false, false, true]> : tensor<6xi1>
// CHECK-DAG: %[[C:.*]] = rlx.constant dense<{{\[\[}}(1.000000e+00,2.000000e+00), (5.000000e+00,6.000000e+00), (3.000000e+00,4.000000e+00)], {{\[}}(3.000000e+00,4.000000e+00), (1.000000e+00,2.000000e+00), (5.000000e+00,6.000000e+00)]]> : tensor<2x3xcomplex<f32>>
// CHECK-NOT: rlx.reshape
// CHECK-NOT: rlx.transpose
// CHECK: return %[[B]], %[[C]]
func.func @shape_constants_bool_complex()
    -> (tensor<6xi1>, tensor<2x3xcomplex<f32>>) {
  %b = rlx.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %0 = rlx.reshape %b new_shape = [-1] : tensor<2x3xi1>
  %c = rlx.constant dense<[[(1.0, 2.0), (3.0, 4.0), (5.0, 6.0)], [(1.0, 2.0), (3.0, 4.0), (5.0, 6.0)]]> : tensor<2x3xcomplex<f32>>
  %1 = rlx.reshape %c new_shape = [3, 2] : tensor<2x3xcomplex<f32>>
  %2 = rlx.transpose %1 perm = [1, 0] : tensor<3x2xcomplex<f32>>
  return %0, %2 : tensor<6xi1>, tensor<2x3xcomplex<f32>>
}

// -----

// Not folded: non-splat constants over 1024 elements, a non-splat expand,
// dense_resource constants (the transpose of one moves a unit dim: it
// becomes a reshape, below), and shape ops of non-constants.
// CHECK-LABEL: func.func @shape_constants_not_folded
// CHECK: rlx.reshape
// CHECK: rlx.transpose
// CHECK: rlx.expand
// CHECK: rlx.reshape {{.*}} new_shape = [1, 2] : tensor<2x1xf32>
// CHECK: rlx.reshape
func.func @shape_constants_not_folded(%x: tensor<2x3xf32>)
    -> (tensor<1030xi8>, tensor<515x2xi8>, tensor<2x2xf32>, tensor<1x2xf32>,
        tensor<6xf32>) {
  %big = rlx.constant dense<"0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff000102030405"> : tensor<2x515xi8>
  %0 = rlx.reshape %big new_shape = [-1] : tensor<2x515xi8>
  %1 = rlx.transpose %big perm = [1, 0] : tensor<2x515xi8>
  %v = rlx.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %2 = rlx.expand %v target_shape = [2, 2] : tensor<2xf32>
  %r = rlx.constant dense_resource<blob> : tensor<2x1xf32>
  %3 = rlx.transpose %r perm = [1, 0] : tensor<2x1xf32>
  %4 = rlx.reshape %x new_shape = [6] : tensor<2x3xf32>
  return %0, %1, %2, %3, %4
      : tensor<1030xi8>, tensor<515x2xi8>, tensor<2x2xf32>, tensor<1x2xf32>,
        tensor<6xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// A shape fold whose result's element count overflows int64 is not done.
// CHECK-LABEL: func.func @transpose_element_count_overflows
// CHECK: rlx.transpose
func.func @transpose_element_count_overflows() -> tensor<2x4294967296x4294967296xf32> {
  %a = rlx.constant dense<1.0> : tensor<4294967296x4294967296x2xf32>
  %b = rlx.transpose %a perm = [2, 0, 1] : tensor<4294967296x4294967296x2xf32>
  return %b : tensor<2x4294967296x4294967296xf32>
}

// -----

// An empty constant whose other dims multiply past int64: the transpose is
// left as it is (the folder computes no strides for it).
// CHECK-LABEL: func.func @transpose_empty_huge
// CHECK: %[[C:.*]] = rlx.constant dense<> : tensor<0x4611686018427387904x4xf32>
// CHECK-NEXT: rlx.transpose %[[C]] perm = [2, 1, 0]
func.func @transpose_empty_huge() -> tensor<4x4611686018427387904x0xf32> {
  %c = rlx.constant dense<> : tensor<0x4611686018427387904x4xf32>
  %0 = rlx.transpose %c perm = [2, 1, 0] : tensor<0x4611686018427387904x4xf32>
  return %0 : tensor<4x4611686018427387904x0xf32>
}

// -----

// A transpose that moves only dims of size 1 keeps the element order: a
// reshape. One that reorders larger dims stays a transpose.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK: %[[A:.*]] = rlx.reshape %arg0 new_shape = [1, 32, 1, 64] : tensor<1x1x32x64xf32>
// CHECK: %[[B:.*]] = rlx.reshape %arg1 new_shape = [2, 1, 16] : tensor<2x16x1xf32>
// CHECK: %[[C:.*]] = rlx.transpose %arg2 perm = [0, 2, 1, 3] : tensor<1x4x32x64xf32>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @transpose_of_unit_dims(%q: tensor<1x1x32x64xf32>,
                                  %k: tensor<2x16x1xf32>,
                                  %p: tensor<1x4x32x64xf32>)
    -> (tensor<1x32x1x64xf32>, tensor<2x1x16xf32>, tensor<1x32x4x64xf32>) {
  %a = rlx.transpose %q perm = [0, 2, 1, 3] : tensor<1x1x32x64xf32>
  %b = rlx.transpose %k perm = [0, 2, 1] : tensor<2x16x1xf32>
  %c = rlx.transpose %p perm = [0, 2, 1, 3] : tensor<1x4x32x64xf32>
  return %a, %b, %c
      : tensor<1x32x1x64xf32>, tensor<2x1x16xf32>, tensor<1x32x4x64xf32>
}
