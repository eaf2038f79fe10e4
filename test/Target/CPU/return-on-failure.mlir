// RUN: rlx-opt %s --split-input-file --rlx-cpu-return-on-failure | FileCheck %s

// After a runtime call that can fail, the code checks and returns zeros:
// an allocation by its null result, anything else by the run's status.
// The timers cannot fail; a function of the module returns early when
// something it called failed, so its callers check it too. A graph's C
// interface starts a run (unless a guarded one is under way) and ends it
// on every return.
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @rlx_rt_fail(!llvm.ptr)
llvm.func @rlx_rt_profile_begin(i64)

// CHECK-LABEL: llvm.func @g(
// CHECK:   %[[P:.*]] = llvm.call @_mlir_memref_to_llvm_alloc(
// CHECK:   %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:   %[[ISNULL:.*]] = llvm.icmp "eq" %[[P]], %[[NULL]]
// CHECK:   llvm.cond_br %[[ISNULL]] weights([1, 2000]), ^[[EXIT:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHECK: ^[[NEXT]]:
// CHECK-NEXT: llvm.call @rlx_rt_profile_begin
// CHECK-NEXT: llvm.call @rlx_rt_fail
// CHECK-NEXT: %[[STATUS:.*]] = llvm.call @rlx_rt_run_failed() : () -> i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[FAILED:.*]] = llvm.icmp "ne" %[[STATUS]], %[[ZERO]]
// CHECK-NEXT: llvm.cond_br %[[FAILED]] weights([1, 2000]), ^[[EXIT]], ^[[LAST:bb[0-9]+]]
// CHECK: ^[[LAST]]:
// CHECK-NEXT: llvm.return %[[P]]
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: %[[NONE:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.return %[[NONE]]
llvm.func @g(%n: i64, %message: !llvm.ptr) -> !llvm.ptr {
  %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
  llvm.call @rlx_rt_profile_begin(%n) : (i64) -> ()
  llvm.call @rlx_rt_fail(%message) : (!llvm.ptr) -> ()
  llvm.return %p : !llvm.ptr
}

// CHECK-LABEL: llvm.func @_mlir_ciface_g(
// CHECK-NEXT: %[[STARTED:.*]] = llvm.call @rlx_rt_run_enter() : () -> i32
// CHECK-NEXT: llvm.call @g(
// CHECK-NEXT: llvm.call @rlx_rt_run_failed()
// CHECK: llvm.cond_br
// CHECK: llvm.call @rlx_rt_run_exit(%[[STARTED]]) : (i32) -> ()
// CHECK-NEXT: llvm.return
// CHECK: llvm.call @rlx_rt_run_exit(%[[STARTED]]) : (i32) -> ()
// CHECK-NEXT: llvm.return
llvm.func @_mlir_ciface_g(%n: i64, %message: !llvm.ptr) {
  %0 = llvm.call @g(%n, %message) : (i64, !llvm.ptr) -> !llvm.ptr
  llvm.return
}
// CHECK-DAG: llvm.func @rlx_rt_run_failed() -> i32
// CHECK-DAG: llvm.func @rlx_rt_run_enter() -> i32
// CHECK-DAG: llvm.func @rlx_rt_run_exit(i32)

// -----

// A module that calls nothing that can fail is left as it is.
// CHECK-LABEL: llvm.func @pure(
// CHECK-NEXT: llvm.call @expf
// CHECK-NEXT: llvm.return
// CHECK-NOT: rlx_rt_run
llvm.func @expf(f32) -> f32
llvm.func @pure(%x: f32) -> f32 {
  %y = llvm.call @expf(%x) : (f32) -> f32
  llvm.return %y : f32
}
