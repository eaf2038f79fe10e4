//===- Differentiation.cpp - what rlx-autodiff and rlx-jvp share ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"
#include "rlx/Dialect/RLX/IR/RLXDialect.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"
#include "rlx/Transforms/Unfuse.h"

#include "mlir/IR/IRMapping.h"

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

FailureOr<SmallVector<unsigned>>
rlx::resolveWrt(func::FuncOp f, ArrayRef<std::string> wrt, StringRef pass) {
  SmallVector<unsigned> indices;
  unsigned numArgs = f.getNumArguments();
  if (wrt.empty()) {
    // State (rlx.state: running statistics) is read, not trained.
    for (unsigned i = 0; i < numArgs; ++i)
      if (f.getArgAttr(i, RLXDialect::kParamAttrName) &&
          !f.getArgAttr(i, RLXDialect::kStateAttrName))
        indices.push_back(i);
    bool hasState = llvm::any_of(
        llvm::seq(numArgs),
        [&](unsigned i) { return f.getArgAttr(i, RLXDialect::kStateAttrName); });
    if (indices.empty())
      return f.emitError() << pass << ": @" << f.getName()
                           << " has no rlx.param argument"
                           << (hasState ? " that is not rlx.state" : "")
                           << "; name the arguments to differentiate with "
                              "wrt=";
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

/// What one mode needs of the copy beyond the `autodiff` unfuse policy,
/// which both modes share:
/// - each `rlx.custom_fn` without the rule of `mode` is replaced by its
///   forward body, which the sweep then differentiates op by op (a
///   `custom_fn` with only a `jvp` body is differentiated in reverse mode,
///   one with only a `vjp` body in forward mode);
/// - in reverse mode, each `rlx.scan` with a static carry that does not save
///   its trajectory saves it and returns its last row: the scan's VJP
///   (`rlx.scan_backward`) reads the carries.
static void prepareForMode(func::FuncOp copy, Mode mode) {
  IRRewriter rewriter(copy.getContext());
  SmallVector<CustomFnOp> inlined;
  copy.walk([&](CustomFnOp fn) {
    Region &rule = mode == Mode::Reverse ? fn.getVjpBody() : fn.getJvpBody();
    if (rule.empty())
      inlined.push_back(fn);
  });
  // Innermost first (post-order walk): an inner copy is inlined into the
  // body that is inlined next.
  for (CustomFnOp fn : inlined) {
    Block &body = fn.getFwdBody().front();
    IRMapping mapping;
    mapping.map(body.getArguments(), fn.getInputs());
    rewriter.setInsertionPoint(fn);
    for (Operation &op : body.without_terminator())
      rewriter.clone(op, mapping);
    rewriter.replaceOp(
        fn, mapping.lookupOrDefault(body.getTerminator()->getOperand(0)));
  }
  if (mode != Mode::Reverse)
    return;
  // After the inlining, which erased the bodies it copied.
  SmallVector<ScanOp> scans;
  copy.walk([&](ScanOp scan) {
    if (!scan.getSaveTrajectory() && scan.getType().hasStaticShape())
      scans.push_back(scan);
  });
  for (ScanOp scan : scans) {
    RankedTensorType carry = scan.getType();
    int64_t length = scan.getLength();
    SmallVector<int64_t> rows = {length};
    llvm::append_range(rows, carry.getShape());
    rewriter.setInsertionPoint(scan);
    auto saving = ScanOp::create(rewriter, scan.getLoc(), carry.clone(rows),
                                 scan.getInit(), scan.getBcasts(), scan.getXs(),
                                 scan.getLengthAttr(), rewriter.getUnitAttr(),
                                 IntegerAttr());
    saving.getBody().takeBody(scan.getBody());
    PrimitiveBuilder p(rewriter, scan.getLoc());
    rewriter.replaceOp(
        scan, p.reshape(p.narrow(saving, 0, length - 1, 1), carry.getShape()));
  }
}

/// A copy of `f` named `name`, inserted after it, with its composite ops
/// decomposed; an error when `name` is taken or `f` is not one block.
static FailureOr<func::FuncOp> cloneForDifferentiation(func::FuncOp f,
                                                       StringRef name,
                                                       StringRef pass,
                                                       Mode mode) {
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
  prepareForMode(copy, mode);
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
    StringRef suffix, StringRef pass, Mode mode,
    function_ref<LogicalResult(func::FuncOp, func::FuncOp, ArrayRef<unsigned>)>
        build) {
  FailureOr<func::FuncOp> f = lookupFunction(module, func, pass);
  if (failed(f))
    return failure();
  FailureOr<SmallVector<unsigned>> wrtArgs = resolveWrt(*f, wrt, pass);
  if (failed(wrtArgs))
    return failure();
  FailureOr<func::FuncOp> g =
      cloneForDifferentiation(*f, (f->getName() + suffix).str(), pass, mode);
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

void rlx::eraseDeadOps(func::FuncOp f) { eraseDeadOps(f.getBody().front()); }
