//===- RLXCPUOps.td - the CPU target's runtime-call op -----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The CPU target hands buffers to external libraries (oneDNN convolutions,
// the quantized GEMM kernels, the Gaussian splat tiles, rlx.custom
// kernels). Those calls are formed on tensors, before bufferization, so
// they must tell One-Shot Bufferize which tensors they read and which they
// write; `rlx_cpu.on_buffers` does (docs/architecture.md, "Buffers handed
// to libraries").
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CPU_RLXCPUOPS_TD
#define RLX_TARGET_CPU_RLXCPUOPS_TD

include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def RLXCPU_Dialect : Dialect {
  let name = "rlx_cpu";
  let cppNamespace = "::mlir::rlx::cpu";
  let summary = "Calls of the rlx CPU runtime on the buffers of tensors";
  let description = [{
    The op through which `rlx-cpu-pipeline` runs library code (oneDNN,
    the runtime's kernels, custom op plugins) on the buffers of tensors,
    with the reads and writes stated to bufferization.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def RLXCPU_OnBuffersOp : Op<RLXCPU_Dialect, "on_buffers", [
    AttrSizedOperandSegments,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<DestinationStyleOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "bufferize"]>]> {
  let summary = "runs its body on the buffers of its tensor operands";
  let description = [{
    A region of buffer code, typically a call of the CPU runtime, that reads
    the tensors `ins` and writes every element of the tensors `outs`,
    formed on tensors before bufferization. The body's block has one
    argument per `ins` and `outs` operand, in that order: a memref of the
    operand's shape and element type with the identity layout (or of a
    shape it casts to: canonicalization may refine an operand's `?` dims
    after the op is formed). The results
    are the `outs` after the body ran (destination style, like linalg ops:
    `outs` are usually `tensor.empty`; their contents are not read).

    The op has the unknown effects of the library code it calls, so it is
    never erased, merged or reordered across other effects (an `rlx.custom`
    kernel need not be pure). One-Shot Bufferize sees `ins`
    read and `outs` written at the op itself, so no buffer an `ins` operand
    lives in is reused or written in place before the body has run, and
    every `outs` result is a buffer of its own. Bufferization replaces the
    op by an `scf.execute_region` (never inlined) holding the body on the
    operands' buffers (a buffer of another layout is cast, or copied into
    an identity one), so the region is the use that `rlx-cpu-early-dealloc`
    keeps each buffer alive through.

    Example: a oneDNN convolution (`rlx-cpu-lower-convolutions`).

    ```mlir
    %y = rlx_cpu.on_buffers ins(%x, %w : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>)
                            outs(%init : tensor<1x4x8x8xf32>) {
    ^bb0(%xb: memref<1x4x8x8xf32>, %wb: memref<4x4x1x1xf32>, %yb: memref<1x4x8x8xf32>):
      ... func.call @rlx_rt_conv2d_forward_f32(...)
    } -> tensor<1x4x8x8xf32>
    ```
  }];

  let arguments = (ins Variadic<AnyRankedTensor>:$ins,
                       Variadic<AnyRankedTensor>:$outs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    (`ins` `(` $ins^ `:` type($ins) `)`)?
    `outs` `(` $outs `:` type($outs) `)`
    $body attr-dict (`->` type($results)^)?
  }];

  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  // Creates the block too (one memref argument per operand); the caller
  // fills it before the implicit `rlx_cpu.yield`.
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$ins,
                                 "::mlir::ValueRange":$outs)>];
}

def RLXCPU_YieldOp : Op<RLXCPU_Dialect, "yield", [
    Pure, Terminator, HasParent<"OnBuffersOp">]> {
  let summary = "ends the body of rlx_cpu.on_buffers";
  let assemblyFormat = "attr-dict";
}

#endif // RLX_TARGET_CPU_RLXCPUOPS_TD
