//===- Differentiation.h - what rlx-autodiff and rlx-jvp share --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TRANSFORMS_AUTODIFF_DIFFERENTIATION_H
#define RLX_LIB_TRANSFORMS_AUTODIFF_DIFFERENTIATION_H

#include "rlx/Dialect/RLX/Autodiff/Sweep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace rlx {

/// The function `name` of `module` (the only function when `name` is
/// empty), or an error at the module naming `pass`.
FailureOr<func::FuncOp> lookupFunction(ModuleOp module, StringRef name,
                                       StringRef pass);

/// The `rlx.input` / `rlx.param` name of argument `index`, or empty.
StringRef argumentName(func::FuncOp f, unsigned index);

/// The argument indices `wrt` names, in its order (every `rlx.param`
/// argument when empty), or an error at `f` for an unknown or repeated
/// name, a non-float argument, or no argument at all.
FailureOr<SmallVector<unsigned>>
resolveWrt(func::FuncOp f, ArrayRef<std::string> wrt, StringRef pass);

/// Which derivative a pass builds.
enum class Mode { Reverse, Forward };

/// What both passes share around their sweep: finds `@func`, resolves
/// `wrt`, copies the function to `@<func><suffix>` with its composite ops
/// decomposed by the `autodiff` unfuse policy (and, per `mode`, the
/// `rlx.custom_fn`s without a rule of that mode inlined, the `rlx.scan`s
/// made to save their trajectory in reverse mode), and calls `build(f,
/// copy, wrt indices)`; the copy is erased again when `build` fails.
LogicalResult deriveFunction(
    ModuleOp module, StringRef func, ArrayRef<std::string> wrt,
    StringRef suffix, StringRef pass, Mode mode,
    function_ref<LogicalResult(func::FuncOp, func::FuncOp, ArrayRef<unsigned>)>
        build);

/// Appends an argument of `type` named `{rlx.input = name}` to `g`.
BlockArgument appendInputArgument(func::FuncOp g, Type type, StringRef name);
/// Appends an argument of `type` named `{rlx.param = name}` to `g`.
BlockArgument appendParamArgument(func::FuncOp g, Type type, StringRef name);

/// Makes `results` what `g` returns, the first ones being `f`'s results
/// (they keep `f`'s result attributes).
void setResults(func::FuncOp f, func::FuncOp g, ArrayRef<Value> results);

/// Erases the ops of `f` whose results are unused and that have no effects.
void eraseDeadOps(func::FuncOp f);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TRANSFORMS_AUTODIFF_DIFFERENTIATION_H
