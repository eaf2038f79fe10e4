//===- RLXAsmUtils.h - custom assembly directives of rlx ops ----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `custom<EnumKeyword>($kind)` prints an rlx enum attribute as a bare
// keyword (`rlx.binary add %a, %b`) and parses it back, with an error that
// lists the valid keywords.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXASMUTILS_H
#define RLX_DIALECT_RLX_IR_RLXASMUTILS_H

#include "rlx/Dialect/RLX/IR/RLXEnums.h"

#include "mlir/IR/OpImplementation.h"

#include <utility>

namespace mlir {
namespace rlx {

template <typename EnumAttrT>
ParseResult parseEnumKeyword(OpAsmParser &parser, EnumAttrT &attr) {
  using EnumT = decltype(std::declval<EnumAttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value) {
    InFlightDiagnostic diag = parser.emitError(loc)
                              << "unknown " << EnumAttrT::getMnemonic()
                              << " kind '" << keyword << "', expected one of: ";
    // rlx enums number their cases 0..N-1; an unknown value stringifies to
    // the empty string.
    for (uint32_t i = 0;; ++i) {
      StringRef name = stringifyEnum(static_cast<EnumT>(i));
      if (name.empty())
        break;
      diag << (i ? ", " : "") << name;
    }
    return diag;
  }
  attr = EnumAttrT::get(parser.getContext(), *value);
  return success();
}

template <typename EnumAttrT>
void printEnumKeyword(OpAsmPrinter &printer, Operation *, EnumAttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

} // namespace rlx
} // namespace mlir

#endif // RLX_DIALECT_RLX_IR_RLXASMUTILS_H
