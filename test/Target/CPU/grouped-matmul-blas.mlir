// RUN: rlx-opt %s --split-input-file --rlx-linalg-to-blas="min-flops=1000" | FileCheck %s

// The generic rlx.grouped_matmul lowers to (marked rlx.grouped_matmul, the
// weight loaded in the body at [expert, k, n]) becomes one call of the
// runtime's per-expert GEMMs with the input, the weight, the ids and the
// output (already zero-filled: the runtime adds to it, as the generic does).
// CHECK-DAG: func.func private @rlx_rt_grouped_matmul_f32_i32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?xi32, strided<[?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @grouped_f32
// CHECK-SAME: (%[[X:.*]]: memref<64x32xf32>, %[[W:.*]]: memref<4x32x16xf32>, %[[I:.*]]: memref<64xi32>, %[[O:.*]]: memref<64x16xf32>)
// CHECK: linalg.fill
// CHECK: %[[XC:.*]] = memref.cast %[[X]]
// CHECK: %[[WC:.*]] = memref.cast %[[W]] : memref<4x32x16xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK: %[[IC:.*]] = memref.cast %[[I]]
// CHECK: %[[OC:.*]] = memref.cast %[[O]]
// CHECK: call @rlx_rt_grouped_matmul_f32_i32(%[[XC]], %[[WC]], %[[IC]], %[[OC]])
// CHECK-NOT: linalg.generic
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#m = affine_map<(d0, d1, d2) -> (d0)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @grouped_f32(%x: memref<64x32xf32>, %w: memref<4x32x16xf32>, %i: memref<64xi32>, %o: memref<64x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%cst : f32) outs(%o : memref<64x16xf32>)
  linalg.generic {indexing_maps = [#mk, #m, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %i : memref<64x32xf32>, memref<64xi32>) outs(%o : memref<64x16xf32>) attrs = {rlx.grouped_matmul} {
  ^bb0(%in: f32, %id: i32, %out: f32):
    %k = linalg.index 1 : index
    %n = linalg.index 2 : index
    %e = arith.index_cast %id : i32 to index
    %ok = arith.cmpi ult, %e, %c4 : index
    %safe = arith.select %ok, %e, %c0 : index
    %wv = memref.load %w[%safe, %k, %n] : memref<4x32x16xf32>
    %p = arith.mulf %in, %wv : f32
    %t = arith.select %ok, %p, %cst : f32
    %s = arith.addf %out, %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// f64 with i64 ids; dynamic sizes are assumed large.
// CHECK-LABEL: func.func @grouped_f64_dynamic
// CHECK: call @rlx_rt_grouped_matmul_f64_i64
// CHECK-NOT: linalg.generic
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#m = affine_map<(d0, d1, d2) -> (d0)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @grouped_f64_dynamic(%x: memref<?x8xf64>, %w: memref<2x8x4xf64>, %i: memref<?xi64>, %o: memref<?x4xf64>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.000000e+00 : f64
  linalg.generic {indexing_maps = [#mk, #m, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %i : memref<?x8xf64>, memref<?xi64>) outs(%o : memref<?x4xf64>) attrs = {rlx.grouped_matmul} {
  ^bb0(%in: f64, %id: i64, %out: f64):
    %k = linalg.index 1 : index
    %n = linalg.index 2 : index
    %e = arith.index_cast %id : i64 to index
    %ok = arith.cmpi ult, %e, %c2 : index
    %safe = arith.select %ok, %e, %c0 : index
    %wv = memref.load %w[%safe, %k, %n] : memref<2x8x4xf64>
    %p = arith.mulf %in, %wv : f64
    %t = arith.select %ok, %p, %cst : f64
    %s = arith.addf %out, %t : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Below min-flops, or without the mark, the generic stays.
// CHECK-LABEL: func.func @small_or_unmarked
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK: linalg.generic
#mk = affine_map<(d0, d1, d2) -> (d0, d1)>
#m = affine_map<(d0, d1, d2) -> (d0)>
#mn = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @small_or_unmarked(%x: memref<4x8xf32>, %w: memref<2x8x4xf32>, %i: memref<4xi32>, %o: memref<4x4xf32>, %x2: memref<64x32xf32>, %w2: memref<4x32x16xf32>, %i2: memref<64xi32>, %o2: memref<64x16xf32>) {
  linalg.generic {indexing_maps = [#mk, #m, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x, %i : memref<4x8xf32>, memref<4xi32>) outs(%o : memref<4x4xf32>) attrs = {rlx.grouped_matmul} {
  ^bb0(%in: f32, %id: i32, %out: f32):
    %k = linalg.index 1 : index
    %n = linalg.index 2 : index
    %e = arith.index_cast %id : i32 to index
    %wv = memref.load %w[%e, %k, %n] : memref<2x8x4xf32>
    %p = arith.mulf %in, %wv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mk, #m, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x2, %i2 : memref<64x32xf32>, memref<64xi32>) outs(%o2 : memref<64x16xf32>) {
  ^bb0(%in: f32, %id: i32, %out: f32):
    %k = linalg.index 1 : index
    %n = linalg.index 2 : index
    %e = arith.index_cast %id : i32 to index
    %wv = memref.load %w2[%e, %k, %n] : memref<4x32x16xf32>
    %p = arith.mulf %in, %wv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  }
  return
}
