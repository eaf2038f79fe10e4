//===- LowerCustomOps.cpp - rlx.custom as calls of registered kernels -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Each rlx.custom becomes a call of the CPU runtime's rlx_rt_custom_call,
// which finds the op's kernel in the registry (include/rlx-c/CustomOps.h)
// by name when the graph runs. Where the op is registered while compiling,
// its shape function checks the declared result types first.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CPU/Passes.h"

#include "RuntimeCalls.h"

#include "rlx-c/CustomOps.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Target/CPU/RLXCPUDialect.h"
#include "rlx/Target/DTypeCodes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCPULOWERCUSTOMOPS
#include "rlx/Target/CPU/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kCalleeName = "rlx_rt_custom_call";

/// The RlxDType code of the element types the kernel ABI carries.
std::optional<int32_t> abiDType(Type type) { return runtimeDType(type); }

std::string typeText(const RlxCustomTensorType &type) {
  std::string text = "[";
  for (int32_t d = 0; d < type.rank; ++d)
    text += (d ? ", " : "") + (type.dims[d] < 0 ? std::string("?")
                                                : std::to_string(type.dims[d]));
  return text + "] dtype " + std::to_string(type.dtype);
}

/// The attribute dictionary's text, as the callbacks receive it.
std::string attrsText(CustomOp op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op.getAttrsAttr();
  return text;
}

struct RLXCPULowerCustomOpsPass
    : rlx::impl::RLXCPULowerCustomOpsBase<RLXCPULowerCustomOpsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<CustomOp> ops;
    module.walk([&](CustomOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    bool failedAny = false;
    for (CustomOp op : ops)
      if (failed(check(op)))
        failedAny = true;
    if (failedAny)
      return signalPassFailure();
    for (CustomOp op : ops)
      lower(module, op);
  }

  /// The ABI's type of a ranked tensor, or a diagnostic.
  FailureOr<RlxCustomTensorType> abiType(CustomOp op, Type type,
                                         const Twine &what) {
    auto tensor = cast<RankedTensorType>(type);
    std::optional<int32_t> dtype = abiDType(tensor.getElementType());
    if (!dtype)
      return op.emitOpError()
             << "'" << op.getName() << "': " << what << " has element type "
             << tensor.getElementType()
             << ", which the CPU kernel ABI does not carry (f16, bf16, f32, "
                "f64, i1, i8, i16, i32, i64)";
    if (tensor.getRank() > RLX_CUSTOM_MAX_RANK)
      return op.emitOpError()
             << "'" << op.getName() << "': " << what << " has rank "
             << tensor.getRank() << "; the CPU kernel ABI carries at most "
             << RLX_CUSTOM_MAX_RANK;
    RlxCustomTensorType result = {};
    result.dtype = *dtype;
    result.rank = static_cast<int32_t>(tensor.getRank());
    for (int64_t d = 0; d < tensor.getRank(); ++d)
      result.dims[d] =
          tensor.isDynamicDim(d) ? int64_t(-1) : tensor.getDimSize(d);
    return result;
  }

  LogicalResult check(CustomOp op) {
    SmallVector<RlxCustomTensorType> inputs, declared;
    for (auto [i, type] : llvm::enumerate(op.getInputs().getTypes())) {
      FailureOr<RlxCustomTensorType> abi =
          abiType(op, type, "operand #" + Twine(i));
      if (failed(abi))
        return failure();
      inputs.push_back(*abi);
    }
    for (auto [i, type] : llvm::enumerate(op.getResultTypes())) {
      FailureOr<RlxCustomTensorType> abi =
          abiType(op, type, "result #" + Twine(i));
      if (failed(abi))
        return failure();
      if (!cast<RankedTensorType>(type).hasStaticShape())
        return op.emitOpError()
               << "'" << op.getName() << "': result #" << i << " (" << type
               << ") has dynamic dims; the CPU lowering allocates results "
                  "of static shape";
      declared.push_back(*abi);
    }
    const RlxCustomOpDef *def = rlxFindCustomOp(op.getName().str().c_str());
    if (!def || !def->shape)
      return success(); // Looked up when the graph runs.
    SmallVector<RlxCustomTensorType> computed(declared.size());
    char error[1024] = {0};
    std::string attrs = attrsText(op);
    if (def->shape(inputs.data(), inputs.size(), attrs.c_str(), computed.data(),
                   computed.size(), error, sizeof(error)) != 0)
      return op.emitOpError()
             << "'" << op.getName()
             << "': the registered shape function rejects the operands: "
             << (error[0] ? error : "(no reason given)");
    for (auto [i, want, got] : llvm::enumerate(declared, computed)) {
      // The plugin's answer is untrusted: a rank outside the ABI's range is
      // reported, never used to read past `dims`.
      if (got.rank < 0 || got.rank > RLX_CUSTOM_MAX_RANK)
        return op.emitOpError()
               << "'" << op.getName()
               << "': the registered shape function gives result #" << i
               << " rank " << got.rank << ", outside 0.."
               << RLX_CUSTOM_MAX_RANK;
      bool same = want.dtype == got.dtype && want.rank == got.rank;
      for (int32_t d = 0; same && d < want.rank; ++d)
        same = want.dims[d] == got.dims[d];
      if (!same)
        return op.emitOpError()
               << "'" << op.getName() << "': result #" << i << " is declared "
               << typeText(want) << " but the registered shape function gives "
               << typeText(got);
    }
    return success();
  }

  /// A pointer to a NUL-terminated copy of `text` in a constant global, as
  /// an i64.
  Value stringPointer(OpBuilder &b, ModuleOp module, Location loc,
                      StringRef prefix, StringRef text) {
    SmallVector<int8_t> bytes(text.begin(), text.end());
    bytes.push_back(0);
    auto type = RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                                      b.getI8Type());
    return constantTablePointer(
        b, module, loc, prefix,
        DenseElementsAttr::get(type, ArrayRef<int8_t>(bytes)));
  }

  void lower(ModuleOp module, CustomOp op) {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    Type i64 = IntegerType::get(ctx, 64);
    func::FuncOp callee = module.lookupSymbol<func::FuncOp>(kCalleeName);
    if (!callee) {
      OpBuilder top(module.getBodyRegion());
      callee = func::FuncOp::create(
          top, loc, kCalleeName,
          top.getFunctionType({i64, i64, i64, i64, i64}, {}));
      callee.setPrivate();
    }
    OpBuilder b(op);
    // The kernel reads the inputs' buffers and writes fresh result buffers
    // (rlx_cpu.on_buffers states both to bufferization); the table of
    // pointers and the call sit in its body.
    SmallVector<Value> inits;
    for (Type type : op.getResultTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      inits.push_back(tensor::EmptyOp::create(b, loc, tensor.getShape(),
                                              tensor.getElementType()));
    }
    auto onBuffers = cpu::OnBuffersOp::create(b, loc, op.getInputs(), inits);
    Block *body = &onBuffers.getBody().front();
    b.setInsertionPointToStart(body);
    SmallVector<Value> buffers(body->getArguments());
    int64_t tableSize = 0;
    for (Value buffer : buffers)
      tableSize += 3 + cast<MemRefType>(buffer.getType()).getRank();

    Value name =
        stringPointer(b, module, loc, "__rlx_custom_name", op.getName());
    Value attrs =
        stringPointer(b, module, loc, "__rlx_custom_attrs", attrsText(op));
    Value table = memref::AllocaOp::create(
        b, loc, MemRefType::get({std::max<int64_t>(tableSize, 1)}, i64));
    int64_t slot = 0;
    auto store = [&](Value value) {
      Value at = arith::ConstantIndexOp::create(b, loc, slot++);
      memref::StoreOp::create(b, loc, value, table, at);
    };
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, value);
    };
    for (Value buffer : buffers) {
      auto type = cast<MemRefType>(buffer.getType());
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      store(arith::IndexCastOp::create(b, loc, i64, pointer));
      store(constant(*abiDType(type.getElementType())));
      store(constant(type.getRank()));
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d)) {
          store(constant(type.getDimSize(d)));
          continue;
        }
        Value dim = memref::DimOp::create(b, loc, buffer, d);
        store(arith::IndexCastOp::create(b, loc, i64, dim));
      }
    }
    Value tablePointer = arith::IndexCastOp::create(
        b, loc, i64,
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, table));
    func::CallOp::create(
        b, loc, callee,
        ValueRange{name, attrs,
                   constant(static_cast<int64_t>(op.getInputs().size())),
                   constant(static_cast<int64_t>(inits.size())), tablePointer});
    op->replaceAllUsesWith(onBuffers.getResults());
    op->erase();
  }
};

} // namespace
