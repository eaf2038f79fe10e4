//===- ResidentConstants.cpp - constants read from device copies ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx-cuda-resident-constants (Passes.td): a graph reads each of its
// constants from the device copy the CUDA runtime uploads once
// (lib/Runtime/CUDA/ResidentConstants.cpp), instead of copying it from host
// memory to a new device buffer on every run.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDARESIDENTCONSTANTS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

/// The runtime function returning the device copy of a constant: (host
/// address, bytes) -> memref<?xi8> of the copy, through MLIR's C interface
/// (`_mlir_ciface_rlx_cuda_resident_constant` in the CUDA runtime).
constexpr llvm::StringLiteral kResidentConstantFunction =
    "rlx_cuda_resident_constant";

/// Whether `op` runs in the host code rlx-cuda-map-to-gpu keeps on the host:
/// directly in `fn`'s body or in loops and branches there. Elsewhere (in a
/// loop nest that becomes a kernel) a call could not run.
bool inHostCode(Operation *op, func::FuncOp fn) {
  for (Operation *parent = op->getParentOp(); parent != fn;
       parent = parent->getParentOp())
    if (!isa<scf::ForOp, scf::WhileOp, scf::IfOp, scf::IndexSwitchOp>(parent))
      return false;
  return true;
}

/// The bytes between consecutive elements of a buffer of `type` as the LLVM
/// lowering lays it out (the size rounded up to the ABI alignment), or
/// std::nullopt for element types this pass leaves alone.
std::optional<uint64_t> elementStride(Type type, const DataLayout &layout) {
  if (!isa<IntegerType, FloatType, IndexType>(type))
    return std::nullopt;
  return llvm::alignTo(layout.getTypeSize(type).getFixedValue(),
                       layout.getTypeABIAlignment(type));
}

struct RLXCUDAResidentConstantsPass
    : rlx::impl::RLXCUDAResidentConstantsBase<RLXCUDAResidentConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTableCollection symbols;
    DataLayout layout(module);
    // Graphs are the public functions; private ones are host helpers.
    SmallVector<std::pair<memref::GetGlobalOp, uint64_t>> constants;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || !fn.isPublic())
        continue;
      fn.walk([&](memref::GetGlobalOp op) {
        if (std::optional<uint64_t> bytes = residentBytes(op, symbols, layout);
            bytes && inHostCode(op, fn))
          constants.push_back({op, *bytes});
      });
    }
    if (constants.empty())
      return;
    func::FuncOp callee = declareRuntimeFunction(module);
    OpBuilder b(&getContext());
    for (auto [op, bytes] : constants) {
      Location loc = op.getLoc();
      b.setInsertionPointAfter(op);
      // Only the address is taken on the host: rlx-cuda-map-to-gpu keeps
      // such a global in host memory and copies nothing.
      Value host = op.getResult();
      auto address =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, host);
      Value size = arith::ConstantIntOp::create(b, loc, b.getI64Type(), bytes);
      Value raw =
          func::CallOp::create(b, loc, callee, ValueRange{address, size})
              .getResult(0);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value device =
          memref::ViewOp::create(b, loc, op.getType(), raw, zero, ValueRange());
      host.replaceAllUsesExcept(device, address);
    }
  }

private:
  /// The byte size of the constant `op` takes when it can be read from a
  /// device copy: a constant global with an initial value (its bytes never
  /// change, so one copy serves every run) of a static, identity-laid-out
  /// type in the default memory space, which a byte buffer views as is.
  static std::optional<uint64_t> residentBytes(memref::GetGlobalOp op,
                                               SymbolTableCollection &symbols,
                                               const DataLayout &layout) {
    auto global =
        symbols.lookupNearestSymbolFrom<memref::GlobalOp>(op, op.getNameAttr());
    if (!global || !global.getConstant() || !global.getInitialValue() ||
        global.isUninitialized())
      return std::nullopt;
    MemRefType type = op.getType();
    if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
        type.getMemorySpace())
      return std::nullopt;
    std::optional<uint64_t> stride =
        elementStride(type.getElementType(), layout);
    if (!stride)
      return std::nullopt;
    return *stride * type.getNumElements();
  }

  /// `rlx_cuda_resident_constant(index address, i64 bytes) -> memref<?xi8>`,
  /// declared once.
  func::FuncOp declareRuntimeFunction(ModuleOp module) {
    if (auto existing =
            module.lookupSymbol<func::FuncOp>(kResidentConstantFunction))
      return existing;
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto bytes = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
    auto callee = func::FuncOp::create(
        b, module.getLoc(), kResidentConstantFunction,
        b.getFunctionType({b.getIndexType(), b.getI64Type()}, {bytes}));
    callee.setPrivate();
    // The memref result comes back through a descriptor the caller passes.
    callee->setAttr("llvm.emit_c_interface", b.getUnitAttr());
    return callee;
  }
};

} // namespace
