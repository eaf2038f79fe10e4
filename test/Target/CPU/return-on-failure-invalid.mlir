// RUN: rlx-opt %s --rlx-cpu-return-on-failure --verify-diagnostics

// A parallel loop's body runs on other threads, from where the run cannot
// end: a failable call there is refused.
llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
llvm.func @par(%n: i64) {
  omp.parallel {
    // expected-error @+1 {{rlx-cpu-return-on-failure: '_mlir_memref_to_llvm_alloc' may fail, and is called in a parallel loop, from where the run cannot end}}
    %p = llvm.call @_mlir_memref_to_llvm_alloc(%n) : (i64) -> !llvm.ptr
    omp.terminator
  }
  llvm.return
}
