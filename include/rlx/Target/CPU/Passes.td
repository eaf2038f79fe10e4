//===- Passes.td - CPU target passes -----------------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The passes of the CPU target: what rlx-cpu-pipeline runs after the
// target-independent lowering to linalg (BLAS calls, loop vectorization,
// math approximations, per-op timers, the graph calling convention).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CPU_PASSES_TD
#define RLX_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXLinalgToBLAS : Pass<"rlx-linalg-to-blas", "ModuleOp"> {
  let summary = "Call the BLAS runtime for large f32/f64 matmuls on buffers";
  let description = [{
    Runs after bufferization. Replaces `linalg.matmul` and
    `linalg.batch_matmul` on f32 or f64 memrefs whose unit-stride innermost
    dims make them BLAS-compatible, and whose `M*N*K` reaches `min-flops`,
    by calls to the project's CPU runtime (`rlx_rt_matmul_*`,
    `rlx_rt_batch_matmul_*`), which call OpenBLAS `cblas_?gemm` with
    `C += A * B` semantics, exactly as the linalg op defines.
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"32768",
           "Smallest M*N*K that is sent to BLAS; smaller matmuls stay loops">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def RLXFuseElementwise : Pass<"rlx-fuse-elementwise", "func::FuncOp"> {
  let summary = "Fuse elementwise linalg producers into their consumers";
  let description = [{
    Fuses `linalg.generic` elementwise producers into consumers (the
    upstream elementwise fusion patterns) when the producer has one use, so
    no work is duplicated. Unlike `linalg-fuse-elementwise-ops` it does not
    propagate reshapes through named ops: `linalg.matmul` and
    `linalg.batch_matmul` stay named, so `rlx-linalg-to-blas` can call BLAS
    for them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def RLXCPUVectorize : Pass<"rlx-cpu-vectorize", "func::FuncOp"> {
  let summary = "Vectorize innermost affine loops whose accesses are contiguous";
  let description = [{
    Vectorizes an innermost `affine.for` only when every `affine.load` and
    `affine.store` in it either does not depend on the loop's induction
    variable (a broadcast load) or depends on it only through the last
    memref index, as `iv + (terms free of iv)`: unit stride, no scaling, no
    `mod`/`floordiv`. Every store must advance with the loop. A reduction
    into a fixed location (`acc[c] = acc[c] op f(iv)`, with `op` an add,
    mul, min or max) is first turned into a loop-carried value and then
    vectorized as a reduction (partial sums in vector lanes, so float sums
    are reassociated). Other loops stay scalar and correct; the upstream
    vectorizer runs on the accepted loops only.
  }];
  let options = [
    Option<"vectorSize", "vector-size", "int64_t", /*default=*/"16",
           "Elements per vector">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def RLXCPUMathApproximation
    : Pass<"rlx-cpu-math-approximation", "ModuleOp"> {
  let summary = "Vectorizable polynomial approximations of f32 math";
  let description = [{
    Rewrites f32 `math.exp`, `math.log`, `math.tanh`, `math.erf` and
    `math.atan` (scalar or vector) into the upstream polynomial
    approximations, which vectorize, instead of libm calls, which do not.
    The approximations are accurate to a few ulp; the execution tests check
    every activation at f32 tolerance (rtol 1e-5) through this path.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def RLXCPUExpandArith : Pass<"rlx-cpu-expand-arith"> {
  let summary = "Expand the arith ops LLVM has no lowering for, keeping max/min";
  let description = [{
    Expands what `convert-arith-to-llvm` cannot lower: ceil/floor integer
    division, bf16 extension and truncation, and the scaling float
    extensions and truncations. Unlike upstream `arith-expand`, it leaves
    `arith.maximumf` / `minimumf` to LLVM's `llvm.maximum` / `llvm.minimum`,
    which order -0.0 below +0.0 as `rlx.binary max/min` defines; the
    upstream expansion into a compare and select returns the second operand
    for a pair of zeros of opposite sign.
  }];
}

def RLXExportGraphFunctions
    : Pass<"rlx-export-graph-functions", "ModuleOp"> {
  let summary = "Give every public function a C interface";
  let description = [{
    Marks each public `func.func` with `llvm.emit_c_interface`, so that the
    LLVM lowering emits `_mlir_ciface_<name>`, which takes one pointer per
    memref argument. `rlx-run` and ahead-of-time compiled modules call graphs
    through it. The `rlx.input` / `rlx.param` argument names are dropped:
    runners read them from the graph before compiling. A value returned more
    than once, or a graph input returned as is, is copied, so every output
    has its own buffer.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RLXCPUProfile : Pass<"rlx-cpu-profile", "ModuleOp"> {
  let summary = "Time each op of a bufferized graph with runtime timers";
  let description = [{
    Runs on bufferized graph functions. Each op at the top level of a
    public function body that does work (a linalg op, a runtime call, a
    copy, a loop) is bracketed by `rlx_rt_profile_begin(id)` /
    `rlx_rt_profile_end(id)` calls into the CPU runtime; neighbouring ops
    with the same label share one timer. A label names the rlx ops the work
    came from (see `rlx-tag-op-locations`) and the first source location,
    e.g. `rlx.matmul+rlx.binary @ layer.mlir:12:8`. The labels, indexed by
    timer id, are stored in the module attribute `rlx.profile_labels`;
    `rlx-run --profile` reads them and prints the time per label.

    Allocations, deallocations and views take no measurable time and are not
    timed.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // RLX_TARGET_CPU_PASSES_TD
