// RUN: rlx-opt %s --split-input-file --rlx-cpu-lower-shape-checks | FileCheck %s --check-prefix=CHECKS
// RUN: rlx-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(rlx-cpu-dynamic-loop-bodies-to-scf))' | FileCheck %s --check-prefix=LOOPS

// A run-time shape check calls the runtime with its message when it fails.
// CHECKS-LABEL: func.func @check(
// CHECKS: %[[OK:.*]] = arith.cmpi eq
// CHECKS: %[[FAILED:.*]] = arith.xori %[[OK]], %true
// CHECKS: scf.if %[[FAILED]] {
// CHECKS:   %[[MSG:.*]] = llvm.mlir.addressof @rlx_shape_check_1 : !llvm.ptr
// CHECKS:   func.call @rlx_rt_fail(%[[MSG]]) : (!llvm.ptr) -> ()
// CHECKS-NOT: cf.assert
// CHECKS-DAG: llvm.mlir.global private constant @rlx_shape_check_1("rows differ\00")
// CHECKS-DAG: func.func private @rlx_rt_fail(!llvm.ptr)
func.func @check(%a: index, %b: index) {
  %ok = arith.cmpi eq, %a, %b : index
  cf.assert %ok, "rows differ"
  return
}

// -----

// Inside a while loop, a linalg op on a carried `?` buffer becomes scf
// loops (its size is no valid affine dim); one outside stays.
// LOOPS-LABEL: func.func @carried(
// LOOPS: linalg.generic
// LOOPS: scf.while
// LOOPS: scf.for
// LOOPS-NOT: linalg.generic
// LOOPS: return
#map = affine_map<(d0) -> (d0)>
func.func @carried(%x: memref<?xf32>, %p: i1) -> memref<?xf32> {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%x : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %r = scf.while (%c = %x) : (memref<?xf32>) -> memref<?xf32> {
    scf.condition(%p) %c : memref<?xf32>
  } do {
  ^bb0(%c: memref<?xf32>):
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%c : memref<?xf32>) outs(%c : memref<?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %d = arith.addf %in, %in : f32
      linalg.yield %d : f32
    }
    scf.yield %c : memref<?xf32>
  }
  return %r : memref<?xf32>
}
