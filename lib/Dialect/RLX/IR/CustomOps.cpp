//===- CustomOps.cpp - registry-dispatched custom ops ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include <cctype>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerCustomOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXCustomOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// CustomOp
//===----------------------------------------------------------------------===//

LogicalResult CustomOp::verify() {
  StringRef name = getName();
  if (name.empty())
    return emitOpError() << "name must be a non-empty string naming the "
                            "registered op";
  if (llvm::any_of(name, [](char c) {
        return std::isspace(static_cast<unsigned char>(c)) ||
               !std::isprint(static_cast<unsigned char>(c));
      }))
    return emitOpError() << "name \"" << name
                         << "\" must not contain whitespace or control "
                            "characters";
  if (getPure() && getNumResults() == 0)
    return emitOpError() << "a pure custom op without results computes "
                            "nothing; drop 'pure' or declare its results";
  return success();
}

void CustomOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getPure())
    return;
  // Unknown effects: conservatively read and write arbitrary memory.
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXCustomOps.cpp.inc"
