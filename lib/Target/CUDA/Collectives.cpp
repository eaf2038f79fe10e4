//===- Collectives.cpp - rlx collectives as NCCL calls of the runtime -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each rlx collective becomes an rlx_cuda.collective on tensors (formed with
// the other kernel ops, so bufferization gives it a fresh output buffer),
// then, on buffers, a call of the runtime's rlx_cuda_collective_r<rank>_<type>
// with the op's description as i32 arguments
// (include/rlx/Runtime/Collectives.h). The runtime runs it through NCCL on
// the graph's stream, ordered with the kernels around it.
//
//===----------------------------------------------------------------------===//

#include "KernelOps.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Runtime/Collectives.h"
#include "rlx/Target/CUDA/RLXCUDADialect.h"
#include "rlx/Target/CollectiveOps.h"
#include "rlx/Target/DTypeCodes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::rlx;
namespace comm = rlxrt::comm;

namespace {

/// The runtime's code for the element types NCCL moves and combines: the
/// targets' codes less i16, which NCCL has not.
std::optional<int32_t> dtypeCode(Type type) {
  if (type.isSignlessInteger(16))
    return std::nullopt;
  return runtimeDType(type);
}

} // namespace

bool rlx::isCollective(Operation *op) {
  return describeCollective(op).has_value();
}

LogicalResult rlx::formCollective(RewriterBase &rewriter, Operation *op) {
  CollectiveDescription what = *describeCollective(op);
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (!input.hasStaticShape() || !result.hasStaticShape())
    return op->emitOpError() << "the CUDA lowering needs static shapes, got "
                             << input << " -> " << result;
  Type et = input.getElementType();
  if (!dtypeCode(et))
    return op->emitOpError()
           << "the CUDA lowering moves f32, f64, f16, bf16, i1, i8, i32 and "
              "i64 tensors (NCCL's types), not "
           << et;
  if (input.getRank() > 6)
    return op->emitOpError() << "the CUDA lowering takes tensors of rank up "
                                "to 6, not "
                             << input;
  if (static_cast<int64_t>(what.group.getMesh().size()) >
      comm::kMaxCudaMeshRank)
    return op->emitOpError()
           << "runs over a mesh of rank " << what.group.getMesh().size()
           << "; the CUDA lowering takes meshes of rank up to "
           << comm::kMaxCudaMeshRank;
  rewriter.setInsertionPoint(op);
  Value init =
      tensor::EmptyOp::create(rewriter, op->getLoc(), result.getShape(), et);
  CollectiveKindAttr kind;
  if (what.kind)
    kind = CollectiveKindAttr::get(op->getContext(), *what.kind);
  auto formed = cuda::CollectiveOp::create(
      rewriter, op->getLoc(), TypeRange{result}, op->getOperand(0), init,
      op->getName().stripDialect(), kind, what.first, what.second, what.group);
  rewriter.replaceOp(op, formed->getResults());
  return success();
}

LogicalResult rlx::lowerCollective(RewriterBase &rewriter,
                                   cuda::CollectiveOp op, int32_t index) {
  for (Value buffer : {op.getInput(), op.getInit()})
    if (!cast<MemRefType>(buffer.getType()).getLayout().isIdentity())
      return op.emitOpError()
             << "needs dense row-major buffers; got " << buffer.getType();
  auto input = cast<MemRefType>(op.getInput().getType());
  GroupAttr group = op.getGroup();
  SmallVector<int32_t> flags(comm::kCudaFlagCount, 0);
  flags[comm::kCudaOp] = llvm::StringSwitch<int32_t>(op.getCollective())
                             .Case("all_reduce", comm::kAllReduce)
                             .Case("all_gather", comm::kAllGather)
                             .Case("reduce_scatter", comm::kReduceScatter)
                             .Case("all_to_all", comm::kAllToAll)
                             .Case("broadcast", comm::kBroadcast)
                             .Case("reduce_to_root", comm::kReduceToRoot);
  flags[comm::kCudaKind] =
      op.getKind() ? static_cast<int32_t>(*op.getKind()) : -1;
  flags[comm::kCudaDType] = *dtypeCode(input.getElementType());
  flags[comm::kCudaFirst] = static_cast<int32_t>(op.getFirst());
  flags[comm::kCudaSecond] = static_cast<int32_t>(op.getSecond());
  flags[comm::kCudaOpIndex] = index;
  flags[comm::kCudaMeshRank] = static_cast<int32_t>(group.getMesh().size());
  for (auto [i, size] : llvm::enumerate(group.getMesh())) {
    if (size > std::numeric_limits<int32_t>::max())
      return op.emitOpError() << "mesh size " << size << " is beyond int32";
    flags[comm::kCudaMesh + i] = static_cast<int32_t>(size);
  }
  for (int64_t axis : group.getAxes())
    flags[comm::kCudaAxesMask] |= 1 << axis;
  rewriter.setInsertionPoint(op);
  // One declaration per buffer type: rank and element type in the name
  // (the runtime reads the type from the dtype argument).
  std::string typeName;
  llvm::raw_string_ostream typeStream(typeName);
  typeStream << input.getElementType();
  std::string name = "rlx_cuda_collective_r" + std::to_string(input.getRank()) +
                     "_" + typeName;
  createDeviceRuntimeCall(rewriter, op.getLoc(),
                          op->getParentOfType<ModuleOp>(), name,
                          {op.getInput(), op.getInit()}, flags);
  rewriter.eraseOp(op);
  return success();
}
