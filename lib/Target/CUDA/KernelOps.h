//===- KernelOps.h - forming and lowering the kernel ops --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TARGET_CUDA_KERNELOPS_H
#define RLX_LIB_TARGET_CUDA_KERNELOPS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace rlx {
class ActivationBackwardOp;
class AttentionOp;
class DequantMatMulOp;
class MatMulOp;
class NarrowOp;
namespace cuda {
class CollectiveOp;
class FlashAttentionOp;
class MatmulBiasOp;
class MatmulBiasGeluAuxOp;
class MatmulDgeluOp;
class QuantGemvOp;
} // namespace cuda

/// The suffix of the runtime's GEMM entry points for `elementType`: f32,
/// f64, f16 or bf16; std::nullopt for other types.
std::optional<StringRef> gemmTypeSuffix(Type elementType);

/// A call at `b`'s insertion point of the CUDA runtime function `name` on
/// `buffers`, then the i32 constants `flags`, through MLIR's C interface:
/// the buffers are cast to fully dynamic strided types, and the
/// declaration, added to `module` on first use, is marked as taking device
/// buffers (rlx-cuda-map-to-gpu).
void createDeviceRuntimeCall(OpBuilder &b, Location loc, ModuleOp module,
                             StringRef name, ValueRange buffers,
                             ArrayRef<int32_t> flags);

/// The buffer `value` is a view of, through any chain of view-like ops, or
/// `value` itself.
Value viewRoot(Value value);

/// Whether `op` or an op nested in it has an operand viewing `root`.
bool touchesBuffer(Operation *op, Value root);

/// The type of a workgroup (shared memory) buffer.
MemRefType workgroupBufferType(MLIRContext *context, ArrayRef<int64_t> shape,
                               Type elementType);

/// A gpu.launch of `threads` threads per block in max(`blocks`, 1) blocks
/// (a grid of none is a launch error) with the workgroup buffers `shared`,
/// leaving `b` inside its body, in an scf.if that only the blocks below
/// `blocks` enter. With `dynamicSharedBytes`, the launch also asks for that
/// much dynamic shared memory (see sharedTilesInDynamicMemory). With
/// `clusterBlocks` > 1, consecutive blocks form clusters of that many (along
/// x; `blocks` is a multiple of it, and the grid at least one cluster).
gpu::LaunchOp createGuardedLaunch(OpBuilder &b, Location loc, Value blocks,
                                  int64_t threads, ArrayRef<MemRefType> shared,
                                  int64_t dynamicSharedBytes = 0,
                                  int64_t clusterBlocks = 1);

/// The bytes of dynamic shared memory that holds `tiles` one after another,
/// each starting 128-byte aligned.
int64_t dynamicSharedBytes(ArrayRef<MemRefType> tiles);

/// Views of `tiles` (workgroup memref types) laid out in a kernel's dynamic
/// shared memory as dynamicSharedBytes counts it. Static shared memory is
/// limited to 48 KiB a block; dynamic memory goes up to the device's opt-in
/// limit (the runtime opts in at launch). A kernel that uses these must
/// have no workgroup attributions: the NVVM lowering declares the dynamic
/// memory as an internal shared variable of no size, which ptxas places
/// among the static ones, so the tiles would overlap them.
SmallVector<Value> sharedTilesInDynamicMemory(OpBuilder &b, Location loc,
                                              ArrayRef<MemRefType> tiles);

/// A tensor.empty of `like`'s type (the destination of a kernel op), its
/// dynamic sizes read from `like`.
Value createEmptyLike(OpBuilder &b, Location loc, Value like);

/// Whether every buffer's address is a multiple of `bytes`, computed at run
/// time on the host: the kernels with 16-byte accesses check it and fall
/// back to their 4-byte forms.
Value buffersAligned(OpBuilder &b, Location loc, ArrayRef<Value> buffers,
                     int64_t bytes);

/// Whether every row of every buffer (the innermost dim, whose stride the
/// caller knows is 1) starts at a multiple of `bytes`: the first element's
/// address, offset included, and every outer stride in bytes. Views of a
/// wider buffer (a narrow of a packed projection) pass when their offset and
/// row stride keep the alignment.
Value rowsAligned(OpBuilder &b, Location loc, ArrayRef<Value> buffers,
                  int64_t bytes);

/// `narrow`, an rlx.narrow of the last dim, as the same slice of its input
/// by tensor.extract_slice: a view once bufferized, where the lowering of
/// rlx.narrow copies. The narrow itself is left in place.
Value narrowAsView(RewriterBase &rewriter, NarrowOp narrow);

/// Replaces each rlx.narrow of the last dim in `root` whose result only
/// reaches kernels generated here or the attention kernel (through reshapes
/// and transposes) by narrowAsView: those kernels read strided views, so
/// splitting a fused projection (q, k, v; gate, up) costs no copy. Narrows
/// that an external library would read (cuBLAS, cuDNN, NCCL) keep their
/// copy.
void viewNarrows(RewriterBase &rewriter, Operation *root);

/// Replaces `op` by an rlx_cuda.flash_attention on tensors when the kernel
/// supports it (f32/f16/bf16, head_dim <= 128, not nested in an rlx
/// region); returns false, changing nothing, otherwise.
bool formFlashAttention(RewriterBase &rewriter, AttentionOp op);

/// Replaces a flash_attention on buffers by its gpu.launch: the
/// tensor-core kernel where it applies (f32 on TF32 parts: three products
/// of split operands for f32 accuracy, or one of rounded operands when
/// `allowTf32`), the CUDA-core kernel otherwise.
void lowerFlashAttention(RewriterBase &rewriter, cuda::FlashAttentionOp op,
                         bool allowTf32);

/// Replaces `matmul`, its only user, an `rlx.binary add` of a bias row
/// `[N]`, and the add's only user when it is a relu or gelu_approx
/// activation, by an rlx_cuda.matmul_bias on tensors (f32/f16/bf16, input
/// of rank 2 or 3, weight of rank 2, not nested in an rlx region); an add
/// used by one gelu_approx and other ops (its gradient) and a static
/// multiple of 8 columns, by an rlx_cuda.matmul_bias_gelu_aux that also
/// returns the pre-activation. Returns false, changing nothing, otherwise.
bool formMatmulBias(RewriterBase &rewriter, MatMulOp matmul);

/// Replaces `op`, an `rlx.activation_backward gelu_approx` whose `dy` is an
/// `rlx.matmul` used only there (f32/f16/bf16, input of rank 2 or 3,
/// weight of rank 2 with a static multiple of 8 columns), by an
/// rlx_cuda.matmul_dgelu, and an `rlx.reduce sum` of its result over every
/// row by the op's bias gradient; returns false, changing nothing,
/// otherwise.
bool formMatmulDgelu(RewriterBase &rewriter, ActivationBackwardOp op);

/// Replaces an rlx.softmax, rlx.layer_norm, rlx.rms_norm or
/// rlx.layer_norm_backward_input along the last axis (f32/f16/bf16, not
/// nested in an rlx region) by rlx_cuda.softmax, rlx_cuda.norm or
/// rlx_cuda.norm_backward_input on tensors; returns false, changing nothing,
/// otherwise.
bool formRowKernel(RewriterBase &rewriter, Operation *op);

/// Replaces an rlx_cuda row kernel op on buffers by its gpu.launch.
void lowerRowKernel(RewriterBase &rewriter, Operation *op);

/// Replaces a matmul_bias on buffers by a call of the CUDA runtime's
/// cuBLASLt entry point for its element type.
void lowerMatmulBias(RewriterBase &rewriter, cuda::MatmulBiasOp op,
                     bool allowTf32);

/// Replaces a matmul_bias_gelu_aux or matmul_dgelu on buffers by a call of
/// the CUDA runtime's cuBLASLt entry point with an auxiliary buffer.
void lowerMatmulBiasGeluAux(RewriterBase &rewriter,
                            cuda::MatmulBiasGeluAuxOp op, bool allowTf32);
void lowerMatmulDgelu(RewriterBase &rewriter, cuda::MatmulDgeluOp op,
                      bool allowTf32);

/// Replaces an rlx.conv, rlx.conv2d_backward_input or
/// rlx.conv2d_backward_weight (f32/f16/bf16, not nested in an rlx region,
/// a dynamic batch or a static one of at least `minBatch`) by
/// rlx_cuda.conv2d, conv2d_backward_data or conv2d_backward_filter on
/// tensors; returns false, changing nothing, otherwise. With
/// `channelsLast`, a forward convolution runs on NHWC: its input and filter
/// are transposed to NHWC / KRSC and its result back to NCHW, transposes
/// that rlx-propagate-transposes then cancels between convolutions.
bool formCudnnConvolution(RewriterBase &rewriter, Operation *op,
                          int64_t minBatch, bool channelsLast);

/// Whether `layout` (the `cudnn-layout` option: "auto", "nchw" or "nhwc")
/// runs the forward convolutions of `elementType` channels-last. "auto"
/// does for f16 and bf16, whose tensor-core kernels are NHWC.
bool isChannelsLastConvolution(StringRef layout, Type elementType);

/// Replaces an rlx_cuda convolution op on buffers by a call of the CUDA
/// runtime's cuDNN entry point for its direction and element type.
LogicalResult lowerCudnnConvolution(RewriterBase &rewriter, Operation *op,
                                    bool allowTf32);

/// Whether `op` is one of the rlx collectives.
bool isCollective(Operation *op);

/// Replaces the rlx collective `op` by an rlx_cuda.collective writing a new
/// tensor; fails with a diagnostic at `op` for what the NCCL lowering does
/// not take (dynamic shapes, element types NCCL has not, meshes of rank
/// above 4).
LogicalResult formCollective(RewriterBase &rewriter, Operation *op);

/// Replaces `op`, on buffers, by a call of the runtime's
/// rlx_cuda_collective_r<rank>_<type>; `index` numbers it among the graph's
/// collectives for the runtime's diagnostics.
LogicalResult lowerCollective(RewriterBase &rewriter, cuda::CollectiveOp op,
                              int32_t index);

/// Replaces nothing and returns false unless `lhs` [M, K] times `rhs`
/// [K, N] into `out` [M, N] (buffers of `gemm`, a GEMM that overwrites
/// `out`) is a few f16/bf16 rows times a transposed row-major weight; then
/// emits the GEMV kernel at `b` in its place (computing the product's one
/// elementwise reader too, which it erases) and returns true: the caller
/// erases `gemm`.
bool replaceGemmByGemv(OpBuilder &b, Operation *gemm, Value lhs, Value rhs,
                       Value out, DominanceInfo &dominance);

/// Replaces `op` (with the casts of a half model around it) by an
/// rlx_cuda.quant_gemv when its scheme, rows and K suit the kernel
/// (RLXCUDAOps.td); returns whether it did.
bool formQuantGemv(RewriterBase &rewriter, DequantMatMulOp op);

/// Lowers a bufferized rlx_cuda.quant_gemv to the GEMV kernel, computing
/// its product's one elementwise reader in place where it can.
void lowerQuantGemv(RewriterBase &rewriter, cuda::QuantGemvOp op,
                    DominanceInfo &dominance);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CUDA_KERNELOPS_H
