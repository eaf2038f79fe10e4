//===- RLXDialect.cpp - rlx dialect ---------------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rlx;

#include "rlx/Dialect/RLX/IR/RLXDialect.cpp.inc"
#include "rlx/Dialect/RLX/IR/RLXEnums.cpp.inc"
#include "rlx/Dialect/RLX/IR/RLXInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "rlx/Dialect/RLX/IR/RLXAttrs.cpp.inc"

void RLXDialect::initialize() {
  registerAttributes();
#define RLX_OP_FAMILY(Name) register##Name##Ops();
#include "rlx/Dialect/RLX/IR/RLXOpFamilies.def"
}

void RLXDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rlx/Dialect/RLX/IR/RLXAttrs.cpp.inc"
      >();
}

Operation *RLXDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

/// `rlx.input` / `rlx.param` name graph leaves: they belong on the arguments
/// of a function and hold a non-empty name. `rlx.state` marks a parameter
/// as state (not trained).
LogicalResult RLXDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kStateAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << kStateAttrName << "' on argument #"
                             << argIndex << " is a unit attribute";
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function || !function.getArgAttr(argIndex, kParamAttrName))
      return op->emitError()
             << "'" << kStateAttrName << "' on argument #" << argIndex
             << " marks a parameter as state: the argument needs '"
             << kParamAttrName << "' too";
    return success();
  }
  // How the argument is split over the function's `rlx.mesh`; the mesh
  // and the axes are checked by rlx-shard-partition, which reads them.
  if (name == "rlx.split") {
    if (!isa<ArrayAttr>(attribute.getValue()))
      return op->emitError()
             << "'rlx.split' on argument #" << argIndex
             << " lists the mesh axes of each dim, such as [[], [0]]";
    return success();
  }
  if (name != kInputAttrName && name != kParamAttrName)
    return op->emitError() << "unknown rlx argument attribute '" << name
                           << "' on argument #" << argIndex;
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << name
                           << "' is only valid on function arguments";
  auto text = dyn_cast<StringAttr>(attribute.getValue());
  if (!text || text.getValue().empty())
    return op->emitError() << "'" << name << "' on argument #" << argIndex
                           << " must be a non-empty string naming the "
                           << (name == kInputAttrName ? "input" : "parameter");
  // Each leaf is either an input or a parameter, not both.
  auto function = cast<FunctionOpInterface>(op);
  StringRef other = name == kInputAttrName ? kParamAttrName : kInputAttrName;
  if (function.getArgAttr(argIndex, other))
    return op->emitError() << "argument #" << argIndex << " carries both '"
                           << kInputAttrName << "' and '" << kParamAttrName
                           << "'";
  // Leaves are fed by name, so names are unique within a graph.
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
    if (i == argIndex)
      continue;
    for (StringRef kind : {kInputAttrName, kParamAttrName}) {
      auto otherName = function.getArgAttrOfType<StringAttr>(i, kind);
      if (otherName && otherName == text)
        return op->emitError()
               << "arguments #" << std::min(i, argIndex) << " and #"
               << std::max(i, argIndex) << " share the graph leaf name \""
               << text.getValue() << "\"";
    }
  }
  return success();
}
