// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// rlx.sample: logits / temperature as a linalg.generic, then one scf.for
// over the rows: merge sort by z (scf.while over run widths), softmax over
// the top_k first, merge sort of the kept ids by p, the top_p prefix scan,
// Philox-4x32-10 for u and the inverse CDF. seed 0 is the key 0xDEADBEEF
// (low word -559038737 as i32, high word 0).
// CHECK-LABEL: func.func @sample(
// CHECK-SAME: %[[X:.*]]: tensor<2x16xf32>) -> tensor<2xi64>
// CHECK: %[[T:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x16xf32>)
// CHECK: arith.divf %{{.*}}, %[[T]] : f32
// CHECK: %[[R:.*]] = scf.for %[[ROW:[a-z0-9_]+]] = {{.*}} -> (tensor<2xi64>)
// CHECK: %[[BYZ:.*]]:3 = scf.while
// CHECK: tensor.extract %[[Z]][%[[ROW]], %{{.*}}] : tensor<2x16xf32>
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[K:c4[_0-9]*]] {{.*}} -> (f32)
// CHECK: math.exp
// CHECK: %[[BYP:.*]]:3 = scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %[[BYZ]]#1,
// CHECK: %[[TOPP:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.cmpf oge, %{{.*}}, %[[TOPP]] : f32
// CHECK: arith.constant 3528531795 : i64
// CHECK: arith.constant 3449720151 : i64
// CHECK: arith.constant -559038737 : i32
// CHECK: %[[W:.*]] = arith.uitofp %{{.*}} : i32 to f64
// CHECK: %[[U:.*]] = arith.mulf %[[W]], %{{.*}} : f64
// CHECK: scf.for
// CHECK: arith.divf
// CHECK: %[[CUM:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK: arith.cmpf ogt, %[[CUM]], %[[U]] : f64
// CHECK: %[[ID:.*]] = tensor.extract %[[BYP]]#1[%{{.*}}] : tensor<16xi64>
// CHECK: tensor.insert %[[ID]] into %{{.*}}[%[[ROW]]] : tensor<2xi64>
// CHECK: return %[[R]]
func.func @sample(%x: tensor<2x16xf32>) -> tensor<2xi64> {
  %s = rlx.sample %x {top_k = 4 : i64, top_p = 0.5 : f32, temperature = 2.0 : f32, seed = 0 : i64} : tensor<2x16xf32>
  return %s : tensor<2xi64>
}

// -----

// top_p = 1 disables the prefix scan; top_k = 0 keeps the whole row. The
// key is the bit pattern of the i64 seed (-1: both words all ones), and
// f16 logits are sampled in f32.
// CHECK-LABEL: func.func @sample_defaults(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[V:c50[_0-9]*]] {{.*}} -> (f32)
// CHECK-NOT: arith.cmpf oge
// CHECK: arith.constant -1 : i32
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
func.func @sample_defaults(%x: tensor<1x50xf16>) -> tensor<1xi64> {
  %s = rlx.sample %x {top_k = 0 : i64, top_p = 1.0 : f32, temperature = 1.0 : f32, seed = -1 : i64} : tensor<1x50xf16>
  return %s : tensor<1xi64>
}
