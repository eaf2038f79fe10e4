//===- Passes.td - rlx conversion passes -------------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_PASSES_TD
#define RLX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertRLXToLinalg : Pass<"convert-rlx-to-linalg", "ModuleOp"> {
  let summary = "Lower rlx ops to linalg, tensor, arith, math and complex";
  let description = [{
    Rewrites every rlx op into upstream tensor-level dialects: elementwise ops
    become `linalg.generic` with NumPy broadcasting in the indexing maps,
    matmuls become `linalg.matmul` / `linalg.batch_matmul` where the shapes
    allow (so `rlx-linalg-to-blas` can call BLAS) and a broadcasting
    contraction otherwise. Unsigned element types become signless; the
    lowering keeps their unsigned semantics.

    Control flow stays control flow: `rlx.if` becomes `scf.if` (only the
    taken branch runs), `rlx.while` becomes `scf.while` (with an index
    counter that also ends the loop at `max_iterations`), and `rlx.scan`
    becomes an `scf.for` over its steps that slices each `xs` row and
    writes the trajectory (or its checkpoint rows) with
    `tensor.insert_slice`.

    `rlx.fft` of a static length N: powers of two run an unrolled radix-2
    FFT (a bit-reversal gather, then one generic per stage), other lengths
    up to 16 a DFT contracted against a twiddle table, and longer ones
    Bluestein's FFT in O(N log N) (the chirp-weighted input convolved with
    the conjugate chirp through radix-2 FFTs of the power-of-two length
    M >= 2N - 1). A dynamic N (a `?` last axis) is checked at run time as
    the verifier checks a static one (`cf.assert`), then an `scf.if` runs
    the radix-2 FFT (an `scf.for` over its log2(N) stages) where N is a
    power of two and Bluestein's FFT otherwise. Every twiddle and chirp
    table is computed in f64 by a generic over its index, never stored as a
    constant, so compile time and memory do not grow with N.
    `rlx.log_mel` and `rlx.log_mel_backward` take a static or dynamic
    spectrum axis (a dynamic one checked against the filterbank's bins at
    run time); the backward treats the `max - 8` clamp threshold as a
    constant (no gradient through the max).

    Before rewriting, the pass checks that it can lower every rlx op in the
    module. Each op it cannot lower is reported with its location, and the
    pass fails without changing the module: nothing is silently dropped.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::complex::ComplexDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
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

def RLXExportGraphFunctions
    : Pass<"rlx-export-graph-functions", "ModuleOp"> {
  let summary = "Give every public function a C interface";
  let description = [{
    Marks each public `func.func` with `llvm.emit_c_interface`, so that the
    LLVM lowering emits `_mlir_ciface_<name>`, which takes one pointer per
    memref argument. `rlx-run` and ahead-of-time compiled modules call graphs
    through it. The `rlx.input` / `rlx.param` argument names (and the
    `rlx.param` names of a training step's results) are dropped: runners
    read them from the graph before compiling. A value returned more
    than once, or a graph input returned as is, is copied, so every output
    has its own buffer. Arguments are marked `bufferization.writable =
    false`: they are the caller's, and an op that would update one in place
    gets a copy, so a run never changes its inputs.

    It runs just before bufferization and checks there the invariant of
    buffers handed to libraries (docs/architecture.md): no
    `bufferization.to_buffer` is left, since One-Shot Bufferize does not
    see the uses of its memref and may overwrite the buffer in place while
    it is still read. A module holding one is an error.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def RLXGraphResultsToOutParams
    : Pass<"rlx-graph-results-to-out-params", "ModuleOp"> {
  let summary = "Static graph results become caller-owned out-parameters";
  let description = [{
    The calling convention of compiled graphs (docs/abi.md), after
    bufferization: a public function whose results all have static shapes
    gets one trailing out-parameter per result, which the caller allocates
    and the graph writes (upstream `buffer-results-to-out-params`, with the
    allocations of the results hoisted into the out-parameters). A function
    with a result of dynamic shape keeps all its results: the graph
    allocates them through the runtime and returns them, and the caller owns
    and frees them.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def RLXTransposedGemmOperands
    : Pass<"rlx-transposed-gemm-operands", "func::FuncOp"> {
  let summary = "Let matmuls read transposed operands instead of copies";
  let description = [{
    Runs on tensors, before bufferization. A `linalg.matmul` or
    `linalg.batch_matmul` operand made by a `linalg.transpose` that swaps
    its last two dims (a gradient's `dy w^T` and `x^T dy`) becomes the
    transpose's input, read through the op's indexing map
    (`(m, k) -> (k, m)` for the lhs, `(k, n) -> (n, k)` for the rhs), and
    the copy goes away unless something else reads it.
    The targets' library calls then read the operand transposed in place
    (`rlx-linalg-to-blas` on the CPU, `rlx-cuda-linalg-to-cublas` on CUDA).
    For an `[N, K]` weight this saves a strided pass over it per product.
  }];
}

def RLXExpandArith : Pass<"rlx-expand-arith"> {
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

#endif // RLX_CONVERSION_PASSES_TD
