// RUN: rlx-opt %s --pass-pipeline="builtin.module(func.func(rlx-cpu-vectorize{vector-size=8}))" | FileCheck %s

// Contiguous and broadcast reads with a unit-stride store: vectorized.
// CHECK-LABEL: func.func @contiguous
// CHECK: affine.for %{{.*}} = 0 to 64 step 8
// CHECK: vector.transfer_read
// CHECK: vector.transfer_write
func.func @contiguous(%a: memref<4x64xf32>, %b: memref<64xf32>, %c: memref<4x64xf32>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 64 {
      %x = affine.load %a[%i, %j] : memref<4x64xf32>
      %y = affine.load %b[%j] : memref<64xf32>
      %s = arith.addf %x, %y : f32
      affine.store %s, %c[%i, %j] : memref<4x64xf32>
    }
  }
  return
}

// A stride-2 read is not contiguous: the loop stays scalar.
// CHECK-LABEL: func.func @strided
// CHECK: affine.for %{{.*}} = 0 to 32 {
// CHECK-NOT: vector.
func.func @strided(%a: memref<64xf32>, %c: memref<32xf32>) {
  affine.for %j = 0 to 32 {
    %x = affine.load %a[%j * 2] : memref<64xf32>
    affine.store %x, %c[%j] : memref<32xf32>
  }
  return
}

// Neither are mod-indexed reads nor reads where the IV picks a row.
// CHECK-LABEL: func.func @mod_and_row
// CHECK-NOT: vector.
func.func @mod_and_row(%a: memref<64xf32>, %m: memref<16x16xf32>, %c: memref<16xf32>) {
  affine.for %j = 0 to 16 {
    %x = affine.load %a[%j mod 4] : memref<64xf32>
    %y = affine.load %m[%j, 0] : memref<16x16xf32>
    %s = arith.addf %x, %y : f32
    affine.store %s, %c[%j] : memref<16xf32>
  }
  return
}

// Accumulating into a fixed location (a reduction) stays scalar.
// CHECK-LABEL: func.func @reduction
// CHECK-NOT: vector.
func.func @reduction(%a: memref<64xf32>, %acc: memref<f32>) {
  affine.for %j = 0 to 64 {
    %x = affine.load %a[%j] : memref<64xf32>
    %s = affine.load %acc[] : memref<f32>
    %t = arith.addf %s, %x : f32
    affine.store %t, %acc[] : memref<f32>
  }
  return
}
