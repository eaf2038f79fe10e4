// RUN: rlx-opt %s --pass-pipeline="builtin.module(func.func(rlx-cpu-vectorize{vector-size=8}))" 2>&1 | FileCheck %s

// An access to a memref with a strided (non-identity) layout: the upstream
// vectorizer printed "error: NYI: non-trivial layout map", left the loop
// scalar and the pipeline exited 0. The loop is left scalar without it.
// CHECK-NOT: error
// CHECK-LABEL: func.func @strided_source
// CHECK: affine.for %{{.*}} = 0 to 8 {
// CHECK-NOT: vector.transfer_read
// CHECK: affine.load %{{.*}} : memref<4x8xf32, strided<[1, 4]>>
// CHECK: affine.store
func.func @strided_source(%a: memref<4x8xf32, strided<[1, 4]>>, %b: memref<4x8xf32>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 8 {
      %v = affine.load %a[%i, %j] : memref<4x8xf32, strided<[1, 4]>>
      affine.store %v, %b[%i, %j] : memref<4x8xf32>
    }
  }
  return
}
