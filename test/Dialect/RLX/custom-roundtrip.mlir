// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s -canonicalize | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func.func @custom
func.func @custom(%a: tensor<16x16xf32>, %b: tensor<16xf32>, %i: tensor<4xi64>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<4xi64>, tensor<2xf32>) {
  // CHECK: rlx.custom "sparse_lu_solve"(%{{.*}}, %{{.*}}) pure attrs {bytes = array<i8: 1, 2>, ordering = "amd"} : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16xf32>
  %0 = rlx.custom "sparse_lu_solve"(%a, %b) pure attrs {ordering = "amd", bytes = array<i8: 1, 2>} : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // Unknown effects, no results, no configuration.
  // CHECK: rlx.custom "log_stats"(%{{.*}}) : (tensor<16xf32>) -> ()
  rlx.custom "log_stats"(%0) : (tensor<16xf32>) -> ()
  // An explicitly empty configuration is the default and prints as none.
  // CHECK: rlx.custom "flush"() : () -> ()
  rlx.custom "flush"() attrs {} : () -> ()
  // Several results of mixed element types, no inputs.
  // CHECK: %{{.*}}:3 = rlx.custom "rng.draw"() attrs {seed = 7 : i64} : () -> (tensor<16xf32>, tensor<4xi64>, tensor<2xf32>)
  %1:3 = rlx.custom "rng.draw"() attrs {seed = 7 : i64} : () -> (tensor<16xf32>, tensor<4xi64>, tensor<2xf32>)
  return %0, %1#0, %1#1, %1#2 : tensor<16xf32>, tensor<16xf32>, tensor<4xi64>, tensor<2xf32>
}

// Without `pure` the op has unknown effects and survives with unused
// results; a pure one with unused results is dead code.
// CHECK-LABEL: func.func @custom_effects
// CANON-LABEL: func.func @custom_effects
func.func @custom_effects(%x: tensor<4xf32>) {
  // CHECK: rlx.custom "side_effect"
  // CANON: rlx.custom "side_effect"
  %0 = rlx.custom "side_effect"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: rlx.custom "pure_op"
  // CANON-NOT: rlx.custom "pure_op"
  %1 = rlx.custom "pure_op"(%x) pure : (tensor<4xf32>) -> tensor<4xf32>
  return
}
