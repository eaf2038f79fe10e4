//===- Differentiation.cpp - what rlx-autodiff and rlx-jvp share ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Transforms/Unfuse.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::rlx;

FailureOr<func::FuncOp> rlx::lookupFunction(ModuleOp module, StringRef name,
                                            StringRef pass) {
  if (name.empty()) {
    auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
    if (functions.size() == 1)
      return functions.front();
    return module.emitError()
           << pass << ": the module has " << functions.size()
           << " functions; name the one to differentiate with func=";
  }
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  return module.emitError()
         << pass << ": no function @" << name << " in the module";
}

StringRef rlx::argumentName(func::FuncOp f, unsigned index) {
  for (StringRef attr : {"rlx.input", "rlx.param"})
    if (auto name = f.getArgAttrOfType<StringAttr>(index, attr))
      return name.getValue();
  return {};
}

bool rlx::isDifferentiable(Value v) {
  auto type = llvm::dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return false;
  Type element = type.getElementType();
  if (auto complex = llvm::dyn_cast<ComplexType>(element))
    element = complex.getElementType();
  return llvm::isa<FloatType>(element);
}

/// The quantized ops whose integer results stand for real numbers (a
/// quantized tensor in units of its scale): their derivatives treat rounding
/// as the identity (straight-through), so a derivative flows from a float
/// input through the integer values to a dequantization.
static bool hasStraightThroughResults(Operation *op) {
  return isa<QuantizeOp, QMatMulOp, QConv2dOp>(op);
}

bool rlx::carriesDerivative(Value v) {
  if (isDifferentiable(v))
    return true;
  Operation *def = v.getDefiningOp();
  return def && hasStraightThroughResults(def) &&
         llvm::isa<RankedTensorType>(v.getType());
}

Type rlx::derivativeType(Value v) {
  if (isDifferentiable(v))
    return v.getType();
  auto type = llvm::cast<RankedTensorType>(v.getType());
  return type.clone(Float32Type::get(v.getContext()));
}

FailureOr<SmallVector<unsigned>>
rlx::resolveWrt(func::FuncOp f, ArrayRef<std::string> wrt, StringRef pass) {
  SmallVector<unsigned> indices;
  unsigned numArgs = f.getNumArguments();
  if (wrt.empty()) {
    for (unsigned i = 0; i < numArgs; ++i)
      if (f.getArgAttr(i, "rlx.param"))
        indices.push_back(i);
    if (indices.empty())
      return f.emitError() << pass << ": @" << f.getName()
                           << " has no rlx.param argument; name the "
                              "arguments to differentiate with wrt=";
  }
  for (StringRef name : wrt) {
    unsigned i = 0;
    while (i < numArgs && argumentName(f, i) != name)
      ++i;
    if (i == numArgs)
      return f.emitError() << pass << ": wrt names '" << name
                           << "', which is no rlx.input or rlx.param "
                              "argument of @"
                           << f.getName();
    if (llvm::is_contained(indices, i))
      return f.emitError() << pass << ": wrt names '" << name << "' twice";
    indices.push_back(i);
  }
  for (unsigned i : indices) {
    Value arg = f.getArgument(i);
    if (!isDifferentiable(arg))
      return f.emitError() << pass << ": argument '" << argumentName(f, i)
                           << "' of @" << f.getName() << " has type "
                           << arg.getType()
                           << "; only floating-point tensors have derivatives";
    if (!llvm::cast<RankedTensorType>(arg.getType()).hasStaticShape())
      return f.emitError() << pass << ": argument '" << argumentName(f, i)
                           << "' of @" << f.getName()
                           << " has a dynamic shape (" << arg.getType()
                           << "); derivatives need static shapes";
  }
  return indices;
}

/// A copy of `f` named `name`, inserted after it, with its composite ops
/// decomposed; an error when `name` is taken or `f` is not one block.
static FailureOr<func::FuncOp>
cloneForDifferentiation(func::FuncOp f, StringRef name, StringRef pass) {
  auto module = f->getParentOfType<ModuleOp>();
  if (module.lookupSymbol(name))
    return f.emitError() << pass << ": the module already has a symbol @"
                         << name;
  if (!f.getBody().hasOneBlock())
    return f.emitError() << pass << ": @" << f.getName()
                         << " must have one block";
  func::FuncOp copy = f.clone();
  copy.setName(name);
  module.getBody()->getOperations().insertAfter(f->getIterator(), copy);
  RewritePatternSet patterns(f.getContext());
  populateUnfusePatterns(patterns, *UnfusePolicy::lookup("autodiff"));
  // Only decompose: folding could replace forward values the caller names.
  GreedyRewriteConfig config;
  config.enableFolding(false);
  (void)applyPatternsGreedily(copy, std::move(patterns), config);
  return copy;
}

LogicalResult rlx::deriveFunction(
    ModuleOp module, StringRef func, ArrayRef<std::string> wrt,
    StringRef suffix, StringRef pass,
    function_ref<LogicalResult(func::FuncOp, func::FuncOp, ArrayRef<unsigned>)>
        build) {
  FailureOr<func::FuncOp> f = lookupFunction(module, func, pass);
  if (failed(f))
    return failure();
  FailureOr<SmallVector<unsigned>> wrtArgs = resolveWrt(*f, wrt, pass);
  if (failed(wrtArgs))
    return failure();
  FailureOr<func::FuncOp> g =
      cloneForDifferentiation(*f, (f->getName() + suffix).str(), pass);
  if (failed(g))
    return failure();
  if (succeeded(build(*f, *g, *wrtArgs)))
    return success();
  g->erase();
  return failure();
}

/// Appends an argument of `type` carrying `{<kind> = name}` to `g`.
static BlockArgument appendNamedArgument(func::FuncOp g, Type type,
                                         StringRef kind, StringRef name) {
  MLIRContext *ctx = g.getContext();
  unsigned index = g.getNumArguments();
  (void)g.insertArgument(
      index, type,
      DictionaryAttr::get(ctx, {NamedAttribute(StringAttr::get(ctx, kind),
                                               StringAttr::get(ctx, name))}),
      g.getLoc());
  return g.getArgument(index);
}

BlockArgument rlx::appendInputArgument(func::FuncOp g, Type type,
                                       StringRef name) {
  return appendNamedArgument(g, type, "rlx.input", name);
}

BlockArgument rlx::appendParamArgument(func::FuncOp g, Type type,
                                       StringRef name) {
  return appendNamedArgument(g, type, "rlx.param", name);
}

void rlx::setResults(func::FuncOp f, func::FuncOp g, ArrayRef<Value> results) {
  MLIRContext *ctx = g.getContext();
  g.getBody().front().getTerminator()->setOperands(results);
  SmallVector<Type> types =
      llvm::map_to_vector(results, [](Value v) { return v.getType(); });
  SmallVector<DictionaryAttr> attrs;
  f.getAllResultAttrs(attrs);
  attrs.resize(results.size(), DictionaryAttr::get(ctx));
  g.setFunctionType(FunctionType::get(ctx, g.getArgumentTypes(), types));
  g.setAllResultAttrs(attrs);
}

DenseSet<Value> rlx::activeValues(func::FuncOp f, ArrayRef<unsigned> seeds) {
  DenseSet<Value> active;
  for (unsigned i : seeds)
    active.insert(f.getArgument(i));
  for (Operation &op : f.getBody().front()) {
    bool reached = llvm::any_of(op.getOperands(),
                                [&](Value v) { return active.contains(v); });
    if (!reached && op.getNumRegions())
      op.walk([&](Operation *nested) {
        for (Value v : nested->getOperands())
          reached |= active.contains(v);
      });
    if (reached)
      for (Value result : op.getResults())
        if (carriesDerivative(result))
          active.insert(result);
  }
  return active;
}

void rlx::eraseDeadOps(func::FuncOp f) {
  Block &body = f.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (op.use_empty() && isMemoryEffectFree(&op) &&
        !op.hasTrait<OpTrait::IsTerminator>())
      op.erase();
}
