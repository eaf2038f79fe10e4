//===- RuntimeCalls.h - declarations of CPU runtime functions ---*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TARGET_CPU_RUNTIMECALLS_H
#define RLX_LIB_TARGET_CPU_RUNTIMECALLS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CPU_RUNTIMECALLS_H
