//===- Passes.h - the CUDA target's passes and pipeline ---------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CUDA_PASSES_H
#define RLX_TARGET_CUDA_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace arith {
class ArithDialect;
} // namespace arith
namespace func {
class FuncDialect;
class FuncOp;
} // namespace func
namespace gpu {
class GPUDialect;
} // namespace gpu
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace NVVM {
class NVVMDialect;
} // namespace NVVM
namespace nvgpu {
class NVGPUDialect;
} // namespace nvgpu
namespace vector {
class VectorDialect;
} // namespace vector
namespace math {
class MathDialect;
} // namespace math
namespace tensor {
class TensorDialect;
} // namespace tensor
namespace linalg {
class LinalgDialect;
} // namespace linalg
namespace memref {
class MemRefDialect;
} // namespace memref
namespace scf {
class SCFDialect;
} // namespace scf

namespace rlx {
namespace cuda {
class RLXCUDADialect;
} // namespace cuda

#define GEN_PASS_DECL
#include "rlx/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rlx/Target/CUDA/Passes.h.inc"

/// Marks a runtime function whose memref arguments are device buffers (a
/// cuBLAS GEMM), unlike host functions such as the deallocation helper.
inline constexpr llvm::StringLiteral kDeviceBuffersAttrName =
    "rlx.cuda.device_buffers";

/// Marks a module whose host code reads results of the GPU during a run
/// (rlx-cuda-drop-host-waits): its runs are never captured as CUDA graphs.
inline constexpr llvm::StringLiteral kCUDAHostReadsAttrName =
    "rlx.cuda.host_reads";

struct CUDAPipelineOptions : public PassPipelineOptions<CUDAPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("GPU architecture the cubins are compiled for"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features of the cubins"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the device code (0-3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> libdevice{
      *this, "libdevice",
      llvm::cl::desc("libdevice bitcode that kernels' math calls link "
                     "against (default: the CUDA toolkit's, found at build "
                     "time, else where CUDA_HOME points)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> allowTf32{
      *this, "allow-tf32",
      llvm::cl::desc("Let f32 GEMMs and attention use TF32 tensor-core math "
                     "(about 10 mantissa bits per product); off: full f32"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> cudnn{
      *this, "cudnn",
      llvm::cl::desc("Run convolutions and their gradients as cuDNN calls "
                     "(opened at run time); off: generic kernels"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> cudnnMinBatch{
      *this, "cudnn-min-batch",
      llvm::cl::desc("The smallest static batch whose convolutions run as "
                     "cuDNN calls (below it, generic kernels)"),
      llvm::cl::init(2)};
  PassOptions::Option<std::string> cudnnLayout{
      *this, "cudnn-layout",
      llvm::cl::desc("The layout of forward cuDNN convolutions: nchw, nhwc, "
                     "or auto (nhwc for f16 and bf16)"),
      llvm::cl::init("auto")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the generic parallel kernels"),
      llvm::cl::init(256)};
  PassOptions::Option<bool> overlapCollectives{
      *this, "overlap-collectives",
      llvm::cl::desc("Run collectives on a stream of their own, beside the "
                     "kernels up to the first that touches their buffers "
                     "(rlx-cuda-overlap-collectives); off: in order on the "
                     "graph's stream"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Let generic elementwise kernels run 4 points per thread "
                     "with 16-byte accesses where the innermost dimension "
                     "allows (off: one point per thread)"),
      llvm::cl::init(true)};
};

/// rlx -> linalg -> buffers -> kernels (gpu.launch) -> NVVM cubins embedded
/// in `gpu.binary` ops, and host code in the LLVM dialect that calls the
/// mgpu* entry points of librlx_cuda_runtime.so.
void buildRLXCUDAPipeline(OpPassManager &pm,
                          const CUDAPipelineOptions &options);

void registerCUDAUnfusePolicy();

void registerCUDATargetPassesAndPipeline();

} // namespace rlx
} // namespace mlir

#endif // RLX_TARGET_CUDA_PASSES_H
