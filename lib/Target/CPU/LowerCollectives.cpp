//===- LowerCollectives.cpp - rlx collectives as calls of the runtime -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each collective becomes rlx_rt_collective(table, input, output) inside an
// rlx_cpu.on_buffers op, which states to bufferization that the call reads
// the operand's buffer and writes the result's whole (docs/architecture.md,
// "Buffers handed to libraries"). Everything the runtime needs besides the
// two buffers is static and goes into one constant i64 table per distinct
// op (include/rlx/Runtime/Collectives.h).
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "RuntimeCalls.h"

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Runtime/Collectives.h"
#include "rlx/Target/CPU/RLXCPUDialect.h"
#include "rlx/Target/CollectiveOps.h"
#include "rlx/Target/DTypeCodes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPULOWERCOLLECTIVES
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;
namespace comm = rlxrt::comm;

namespace {

constexpr StringLiteral kCalleeName = "rlx_rt_collective";

std::optional<int64_t> dtypeCode(Type type) {
  std::optional<int32_t> code = runtimeDType(type);
  return code ? std::optional<int64_t>(*code) : std::nullopt;
}

/// The element types MPI combines (MPI has no 16-bit float type).
bool reducible(Type type) {
  return type.isF32() || type.isF64() || type.isSignlessInteger(8) ||
         type.isSignlessInteger(16) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(64);
}

struct RLXCPULowerCollectivesPass
    : rlx::impl::RLXCPULowerCollectivesBase<RLXCPULowerCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (describeCollective(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    bool failedAny = false;
    for (Operation *op : ops)
      failedAny |= failed(check(op));
    if (failedAny)
      return signalPassFailure();
    for (auto [index, op] : llvm::enumerate(ops))
      lower(module, op, index);
  }

  LogicalResult check(Operation *op) {
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    if (!input.hasStaticShape() || !result.hasStaticShape())
      return op->emitOpError() << "the CPU lowering needs static shapes, got "
                               << input << " -> " << result;
    Type et = input.getElementType();
    if (!dtypeCode(et))
      return op->emitOpError()
             << "the CPU lowering does not move " << et << " tensors";
    if (describeCollective(op)->kind && !reducible(et))
      return op->emitOpError()
             << "the CPU lowering combines f32, f64, i8, i16, i32 and i64 "
                "tensors (MPI has no "
             << et << " type); cast to f32 around the op";
    return success();
  }

  /// A pointer to the constant i64 table `values`, one global per distinct
  /// table.
  Value tablePointer(OpBuilder &b, ModuleOp module, Location loc,
                     ArrayRef<int64_t> values) {
    auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                      b.getI64Type());
    return constantTablePointer(b, module, loc, "__rlx_collective",
                                DenseElementsAttr::get(type, values));
  }

  void lower(ModuleOp module, Operation *op, size_t index) {
    Location loc = op->getLoc();
    Type i64 = IntegerType::get(op->getContext(), 64);
    func::FuncOp callee = module.lookupSymbol<func::FuncOp>(kCalleeName);
    if (!callee) {
      OpBuilder top(module.getBodyRegion());
      callee = func::FuncOp::create(top, loc, kCalleeName,
                                    top.getFunctionType({i64, i64, i64}, {}));
      callee.setPrivate();
    }
    CollectiveDescription what = *describeCollective(op);
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    Type et = input.getElementType();
    SmallVector<int64_t> table(comm::kDims);
    table[comm::kOp] = what.code;
    table[comm::kKind] = what.kind ? static_cast<int64_t>(*what.kind) : -1;
    table[comm::kDType] = *dtypeCode(et);
    table[comm::kElementBytes] = (et.getIntOrFloatBitWidth() + 7) / 8;
    table[comm::kFirstAttr] = what.first;
    table[comm::kSecondAttr] = what.second;
    table[comm::kOpIndex] = static_cast<int64_t>(index);
    table[comm::kRank] = input.getRank();
    llvm::append_range(table, input.getShape());
    table.push_back(what.group.getMesh().size());
    llvm::append_range(table, what.group.getMesh());
    table.push_back(what.group.getAxes().size());
    llvm::append_range(table, what.group.getAxes());

    OpBuilder b(op);
    Value init = tensor::EmptyOp::create(b, loc, result.getShape(), et);
    auto onBuffers = cpu::OnBuffersOp::create(
        b, loc, ValueRange{op->getOperand(0)}, ValueRange{init});
    Block *body = &onBuffers.getBody().front();
    b.setInsertionPointToStart(body);
    auto pointer = [&](Value buffer) -> Value {
      Value at = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      return arith::IndexCastOp::create(b, loc, i64, at);
    };
    Value tableAt = tablePointer(b, module, loc, table);
    func::CallOp::create(b, loc, callee,
                         ValueRange{tableAt, pointer(body->getArgument(0)),
                                    pointer(body->getArgument(1))});
    op->replaceAllUsesWith(onBuffers.getResults());
    op->erase();
  }
};

} // namespace
