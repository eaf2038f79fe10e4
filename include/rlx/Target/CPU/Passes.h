//===- Passes.h - CPU target passes and pipeline ----------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CPU_PASSES_H
#define RLX_TARGET_CPU_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace arith {
class ArithDialect;
} // namespace arith
namespace bufferization {
class BufferizationDialect;
} // namespace bufferization
namespace func {
class FuncDialect;
class FuncOp;
} // namespace func
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref
namespace scf {
class SCFDialect;
} // namespace scf
namespace tensor {
class TensorDialect;
} // namespace tensor
namespace vector {
class VectorDialect;
} // namespace vector

namespace rlx {

#define GEN_PASS_DECL
#include "rlx/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rlx/Target/CPU/Passes.h.inc"

/// Options of `rlx-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> useBlas{
      *this, "use-blas",
      llvm::cl::desc("Call OpenBLAS for large f32/f64 matmuls"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> blasMinFlops{
      *this, "blas-min-flops", llvm::cl::desc("Smallest M*N*K sent to BLAS"),
      llvm::cl::init(32768)};
  PassOptions::Option<std::string> f32Library{
      *this, "f32-library",
      llvm::cl::desc("Library of the f32 matmuls: onednn (oneDNN's sgemm) "
                     "or openblas (rlx-linalg-to-blas)"),
      llvm::cl::init("onednn")};
  PassOptions::Option<std::string> matmulPrecision{
      *this, "matmul-precision",
      llvm::cl::desc("Precision of the f32 matmuls' inputs: f32 (default, "
                     "exact f32) or bf16 (operands rounded to bf16, f32 "
                     "accumulation, through oneDNN)"),
      llvm::cl::init("f32")};
  PassOptions::Option<bool> quantGemmKernel{
      *this, "quant-gemm-kernel",
      llvm::cl::desc("Multiply rlx.dequant_matmul of the int8/int4 block "
                     "and GGUF q4_0/q8_0 formats with the runtime's "
                     "per-tile kernel (rlx-cpu-lower-quant-matmul); false "
                     "decodes the whole weight before the GEMM"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> dnnlConvolutions{
      *this, "dnnl-convolutions",
      llvm::cl::desc("Run f32 convolutions and their gradients through "
                     "oneDNN (rlx-cpu-lower-convolutions); false keeps "
                     "im2col and a GEMM"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("Elements per vector of the innermost loops (0: no "
                     "vectorization)"),
      llvm::cl::init(16)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outermost parallel loop of each loop nest on "
                     "OpenMP threads (OMP_NUM_THREADS)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Time each op with runtime timers (rlx-cpu-profile); "
                     "the labels are in the module attribute "
                     "rlx.profile_labels"),
      llvm::cl::init(false)};
};

/// rlx -> linalg -> bufferized loops (+ BLAS calls) -> LLVM dialect. The
/// graph functions take their results as trailing out-parameters and have a
/// C interface (`_mlir_ciface_<name>`).
void buildRLXCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Registers the CPU target's rlx-unfuse policy (`target=cpu`): the
/// composite ops its lowering does not handle directly.
void registerCPUUnfusePolicy();

/// Registers the CPU target's passes, its unfuse policy and
/// `rlx-cpu-pipeline`.
void registerCPUTargetPassesAndPipeline();

} // namespace rlx
} // namespace mlir

#endif // RLX_TARGET_CPU_PASSES_H
