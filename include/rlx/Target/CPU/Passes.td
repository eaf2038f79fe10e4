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
  let summary = "Call the BLAS runtime for large f32/f64/f16/bf16 matmuls on "
                "buffers";
  let description = [{
    Runs after bufferization. Replaces `linalg.matmul` and
    `linalg.batch_matmul` on f32 or f64 memrefs whose `M*N*K` reaches
    `min-flops`, with the default indexing maps or with either operand read
    transposed (as `rlx-cpu-transposed-gemm-operands` makes them), by calls
    to the project's CPU runtime (`rlx_rt_matmul_*`,
    `rlx_rt_batch_matmul_*`) with a transposed operand passed as a
    transposed view (`memref.transpose`). The runtime calls OpenBLAS
    `cblas_?gemm` with `C += A * B` semantics, exactly as the linalg op
    defines, on operands with a unit stride in either dimension, and a
    plain loop otherwise.

    The f32/f64 `linalg.generic` that `rlx.grouped_matmul` lowers to
    (marked `rlx.grouped_matmul`) becomes a call to
    `rlx_rt_grouped_matmul_<f32|f64>_<i32|i64>(input, weight, expert_idx,
    out)`: the runtime groups the rows by expert (in place when each
    expert's rows are already contiguous, else gathered into a packed
    block and scattered back) and runs one GEMM per expert on the expert's
    `[K, N]` weight slice; rows whose expert id is outside `[0, E)` stay
    zero, as in the generic.

    `f32-library` picks the library of the f32 `matmul`/`batch_matmul`
    calls: `onednn` (default) calls `rlx_rt_matmul_f32_onednn` /
    `rlx_rt_batch_matmul_f32_onednn`, oneDNN's sgemm, which measured
    faster than OpenBLAS on every GEMM shape of the BERT-base layer at
    batch 1 and 8 on the CPU of docs/perf/cpu.md (the table there, from
    `bench/gemm_levers.cpp`); `openblas` keeps `rlx_rt_matmul_f32`. Both
    compute `C += A * B` in f32; results differ only by the order of the
    additions.

    `matmul-precision=bf16` (opt-in, default `f32`) makes every f32
    `matmul`/`batch_matmul` call `rlx_rt_matmul_f32_bf16` /
    `rlx_rt_batch_matmul_f32_bf16` instead: both operands are rounded to
    bf16 (8-bit significand, round to nearest even) and multiplied by
    oneDNN's matmul with f32 accumulation, as PyTorch's
    `set_float32_matmul_precision("medium")`. Each product's relative error
    grows to about `2^-8` of `sum |a| |b|`; f64 products and the grouped
    matmul are not affected.

    f16 and bf16 matmuls lower to a `matmul`/`batch_matmul` of f16 or bf16
    operands accumulated into an f32 buffer (rounded to the result type by
    the elementwise op after it); these call
    `rlx_rt_[batch_]matmul_bf16_f32` and `rlx_rt_[batch_]matmul_f16_f32`
    whatever the options above: oneDNN's bf16 matmul primitive on the
    buffers as they are (`vdpbf16ps` with f32 accumulation where the CPU has
    `avx512_bf16`, AMX where it has that), and for f16, which oneDNN 2.6
    multiplies only on AVX512-FP16 or AMX CPUs, f32 copies of the operands
    through oneDNN's sgemm. The product of an f32 and an f16/bf16 operand
    into f32 (the f16/bf16 attention's probabilities times its values)
    calls `rlx_rt_[batch_]matmul_<lhs>_<rhs>_f32` (`f32_bf16_f32`,
    `f16_f32_f32`, ...): the f16/bf16 operand converted to f32, then
    oneDNN's sgemm. All compute `C += A * B` in f32, exactly as the linalg
    op does; other mixed-type products stay loops.
  }];
  let options = [
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"32768",
           "Smallest M*N*K that is sent to BLAS; smaller matmuls stay loops">,
    Option<"f32Library", "f32-library", "std::string",
           /*default=*/"\"onednn\"",
           "Library of the f32 products: onednn (oneDNN's sgemm) or "
           "openblas">,
    Option<"matmulPrecision", "matmul-precision", "std::string",
           /*default=*/"\"f32\"",
           "Precision of the f32 products' inputs: f32 (exact f32 GEMM) or "
           "bf16 (operands rounded to bf16, f32 accumulation)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def RLXCPULowerCustomOps : Pass<"rlx-cpu-lower-custom-ops", "ModuleOp"> {
  let summary = "Lower rlx.custom to calls of the registered CPU kernels";
  let description = [{
    Runs on tensors, before the lowering to linalg. Each `rlx.custom
    "NAME"` becomes a call of the CPU runtime's `rlx_rt_custom_call` with
    the op's name, the text of its `attrs` dictionary and a table of its
    tensors (data pointer, dtype, rank, dims): operands as read-only
    buffers, results in fresh 64-byte aligned buffers. The runtime finds
    the kernel in the process's custom op registry
    (`include/rlx-c/CustomOps.h`) by name when the graph runs, and stops
    the run with an error naming the op when none is registered.

    Where `NAME` is registered while compiling (a plugin loaded with
    `rlx-run --plugin`), its shape function is called with the operand
    types and must accept them and give the declared result types;
    otherwise the op is an error naming it. Results must have static
    shapes, and every tensor an element type of the ABI (f16, bf16, f32,
    f64, i1, i8, i16, i32, i64) and rank at most 8. See
    `docs/custom-ops.md`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::rlx::cpu::RLXCPUDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RLXCPULowerCollectives : Pass<"rlx-cpu-lower-collectives", "ModuleOp"> {
  let summary = "Lower the rlx collectives to calls of the CPU runtime (MPI)";
  let description = [{
    Runs on tensors, before the lowering to linalg. Each collective
    (`rlx.all_reduce`, `rlx.all_gather`, `rlx.reduce_scatter`,
    `rlx.all_to_all`, `rlx.broadcast`, `rlx.reduce_to_root`) becomes an
    `rlx_cpu.on_buffers` op that reads the operand's buffer and writes a
    fresh result buffer, whose body calls the runtime's
    `rlx_rt_collective(table, input, output)`; `table` is a constant global
    describing the op, its element type, shape and group
    (`include/rlx/Runtime/Collectives.h`). The runtime loads MPI with
    dlopen when the process was started by an MPI launcher, so neither the
    compiler nor the runtime links it (`docs/distributed.md`).

    Operands need static shapes. The ops that combine values (`all_reduce`,
    `reduce_scatter`, `reduce_to_root`) take f32, f64, i8, i16, i32 and i64;
    the others move bytes and take every element type of the ops.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::rlx::cpu::RLXCPUDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RLXCPULowerGaussianSplat
    : Pass<"rlx-cpu-lower-gaussian-splat", "ModuleOp"> {
  let summary = "Lower the rlx.gaussian_splat_* ops to calls of the CPU runtime";
  let description = [{
    Runs on tensors, before the lowering to linalg. Each
    `rlx.gaussian_splat_render`, `_prepare`, `_rasterize` and
    `_render_backward` becomes a call of the CPU runtime's
    `rlx_rt_gaussian_splat` (stage 0 to 3: render, prepare, rasterize,
    backward) with the data pointers of its operands (read-only buffers)
    and of a fresh 64-byte aligned result buffer, the splat count, the
    spherical-harmonic coefficients per splat and the op's settings. The
    per-tile lists, their depth sort and the early termination are
    data-dependent, so the work runs in one C++ kernel
    (`lib/Runtime/CPU/GaussianSplat.cpp`) that implements the contract of
    `docs/ops/GaussianSplatOps.md`.

    Errors naming the op: a scene operand of dynamic length, a
    spherical-harmonic count other than 0, 3, 8 or 15 per splat, counts
    above 2^31 - 1, and a `gaussian_splat_prepare` whose static result
    length is not the packing's `8 + 10 N + 2 * tiles + max_list_entries`
    (a `tensor<?xf32>` result takes that length).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::rlx::cpu::RLXCPUDialect"];
}

def RLXCPULowerQuantMatMul : Pass<"rlx-cpu-lower-quant-matmul", "ModuleOp"> {
  let summary = "Lower rlx.dequant_matmul to the CPU runtime's per-tile "
                "quantized GEMM";
  let description = [{
    Runs on tensors, before the lowering to linalg. Each
    `rlx.dequant_matmul` of scheme `int8_block`, `int8_block_asym`,
    `int4_block`, `gguf_q4_0` or `gguf_q8_0` with a static `K` and `N`
    becomes a call of the CPU runtime's `rlx_rt_quant_matmul(format, x, w,
    scale, zero_point, out, M, N, K, block_size)` with the data pointers of
    its operands (read-only buffers; 0 for an absent scale or zero point)
    and of a fresh 64-byte aligned `[M, N]` f32 result buffer (`M` may be
    dynamic). The kernel (`lib/Runtime/CPU/QuantGemm.cpp`) decodes the
    weight one tile at a time beside the product instead of into a whole
    `[K, N]` f32 buffer: for up to 8 rows of `x` it accumulates the dot
    products straight from the packed blocks, for more it decodes panels
    of columns that stay in L2 and multiplies each with OpenBLAS's sgemm.

    The other schemes, and weights with a dynamic `K` or `N`, are left to
    the target-independent lowering (the whole weight decoded, then
    `rlx.matmul`). `rlx-cpu-pipeline{quant-gemm-kernel=false}` leaves out
    this pass, so every scheme takes that path (to compare the two).
    See `docs/quantization.md`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::rlx::cpu::RLXCPUDialect"];
}

def RLXCPULowerConvolutions
    : Pass<"rlx-cpu-lower-convolutions", "ModuleOp"> {
  let summary = "Lower convolutions and their gradients to oneDNN calls";
  let description = [{
    Runs on tensors, before the unfuse policy and the lowering to linalg.
    Each f32 `rlx.conv`, `rlx.conv2d_backward_input` and
    `rlx.conv2d_backward_weight` becomes a call of the CPU runtime's
    `rlx_rt_conv2d_forward_f32(x, w, y, ...)`,
    `rlx_rt_conv2d_backward_data_f32(dy, w, dx, ...)` or
    `rlx_rt_conv2d_backward_weights_f32(x, dy, dw, ...)`: the two operands
    as read-only buffers, the result in a fresh 64-byte aligned buffer (its
    batch size taken from the activation operand when `?`), then the
    forward op's stride, padding, dilation (each `[H, W]`) and groups as
    `i64`. The runtime (`lib/Runtime/CPU/DnnlConvolution.cpp`) runs
    oneDNN's direct convolution primitives, created once per geometry.
    f16 and bf16 ops call the same f32 functions on f32 copies of their
    operands (`rlx.cast`), and their result is cast back: one rounding of
    an f32 accumulation, as in their linalg lowering.

    Every stride, padding, dilation and group count the ops accept is
    lowered. Kept for the linalg lowering (im2col and a GEMM, or direct
    loops; see `docs/rlx-run.md`): f64, and operands or results with a
    `?` dim other than the batch.
    `rlx.conv_transpose2d` and the ops that decompose into `rlx.conv`
    later (`rlx.q_conv2d`) take the linalg lowering too.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::rlx::cpu::RLXCPUDialect"];
}

def RLXCPUEarlyDealloc : Pass<"rlx-cpu-early-dealloc", "func::FuncOp"> {
  let summary = "Free each buffer right after its last use";
  let description = [{
    Runs after buffer deallocation, whose `memref.dealloc` of a buffer
    allocated in the same block sits at the end of that block: every
    temporary of a graph would live until the graph returns, so its peak
    memory would be the sum of all of them. This pass moves each such
    dealloc to just after the last op of the block that uses the buffer or
    anything derived from it (views, extracted pointers, the results of
    every op reading it, transitively; a use inside a loop or other region
    counts as its op in the block). Deriving is over-approximated, which
    only keeps a buffer longer. Other deallocs stay where they are.

    CPU only: the ops run in order, so a buffer is free once its last user
    has returned (a GPU launch may not have finished).
  }];
}

def RLXCPULowerShapeChecks : Pass<"rlx-cpu-lower-shape-checks", "ModuleOp"> {
  let summary = "Turn run-time shape checks into calls of the CPU runtime";
  let description = [{
    The lowerings check what the verifier could not because a dim is `?`
    (operands of one op whose sizes must agree, a reshape's element count)
    with `cf.assert %ok, "message"`. This pass makes each one
    `if (!ok) rlx_rt_fail("message")`: the runtime records the message as
    the run's error and `rlx-cpu-return-on-failure` returns after the call
    (`CompiledGraph::run` fails with it; a graph called directly prints it;
    docs/abi.md). Graphs with static shapes have no checks.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def RLXCPUReturnOnFailure : Pass<"rlx-cpu-return-on-failure", "ModuleOp"> {
  let summary = "Return from compiled code after a runtime call that failed";
  let description = [{
    Runs last, on the LLVM dialect. A runtime function that fails (an
    allocation of `_mlir_memref_to_llvm_alloc`, `rlx_rt_fail` of a
    run-time shape check, a custom op's kernel, any other `rlx_rt_*` call
    but the timers) records the failure in the run's status
    (`lib/Runtime/CPU/RunStatus.cpp`). After each such call, and after each
    call of a function of the module, the code checks (a null allocation,
    else `rlx_rt_run_failed()`) and branches to a block that returns zeros.
    Each `_mlir_ciface_*` function calls `rlx_rt_run_enter()` on entry and
    `rlx_rt_run_exit(started)` before it returns, so a program calling the
    graph directly has a run too. A failable call inside an OpenMP region
    is an error: no branch leaves a parallel loop's body. The design is in
    docs/architecture.md, "Failures in compiled code".
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def RLXCPUDynamicLoopBodiesToSCF
    : Pass<"rlx-cpu-dynamic-loop-bodies-to-scf", "func::FuncOp"> {
  let summary = "Lower linalg ops on `?` buffers defined inside scf regions to scf loops";
  let description = [{
    `convert-linalg-to-affine-loops` needs loop bounds that are valid affine
    dims; the size of a `?` buffer defined below the function's top level
    is not one (a buffer carried by an `scf.while`, as an `rlx.while` whose
    carried tensor has `?` dims; the tables and planes of a dynamic-length
    `rlx.fft`, inside its `scf.for` over stages and `scf.if`), and the
    affine loops it would build are invalid. Linalg ops on such buffers
    become `scf.for` nests here first (sequential: the parallelizer works
    on affine loops); every other linalg op stays for the affine lowering.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
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
    Rewrites f32 `math.exp`, `math.log`, `math.tanh` and `math.erf`
    (scalar or vector) into the upstream polynomial approximations, which
    vectorize, instead of libm calls, which do not. f32 `math.atan` gets
    its own expansion (the upstream one is off by up to 40 ulp): |x| is
    reduced below tan(pi/8) by atan(x) = pi/2 + atan(-1/x) and
    atan(x) = pi/4 + atan((x-1)/(x+1)), then a degree-9 odd minimax
    polynomial, with pi/2 and pi/4 added in two f32 parts (near tan(pi/8)
    the sum cancels): within 2 ulp everywhere, signed zeros, infinities and
    NaN included.
    The approximations are accurate to a few ulp; the execution tests check
    every activation at f32 tolerance (rtol 1e-5) through this path. The
    log approximation reads its input's exponent bits, so subnormal inputs
    are first scaled into the normal range (log(x) = log(x 2^24) - 24 ln 2);
    the exp approximation flushes results below FLT_MIN to zero, so inputs
    below -87 are shifted first (exp(x) = exp(x + 32) exp(-32), the shift
    exact), giving subnormal results within one unit of the exact ones.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
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
