//===- ControlFlowOps.cpp - regions and control flow ----------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerControlFlowOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXControlFlowOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Region signature helpers
//===----------------------------------------------------------------------===//

/// Renders a type list as `(tensor<4xf32>, f32)` for diagnostics.
static std::string formatTypes(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "(";
  llvm::interleaveComma(types, os, [&](Type type) { os << type; });
  os << ")";
  return text;
}

/// Checks that the entry block of `region` has exactly the argument types
/// `expected`; `what` describes the expected arguments for the message.
static LogicalResult verifyBlockArgs(Operation *op, Region &region,
                                     StringRef regionName, TypeRange expected,
                                     StringRef what) {
  Block &block = region.front();
  if (block.getNumArguments() != expected.size())
    return op->emitOpError() << "'" << regionName << "' region must have "
                             << expected.size() << " block argument(s) ("
                             << what << "), got " << block.getNumArguments();
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(block.getArgumentTypes(), expected))) {
    auto [actual, want] = pair;
    if (actual != want)
      return op->emitOpError() << "'" << regionName << "' region argument #"
                               << index << " must have type " << want << " ("
                               << what << "), got " << actual;
  }
  return success();
}

/// Returns the `rlx.yield` terminating `region`, or null after reporting
/// that the region ends in something else.
static YieldOp getYield(Operation *op, Region &region, StringRef regionName) {
  Block &block = region.front();
  // Also runs before the region is verified: the block may lack a
  // terminator.
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    op->emitOpError() << "'" << regionName
                      << "' region must end in 'rlx.yield'";
  return yield;
}

/// Checks that `region` ends in an `rlx.yield` of exactly the types
/// `expected`; `what` describes the expected values for the message.
static LogicalResult verifyYield(Operation *op, Region &region,
                                 StringRef regionName, TypeRange expected,
                                 StringRef what) {
  YieldOp yield = getYield(op, region, regionName);
  if (!yield)
    return failure();
  TypeRange actual = yield.getValues().getTypes();
  if (actual.size() != expected.size())
    return op->emitOpError()
           << "'" << regionName << "' region must yield " << expected.size()
           << " value(s) (" << what << "), got " << actual.size();
  for (auto [index, pair] : llvm::enumerate(llvm::zip(actual, expected))) {
    auto [got, want] = pair;
    if (got != want)
      return op->emitOpError()
             << "'" << regionName << "' region yields " << got << " as value #"
             << index << " but " << what << " requires " << want;
  }
  return success();
}

/// True for an `i1` tensor holding exactly one element (`[]` or `[1]`).
static bool isBoolScalarTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isInteger(1))
    return false;
  return tensor.getRank() == 0 ||
         (tensor.getRank() == 1 && tensor.getDimSize(0) == 1);
}

/// The type of one step's slice of a stacked `[length, ...]` tensor.
static RankedTensorType dropLeadingDim(RankedTensorType type) {
  if (type.getRank() == 0)
    return type;
  return RankedTensorType::get(type.getShape().drop_front(),
                               type.getElementType());
}

/// The type an elementwise region body computes an element of `type` in: a
/// rank-0 tensor of its element type.
static RankedTensorType getElementTensorType(Type type) {
  return RankedTensorType::get({}, getElementTypeOrSelf(type));
}

/// True for a rank-0 tensor.
static bool isRank0Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0;
}

/// Checks the body of an elementwise region: rlx ops with a scalar
/// computation (ScalarizableOpInterface) and rank-0 `rlx.constant`s, all on
/// rank-0 tensors, ending in `rlx.yield` of one rank-0 tensor of
/// `elementType`. Holding rlx ops, the body has the semantics of the ops it
/// was fused from, and unfusing it is inlining.
static LogicalResult verifyElementwiseBody(Operation *op, Region &region,
                                           Type elementType) {
  for (Operation &nested : region.front().without_terminator()) {
    if (!isa<ScalarizableOpInterface, ConstantOp>(nested))
      return op->emitOpError()
             << "body may only hold rlx elementwise ops with a scalar "
                "computation (rlx.activation, rlx.binary, rlx.compare, "
                "rlx.cast, rlx.where) and rlx.constant, found '"
             << nested.getName() << "'";
    if (!llvm::all_of(nested.getOperandTypes(), isRank0Tensor) ||
        !llvm::all_of(nested.getResultTypes(), isRank0Tensor))
      return op->emitOpError() << "body op '" << nested.getName()
                               << "' must operate on rank-0 tensors";
  }
  YieldOp yield = getYield(op, region, "body");
  if (!yield)
    return failure();
  if (yield.getValues().size() != 1)
    return op->emitOpError() << "body must yield exactly one rank-0 tensor, "
                                "got "
                             << yield.getValues().size() << " values";
  Type yielded = yield.getValues().front().getType();
  Type expected = getElementTensorType(elementType);
  if (yielded != expected)
    return op->emitOpError()
           << "body yields " << yielded << " but the result element type needs "
           << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// IfOp
//===----------------------------------------------------------------------===//

// The region signatures of `rlx.if` and `rlx.while` are checked in verify(),
// before the RegionBranchOpInterface verifier, whose messages are generic.
LogicalResult IfOp::verify() {
  if (!isBoolScalarTensor(getPredicate().getType()))
    return emitOpError() << "predicate must hold exactly one element (shape "
                            "[] or [1]), got "
                         << formatShape(getPredicate().getType().getShape());
  TypeRange results = getResultTypes();
  if (failed(verifyYield(*this, getThenRegion(), "then", results,
                         "the op results")))
    return failure();
  return verifyYield(*this, getElseRegion(), "else", results, "the op results");
}

void IfOp::getSuccessorRegions(RegionBranchPoint point,
                               SmallVectorImpl<RegionSuccessor> &regions) {
  // Both branches return to the parent.
  if (!point.isParent()) {
    regions.push_back(RegionSuccessor(getOperation(), getResults()));
    return;
  }
  regions.push_back(
      RegionSuccessor(&getThenRegion(), getThenRegion().getArguments()));
  regions.push_back(
      RegionSuccessor(&getElseRegion(), getElseRegion().getArguments()));
}

/// The value of a constant one-element predicate, if known.
static std::optional<bool> getConstantPredicate(Attribute attr) {
  auto elements = dyn_cast_or_null<DenseIntElementsAttr>(attr);
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  return !(*elements.value_begin<APInt>()).isZero();
}

void IfOp::getEntrySuccessorRegions(ArrayRef<Attribute> operands,
                                    SmallVectorImpl<RegionSuccessor> &regions) {
  std::optional<bool> taken = getConstantPredicate(operands.front());
  if (!taken) {
    getSuccessorRegions(RegionBranchPoint::parent(), regions);
    return;
  }
  Region &region = *taken ? getThenRegion() : getElseRegion();
  regions.push_back(RegionSuccessor(&region, region.getArguments()));
}

void IfOp::getRegionInvocationBounds(
    ArrayRef<Attribute> operands, SmallVectorImpl<InvocationBounds> &bounds) {
  std::optional<bool> taken = getConstantPredicate(operands.front());
  if (!taken) {
    bounds.assign(2, InvocationBounds(0, 1));
    return;
  }
  bounds.push_back(*taken ? InvocationBounds(1, 1) : InvocationBounds(0, 0));
  bounds.push_back(*taken ? InvocationBounds(0, 0) : InvocationBounds(1, 1));
}

namespace {
/// Inlines the taken region of an `rlx.if` with a constant predicate.
struct InlineConstantIf : OpRewritePattern<IfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(IfOp op,
                                PatternRewriter &rewriter) const override {
    Attribute value;
    if (!matchPattern(op.getPredicate(), m_Constant(&value)))
      return failure();
    std::optional<bool> taken = getConstantPredicate(value);
    if (!taken)
      return failure();
    Block *block = &(*taken ? op.getThenRegion() : op.getElseRegion()).front();
    auto yield = cast<YieldOp>(block->getTerminator());
    SmallVector<Value> results(yield.getValues());
    rewriter.inlineBlockBefore(block, op);
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void IfOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                       MLIRContext *context) {
  patterns.add<InlineConstantIf>(context);
}

//===----------------------------------------------------------------------===//
// WhileOp
//===----------------------------------------------------------------------===//

LogicalResult WhileOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  llvm::append_range(inferred, adaptor.getInits().getTypes());
  return success();
}

LogicalResult WhileOp::verify() {
  if (getInits().empty())
    return emitOpError() << "needs at least one loop-carried value";
  TypeRange carried = getInits().getTypes();
  if (failed(verifyBlockArgs(*this, getCond(), "cond", carried,
                             "the loop-carried types")) ||
      failed(verifyBlockArgs(*this, getBody(), "body", carried,
                             "the loop-carried types")))
    return failure();
  YieldOp condYield = getYield(*this, getCond(), "cond");
  if (!condYield)
    return failure();
  OperandRange condValues = condYield.getValues();
  if (condValues.size() != carried.size() + 1 ||
      !isBoolScalarTensor(condValues.front().getType()))
    return emitOpError() << "'cond' region must yield an i1 tensor with a "
                            "single element followed by its "
                         << carried.size() << " block argument(s), got "
                         << formatTypes(condValues.getTypes());
  for (auto [index, pair] : llvm::enumerate(
           llvm::zip(condValues.drop_front(), getCond().getArguments()))) {
    auto [value, argument] = pair;
    if (value != argument)
      return emitOpError() << "'cond' region must forward its block "
                              "arguments unchanged: yielded value #"
                           << index + 1 << " is not block argument #" << index;
  }
  return verifyYield(*this, getBody(), "body", carried,
                     "the loop-carried types");
}

namespace {
/// A loop whose `cond` yields a constant false predicate never runs `body`:
/// its results are its initial values.
struct RemoveNeverTakenWhile : OpRewritePattern<WhileOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(WhileOp op,
                                PatternRewriter &rewriter) const override {
    Block &cond = op.getCond().front();
    auto yield = cast<YieldOp>(cond.getTerminator());
    Attribute value;
    if (yield.getValues().empty() ||
        !matchPattern(yield.getValues().front(), m_Constant(&value)))
      return failure();
    std::optional<bool> predicate = getConstantPredicate(value);
    if (!predicate || *predicate)
      return failure();
    if (!llvm::all_of(cond.without_terminator(), [](Operation &nested) {
          return isMemoryEffectFree(&nested);
        }))
      return failure();
    rewriter.replaceOp(op, op.getInits());
    return success();
  }
};
} // namespace

void WhileOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                          MLIRContext *context) {
  patterns.add<RemoveNeverTakenWhile>(context);
}

OperandRange WhileOp::getEntrySuccessorOperands(RegionSuccessor) {
  return getInits();
}

void WhileOp::getSuccessorRegions(RegionBranchPoint point,
                                  SmallVectorImpl<RegionSuccessor> &regions) {
  // Entering the op and finishing `body` both run `cond` on the carried
  // values.
  Operation *terminator = point.getTerminatorPredecessorOrNull();
  if (point.isParent() || terminator->getParentRegion() == &getBody()) {
    regions.push_back(RegionSuccessor(&getCond(), getCond().getArguments()));
    return;
  }
  // From `cond`, control goes to `body` or leaves the op with the values
  // yielded after the predicate.
  regions.push_back(RegionSuccessor(&getBody(), getBody().getArguments()));
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

/// Rows of a saved trajectory: `length`, or K with `0 < K < length`.
static int64_t trajectoryRows(int64_t length, int64_t numCheckpoints) {
  if (numCheckpoints > 0 && numCheckpoints < length)
    return numCheckpoints;
  return length > 0 ? length : ShapedType::kDynamic;
}

/// `[rows, *carry]`.
static RankedTensorType stackedType(RankedTensorType carry, int64_t rows) {
  SmallVector<int64_t> shape{rows};
  llvm::append_range(shape, carry.getShape());
  return RankedTensorType::get(shape, carry.getElementType());
}

LogicalResult ScanOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto carry = dyn_cast<RankedTensorType>(adaptor.getInit().getType());
  // An unranked carry is the verifier's to report.
  if (!carry || !adaptor.getSaveTrajectory()) {
    inferred.push_back(adaptor.getInit().getType());
    return success();
  }
  // Attributes may be missing while parsing or on malformed ops.
  IntegerAttr length = adaptor.getLengthAttr();
  IntegerAttr checkpoints = adaptor.getNumCheckpointsAttr();
  inferred.push_back(stackedType(
      carry, trajectoryRows(length ? length.getInt() : 0,
                            checkpoints ? checkpoints.getInt() : 0)));
  return success();
}

/// Checks `num_checkpoints` against `length` and the leading dim of every xs.
static LogicalResult verifyScanCommon(Operation *op, int64_t length,
                                      int64_t numCheckpoints, ValueRange xs) {
  if (numCheckpoints < 0 || numCheckpoints > length)
    return op->emitOpError()
           << "'num_checkpoints' must be in [0, length = " << length
           << "], got " << numCheckpoints;
  for (auto [index, value] : llvm::enumerate(xs)) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 0 || !dimsCompatible(type.getDimSize(0), length))
      return op->emitOpError()
             << "xs #" << index
             << " must have the leading dim length = " << length << " (["
             << length << ", ...]), got " << formatShape(type.getShape());
  }
  return success();
}

/// The per-step types of `xs`.
static SmallVector<Type> perStepTypes(ValueRange xs) {
  SmallVector<Type> types;
  for (Value value : xs)
    types.push_back(dropLeadingDim(cast<RankedTensorType>(value.getType())));
  return types;
}

LogicalResult ScanOp::verify() {
  if (failed(
          verifyScanCommon(*this, getLength(), getNumCheckpoints(), getXs())))
    return failure();
  if (getNumCheckpoints() != 0 && !getSaveTrajectory())
    return emitOpError()
           << "'num_checkpoints' only applies with 'save_trajectory'";
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  SmallVector<Type> args{getInit().getType()};
  llvm::append_range(args, getBcasts().getTypes());
  llvm::append_range(args, perStepTypes(getXs()));
  if (failed(verifyBlockArgs(*this, getBody(), "body", args,
                             "[carry, bcast..., x_t...]")))
    return failure();
  return verifyYield(*this, getBody(), "body", getInit().getType(),
                     "the carry type");
}

//===----------------------------------------------------------------------===//
// ScanBackwardOp / ScanBackwardXsOp
//===----------------------------------------------------------------------===//

LogicalResult
ScanBackwardXsOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  // A bad or missing index is the verifier's to report.
  IntegerAttr indexAttr = adaptor.getXsIdxAttr();
  int64_t index = indexAttr ? indexAttr.getInt() : -1;
  ValueRange xs = adaptor.getXs();
  inferred.push_back(index >= 0 && index < static_cast<int64_t>(xs.size())
                         ? xs[index].getType()
                         : adaptor.getInit().getType());
  return success();
}

/// Operand and attribute rules shared by both backward scans.
template <typename OpT> static LogicalResult verifyScanBackward(OpT op) {
  int64_t length = op.getLength();
  int64_t numCheckpoints = op.getNumCheckpoints();
  if (failed(verifyScanCommon(op, length, numCheckpoints, op.getXs())))
    return failure();
  auto carry = cast<RankedTensorType>(op.getInit().getType());
  auto trajectory = cast<RankedTensorType>(op.getTrajectory().getType());
  int64_t rows = trajectoryRows(length, numCheckpoints);
  auto matches = [](RankedTensorType actual, RankedTensorType expected) {
    if (actual.getElementType() != expected.getElementType() ||
        actual.getRank() != expected.getRank())
      return false;
    return llvm::all_of(
        llvm::zip(actual.getShape(), expected.getShape()), [](auto dims) {
          return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
        });
  };
  RankedTensorType expectedTrajectory = stackedType(carry, rows);
  if (!matches(trajectory, expectedTrajectory))
    return op.emitOpError()
           << "trajectory must be " << expectedTrajectory
           << " ([rows, *carry] with rows = "
           << (rows == numCheckpoints ? "num_checkpoints" : "length")
           << "), got " << trajectory;
  auto upstream = cast<RankedTensorType>(op.getUpstream().getType());
  RankedTensorType expectedUpstream =
      op.getSaveTrajectory() ? stackedType(carry, length) : carry;
  if (!matches(upstream, expectedUpstream))
    return op.emitOpError()
           << "upstream must be " << expectedUpstream << " ("
           << (op.getSaveTrajectory()
                   ? "[length, *carry], the forward scan saved its trajectory"
                   : "the carry type")
           << "), got " << upstream;
  if (numCheckpoints > 0 && numCheckpoints < length &&
      op.getForwardBody().empty())
    return op.emitOpError()
           << "needs a 'forward_body' region to recompute "
              "the carries between "
           << numCheckpoints << " checkpoints of " << length << " steps";
  return success();
}

/// Region rules shared by both backward scans.
template <typename OpT> static LogicalResult verifyScanBackwardRegions(OpT op) {
  Type carry = op.getInit().getType();
  SmallVector<Type> steps = perStepTypes(op.getXs());
  SmallVector<Type> vjpArgs{carry};
  llvm::append_range(vjpArgs, steps);
  vjpArgs.push_back(carry);
  if (failed(verifyBlockArgs(op, op.getBodyVjp(), "body_vjp", vjpArgs,
                             "[carry, x_t..., d_output]")))
    return failure();
  SmallVector<Type> vjpResults{carry};
  llvm::append_range(vjpResults, steps);
  if (failed(verifyYield(op, op.getBodyVjp(), "body_vjp", vjpResults,
                         "[dcarry, dx_t...]")))
    return failure();
  if (op.getForwardBody().empty())
    return success();
  SmallVector<Type> forwardArgs{carry};
  llvm::append_range(forwardArgs, steps);
  if (failed(verifyBlockArgs(op, op.getForwardBody(), "forward_body",
                             forwardArgs, "[carry, x_t...]")))
    return failure();
  return verifyYield(op, op.getForwardBody(), "forward_body", carry,
                     "the carry type");
}

LogicalResult ScanBackwardOp::verify() { return verifyScanBackward(*this); }

LogicalResult ScanBackwardOp::verifyRegions() {
  return verifyScanBackwardRegions(*this);
}

LogicalResult ScanBackwardXsOp::verify() {
  int64_t index = getXsIdx();
  if (index < 0 || index >= static_cast<int64_t>(getXs().size()))
    return emitOpError() << "'xs_idx' " << index << " is out of range for "
                         << getXs().size() << " xs operand(s)";
  return verifyScanBackward(*this);
}

LogicalResult ScanBackwardXsOp::verifyRegions() {
  return verifyScanBackwardRegions(*this);
}

//===----------------------------------------------------------------------===//
// CustomFnOp
//===----------------------------------------------------------------------===//

LogicalResult CustomFnOp::verifyRegions() {
  TypeRange primals = getInputs().getTypes();
  Type output = getResult().getType();
  if (failed(verifyBlockArgs(*this, getFwdBody(), "fwd", primals,
                             "the primal inputs")) ||
      failed(
          verifyYield(*this, getFwdBody(), "fwd", output, "the primal output")))
    return failure();

  if (!getVjpBody().empty()) {
    SmallVector<Type> args(primals);
    args.append({output, output});
    if (failed(verifyBlockArgs(*this, getVjpBody(), "vjp", args,
                               "primals, primal_output, d_output")) ||
        failed(verifyYield(*this, getVjpBody(), "vjp", primals,
                           "one gradient per primal input")))
      return failure();
  }

  if (!getJvpBody().empty()) {
    SmallVector<Type> args(primals);
    llvm::append_range(args, primals);
    Block &block = getJvpBody().front();
    // The trailing primal_output argument is optional.
    if (block.getNumArguments() == args.size() + 1)
      args.push_back(output);
    if (failed(verifyBlockArgs(*this, getJvpBody(), "jvp", args,
                               "primals, one tangent per primal input, "
                               "optional primal_output")) ||
        failed(verifyYield(*this, getJvpBody(), "jvp", output,
                           "the output tangent")))
      return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ElementwiseRegionOp
//===----------------------------------------------------------------------===//

LogicalResult ElementwiseRegionOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  std::optional<int64_t> prologue;
  if (std::optional<uint64_t> index = getPrologueInput()) {
    prologue = static_cast<int64_t>(*index);
    if (*prologue < 0 || *prologue >= static_cast<int64_t>(getInputs().size()))
      return emitOpError() << "'prologue_input' " << *prologue
                           << " is out of range for " << getInputs().size()
                           << " input(s)";
    auto type = cast<RankedTensorType>(getInputs()[*prologue].getType());
    if (type.getRank() != 4)
      return emitOpError() << "the resize_nearest2x prologue needs an NCHW "
                              "input of rank 4, input #"
                           << *prologue << " is "
                           << formatShape(type.getShape());
  }
  SmallVector<int64_t> shape;
  for (auto [index, value] : llvm::enumerate(getInputs())) {
    SmallVector<int64_t> inputShape(
        cast<RankedTensorType>(value.getType()).getShape());
    if (prologue && *prologue == static_cast<int64_t>(index))
      for (int64_t dim : {2, 3}) {
        if (ShapedType::isDynamic(inputShape[dim]))
          continue;
        if (inputShape[dim] > std::numeric_limits<int64_t>::max() / 2)
          return emitOpError()
                 << "the resize_nearest2x prologue doubles input #" << index
                 << " " << formatShape(inputShape) << " beyond 64 bits";
        inputShape[dim] *= 2;
      }
    std::optional<SmallVector<int64_t>> next =
        broadcastShapes(shape, inputShape);
    if (!next)
      return emitOpError() << "input #" << index << " shape "
                           << formatShape(inputShape)
                           << " does not broadcast with " << formatShape(shape)
                           << " of the inputs before it";
    shape = std::move(*next);
  }
  ArrayRef<int64_t> result = getResult().getType().getShape();
  bool compatible =
      result.size() == shape.size() &&
      llvm::all_of(llvm::zip(result, shape), [](auto dims) {
        return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
      });
  if (!compatible)
    return emitOpError() << "result shape " << formatShape(result)
                         << " must be the broadcast shape "
                         << formatShape(shape) << " of the inputs";
  return success();
}

LogicalResult ElementwiseRegionOp::verifyRegions() {
  SmallVector<Type> args =
      llvm::map_to_vector(getInputs().getTypes(), [](Type type) -> Type {
        return getElementTensorType(type);
      });
  if (failed(verifyBlockArgs(*this, getBody(), "body", args,
                             "one rank-0 tensor per input, of its element "
                             "type")))
    return failure();
  return verifyElementwiseBody(*this, getBody(),
                               getResult().getType().getElementType());
}

//===----------------------------------------------------------------------===//
// TransformRegionOp
//===----------------------------------------------------------------------===//

LogicalResult TransformRegionOp::verifyRegions() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  if (failed(verifyBlockArgs(*this, getBody(), "body", getInputs().getTypes(),
                             "the input types")))
    return failure();
  // RLX transform steps are geometry: the resize and pure data movement.
  for (Operation &nested : getBody().front().without_terminator()) {
    if (!isa<ResizeNearest2xOp, ReshapeOp, TransposeOp, NarrowOp, ConcatOp,
             ExpandOp>(nested))
      return emitOpError()
             << "body may only hold geometry ops (rlx.resize_nearest2x, "
                "rlx.reshape, rlx.transpose, rlx.narrow, rlx.concat, "
                "rlx.expand), found '"
             << nested.getName() << "'";
  }
  return verifyYield(*this, getBody(), "body", getResult().getType(),
                     "the result type");
}

//===----------------------------------------------------------------------===//
// BatchElementwiseRegionOp
//===----------------------------------------------------------------------===//

LogicalResult BatchElementwiseRegionOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one batch input";
  auto type = cast<RankedTensorType>(getInputs().front().getType());
  for (auto [index, value] : llvm::enumerate(getInputs()))
    if (value.getType() != type)
      return emitOpError() << "batch inputs must share one type: input #"
                           << index << " is " << value.getType()
                           << " but input #0 is " << type;
  if (getResults().size() != getInputs().size())
    return emitOpError() << "needs one result per batch input: "
                         << getInputs().size() << " input(s) but "
                         << getResults().size() << " result(s)";
  Type elementType =
      cast<RankedTensorType>(getResults().front().getType()).getElementType();
  auto expected = RankedTensorType::get(type.getShape(), elementType);
  for (auto [index, result] : llvm::enumerate(getResults()))
    if (result.getType() != expected)
      return emitOpError() << "result #" << index << " must be " << expected
                           << " (the input shape with the yielded element "
                              "type), got "
                           << result.getType();
  return success();
}

LogicalResult BatchElementwiseRegionOp::verifyRegions() {
  Type arg = getElementTensorType(getInputs().front().getType());
  if (failed(verifyBlockArgs(*this, getBody(), "body", arg,
                             "one rank-0 tensor of the input element type")))
    return failure();
  return verifyElementwiseBody(
      *this, getBody(), getElementTypeOrSelf(getResults().front().getType()));
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

MutableOperandRange YieldOp::getMutableSuccessorOperands(RegionSuccessor) {
  // The predicate yielded first by the `cond` region of `rlx.while` decides
  // whether the loop continues; only the values after it are forwarded.
  MutableOperandRange values = getValuesMutable();
  if (auto loop = dyn_cast<WhileOp>((*this)->getParentOp());
      loop && (*this)->getParentRegion() == &loop.getCond() &&
      values.size() != 0)
    return values.slice(1, values.size() - 1);
  return values;
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXControlFlowOps.cpp.inc"
