//===- ControlFlowDecompositions.cpp - control flow, regions --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx.if and rlx.while as straight-line selects, rlx.custom_fn and
// rlx.transform_region inlined, and the scalar bodies of the elementwise
// region ops as the primitive elementwise ops they were fused from.
//
//===----------------------------------------------------------------------===//

#include "UnfusePatterns.h"
#include "rlx/Dialect/RLX/Utils/PrimitiveBuilder.h"

#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

namespace {

/// The unrolled copies of cond + body are straight-line IR, n times the
/// loop's size. Beyond this bound the loop stays: the IR would be larger
/// than any target without a runtime loop could reasonably compile.
constexpr uint64_t kMaxUnrolledIterations = 4096;

/// Clones the ops of `body` (a single-block region of `composite`) before
/// the rewriter's insertion point with the block arguments bound to `args`;
/// returns the values its `rlx.yield` yields. Each clone keeps its own
/// location, fused with the composite's and named after it.
SmallVector<Value> cloneBody(RewriterBase &rewriter, Block &body,
                             ValueRange args, Operation *composite) {
  MLIRContext *ctx = composite->getContext();
  auto name = StringAttr::get(ctx, composite->getName().getStringRef());
  IRMapping mapping;
  mapping.map(body.getArguments(), args);
  for (Operation &op : body.without_terminator()) {
    Operation *copy = rewriter.clone(op, mapping);
    copy->walk([&](Operation *nested) {
      nested->setLoc(
          FusedLoc::get(ctx, {nested->getLoc(), composite->getLoc()}, name));
    });
  }
  return llvm::map_to_vector(body.getTerminator()->getOperands(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}

//===----------------------------------------------------------------------===//
// rlx.if, rlx.while, rlx.custom_fn, rlx.transform_region
//===----------------------------------------------------------------------===//

/// rlx.if -> both branches inlined + one rlx.where per result. Both branches
/// always run (an eager select): a target that asks for this trades the
/// cost of the branch not taken for straight-line code. A branch with side
/// effects would perform them even when not taken, so such an op stays.
struct IfToWhere : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    if (!isMemoryEffectFree(op))
      return rewriter.notifyMatchFailure(
          op, "a branch has side effects; running both would perform those "
              "of the branch not taken");
    // Without results and side effects the op computes nothing.
    if (op.getNumResults() == 0) {
      rewriter.eraseOp(op);
      return success();
    }
    SmallVector<Value> onTrue =
        cloneBody(rewriter, op.getThenRegion().front(), {}, op);
    SmallVector<Value> onFalse =
        cloneBody(rewriter, op.getElseRegion().front(), {}, op);
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> results;
    for (auto [t, f, result] :
         llvm::zip_equal(onTrue, onFalse, op.getResults())) {
      // The i1 predicate, shaped like the result, stays i1.
      Value cond =
          p.broadcastTo(op.getPredicate(),
                        cast<RankedTensorType>(result.getType()).getShape());
      results.push_back(p.where(cond, t, f));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// rlx.while with `max_iterations = n` -> n copies of cond + body. An i1
/// flag, the conjunction of the predicates so far, says whether the loop is
/// still running; each carried value becomes `where(flag, body_out,
/// carried)`, so once the flag is false the values stop changing. The body
/// always runs n times. Without `max_iterations` the trip count is unknown
/// and the op stays.
struct UnrollWhile : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<uint64_t> bound = op.getMaxIterations();
    if (!bound)
      return rewriter.notifyMatchFailure(
          op, "no max_iterations: the trip count is unknown");
    if (*bound > kMaxUnrolledIterations)
      return rewriter.notifyMatchFailure(op, "too many iterations to unroll");
    if (!isMemoryEffectFree(op))
      return rewriter.notifyMatchFailure(
          op, "the loop has side effects; the unrolled body runs after the "
              "loop would have ended");
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> carried(op.getInits());
    Value running;
    for (uint64_t i = 0; i < *bound; ++i) {
      Value predicate =
          cloneBody(rewriter, op.getCond().front(), carried, op).front();
      predicate = p.broadcastTo(predicate, {});
      // `min` of i1 values is their logical and.
      running =
          running ? p.binary(BinaryKind::Min, running, predicate) : predicate;
      SmallVector<Value> next =
          cloneBody(rewriter, op.getBody().front(), carried, op);
      for (auto [value, updated] : llvm::zip_equal(carried, next)) {
        auto type = cast<RankedTensorType>(value.getType());
        value =
            p.where(p.broadcastTo(running, type.getShape()), updated, value);
      }
    }
    rewriter.replaceOp(op, carried);
    return success();
  }
};

/// rlx.custom_fn -> its forward body on the operands. The derivative rules
/// go: once decomposed nothing differentiates the op as a unit.
/// rlx.transform_region -> its geometry chain on the operands.
template <typename OpTy> struct InlineIsolatedBody : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Block &body = op->getRegion(0).front();
    rewriter.replaceOp(op, cloneBody(rewriter, body, op.getInputs(), op));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Scalar region bodies
//===----------------------------------------------------------------------===//

/// The rlx elementwise op a scalar body op stands for. Each entry has exactly
/// the per-element definition of that rlx op (lib/Conversion/RLXToLinalg/
/// ScalarOps.cpp), for the operand types it is accepted on.
struct ScalarPrimitive {
  enum Kind { Activation, Binary, Compare, Where, Cast, Constant };
  explicit ScalarPrimitive(Kind kind) : kind(kind) {}
  Kind kind;
  ActivationKind activation = ActivationKind::Relu;
  BinaryKind binary = BinaryKind::Add;
  CompareKind compare = CompareKind::Eq;
  Type castTo;
};

bool isWideFloat(Type type) { return type.isF32() || type.isF64(); }
/// Bodies carry rlx's signed integers as signless i8..i64 (regions hold no
/// unsigned types).
bool isSignedInt(Type type) {
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isSignless() && intType.getWidth() > 1;
}
bool isFloatOf(Type type, bool f16, bool bf16, bool f32, bool f64) {
  return (f16 && type.isF16()) || (bf16 && type.isBF16()) ||
         (f32 && type.isF32()) || (f64 && type.isF64());
}

std::optional<CompareKind> compareKind(arith::CmpFPredicate predicate) {
  switch (predicate) {
  case arith::CmpFPredicate::OEQ:
    return CompareKind::Eq;
  case arith::CmpFPredicate::UNE:
    return CompareKind::Ne;
  case arith::CmpFPredicate::OLT:
    return CompareKind::Lt;
  case arith::CmpFPredicate::OLE:
    return CompareKind::Le;
  case arith::CmpFPredicate::OGT:
    return CompareKind::Gt;
  case arith::CmpFPredicate::OGE:
    return CompareKind::Ge;
  default:
    return std::nullopt; // The other orderings have no rlx.compare kind.
  }
}

/// i1 compares as unsigned (false < true), the signed integers as signed.
std::optional<CompareKind> compareKind(arith::CmpIPredicate predicate,
                                       Type type) {
  using P = arith::CmpIPredicate;
  bool isBool = type.isInteger(1);
  switch (predicate) {
  case P::eq:
    return CompareKind::Eq;
  case P::ne:
    return CompareKind::Ne;
  case P::slt:
  case P::ult:
    if (isBool != (predicate == P::ult))
      return std::nullopt;
    return CompareKind::Lt;
  case P::sle:
  case P::ule:
    if (isBool != (predicate == P::ule))
      return std::nullopt;
    return CompareKind::Le;
  case P::sgt:
  case P::ugt:
    if (isBool != (predicate == P::ugt))
      return std::nullopt;
    return CompareKind::Gt;
  case P::sge:
  case P::uge:
    if (isBool != (predicate == P::uge))
      return std::nullopt;
    return CompareKind::Ge;
  }
  return std::nullopt;
}

std::optional<ScalarPrimitive> classifyScalarOp(Operation *op) {
  using SP = ScalarPrimitive;
  using Result = std::optional<SP>;
  auto activation = [](ActivationKind kind) {
    SP s(SP::Activation);
    s.activation = kind;
    return s;
  };
  auto binary = [](BinaryKind kind) {
    SP s(SP::Binary);
    s.binary = kind;
    return s;
  };
  auto compare = [](std::optional<CompareKind> kind) -> Result {
    if (!kind)
      return std::nullopt;
    SP s(SP::Compare);
    s.compare = *kind;
    return s;
  };
  auto cast = [&](bool exact) -> Result {
    if (!exact)
      return std::nullopt;
    SP s(SP::Cast);
    s.castTo = op->getResult(0).getType();
    return s;
  };
  auto when = [](bool accepted, SP s) -> Result {
    return accepted ? Result(s) : std::nullopt;
  };
  Type in = op->getNumOperands() ? op->getOperand(0).getType() : Type();
  Type out = op->getNumResults() == 1 ? op->getResult(0).getType() : Type();
  // Transcendental activations compute f16/bf16 in f32; a body op on those
  // types would round differently.
  bool wide = in && isWideFloat(in);
  bool signedInt = in && isSignedInt(in);
  bool isBool = in && in.isInteger(1);
  return llvm::TypeSwitch<Operation *, Result>(op)
      // Float and complex arithmetic is one IEEE operation either way;
      // integer arithmetic wraps either way.
      .Case<arith::AddFOp, complex::AddOp>(
          [&](auto) { return binary(BinaryKind::Add); })
      .Case<arith::SubFOp, complex::SubOp>(
          [&](auto) { return binary(BinaryKind::Sub); })
      .Case<arith::MulFOp, complex::MulOp>(
          [&](auto) { return binary(BinaryKind::Mul); })
      .Case<arith::DivFOp, complex::DivOp>(
          [&](auto) { return binary(BinaryKind::Div); })
      .Case([&](arith::AddIOp) {
        return when(signedInt, binary(BinaryKind::Add));
      })
      .Case([&](arith::SubIOp) {
        return when(signedInt, binary(BinaryKind::Sub));
      })
      .Case([&](arith::MulIOp) {
        return when(signedInt, binary(BinaryKind::Mul));
      })
      // Division by zero is undefined for arith and defined (0) by the rlx
      // lowering: a refinement.
      .Case([&](arith::DivSIOp) {
        return when(signedInt, binary(BinaryKind::Div));
      })
      // maximumf / minimumf propagate NaN and order -0.0 < +0.0, as the rlx
      // max / min do (maxnumf does not).
      .Case([&](arith::MaximumFOp) { return binary(BinaryKind::Max); })
      .Case([&](arith::MinimumFOp) { return binary(BinaryKind::Min); })
      .Case([&](arith::MaxSIOp) {
        return when(signedInt, binary(BinaryKind::Max));
      })
      .Case([&](arith::MinSIOp) {
        return when(signedInt, binary(BinaryKind::Min));
      })
      // On i1, max / min are or / and, and ne is xor.
      .Case([&](arith::OrIOp) { return when(isBool, binary(BinaryKind::Max)); })
      .Case(
          [&](arith::AndIOp) { return when(isBool, binary(BinaryKind::Min)); })
      .Case([&](arith::XOrIOp) -> Result {
        return isBool ? compare(CompareKind::Ne) : std::nullopt;
      })
      .Case([&](math::PowFOp) { return when(wide, binary(BinaryKind::Pow)); })
      // Negation, absolute value and rounding are exact in any float type.
      .Case([&](arith::NegFOp) { return activation(ActivationKind::Neg); })
      .Case([&](math::AbsFOp) { return activation(ActivationKind::Abs); })
      .Case(
          [&](math::RoundEvenOp) { return activation(ActivationKind::Round); })
      .Case([&](math::AbsIOp) {
        return when(signedInt, activation(ActivationKind::Abs));
      })
      .Case([&](math::ExpOp) {
        return when(wide, activation(ActivationKind::Exp));
      })
      .Case([&](math::LogOp) {
        return when(wide, activation(ActivationKind::Log));
      })
      .Case([&](math::TanhOp) {
        return when(wide, activation(ActivationKind::Tanh));
      })
      .Case([&](math::SqrtOp) {
        return when(wide, activation(ActivationKind::Sqrt));
      })
      .Case([&](math::RsqrtOp) {
        return when(wide, activation(ActivationKind::Rsqrt));
      })
      .Case([&](math::SinOp) {
        return when(wide, activation(ActivationKind::Sin));
      })
      .Case([&](math::CosOp) {
        return when(wide, activation(ActivationKind::Cos));
      })
      .Case([&](math::TanOp) {
        return when(wide, activation(ActivationKind::Tan));
      })
      .Case([&](math::AtanOp) {
        return when(wide, activation(ActivationKind::Atan));
      })
      .Case([&](arith::CmpFOp cmp) {
        return compare(compareKind(cmp.getPredicate()));
      })
      .Case([&](arith::CmpIOp cmp) -> Result {
        if (!signedInt && !isBool)
          return std::nullopt;
        return compare(compareKind(cmp.getPredicate(), in));
      })
      .Case([&](complex::EqualOp) { return compare(CompareKind::Eq); })
      .Case([&](complex::NotEqualOp) { return compare(CompareKind::Ne); })
      .Case([&](arith::SelectOp) { return SP(SP::Where); })
      .Case([&](arith::ConstantOp constant) -> Result {
        Attribute value = constant.getValue();
        return when(isa<FloatAttr, IntegerAttr>(value) &&
                        !isa<IndexType>(constant.getType()),
                    SP(SP::Constant));
      })
      // Casts: only where rlx.cast converts the same way (ScalarOps.cpp
      // emitCast). Widening between floats is exact; narrowing rounds to
      // nearest even once (not into bf16, which rlx.cast rounds by integer
      // arithmetic that keeps subnormals).
      .Case([&](arith::ExtFOp) {
        return cast(isFloatOf(in, true, true, true, false) &&
                    isFloatOf(out, false, false, true, true));
      })
      .Case([&](arith::TruncFOp trunc) {
        return cast(!trunc.getRoundingmodeAttr() &&
                    isFloatOf(in, false, false, true, true) &&
                    isFloatOf(out, true, false, true, false));
      })
      // sitofp of an i1 gives -1.0 for true; rlx.cast gives 1.0.
      .Case([&](arith::SIToFPOp) {
        return cast(signedInt && isFloatOf(out, true, false, true, true));
      })
      .Case([&](arith::UIToFPOp) {
        return cast(isBool && isFloatOf(out, true, false, true, true));
      })
      // fptosi is poison out of range, where rlx.cast saturates: a
      // refinement (and exact in range: both truncate toward zero).
      .Case([&](arith::FPToSIOp) {
        return cast(isFloatOf(in, true, true, true, true) && isSignedInt(out));
      })
      .Case([&](arith::ExtSIOp) { return cast(signedInt && isSignedInt(out)); })
      .Case([&](arith::ExtUIOp) { return cast(isBool && isSignedInt(out)); })
      // rlx.cast to i1 tests `!= 0`; trunci keeps the low bit.
      .Case(
          [&](arith::TruncIOp) { return cast(signedInt && isSignedInt(out)); })
      .Default([](Operation *) { return std::nullopt; });
}

/// The erf-based gelus of a scalar body: no rlx op computes erf alone, but
/// `activation gelu` computes exactly the chain rlx-fuse emits for it
/// (ScalarOps.cpp: `(0.5 * x) * (1 + erf(x * sqrt(1/2)))` on f32 / f64).
/// Maps the chain's last op to `x`; the ops before it are absorbed.
struct GeluChains {
  DenseMap<Operation *, Value> roots;
  DenseSet<Operation *> absorbed;

  explicit GeluChains(Block &body) {
    for (Operation &op : body.without_terminator())
      if (auto root = dyn_cast<arith::MulFOp>(op))
        match(root);
  }

private:
  /// The operand of the commutative `op` that is not the constant
  /// `expected` (canonicalization moves constants to either side), or null.
  static Value besideConstant(Operation *op, double expected) {
    auto isExpected = [&](Value v) {
      auto constant = v.getDefiningOp<arith::ConstantOp>();
      auto attr = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
      return attr && attr == FloatAttr::get(attr.getType(), expected);
    };
    if (isExpected(op->getOperand(1)))
      return op->getOperand(0);
    return isExpected(op->getOperand(0)) ? op->getOperand(1) : Value();
  }
  /// `v`'s single-use defining op of type OpTy.
  template <typename OpTy> static OpTy soleDef(Value v) {
    auto op = v ? v.getDefiningOp<OpTy>() : OpTy();
    return op && op->hasOneUse() ? op : OpTy();
  }
  void match(arith::MulFOp root) {
    if (!isWideFloat(root.getType()))
      return;
    for (auto [halfIn, onePlusIn] : {std::pair(root.getLhs(), root.getRhs()),
                                     std::pair(root.getRhs(), root.getLhs())}) {
      auto half = soleDef<arith::MulFOp>(halfIn);
      auto onePlus = soleDef<arith::AddFOp>(onePlusIn);
      if (!half || !onePlus)
        continue;
      Value x = besideConstant(half, 0.5);
      auto erf = soleDef<math::ErfOp>(besideConstant(onePlus, 1.0));
      auto scaled =
          erf ? soleDef<arith::MulFOp>(erf.getOperand()) : arith::MulFOp();
      if (!x || !scaled || besideConstant(scaled, M_SQRT1_2) != x)
        continue;
      roots[root] = x;
      for (Operation *op : {half.getOperation(), onePlus.getOperation(),
                            erf.getOperation(), scaled.getOperation()})
        absorbed.insert(op);
      return;
    }
  }
};

/// Checks that every op of the scalar `body` has an rlx counterpart and that
/// the value it yields, broadcast from the inputs it reads, can be
/// broadcast to `resultShape` by rlx.expand.
LogicalResult checkScalarBody(Block &body, ArrayRef<RankedTensorType> inputs,
                              ArrayRef<int64_t> resultShape, std::string &why) {
  DenseMap<Value, SmallVector<int64_t>> shapes;
  for (auto [arg, type] : llvm::zip_equal(body.getArguments(), inputs))
    shapes[arg] = llvm::to_vector(type.getShape());
  GeluChains gelus(body);
  for (Operation &op : body.without_terminator()) {
    if (gelus.absorbed.contains(&op))
      continue;
    if (Value x = gelus.roots.lookup(&op)) {
      shapes[op.getResult(0)] = shapes.lookup(x);
      continue;
    }
    if (op.getNumRegions() || op.getNumResults() != 1 ||
        !classifyScalarOp(&op)) {
      why = ("no rlx elementwise op computes '" + op.getName().getStringRef() +
             "' on these types exactly")
                .str();
      return failure();
    }
    SmallVector<int64_t> shape;
    for (Value operand : op.getOperands()) {
      std::optional<SmallVector<int64_t>> joined =
          broadcastShapes(shape, shapes.lookup(operand));
      if (!joined) {
        why = "operand shapes do not broadcast";
        return failure();
      }
      shape = std::move(*joined);
    }
    shapes[op.getResult(0)] = std::move(shape);
  }
  Value yielded = body.getTerminator()->getOperand(0);
  SmallVector<int64_t> shape = shapes.lookup(yielded);
  int64_t offset = resultShape.size() - shape.size();
  // rlx.expand keeps a dynamic dim from its input, so a dynamic result dim
  // must come from a dynamic input dim.
  auto expressible = [&](int64_t i, int64_t dim) {
    int64_t from = i < offset ? 1 : shape[i - offset];
    return ShapedType::isDynamic(dim) ? ShapedType::isDynamic(from)
                                      : from == 1 || from == dim;
  };
  if (offset < 0 ||
      !llvm::all_of(
          llvm::enumerate(resultShape),
          [&](auto d) { return expressible(d.index(), d.value()); })) {
    why = "the yielded value cannot be broadcast to the result";
    return failure();
  }
  return success();
}

/// Emits the scalar `body` as rlx elementwise ops on the tensors `inputs`
/// (NumPy broadcasting throughout) and broadcasts the value it yields to
/// `resultShape`. checkScalarBody must have accepted it.
Value emitScalarBody(PrimitiveBuilder &p, Block &body, ValueRange inputs,
                     ArrayRef<int64_t> resultShape) {
  IRMapping tensors;
  tensors.map(body.getArguments(), inputs);
  GeluChains gelus(body);
  for (Operation &op : body.without_terminator()) {
    if (gelus.absorbed.contains(&op))
      continue;
    if (Value x = gelus.roots.lookup(&op)) {
      tensors.map(op.getResult(0),
                  p.activation(ActivationKind::Gelu, tensors.lookup(x)));
      continue;
    }
    ScalarPrimitive s = *classifyScalarOp(&op);
    auto operand = [&](unsigned i) { return tensors.lookup(op.getOperand(i)); };
    Value result;
    switch (s.kind) {
    case ScalarPrimitive::Activation:
      result = p.activation(s.activation, operand(0));
      break;
    case ScalarPrimitive::Binary:
      result = p.binary(s.binary, operand(0), operand(1));
      break;
    case ScalarPrimitive::Compare:
      result = p.compare(s.compare, operand(0), operand(1));
      break;
    case ScalarPrimitive::Where:
      result = p.where(operand(0), operand(1), operand(2));
      break;
    case ScalarPrimitive::Cast:
      result = p.cast(operand(0), s.castTo);
      break;
    case ScalarPrimitive::Constant: {
      // A rank-0 tensor: it broadcasts against everything.
      auto value = cast<TypedAttr>(cast<arith::ConstantOp>(op).getValue());
      auto type = RankedTensorType::get({}, value.getType());
      result =
          ConstantOp::create(p.b, p.loc, DenseElementsAttr::get(type, value));
      break;
    }
    }
    tensors.map(op.getResult(0), result);
  }
  Value yielded = tensors.lookup(body.getTerminator()->getOperand(0));
  return p.broadcastTo(yielded, resultShape);
}

RankedTensorType upsampled2x(RankedTensorType type) {
  auto twice = [](int64_t d) { return ShapedType::isDynamic(d) ? d : 2 * d; };
  ArrayRef<int64_t> s = type.getShape();
  return type.clone({s[0], s[1], twice(s[2]), twice(s[3])});
}

/// rlx.elementwise_region -> one rlx elementwise op per scalar body op (the
/// inverse of rlx-fuse's elementwise-region). The prologue input is
/// upsampled by an explicit rlx.resize_nearest2x first.
struct UnfuseElementwiseRegion : OpRewritePattern<ElementwiseRegionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ElementwiseRegionOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<RankedTensorType> types =
        llvm::map_to_vector(op.getInputs().getTypes(),
                            [](Type t) { return cast<RankedTensorType>(t); });
    std::optional<uint64_t> prologue = op.getPrologueInput();
    if (prologue) {
      if (*prologue >= types.size() || types[*prologue].getRank() != 4)
        return rewriter.notifyMatchFailure(op, "prologue input not NCHW");
      types[*prologue] = upsampled2x(types[*prologue]);
    }
    Block &body = op.getBody().front();
    ArrayRef<int64_t> resultShape = op.getResult().getType().getShape();
    std::string why;
    if (failed(checkScalarBody(body, types, resultShape, why)))
      return rewriter.notifyMatchFailure(op, why);
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> inputs(op.getInputs());
    if (prologue)
      inputs[*prologue] =
          ResizeNearest2xOp::create(rewriter, p.loc, inputs[*prologue]);
    rewriter.replaceOp(op, emitScalarBody(p, body, inputs, resultShape));
    return success();
  }
};

/// rlx.batch_elementwise_region -> the scalar body emitted once per batch
/// input, as for rlx.elementwise_region.
struct UnfuseBatchElementwiseRegion
    : OpRewritePattern<BatchElementwiseRegionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchElementwiseRegionOp op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    auto type = cast<RankedTensorType>(op.getInputs().front().getType());
    std::string why;
    if (failed(checkScalarBody(body, type, type.getShape(), why)))
      return rewriter.notifyMatchFailure(op, why);
    PrimitiveBuilder p(rewriter, decompositionLoc(op));
    SmallVector<Value> results =
        llvm::map_to_vector(op.getInputs(), [&](Value input) {
          return emitScalarBody(p, body, input, type.getShape());
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void rlx::populateControlFlowDecompositions(RewritePatternSet &patterns,
                                            const UnfusePolicy &policy) {
  MLIRContext *ctx = patterns.getContext();
  if (policy.wants(Decomposition::IfToWhere))
    patterns.add<IfToWhere>(ctx);
  if (policy.wants(Decomposition::UnrollWhile))
    patterns.add<UnrollWhile>(ctx);
  if (policy.wants(Decomposition::InlineCustomFn))
    patterns.add<InlineIsolatedBody<CustomFnOp>>(ctx);
  if (policy.wants(Decomposition::ElementwiseRegion))
    patterns.add<UnfuseElementwiseRegion>(ctx);
  if (policy.wants(Decomposition::TransformRegion))
    patterns.add<InlineIsolatedBody<TransformRegionOp>>(ctx);
  if (policy.wants(Decomposition::BatchElementwiseRegion))
    patterns.add<UnfuseBatchElementwiseRegion>(ctx);
}
