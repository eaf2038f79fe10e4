//===- Passes.td - CUDA target passes ----------------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The passes of the CUDA target: what rlx-cuda-pipeline runs after the
// target-independent lowering to linalg and the graph bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CUDA_PASSES_TD
#define RLX_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXCUDAFormKernels : Pass<"rlx-cuda-form-kernels", "ModuleOp"> {
  let summary = "Replace rlx ops that have a dedicated CUDA kernel by its op";
  let description = [{
    Runs on tensors, after the CUDA unfuse policy and before
    `convert-rlx-to-linalg`; ops directly in a function body (not in rlx
    regions) are formed, each writing into a `tensor.empty`:

    - each `rlx.attention` the fused kernel supports (f32, f16 or bf16,
      `head_dim <= 128`) becomes an `rlx_cuda.flash_attention`, with the
      default score scale `1 / sqrt(head_dim)` made explicit. Other
      attention ops (f64, wider heads) are left to the generic lowering,
      which materialises the scores;
    - an `rlx.matmul` (`[M, K]` or `[B, M, K]` by `[K, N]`, f32, f16 or
      bf16) whose only user is an `rlx.binary add` of a bias `[N]`, with
      the add's only user when it is an `rlx.activation` relu or
      gelu_approx, becomes one `rlx_cuda.matmul_bias` (a cuBLASLt GEMM with
      the bias and activation as its epilogue). Exact `gelu` (erf) has no
      cuBLASLt epilogue and stays a separate kernel after the bias GEMM.
      When the bias add also has other users (a gradient's
      `rlx.activation_backward`) beside one gelu_approx and the layer has a
      static multiple of 8 columns, the three become an
      `rlx_cuda.matmul_bias_gelu_aux`, which also returns the
      pre-activation;
    - an `rlx.activation_backward gelu_approx` whose `dy` is an
      `rlx.matmul` used only there (same types and ranks, a static multiple
      of 8 columns) becomes an `rlx_cuda.matmul_dgelu`, and an `rlx.reduce
      sum` of its result over every row (the bias gradient) becomes that
      op's second result (reshaped for `keep_dim`);
    - last-axis `rlx.softmax`, `rlx.layer_norm`, `rlx.rms_norm` and
      `rlx.layer_norm_backward_input` become the row kernel ops;
    - an `rlx.dequant_matmul` of a `gguf_q8_0` or `gguf_q4_0` weight with
      at most 8 static rows and `K` a multiple of 64 (a decode step's
      products) becomes an `rlx_cuda.quant_gemv`, which decodes the packed
      blocks in registers; an `rlx.cast` from f16 or bf16 producing its
      `x` and an `rlx.cast` to f16 or bf16 that is its result's only user
      are taken into the op. Other schemes and shapes decode the whole
      weight and multiply it (the generic lowering).

    - with `cudnn-convolutions` (the default), `rlx.conv`,
      `rlx.conv2d_backward_input` and `rlx.conv2d_backward_weight` (f32,
      f16 or bf16) whose batch is dynamic or at least `cudnn-min-batch`
      become `rlx_cuda.conv2d`, `conv2d_backward_data` and
      `conv2d_backward_filter` (cuDNN calls). Below it the generic kernels,
      which fuse the elementwise ops around a convolution into it, were the
      faster (ResNet-50 f32 at batch 1 on an H200: 1.2 ms, against 2.2 to
      2.9 ms with cuDNN; from batch 8 on, cuDNN was).
      Forward convolutions in the `cudnn-layout` NHWC (by default those of
      f16 and bf16, whose tensor-core kernels are NHWC: cuDNN transposes
      NCHW half tensors internally) become `rlx_cuda.conv2d channels_last`
      between transposes of the input and filter to NHWC / KRSC and of the
      result back to NCHW; the patterns of `rlx-propagate-transposes` then
      move the transposes through the elementwise ops and reductions that
      follow, so that inverse pairs cancel between convolutions and the
      batch norms, activations and residual adds in between compute in
      NHWC.

    The layer norm's, the activations' and the convolution's backward ops
    that no kernel took are decomposed into primitives here (the CUDA
    unfuse policy leaves them for this pass).
  }];
  let options = [
    Option<"cudnnConvolutions", "cudnn-convolutions", "bool",
           /*default=*/"true",
           "Run convolutions and their gradients as cuDNN calls">,
    Option<"cudnnMinBatch", "cudnn-min-batch", "int64_t", /*default=*/"2",
           "The smallest static batch whose convolutions run as cuDNN "
           "calls">,
    Option<"cudnnLayout", "cudnn-layout", "std::string", /*default=*/"\"auto\"",
           "The layout of forward cuDNN convolutions: nchw, nhwc, or auto "
           "(nhwc for f16 and bf16)">,
  ];
  let dependentDialects = ["::mlir::rlx::cuda::RLXCUDADialect",
                           "::mlir::tensor::TensorDialect"];
}

def RLXCUDALowerKernels : Pass<"rlx-cuda-lower-kernels", "ModuleOp"> {
  let summary = "Lower the rlx_cuda kernel ops on buffers to gpu.launch";
  let description = [{
    Runs on the module (it declares the runtime functions it calls), after
    bufferization, before `rlx-cuda-map-to-gpu` (which keeps existing
    launches as they are). Each `rlx_cuda.flash_attention` on
    buffers becomes a `gpu.launch` of one of two kernels, both with the
    online softmax in registers and key tiles that no row of a block can
    see under a causal or sliding-window mask skipped:

    - **tensor cores** (f16 and bf16, `head_dim` a multiple of 16, identity
      layouts): FlashAttention-2 on `mma.sync.m16n8k16` (`nvvm.mma.sync`),
      128 threads per block, a block per 64 query rows of one (batch,
      head), a warp per 16 rows, key and value
      tiles `[64, D]` in shared memory, loaded with 16-byte accesses and
      read as fragments with `ldmatrix` (transposed for the values); f32
      accumulation, scores in base 2 for `exp2`, the probabilities rounded
      to the element type for the second product. Under `allow-tf32`, f32
      with `head_dim` a multiple of 8 runs the same kernel on
      `mma.sync.m16n8k8` with operands rounded to TF32 (`cvt.rna`), key
      and value tiles of 32 positions, fragments read element by element.
      The host launches it when all four buffers are 16-byte aligned, and
      the other kernel otherwise;
    - **CUDA cores** (every other case): 256 threads per block, a block per
      eight query rows, a warp per row, key and value tiles of 32
      positions in shared memory, f32 throughout.

    Each `rlx_cuda.quant_gemv` becomes the GEMV kernel that
    `rlx-cuda-linalg-to-cublas` uses for half-precision rows times a
    transposed weight, reading the packed weight in 4-byte words (bytes
    when the buffer is not 4-byte aligned at run time) and decoding a pair
    of blocks per lane and step; the product's one elementwise reader (a
    residual add) is computed by the kernel in its place, as there.

    Each `rlx_cuda.matmul_bias` becomes a call of the CUDA runtime's
    `rlx_cuda_matmul_bias_<type>` (device buffers, strided descriptors),
    which runs `cublasLtMatmul` with the `BIAS`, `RELU_BIAS` or `GELU_BIAS`
    epilogue on the graph's stream; `rlx_cuda.matmul_bias_gelu_aux` and
    `rlx_cuda.matmul_dgelu` become calls of `rlx_cuda_matmul_bias_aux_<type>`
    with the `GELU_AUX_BIAS` and `DGELU_BGRAD` epilogues and their
    auxiliary buffer. The convolution ops become calls of
    `rlx_cuda_conv2d_<type>`, `rlx_cuda_conv2d_backward_data_<type>` and
    `rlx_cuda_conv2d_backward_filter_<type>` (input, filter and output
    buffers, then padding, stride and dilation as i32 pairs and the math
    flags), which run cuDNN on the graph's stream.
  }];
  let options = [
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "Let f32 attention, the f32 GEMMs of matmul_bias and f32 cuDNN "
           "convolutions use TF32 tensor-core math">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def RLXCUDAResidentConstants
    : Pass<"rlx-cuda-resident-constants", "ModuleOp"> {
  let summary = "Read the graph's constants from copies uploaded once";
  let description = [{
    Runs on bufferized graphs, just before `rlx-cuda-map-to-gpu` (a module
    pass, as it declares the runtime function it calls). Each
    `memref.get_global` of a constant global (static shape, identity
    layout, integer, float or index elements) in the host code of a public
    function (its body, or host loops and branches in it) is read from the
    device copy the CUDA runtime keeps:

    ```mlir
    %host = memref.get_global @table : memref<128256xi64>
    %address = memref.extract_aligned_pointer_as_index %host
    %bytes = arith.constant 1026048 : i64
    %raw = call @rlx_cuda_resident_constant(%address, %bytes)
        : (index, i64) -> memref<?xi8>
    %table = memref.view %raw[%c0][] : memref<?xi8> to memref<128256xi64>
    ```

    Every other use of `%host` reads `%table`. The runtime uploads the
    bytes at the first call in a device context and returns the same copy
    from then on (`docs/cuda.md`), so a run copies nothing and frees
    nothing for its constants: mapped alone, `rlx-cuda-map-to-gpu` would
    copy each constant to a new device buffer on every run (a 1 MB one
    took 0.1 ms of a 2.1 ms LLM decode step on an H200) and add a copy to
    every captured CUDA graph.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
}

def RLXCUDAMapToGPU : Pass<"rlx-cuda-map-to-gpu", "func::FuncOp"> {
  let summary = "Put every memory access of a bufferized graph on the GPU";
  let description = [{
    Runs on a bufferized graph function (a public `func.func`) whose
    arguments and results are device buffers. Afterwards, host code only
    allocates, frees, copies, launches and steers loops; every load and
    store of a device buffer runs in a `gpu.launch`:

    - A reduction (a linalg op with one 32-bit output folded by one
      associative combiner: add, mul, min, max, and, or, xor) that folds at
      least `row-reduction-min-points` points into each output gets one
      block per output: its threads stride over the reduced points, each
      folding a partial, and `gpu.all_reduce` (warp shuffles, then shared
      memory across warps) combines the partials; thread 0 folds the total
      into the output's initial value. Sums are reassociated. At most
      128 outputs over many points (an argmax over a vocabulary) split each
      output's points over several blocks (up to 256 in all, about 8 points
      a thread), whose totals a second kernel folds in order.
    - Each other linalg op and `memref.copy` becomes a loop nest (`scf.parallel`
      over its parallel dimensions, `scf.for` over its reductions). Each
      `scf.parallel` becomes one kernel: its iteration space is flattened,
      `block-size` threads per block, one thread per point, and the
      thread's linear index is split back into the loop's induction
      variables. An op on rank-0 buffers runs in a kernel of one thread.
    - Where the innermost dimension of such a nest is a static multiple of
      4 (and the nest has at least 4096 points, or an unknown count), a
      second kernel runs 4 consecutive points of it per thread: each load
      or store whose last index is that dimension's index, on a buffer
      whose strides and offset keep every group of 4 aligned (a unit last
      stride; the others and the offset multiples of 4), becomes one
      `vector.load`/`vector.store` of 4 elements (16 bytes for f32);
      values equal in the 4 points (a broadcast row's element) are
      computed once, the rest once per point. The host launches it when
      those buffers are 16-byte aligned, and the one-point kernel
      otherwise.
    - `memref.alloc`/`memref.alloca` become `gpu.alloc` and
      `memref.dealloc` becomes `gpu.dealloc`, also inside host-side `scf.if`
      regions that only free buffers. A constant buffer
      (`memref.get_global`) that `rlx-cuda-resident-constants` left (a
      mutable global, an element type it does not size) is copied to a
      device buffer where it is taken and freed at the end of that block; a
      global whose only uses take its address stays in host memory.
    - Loops and branches whose bodies hold buffer operations (linalg ops,
      allocations; a scan's steps or an unbounded while loop's body) or
      whose results the host uses stay on the host, and their bodies are
      mapped the same way: each step launches its kernels. A device value
      the host needs (a while loop's condition) is copied to host memory.
    - Any other op that reads or writes device memory (a loop of scalar
      work such as a reduction over every dimension, a sort or a solve)
      runs whole as a kernel of one thread: correct, not fast. Ops that
      need speed get dedicated kernels before this pass.

    The deallocation pipeline's ownership bookkeeping (buffers of `index`
    addresses and flags passed to its private helper function) stays on
    the host; private functions are not mapped.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of the flattened parallel loops">,
    Option<"rowReductionMinPoints", "row-reduction-min-points", "int64_t",
           /*default=*/"32",
           "Reductions folding at least this many points into each output "
           "get a block per output (0: never)">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Give parallel loop nests whose innermost dimension is a static "
           "multiple of 4 a kernel of 4 points per thread with vector "
           "accesses (off: one point per thread only)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def RLXCUDALinalgToCuBLAS
    : Pass<"rlx-cuda-linalg-to-cublas", "ModuleOp"> {
  let summary = "Call cuBLAS for the GEMMs of a bufferized graph";
  let description = [{
    Runs after bufferization, before `rlx-cuda-map-to-gpu`. Replaces
    `linalg.matmul` and `linalg.batch_matmul` by calls to the CUDA runtime
    (`rlx_cuda_matmul_<type>`, `rlx_cuda_batch_matmul_<type>` through
    MLIR's C interface), which call `cublasGemmStridedBatchedEx` with
    `C += A * B` semantics, exactly as the linalg op defines, on the calling
    thread's graph stream. Taken: one element type (f32, f64, f16 or bf16;
    `<type>` is it), or f16/bf16 operands accumulated into an f32 product
    (the f16/bf16 matmul lowering; `<type>` is `f16_f32` or `bf16_f32`);
    the default indexing maps or maps that read an operand transposed (the
    call gets a transposed view of it); operands whose rows or columns have
    unit stride, with a static leading stride, and a row-major product.
    f16 and bf16 accumulate in f32; f32 uses full f32 math unless
    `allow-tf32` lets it use TF32 tensor cores (about 10 mantissa bits per
    product). Other contractions (integers, an f32 operand beside a half
    one, other strides) stay loops.

    A product zeroed just before (the matmul lowering's `linalg.fill`, or
    a `memref.copy` of one) is overwritten instead (`beta = 0`, the
    `RLX_CUDA_GEMM_OVERWRITE` flag) and the zeroing goes; an f16/bf16
    product accumulated in f32 that every reader rounds first is written
    rounded (into the rounding's output when that is its only reader).
    A few rows times a transposed weight (M <= 8, f16/bf16, K a multiple
    of 8, the weight a row-major `[N, K]` buffer: a decode step's linear
    layers) becomes a GEMV kernel instead of a cuBLAS call: a warp per
    output column streaming its weight row in 16-byte loads (several
    warps per column, each a slice of K, when the columns are few). An
    elementwise op that is the product's only reader (a residual add and
    what was fused into it: identity maps over the product's points, no
    write to its operands in between) is computed by the GEMV in its
    place, and the product is never written.
  }];
  let options = [
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "Let f32 GEMMs use TF32 tensor-core math">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def RLXCUDAOverlapCollectives
    : Pass<"rlx-cuda-overlap-collectives", "ModuleOp"> {
  let summary = "Run collectives beside the kernels that do not need them";
  let description = [{
    Runs after `rlx-cuda-lower-kernels`, which lowers each collective to a
    call of the runtime's `rlx_cuda_collective_r<rank>_<type>` on the
    graph's stream: the kernels after it wait for it, though most do not
    touch its buffers (a data-parallel step's gradient all-reduces, issued
    bucket by bucket as the backward pass produces the gradients, and the
    rest of the backward pass). The pass starts such a collective on the
    calling thread's communication stream instead
    (`rlx_cuda_collective_start_r<rank>_<type>`, the same arguments) and
    makes the graph's stream wait for it (`rlx_cuda_collective_wait` with
    the op's index) just before the first op after it that touches its
    input or output buffer or a view of either (a read, a write, a free),
    or before its block's terminator. A collective with no work between
    it and that op (only allocations, views, casts and host scalars, as
    before the residual add that reads a decode step's all-reduce) stays
    as it was: another stream would only add its fork and join to the
    collective's latency. The runtime runs the all-reduces, the
    broadcasts and the collectives of one-rank groups on the communication
    stream, and the ops that stage through scratch buffers (all-gather and
    reduce-scatter off the outermost dim, all-to-all) on the graph's stream
    as before. Both streams join inside each run, so a run captured as a
    CUDA graph holds the fork and the join.

    Before:
    ```mlir
    call @rlx_cuda_collective_r1_f32(%g, %sum, %c0, ...)
    call @rlx_cuda_matmul_f32(%a, %b, %c, ...)    // backward, not %g / %sum
    linalg.generic ... ins(%sum ...)              // first use of the sum
    ```
    After:
    ```mlir
    call @rlx_cuda_collective_start_r1_f32(%g, %sum, %c0, ...)
    call @rlx_cuda_matmul_f32(%a, %b, %c, ...)
    call @rlx_cuda_collective_wait(%index)
    linalg.generic ... ins(%sum ...)
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def RLXCUDADropHostWaits : Pass<"rlx-cuda-drop-host-waits", "ModuleOp"> {
  let summary = "Remove the host's waits for the GPU from compiled graphs";
  let description = [{
    Runs after `gpu-async-region`, which ends every chain of asynchronous
    GPU work (a kernel, a copy, an allocation) with a synchronous
    `gpu.wait`: the host waits for the chain before it goes on. Every chain
    of a compiled graph runs on one stream, the calling thread's graph
    stream (each `mgpuStreamCreate` returns it in the CUDA runtime; the
    runtime's cuBLAS calls, marked `rlx.cuda.device_buffers`, enqueue there
    too), so the stream alone orders each chain after the ones before it,
    and the runner that called the graph synchronizes once when it copies
    the outputs back (`rlx_cuda_graph_run`). The pass removes every
    synchronous `gpu.wait` except those that end a chain copying into host
    memory (a `gpu.memcpy` whose destination is not device memory: a scalar
    the host reads, such as a loop bound or an index computed on the GPU):
    the host must wait before it reads it.

    A graph that keeps such a wait is marked `rlx.cuda.host_reads` on the
    module: its host work depends on the GPU's results during a run, so the
    runtime never captures it as a CUDA graph (a capture runs the host code
    without the GPU's results). Every other graph's runs can be captured.

    Before:
    ```mlir
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @k::@k blocks in (...) threads in (...)
    gpu.wait [%t1]
    ```
    After, the last line is gone; the token `%t1` has no user.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def RLXCUDAOpMarkers : Pass<"rlx-cuda-op-markers", "ModuleOp"> {
  let summary = "Mark the host's work with the rlx op it came from";
  let description = [{
    Runs on the host side, after `rlx-cuda-drop-host-waits`. Each run
    of neighbouring work at the top level of a graph function (kernel
    launches, runtime calls, device allocations, copies and the structured
    control flow around them) that comes from one rlx op (the names
    `rlx-tag-op-locations` put into the locations) is bracketed by
    `rlx_cuda_op_begin(id, label)` and `rlx_cuda_op_end(id)`, the label a
    constant string such as `rlx.softmax @ model.mlir:12:8`. The labels are
    listed, by id, in the module attribute `rlx.profile_labels`.

    The CUDA runtime keeps the label of the last op begun, so its error
    messages name the rlx op whose work failed (a kernel's fault surfaces
    at the next synchronizing call, after later launches: run with
    `CUDA_LAUNCH_BLOCKING=1` to tie it to its launch). With profiling
    switched on (`rlx-run --profile`), the runtime records an event on the
    graph stream at each marker and sums the time between them per op.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def RLXCUDADeviceLibCalls
    : Pass<"rlx-cuda-device-lib-calls", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Call libdevice for the arith ops NVVM has no instruction for";
  let description = [{
    Runs on each outlined `gpu.module` before the module-wide
    `convert-arith-to-llvm`. That conversion turns `arith.remf` into
    `llvm.frem`, which the NVVM conversion refuses (PTX has no remainder
    instruction); here, in device code only, `arith.remf` becomes a call
    to libdevice's `__nv_fmodf` (f32; f16 and bf16 are extended to f32 and
    the result truncated back, which is exact: fmod of values that f32
    holds exactly is exact) or `__nv_fmod` (f64), elementwise for vectors.
    Those calls are C's `fmod`, the rounding `arith.remf` specifies; the
    floored `remainder` and `floor_div` of rlx are built on it.

    Before:
    ```mlir
    %r = arith.remf %a, %b : f32
    ```
    After:
    ```mlir
    %r = llvm.call @__nv_fmodf(%a, %b) : (f32, f32) -> f32
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def RLXCUDAModuleToBinary
    : Pass<"rlx-cuda-module-to-binary", "ModuleOp"> {
  let summary = "Compile the gpu.modules to binaries on several threads";
  let description = [{
    Upstream's `gpu-module-to-binary`, with the modules compiled side by
    side: each `gpu.module` of the module (for each of its targets) is
    translated to LLVM IR, optimized, compiled to PTX and assembled by
    `ptxas` on a thread of the context's pool, then replaced, in order,
    by a `gpu.binary` of its objects, as upstream's pass does one module
    at a time. A graph has a module per kernel (ResNet-50 about a hundred
    on the cuda target), and serializing them was most of its compile
    time. The first module is compiled alone first, so that what the
    serialization loads into the context on first use is loaded before
    the threads start. A module that fails to compile is an error at it;
    the others are still compiled.

    Before:
    ```mlir
    gpu.module @k0 [#nvvm.target<chip = "sm_90">] { ... }
    gpu.module @k1 [#nvvm.target<chip = "sm_90">] { ... }
    ```
    After:
    ```mlir
    gpu.binary @k0 [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "...">]
    gpu.binary @k1 [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "...">]
    ```
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"bin\"",
           "What each object holds: isa (PTX), bin (a cubin) or fatbin">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // RLX_TARGET_CUDA_PASSES_TD
