//===- IRFuzzerSupport.cpp - shared parts of the IR fuzz targets ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The structured mutations, one per call, chosen at random:
//  - an extent (a static dim size) is renamed everywhere it occurs, so
//    shapes that had to agree still agree;
//  - one shaped type gets one dim changed, dropped or added (a rank change),
//    everywhere the type occurs;
//  - an element type is replaced everywhere by another;
//  - an integer, float, bool, integer array or splat constant attribute of
//    one op gets a new value;
//  - an attribute of a dialect (an enum such as #rlx.mask<causal>) is
//    replaced by another value of the same kind seen in the corpus.
// New extents and values favour the edge cases: 0, 1, dynamic (?), 2^31,
// 2^32, 2^62 and other huge sizes, negative and extreme integers, NaN,
// infinities, zero signs.
//
//===----------------------------------------------------------------------===//

#include "IRFuzzerSupport.h"

#include "rlx/InitRLX.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

using namespace mlir;

namespace {

std::unique_ptr<DialectRegistry> registry;
std::unique_ptr<MLIRContext> context;
unsigned inputsInContext = 0;
// A fresh context every this many inputs bounds the memory its uniqued
// types and attributes take.
constexpr unsigned kInputsPerContext = 500;

void makeContext() {
  context = std::make_unique<MLIRContext>(*registry,
                                          MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  inputsInContext = 0;
}

using Rng = std::mt19937_64;

template <typename T> const T &pick(llvm::ArrayRef<T> values, Rng &rng) {
  return values[rng() % values.size()];
}

//===----------------------------------------------------------------------===//
// New values
//===----------------------------------------------------------------------===//

constexpr int64_t kHugeExtents[] = {int64_t(1) << 31, int64_t(1) << 32,
                                    int64_t(1) << 40, int64_t(1) << 62,
                                    std::numeric_limits<int64_t>::max() - 1};

/// A new static or dynamic extent for a dim that was `old`.
int64_t newExtent(int64_t old, Rng &rng) {
  switch (rng() % 6) {
  case 0:
    return rng() % 2;
  case 1:
    return ShapedType::kDynamic;
  case 2:
    return pick<int64_t>(kHugeExtents, rng);
  case 3:
    return 2 + rng() % 15;
  case 4:
    return ShapedType::isDynamic(old)
               ? 8
               : (old < (int64_t(1) << 40) ? old * 2 : 3);
  default:
    return ShapedType::isDynamic(old) || old == 0 ? 1 : old - 1;
  }
}

int64_t newInteger(int64_t old, Rng &rng) {
  static constexpr int64_t kSpecial[] = {0,
                                         1,
                                         -1,
                                         2,
                                         3,
                                         64,
                                         int64_t(1) << 31,
                                         (int64_t(1) << 31) - 1,
                                         int64_t(1) << 32,
                                         int64_t(1) << 62,
                                         std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min()};
  switch (rng() % 4) {
  case 0:
    return pick<int64_t>(kSpecial, rng);
  case 1:
    return static_cast<int64_t>(static_cast<uint64_t>(old) + 1);
  case 2:
    return static_cast<int64_t>(static_cast<uint64_t>(old) - 1);
  default:
    return static_cast<int64_t>(rng() % 17) - 8;
  }
}

double newFloat(double old, Rng &rng) {
  static constexpr double kSpecial[] = {
      0.0,
      -0.0,
      1.0,
      -1.0,
      0.5,
      1e-30,
      1e30,
      -1e30,
      std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(),
      std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<double>::max()};
  switch (rng() % 3) {
  case 0:
    return pick<double>(kSpecial, rng);
  case 1:
    return old * 2;
  default:
    return -old;
  }
}

Type newElementType(MLIRContext *ctx, Rng &rng) {
  Builder b(ctx);
  Type types[] = {b.getF16Type(),
                  b.getBF16Type(),
                  b.getF32Type(),
                  b.getF64Type(),
                  b.getI1Type(),
                  b.getI8Type(),
                  b.getI32Type(),
                  b.getI64Type(),
                  b.getIntegerType(8, /*isSigned=*/false),
                  b.getIndexType(),
                  ComplexType::get(b.getF32Type())};
  return types[rng() % std::size(types)];
}

//===----------------------------------------------------------------------===//
// Type mutations
//===----------------------------------------------------------------------===//

/// A dense constant of `newType` standing in for `attr` after its type
/// changed: the same values when only the shape changed (a splat, or a
/// reshape with the same element count), else a splat of the first value
/// converted. Null when no constant of that type exists (dynamic shape).
Attribute retypeDense(DenseElementsAttr attr, ShapedType newType) {
  if (!newType.hasStaticShape() ||
      !newType.getElementType().isIntOrIndexOrFloat())
    return {};
  Type oldElement = attr.getElementType();
  Type newElement = newType.getElementType();
  if (oldElement == newElement) {
    if (attr.isSplat())
      return attr.resizeSplat(newType);
    if (attr.getType().getNumElements() == newType.getNumElements())
      return attr.reshape(newType);
  }
  if (!oldElement.isIntOrIndexOrFloat())
    return {};
  double first = 0;
  if (auto floats = dyn_cast<DenseFPElementsAttr>(attr))
    first = (*floats.value_begin<APFloat>()).convertToDouble();
  else
    first = static_cast<double>((*attr.value_begin<APInt>()).getSExtValue());
  if (isa<FloatType>(newElement))
    return DenseElementsAttr::get(newType, FloatAttr::get(newElement, first));
  unsigned width =
      newElement.isIndex() ? 64 : newElement.getIntOrFloatBitWidth();
  // NaN, infinities and values beyond int64 have no integer to become
  // (converting them is undefined): 0 and the extremes instead.
  int64_t integer = 0;
  if (first >= 0x1p63)
    integer = std::numeric_limits<int64_t>::max();
  else if (first < -0x1p63)
    integer = std::numeric_limits<int64_t>::min();
  else if (!std::isnan(first))
    integer = static_cast<int64_t>(first);
  APInt value(width, static_cast<uint64_t>(integer),
              /*isSigned=*/true, /*implicitTrunc=*/true);
  return DenseElementsAttr::get(newType, value);
}

/// Replaces types everywhere in `module` (operand, result and block argument
/// types, types inside attributes such as function types), keeping dense
/// constants consistent with their new types.
void replaceTypes(ModuleOp module,
                  std::function<std::optional<Type>(Type)> typeMap) {
  AttrTypeReplacer typesOnly;
  typesOnly.addReplacement(typeMap);
  AttrTypeReplacer replacer;
  replacer.addReplacement(typeMap);
  replacer.addReplacement(
      [&](DenseElementsAttr attr) -> std::pair<Attribute, WalkResult> {
        auto newType = cast<ShapedType>(typesOnly.replace(attr.getType()));
        if (newType == attr.getType())
          return {attr, WalkResult::skip()};
        Attribute retyped = retypeDense(attr, newType);
        return {retyped ? retyped : attr, WalkResult::skip()};
      });
  // A dense array's element type is part of its storage (an i64 array holds
  // int64_t values); retyped, the array is malformed, and printing it
  // crashes MLIR's printer. Arrays keep their type.
  replacer.addReplacement(
      [](DenseArrayAttr attr) -> std::pair<Attribute, WalkResult> {
        return {attr, WalkResult::skip()};
      });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

/// The shaped types (ranked tensors, memrefs) of values in `module`.
SmallVector<ShapedType> collectShapedTypes(ModuleOp module) {
  llvm::SetVector<Type> seen;
  auto add = [&](Type type) {
    if (isa<RankedTensorType, MemRefType>(type))
      seen.insert(type);
  };
  module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      add(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          add(arg.getType());
  });
  SmallVector<ShapedType> types;
  for (Type type : seen)
    types.push_back(cast<ShapedType>(type));
  return types;
}

ShapedType withShape(ShapedType type, ArrayRef<int64_t> shape) {
  if (auto memref = dyn_cast<MemRefType>(type))
    // A strided layout need not fit the new rank: the identity layout does.
    return MemRefType::get(shape, memref.getElementType(),
                           MemRefLayoutAttrInterface(),
                           memref.getMemorySpace());
  return cast<RankedTensorType>(type).clone(shape);
}

bool renameExtent(ModuleOp module, ArrayRef<ShapedType> types, Rng &rng) {
  SmallVector<int64_t> extents;
  for (ShapedType type : types)
    for (int64_t dim : type.getShape())
      if (!ShapedType::isDynamic(dim))
        extents.push_back(dim);
  if (extents.empty())
    return false;
  int64_t from = pick<int64_t>(extents, rng);
  int64_t to = newExtent(from, rng);
  replaceTypes(module, [&](Type type) -> std::optional<Type> {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !isa<RankedTensorType, MemRefType>(type))
      return std::nullopt;
    if (!llvm::is_contained(shaped.getShape(), from))
      return std::nullopt;
    SmallVector<int64_t> shape(shaped.getShape());
    for (int64_t &dim : shape)
      if (dim == from)
        dim = to;
    return withShape(shaped, shape);
  });
  return true;
}

bool reshapeOneType(ModuleOp module, ArrayRef<ShapedType> types, Rng &rng) {
  if (types.empty())
    return false;
  ShapedType from = pick<ShapedType>(types, rng);
  SmallVector<int64_t> shape(from.getShape());
  switch (rng() % 4) {
  case 0: // Drop a dim.
    if (shape.empty())
      return false;
    shape.erase(shape.begin() + rng() % shape.size());
    break;
  case 1: // Add a dim.
    if (shape.size() >= 6)
      return false;
    shape.insert(shape.begin() + rng() % (shape.size() + 1), newExtent(1, rng));
    break;
  default:
    if (shape.empty())
      return false;
    int64_t &dim = shape[rng() % shape.size()];
    dim = newExtent(dim, rng);
    break;
  }
  ShapedType to = withShape(from, shape);
  replaceTypes(module, [&](Type type) -> std::optional<Type> {
    if (type == from)
      return Type(to);
    return std::nullopt;
  });
  return true;
}

bool replaceElementType(ModuleOp module, ArrayRef<ShapedType> types, Rng &rng) {
  if (types.empty())
    return false;
  Type from = pick<ShapedType>(types, rng).getElementType();
  Type to = newElementType(module.getContext(), rng);
  if (from == to)
    return false;
  replaceTypes(module, [&](Type type) -> std::optional<Type> {
    if (type == from)
      return to;
    return std::nullopt;
  });
  return true;
}

//===----------------------------------------------------------------------===//
// Attribute mutations
//===----------------------------------------------------------------------===//

/// Attributes of dialects seen in any input, by kind, as text (contexts come
/// and go): what a dialect attribute may be replaced with.
llvm::DenseMap<TypeID, SmallVector<std::string>> &seenDialectAttributes() {
  static llvm::DenseMap<TypeID, SmallVector<std::string>> seen;
  return seen;
}

bool isDialectAttribute(Attribute attr) {
  return attr.getDialect().getNamespace() != "builtin";
}

void recordDialectAttributes(ModuleOp module) {
  auto &seen = seenDialectAttributes();
  module.walk([&](Operation *op) {
    for (NamedAttribute named : op->getAttrs()) {
      Attribute attr = named.getValue();
      if (!isDialectAttribute(attr))
        continue;
      SmallVector<std::string> &values = seen[attr.getTypeID()];
      if (values.size() >= 32)
        continue;
      std::string text;
      llvm::raw_string_ostream os(text);
      attr.print(os);
      if (!llvm::is_contained(values, text))
        values.push_back(std::move(text));
    }
  });
}

IntegerAttr mutateInteger(IntegerAttr attr, Rng &rng) {
  Type type = attr.getType();
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  int64_t old = width == 1 ? attr.getValue().getZExtValue()
                           : attr.getValue().getSExtValue();
  APInt value(width, static_cast<uint64_t>(newInteger(old, rng)),
              /*isSigned=*/true, /*implicitTrunc=*/true);
  return IntegerAttr::get(type, value);
}

/// A new value for `attr`, or null when it is not a kind this mutates.
Attribute mutateAttribute(Attribute attr, Rng &rng) {
  MLIRContext *ctx = attr.getContext();
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return BoolAttr::get(ctx, !boolean.getValue());
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return mutateInteger(integer, rng);
  if (auto real = dyn_cast<FloatAttr>(attr))
    return FloatAttr::get(real.getType(),
                          newFloat(real.getValueAsDouble(), rng));
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr)) {
    SmallVector<int64_t> values(array.asArrayRef());
    unsigned choice = rng() % 4;
    if (choice == 0 && !values.empty())
      values.erase(values.begin() + rng() % values.size());
    else if (choice == 1)
      values.push_back(newInteger(values.empty() ? 0 : values.back(), rng));
    else if (!values.empty()) {
      int64_t &value = values[rng() % values.size()];
      value = newInteger(value, rng);
    }
    return DenseI64ArrayAttr::get(ctx, values);
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    if (array.empty() || !llvm::all_of(array, llvm::IsaPred<IntegerAttr>))
      return {};
    SmallVector<Attribute> values(array.getValue());
    if (rng() % 4 == 0) {
      values.erase(values.begin() + rng() % values.size());
    } else {
      Attribute &value = values[rng() % values.size()];
      value = mutateInteger(cast<IntegerAttr>(value), rng);
    }
    return ArrayAttr::get(ctx, values);
  }
  if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(attr)) {
    if (!dense.isSplat())
      return {};
    Attribute element = dense.getSplatValue<Attribute>();
    Attribute mutated = mutateAttribute(element, rng);
    if (!mutated)
      return {};
    return DenseElementsAttr::get(dense.getType(), mutated);
  }
  if (isDialectAttribute(attr)) {
    auto it = seenDialectAttributes().find(attr.getTypeID());
    if (it == seenDialectAttributes().end())
      return {};
    return parseAttribute(pick<std::string>(it->second, rng), ctx);
  }
  return {};
}

bool mutateOneAttribute(ModuleOp module, Rng &rng) {
  SmallVector<std::pair<Operation *, NamedAttribute>> candidates;
  module.walk([&](Operation *op) {
    for (NamedAttribute named : op->getAttrs()) {
      Attribute attr = named.getValue();
      if (isa<BoolAttr, IntegerAttr, FloatAttr, DenseI64ArrayAttr, ArrayAttr,
              DenseIntOrFPElementsAttr>(attr) ||
          isDialectAttribute(attr))
        candidates.push_back({op, named});
    }
  });
  // A few tries: not every candidate has a mutation (an array of strings).
  for (int attempt = 0; attempt < 4 && !candidates.empty(); ++attempt) {
    auto [op, named] = candidates[rng() % candidates.size()];
    if (Attribute mutated = mutateAttribute(named.getValue(), rng)) {
      op->setAttr(named.getName(), mutated);
      return true;
    }
  }
  return false;
}

bool mutateModule(ModuleOp module, Rng &rng) {
  SmallVector<ShapedType> types = collectShapedTypes(module);
  for (int attempt = 0; attempt < 4; ++attempt) {
    switch (rng() % 5) {
    case 0:
      if (renameExtent(module, types, rng))
        return true;
      break;
    case 1:
      if (reshapeOneType(module, types, rng))
        return true;
      break;
    case 2:
      if (replaceElementType(module, types, rng))
        return true;
      break;
    default:
      if (mutateOneAttribute(module, rng))
        return true;
      break;
    }
  }
  return false;
}

} // namespace

void rlx_fuzz::initialize() {
  registry = std::make_unique<DialectRegistry>();
  rlx::registerAllDialects(*registry);
  rlx::registerAllPasses();
  makeContext();
}

MLIRContext &rlx_fuzz::getContext() { return *context; }

void rlx_fuzz::recycleContext() {
  if (++inputsInContext >= kInputsPerContext)
    makeContext();
}

OwningOpRef<ModuleOp> rlx_fuzz::parseModule(StringRef text,
                                            MLIRContext &context, bool verify) {
  ParserConfig config(&context, verify);
  // MLIR's lexer stops at a NUL, as every file buffer ends with one; the
  // fuzzer's input has none after it, so a token running to its end would
  // be read past it. The copy ends with the NUL std::string keeps.
  std::string terminated = text.str();
  return parseSourceString<ModuleOp>(terminated, config, "fuzz-input");
}

size_t rlx_fuzz::mutate(uint8_t *data, size_t size, size_t maxSize,
                        unsigned seed, unsigned structuredPercent) {
  Rng rng(seed);
  if (rng() % 100 >= structuredPercent)
    return LLVMFuzzerMutate(data, size, maxSize);
  MLIRContext &ctx = getContext();
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  StringRef text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseModule(text, ctx, /*verify=*/false);
  if (!module)
    return LLVMFuzzerMutate(data, size, maxSize);
  recordDialectAttributes(*module);
  if (!mutateModule(*module, rng))
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  // The printer verifies first and falls back to the generic form for an
  // invalid module, which the parser takes too.
  module->print(os);
  if (printed.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, printed.data(), printed.size());
  return printed.size();
}
