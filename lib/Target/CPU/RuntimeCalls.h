//===- RuntimeCalls.h - declarations of CPU runtime functions ---*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TARGET_CPU_RUNTIMECALLS_H
#define RLX_LIB_TARGET_CPU_RUNTIMECALLS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace rlx {

/// Declares (once) `func.func private @name(types...)` with a C interface,
/// so memref arguments reach the runtime as `_mlir_ciface_<name>`'s
/// descriptor pointers (lib/Runtime/CPU).
inline func::FuncOp getOrDeclareRuntime(ModuleOp module, StringRef name,
                                        TypeRange types) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder b(module.getBodyRegion());
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(types, {}));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return fn;
}

/// The address, as an i64, of a constant global holding `value` (a 1-D
/// table a runtime function reads): one global per distinct value, named
/// PREFIX_0, PREFIX_1, ...
inline Value constantTablePointer(OpBuilder &b, ModuleOp module, Location loc,
                                  StringRef prefix, DenseElementsAttr value) {
  auto type = MemRefType::get(value.getType().getShape(),
                              value.getType().getElementType());
  std::string name;
  memref::GlobalOp global;
  for (unsigned i = 0;; ++i) {
    name = (prefix + "_" + Twine(i)).str();
    global = module.lookupSymbol<memref::GlobalOp>(name);
    // Attributes are uniqued: equal values are the same attribute.
    if (!global || global.getInitialValueAttr() == value)
      break;
  }
  if (!global) {
    OpBuilder top(module.getBodyRegion());
    memref::GlobalOp::create(top, loc, name, top.getStringAttr("private"), type,
                             value, /*constant=*/true,
                             /*alignment=*/nullptr);
  }
  Value ref = memref::GetGlobalOp::create(b, loc, type, name);
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, ref);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CPU_RUNTIMECALLS_H
