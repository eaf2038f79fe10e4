//===- AutodiffPass.cpp - rlx-autodiff: reverse mode ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Adds @f_grad: the forward ops of @f, then one backward sweep built from
// each op's VJP rule (DifferentiableOpInterface). The contract is in
// Passes.td and docs/autodiff.md.
//
//===----------------------------------------------------------------------===//

#include "Differentiation.h"
#include "rlx/Dialect/RLX/Autodiff/DerivativeRules.h"
#include "rlx/Dialect/RLX/Autodiff/Sweep.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"
#include "rlx/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

#include <cmath>
#include <cstdio>
#include <numeric>

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXAUTODIFF
#include "rlx/Transforms/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

namespace {

constexpr StringLiteral kPass = "rlx-autodiff";

/// Emits the backward sweep of `g` (a copy of the forward function) before
/// its return, seeded with `seed` at the loss, and returns the cotangent
/// of each `wrt` argument (null where none arrives).
FailureOr<SmallVector<Value>>
backwardSweep(func::FuncOp g, ArrayRef<unsigned> wrt, Value seed) {
  Block &body = g.getBody().front();
  Operation *ret = body.getTerminator();
  OpBuilder b(ret);
  SmallVector<Value> args = llvm::map_to_vector(
      wrt, [&](unsigned i) -> Value { return g.getArgument(i); });
  return reverseSweep(body, b, ret->getOperand(0), seed, args, kPass);
}

/// Whether remat=elementwise recomputes `op`'s results in the backward
/// sweep: ops that cost about one pass over their operands (elementwise
/// math, normalizations) or only move data, so recomputing them is cheaper
/// than keeping their results alive from the forward to the backward sweep.
bool isCheapToRecompute(Operation *op) {
  return isa<ActivationOp, BinaryOp, CastOp, CompareOp, WhereOp, LayerNormOp,
             RmsNormOp, GroupNormOp, LayerNorm2dOp, ReshapeOp, TransposeOp,
             NarrowOp, ExpandOp>(op);
}

/// remat=elementwise: every op from `firstBackward` on reads its own copy of
/// each recomputable forward value, recomputed right before it from the
/// values the forward sweep keeps. Recomputable: the results of cheap ops
/// (isCheapToRecompute) that one forward op reads and that are not
/// returned; a value several forward ops read (a residual stream, an input
/// shared by projections) is kept, so a chain of copies ends there instead
/// of running back through every layer. A copy per reader, not one shared
/// copy, so each copy has a single use and the lowering fuses it into its
/// reader where it can, and it lives only as long as that reader.
void rematerialize(func::FuncOp g, Operation *firstBackward) {
  Block &body = g.getBody().front();
  DenseSet<Operation *> forward;
  for (Operation &op : body) {
    if (&op == firstBackward)
      break;
    forward.insert(&op);
  }
  auto recomputable = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || !forward.contains(def) || !isCheapToRecompute(def))
      return false;
    SmallPtrSet<Operation *, 2> forwardReaders;
    for (Operation *user : v.getUsers()) {
      // A returned value lives to the end anyway.
      if (user == body.getTerminator())
        return false;
      if (forward.contains(user))
        forwardReaders.insert(user);
    }
    return forwardReaders.size() <= 1;
  };
  SmallVector<Operation *> backward;
  for (Operation *op = firstBackward; op != body.getTerminator();
       op = op->getNextNode())
    backward.push_back(op);
  for (Operation *reader : backward) {
    OpBuilder b(reader);
    IRMapping copies;
    std::function<Value(Value)> recompute = [&](Value v) -> Value {
      if (!recomputable(v))
        return v;
      if (Value copy = copies.lookupOrNull(v))
        return copy;
      Operation *def = v.getDefiningOp();
      for (Value operand : def->getOperands())
        copies.map(operand, recompute(operand));
      Operation *copy = b.clone(*def, copies);
      copy->setAttr(RLXDialect::kRematAttrName, b.getUnitAttr());
      return copies.lookup(v);
    };
    for (OpOperand &operand : reader->getOpOperands())
      operand.set(recompute(operand.get()));
  }
}

struct RLXAutodiffPass : rlx::impl::RLXAutodiffBase<RLXAutodiffPass> {
  using RLXAutodiffBase::RLXAutodiffBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<RLXDialect>();
    registerDerivativeRules(registry);
  }

  /// The ranges PyTorch's optimizers accept (torch.optim.SGD and Adam
  /// raise for values outside them): a NaN, infinite or negative learning
  /// rate would turn every parameter into NaN or move it uphill without a
  /// word.
  LogicalResult checkHyperparameters(ModuleOp module) {
    auto fail = [&](StringRef name, double value,
                    StringRef range) -> LogicalResult {
      // %g: the value as it is usually written (0.1, 1e-08, nan).
      char text[32];
      std::snprintf(text, sizeof(text), "%g", value);
      return module.emitError()
             << kPass << ": " << name << "=" << std::string(text)
             << " is out of range (" << range << ")";
    };
    auto nonNegative = [](double value) {
      return std::isfinite(value) && value >= 0.0;
    };
    if (!nonNegative(lr))
      return fail("lr", lr, "finite and >= 0");
    if (!nonNegative(momentum))
      return fail("momentum", momentum, "finite and >= 0");
    if (!(beta1 >= 0.0 && beta1 < 1.0))
      return fail("beta1", beta1, "in [0, 1)");
    if (!(beta2 >= 0.0 && beta2 < 1.0))
      return fail("beta2", beta2, "in [0, 1)");
    if (!nonNegative(eps))
      return fail("eps", eps, "finite and >= 0");
    if (dataParallel < 0)
      return fail("data-parallel", dataParallel, ">= 0");
    if (!nonNegative(bucketMb))
      return fail("bucket-mb", bucketMb, "finite and >= 0");
    return success();
  }

  /// The data-parallel options: they shape the training step, so they need
  /// one.
  LogicalResult checkDataParallel(ModuleOp module) {
    if (gradientReduction != "mean" && gradientReduction != "sum")
      return module.emitError()
             << kPass << ": unknown gradient-reduction=" << gradientReduction
             << " (expected mean or sum)";
    if (gradientPrecision != "f32" && gradientPrecision != "native")
      return module.emitError()
             << kPass << ": unknown gradient-precision=" << gradientPrecision
             << " (expected f32 or native)";
    if (dataParallel > 0 && optimizer == "none")
      return module.emitError()
             << kPass << ": data-parallel=" << int64_t(dataParallel)
             << " all-reduces the gradients of the training step; it needs "
                "optimizer=sgd or adam";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (remat != "none" && remat != "elementwise") {
      module.emitError() << kPass << ": unknown remat=" << remat
                         << " (expected none or elementwise)";
      return signalPassFailure();
    }
    if (optimizer != "none" && optimizer != "sgd" && optimizer != "adam") {
      module.emitError() << kPass << ": unknown optimizer=" << optimizer
                         << " (expected none, sgd or adam)";
      return signalPassFailure();
    }
    if (failed(checkHyperparameters(module)) ||
        failed(checkDataParallel(module)))
      return signalPassFailure();
    if (failed(deriveFunction(
            module, func, wrt, "_grad", kPass, Mode::Reverse,
            [&](func::FuncOp f, func::FuncOp g, ArrayRef<unsigned> wrtArgs) {
              return differentiate(f, g, wrtArgs);
            })))
      signalPassFailure();
  }

  LogicalResult differentiate(func::FuncOp f, func::FuncOp g,
                              ArrayRef<unsigned> wrtArgs) {
    Operation *ret = g.getBody().front().getTerminator();
    // A complex loss has no gradient (it is not real-valued).
    if (f.getNumResults() == 0 || !isDifferentiable(ret->getOperand(0)) ||
        llvm::isa<ComplexType>(
            getElementTypeOrSelf(ret->getOperand(0).getType())))
      return f.emitError() << kPass << ": the first result of @" << f.getName()
                           << " (the loss) must be a floating-point tensor";
    auto lossType = llvm::cast<RankedTensorType>(ret->getOperand(0).getType());
    // Everything the sweep emits goes between the last forward op and the
    // return.
    Operation *lastForward = ret->getPrevNode();
    OpBuilder b(ret);
    PrimitiveBuilder p(b, g.getLoc());

    // The seed: 1 for a one-element loss, else a cotangent argument.
    Value seed =
        lossType.hasStaticShape() && lossType.getNumElements() == 1
            ? p.splat(lossType.getShape(), lossType.getElementType(), 1.0)
            : Value(appendInputArgument(g, lossType, "d_loss"));

    FailureOr<SmallVector<Value>> grads = backwardSweep(g, wrtArgs, seed);
    if (failed(grads))
      return failure();

    SmallVector<Value> results(ret->getOperands());
    b.setInsertionPoint(ret);
    for (auto [i, grad] : llvm::zip_equal(wrtArgs, *grads)) {
      if (!grad && !zeroMissing)
        return f.emitError()
               << kPass << ": no gradient reaches '" << argumentName(f, i)
               << "' (argument #" << i << " of @" << f.getName()
               << "): the loss does not depend on it (zero-missing=true "
                  "returns zeros instead)";
      results.push_back(grad ? grad : p.zerosLike(g.getArgument(i)));
    }
    setResults(f, g, results);
    if (remat == "elementwise") {
      Operation *firstBackward = lastForward ? lastForward->getNextNode()
                                             : &g.getBody().front().front();
      rematerialize(g, firstBackward);
    }
    eraseDeadOps(g);
    if (optimizer == "none")
      return success();
    return buildTrainStep(f, g, wrtArgs);
  }

  /// Adds `@f_train_step`: `@f_grad`'s forward and backward ops, then one
  /// optimizer update per parameter. It returns `[loss, updated parameters...,
  /// updated optimizer state...]`, each update carrying `{rlx.param = name}`
  /// of the argument it replaces, so a runner feeds it back by name.
  LogicalResult buildTrainStep(func::FuncOp f, func::FuncOp g,
                               ArrayRef<unsigned> wrtArgs) {
    Value loss = g.getBody().front().getTerminator()->getOperand(0);
    auto lossType = llvm::cast<RankedTensorType>(loss.getType());
    if (g.getNumArguments() != f.getNumArguments())
      return f.emitError() << kPass << ": optimizer=" << optimizer
                           << " needs a one-element loss; @" << f.getName()
                           << "'s is " << lossType;
    for (unsigned i : wrtArgs)
      if (llvm::isa<ComplexType>(
              getElementTypeOrSelf(g.getArgument(i).getType())))
        return f.emitError() << kPass << ": optimizer=" << optimizer
                             << " updates real parameters; '"
                             << argumentName(f, i) << "' is complex";
    std::string name = (f.getName() + "_train_step").str();
    auto module = f->getParentOfType<ModuleOp>();
    if (module.lookupSymbol(name))
      return f.emitError() << kPass << ": the module already has a symbol @"
                           << name;
    func::FuncOp step = g.clone();
    step.setName(name);
    module.getBody()->getOperations().insertAfter(g->getIterator(), step);

    Operation *ret = step.getBody().front().getTerminator();
    unsigned numResults = f.getNumResults();
    SmallVector<Value> grads(ret->getOperands().drop_front(numResults));
    OpBuilder b(ret);
    PrimitiveBuilder p(b, step.getLoc());
    Value stepLoss = ret->getOperand(0);
    if (dataParallel > 0) {
      // Every rank then updates its replica with the same gradients, so the
      // parameters stay identical; the loss is the whole batch's.
      allReduceGradients(p, grads);
      stepLoss = allReduce(p, stepLoss);
    }
    SmallVector<Value> results = {stepLoss};
    SmallVector<std::string> names;
    SmallVector<Value> state;
    SmallVector<std::string> stateNames;
    auto addState = [&](Type type, std::string stateName) {
      stateNames.push_back(stateName);
      return appendParamArgument(step, type, stateName);
    };
    // Adam's step count, shared by every parameter: f64 when a parameter is
    // f64, else f32. A half-precision count would stop at 256 (bf16) or
    // 2048 (f16), freezing the bias corrections; each parameter takes the
    // corrections in its own type.
    Value count, bias1, bias2;
    if (optimizer == "adam") {
      bool anyF64 = llvm::any_of(wrtArgs, [&](unsigned i) {
        return getElementTypeOrSelf(step.getArgument(i).getType()).isF64();
      });
      Type et = anyF64 ? Type(b.getF64Type()) : Type(b.getF32Type());
      Value previous = addState(RankedTensorType::get({}, et), "adam.step");
      count = p.add(previous, p.scalar(et, 1.0));
      state.push_back(count);
      // 1 - beta^t, the bias corrections.
      auto correction = [&](double beta) {
        return p.sub(p.scalar(et, 1.0),
                     p.binary(BinaryKind::Pow, p.scalar(et, beta), count));
      };
      bias1 = correction(beta1);
      bias2 = correction(beta2);
    }
    for (auto [i, grad] : llvm::zip_equal(wrtArgs, grads)) {
      Value w = step.getArgument(i);
      std::string param = argumentName(f, i).str();
      Type et = llvm::cast<RankedTensorType>(w.getType()).getElementType();
      auto c = [&](double v) { return p.scalar(et, v); };
      Value update = grad;
      if (optimizer == "sgd" && momentum != 0.0) {
        // PyTorch's SGD: buf = momentum * buf + g (buf starts at zeros).
        Value buffer = addState(w.getType(), param + ".momentum");
        update = p.add(p.mul(buffer, c(momentum)), grad);
        state.push_back(update);
      } else if (optimizer == "adam") {
        Value m = addState(w.getType(), param + ".adam_m");
        Value v = addState(w.getType(), param + ".adam_v");
        Value m1 = p.add(p.mul(m, c(beta1)), p.mul(grad, c(1.0 - beta1)));
        Value v1 =
            p.add(p.mul(v, c(beta2)), p.mul(p.mul(grad, grad), c(1.0 - beta2)));
        state.push_back(m1);
        state.push_back(v1);
        auto inType = [&](Value correction) {
          return getElementTypeOrSelf(correction.getType()) == et
                     ? correction
                     : p.cast(correction, et);
        };
        Value denominator =
            p.add(p.activation(ActivationKind::Sqrt, p.div(v1, inType(bias2))),
                  c(eps));
        update = p.div(p.div(m1, inType(bias1)), denominator);
      }
      results.push_back(p.sub(w, p.mul(update, c(lr))));
      names.push_back(param);
    }
    llvm::append_range(results, state);
    llvm::append_range(names, stateNames);

    MLIRContext *ctx = &getContext();
    ret->setOperands(results);
    SmallVector<DictionaryAttr> resultAttrs = {DictionaryAttr::get(ctx)};
    for (const std::string &resultName : names)
      resultAttrs.push_back(DictionaryAttr::get(
          ctx, {NamedAttribute(StringAttr::get(ctx, "rlx.param"),
                               StringAttr::get(ctx, resultName))}));
    step.setFunctionType(FunctionType::get(
        ctx, step.getArgumentTypes(),
        llvm::map_to_vector(results, [](Value v) { return v.getType(); })));
    step.setAllResultAttrs(resultAttrs);
    eraseDeadOps(step);
    return success();
  }

  /// `x` combined over the data-parallel ranks by `gradient-reduction`. MPI
  /// has no 16-bit float type, so f16 and bf16 are reduced in f32 unless
  /// `gradient-precision=native`.
  Value allReduce(PrimitiveBuilder &p, Value x) {
    return finishAllReduce(p, startAllReduce(p, x),
                           getElementTypeOrSelf(x.getType()));
  }
  /// The collective of allReduce, on `x` widened where needed.
  Value startAllReduce(PrimitiveBuilder &p, Value x) {
    auto kind =
        gradientReduction == "sum" ? CollectiveKind::Sum : CollectiveKind::Mean;
    auto group = GroupAttr::get(p.b.getContext(), {dataParallel});
    Value operand = isWidened(getElementTypeOrSelf(x.getType()))
                        ? p.cast(x, p.b.getF32Type())
                        : x;
    return AllReduceOp::create(p.b, p.loc, kind, operand, group);
  }
  /// startAllReduce's result back in `x`'s element type `et`.
  Value finishAllReduce(PrimitiveBuilder &p, Value reduced, Type et) {
    return isWidened(et) ? p.cast(reduced, et) : reduced;
  }
  bool isWidened(Type et) {
    return gradientPrecision == "f32" && (et.isF16() || et.isBF16());
  }

  /// Replaces each gradient by its all-reduce over the ranks. Gradients of
  /// one element type go into buckets of at most `bucket-mb` MiB, in the
  /// order the backward pass computes them, each flattened, concatenated
  /// and reduced by one collective (as PyTorch DDP's buckets): one large
  /// message per bucket instead of one small one per bias vector, which
  /// costs a latency each. A gradient larger than the cap is a bucket of
  /// its own, reduced in place. Each bucket's collective comes right after
  /// the last of its gradients, so that the rest of the backward pass can
  /// run while it is in flight (rlx-cuda-overlap-collectives).
  void allReduceGradients(PrimitiveBuilder &p, MutableArrayRef<Value> grads) {
    auto capBytes = static_cast<int64_t>(bucketMb * 1024 * 1024);
    struct Bucket {
      Type elementType;
      int64_t bytes = 0;
      SmallVector<unsigned> members;
    };
    // Where each gradient is ready: the op of the step's body that computes
    // it, null for an argument.
    Block *body = p.b.getInsertionBlock();
    auto readyAt = [&](unsigned i) -> Operation * {
      Operation *def = grads[i].getDefiningOp();
      return def ? body->findAncestorOpInBlock(*def) : nullptr;
    };
    SmallVector<unsigned> order(grads.size());
    std::iota(order.begin(), order.end(), 0u);
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      Operation *x = readyAt(a), *y = readyAt(b);
      return y && (!x || x->isBeforeInBlock(y));
    });
    SmallVector<Bucket> buckets;
    // The bucket still open for each element type.
    DenseMap<Type, unsigned> open;
    for (unsigned i : order) {
      Value grad = grads[i];
      auto type = llvm::cast<RankedTensorType>(grad.getType());
      Type et = type.getElementType();
      int64_t bytes = type.getNumElements() *
                      llvm::divideCeil(et.getIntOrFloatBitWidth(), 8);
      auto it = open.find(et);
      if (it == open.end() || buckets[it->second].bytes + bytes > capBytes) {
        open[et] = buckets.size();
        buckets.push_back({et, 0, {}});
        it = open.find(et);
      }
      Bucket &bucket = buckets[it->second];
      bucket.bytes += bytes;
      bucket.members.push_back(i);
    }
    // Each bucket's collective right after its last gradient; what reads
    // the sums (narrowing them back, the update) where the update is, so
    // that nothing between needs the collective done.
    OpBuilder::InsertionGuard guard(p.b);
    OpBuilder::InsertPoint update = p.b.saveInsertionPoint();
    for (const Bucket &bucket : buckets) {
      Operation *last = nullptr;
      for (unsigned i : bucket.members)
        if (Operation *ready = readyAt(i);
            ready && (!last || last->isBeforeInBlock(ready)))
          last = ready;
      if (last)
        p.b.setInsertionPointAfter(last);
      else
        p.b.setInsertionPointToStart(body);
      if (bucket.members.size() == 1) {
        Value &grad = grads[bucket.members.front()];
        Value reduced = startAllReduce(p, grad);
        p.b.restoreInsertionPoint(update);
        grad = finishAllReduce(p, reduced, bucket.elementType);
        continue;
      }
      SmallVector<Value> flat;
      for (unsigned i : bucket.members) {
        auto type = llvm::cast<RankedTensorType>(grads[i].getType());
        flat.push_back(type.getRank() == 1
                           ? grads[i]
                           : p.reshape(grads[i], {type.getNumElements()}));
      }
      Value reduced = startAllReduce(
          p, ConcatOp::create(p.b, p.loc, flat, /*axis=*/uint64_t{0}));
      p.b.restoreInsertionPoint(update);
      reduced = finishAllReduce(p, reduced, bucket.elementType);
      int64_t offset = 0;
      for (unsigned i : bucket.members) {
        auto type = llvm::cast<RankedTensorType>(grads[i].getType());
        int64_t count = type.getNumElements();
        grads[i] = p.narrow(reduced, 0, offset, count);
        if (type.getRank() != 1)
          grads[i] = p.reshape(grads[i], type.getShape());
        offset += count;
      }
    }
  }
};

} // namespace
