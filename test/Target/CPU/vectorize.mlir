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

// Accumulating into a fixed location with add/mul/min/max is carried in
// a register and vectorized as a reduction.
// CHECK-LABEL: func.func @reduction
// CHECK: %[[INIT:.*]] = affine.load %{{.*}}[] : memref<f32>
// CHECK: %[[SUM:.*]] = affine.for %{{.*}} = 0 to 64 step 8 iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>)
// CHECK: vector.reduction <add>
// CHECK: affine.store %{{.*}}, %{{.*}}[] : memref<f32>
func.func @reduction(%a: memref<64xf32>, %acc: memref<f32>) {
  affine.for %j = 0 to 64 {
    %x = affine.load %a[%j] : memref<64xf32>
    %s = affine.load %acc[] : memref<f32>
    %t = arith.addf %s, %x : f32
    affine.store %t, %acc[] : memref<f32>
  }
  return
}

// Row maxima of a matrix: the inner loop reduces, the row index is outer.
// CHECK-LABEL: func.func @row_max
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK: affine.for %{{.*}} = 0 to 40 step 8 iter_args
// CHECK: vector.reduction <maximumf>
func.func @row_max(%a: memref<4x40xf32>, %m: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 40 {
      %x = affine.load %a[%i, %j] : memref<4x40xf32>
      %s = affine.load %m[%i] : memref<4xf32>
      %t = arith.maximumf %s, %x : f32
      affine.store %t, %m[%i] : memref<4xf32>
    }
  }
  return
}

// A non-associative update (subtraction) is not a reduction: scalar.
// CHECK-LABEL: func.func @not_a_reduction
// CHECK-NOT: vector.
func.func @not_a_reduction(%a: memref<64xf32>, %acc: memref<f32>) {
  affine.for %j = 0 to 64 {
    %x = affine.load %a[%j] : memref<64xf32>
    %s = affine.load %acc[] : memref<f32>
    %t = arith.subf %s, %x : f32
    affine.store %t, %acc[] : memref<f32>
  }
  return
}

// Memory holds an i1 per byte but LLVM packs i1 vectors into bits: a loop
// reading or writing i1 elements contiguously stays scalar (a broadcast i1
// read is fine).
// CHECK-LABEL: func.func @i1_read
// CHECK: affine.for %{{.*}} = 0 to 64 {
// CHECK-NOT: vector.
func.func @i1_read(%m: memref<64xi1>, %a: memref<64xf32>, %c: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %j = 0 to 64 {
    %p = affine.load %m[%j] : memref<64xi1>
    %x = affine.load %a[%j] : memref<64xf32>
    %s = arith.select %p, %x, %zero : f32
    affine.store %s, %c[%j] : memref<64xf32>
  }
  return
}

// CHECK-LABEL: func.func @i1_write
// CHECK: affine.for %{{.*}} = 0 to 64 {
// CHECK-NOT: vector.
func.func @i1_write(%a: memref<64xf32>, %c: memref<64xi1>) {
  %zero = arith.constant 0.0 : f32
  affine.for %j = 0 to 64 {
    %x = affine.load %a[%j] : memref<64xf32>
    %p = arith.cmpf ogt, %x, %zero : f32
    affine.store %p, %c[%j] : memref<64xi1>
  }
  return
}

// CHECK-LABEL: func.func @i1_broadcast
// CHECK: affine.for %{{.*}} = 0 to 64 step 8
// CHECK: vector.transfer_read
func.func @i1_broadcast(%m: memref<i1>, %a: memref<64xf32>, %c: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  affine.for %j = 0 to 64 {
    %p = affine.load %m[] : memref<i1>
    %x = affine.load %a[%j] : memref<64xf32>
    %s = arith.select %p, %x, %zero : f32
    affine.store %s, %c[%j] : memref<64xf32>
  }
  return
}

// The linalg lowering computes a non-identity index with affine.apply
// before the load. The access is judged through it: stride 2 and a reversal
// stay scalar, and an offset (a narrow's `d + start`) is still unit stride.
// CHECK-LABEL: func.func @strided_through_apply
// CHECK: affine.for %{{.*}} = 0 to 32 {
// CHECK-NOT: vector.
func.func @strided_through_apply(%a: memref<64xf32>, %c: memref<32xf32>) {
  affine.for %j = 0 to 32 {
    %k = affine.apply affine_map<(d0) -> (d0 * 2)>(%j)
    %x = affine.load %a[%k] : memref<64xf32>
    affine.store %x, %c[%j] : memref<32xf32>
  }
  return
}

// CHECK-LABEL: func.func @reversed_through_apply
// CHECK: affine.for %{{.*}} = 0 to 32 {
// CHECK-NOT: vector.
func.func @reversed_through_apply(%a: memref<32xf32>, %c: memref<32xf32>) {
  affine.for %j = 0 to 32 {
    %k = affine.apply affine_map<(d0) -> (31 - d0)>(%j)
    %x = affine.load %a[%k] : memref<32xf32>
    affine.store %x, %c[%j] : memref<32xf32>
  }
  return
}

// CHECK-LABEL: func.func @offset_through_apply
// CHECK: affine.for %{{.*}} = 0 to 32 step 8
// CHECK: vector.transfer_read
func.func @offset_through_apply(%a: memref<64xf32>, %c: memref<32xf32>) {
  affine.for %j = 0 to 32 {
    %k = affine.apply affine_map<(d0) -> (d0 + 5)>(%j)
    %x = affine.load %a[%k] : memref<64xf32>
    affine.store %x, %c[%j] : memref<32xf32>
  }
  return
}
