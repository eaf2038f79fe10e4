//===- ShapeOps.cpp - shape manipulation and indexing ---------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/FoldLimits.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "rlx/Dialect/RLX/IR/TransposeForms.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerShapeOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXShapeOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The constant `attr` when a shape op may fold it into a constant of the
/// static type `type`: any splat, or at most kMaxFoldElements elements.
static DenseElementsAttr getFoldableConstant(Attribute attr, Type type) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!dense || !tensorType || !tensorType.hasStaticShape())
    return nullptr;
  // Checked: a splat of any size folds in O(1), so the count is the only
  // product computed from the type.
  std::optional<int64_t> count = checkedElementCount(tensorType);
  if (!count || (!dense.isSplat() && *count > kMaxFoldElements))
    return nullptr;
  return dense;
}

/// Reports an out-of-range axis. The axes of these ops are RLX `usize`
/// fields, so the valid range is [0, rank): negative axes are rejected.
static InFlightDiagnostic emitAxisError(Operation *op, int64_t axis,
                                        StringRef what,
                                        ArrayRef<int64_t> shape) {
  return op->emitOpError() << "axis " << axis << " is out of range for " << what
                           << " " << formatShape(shape) << " of rank "
                           << shape.size() << " (axis must be in [0, "
                           << shape.size() << "))";
}

static bool axisInRange(int64_t axis, int64_t rank) {
  return axis >= 0 && axis < rank;
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

/// The result shape of reshaping `input` to `newShape`; total: malformed
/// entries become dynamic dims.
static SmallVector<int64_t> inferReshape(ArrayRef<int64_t> input,
                                         ArrayRef<int64_t> newShape) {
  SmallVector<int64_t> result;
  int64_t inferred = -1;
  int64_t numInferred = 0;
  int64_t known = 1;
  bool malformed = false;
  for (auto [i, dim] : llvm::enumerate(newShape)) {
    if (dim >= 0) {
      result.push_back(dim);
      if (llvm::MulOverflow(known, dim, known))
        malformed = true;
      continue;
    }
    if (dim == -1) {
      inferred = i;
      ++numInferred;
    } else {
      malformed = true;
    }
    result.push_back(ShapedType::kDynamic);
  }
  if (numInferred == 1 && !malformed && !ShapedType::isDynamicShape(input)) {
    int64_t numElements = ShapedType::getNumElements(input);
    if (known > 0 && numElements % known == 0)
      result[inferred] = numElements / known;
  }
  return result;
}

LogicalResult
ReshapeOp::inferReturnTypes(MLIRContext *context,
                            std::optional<Location> location, Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> newShape;
  if (DenseI64ArrayAttr attr = adaptor.getNewShapeAttr())
    newShape = attr.asArrayRef();
  inferredReturnTypes.push_back(
      RankedTensorType::get(inferReshape(inputType.getShape(), newShape),
                            inputType.getElementType()));
  return success();
}

LogicalResult ReshapeOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> newShape = getNewShape();
  int64_t numInferred = 0;
  int64_t known = 1;
  for (auto [i, dim] : llvm::enumerate(newShape)) {
    if (dim < -1)
      return emitOpError() << "new_shape entry #" << i << " is " << dim
                           << "; entries are sizes >= 0 or -1 (inferred)";
    if (dim == -1)
      ++numInferred;
    else if (llvm::MulOverflow(known, dim, known))
      return emitOpError() << "new_shape " << formatShape(newShape)
                           << " has more elements than fit in 64 bits";
  }
  if (numInferred > 1)
    return emitOpError() << "new_shape " << formatShape(newShape) << " has "
                         << numInferred
                         << " entries -1; at most one dim can be inferred";
  if (ShapedType::isDynamicShape(input))
    return success();
  int64_t numElements = ShapedType::getNumElements(input);
  if (numInferred == 0) {
    if (known != numElements)
      return emitOpError() << "new_shape " << formatShape(newShape) << " has "
                           << known << " elements but the input "
                           << formatShape(input) << " has " << numElements;
    return success();
  }
  if (known == 0)
    return emitOpError() << "cannot infer the -1 entry of new_shape "
                         << formatShape(newShape)
                         << ": the other entries hold zero elements";
  if (numElements % known != 0)
    return emitOpError() << "cannot reshape the input " << formatShape(input)
                         << " (" << numElements << " elements) to new_shape "
                         << formatShape(newShape) << ": " << numElements
                         << " is not a multiple of " << known;
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // With at most one dynamic dim, equal types mean equal shapes at run time:
  // the element count pins the dynamic dim.
  RankedTensorType type = getType();
  if (getInput().getType() == type && type.getNumDynamicDims() <= 1)
    return getInput();
  if (DenseElementsAttr input = getFoldableConstant(adaptor.getInput(), type))
    return input.reshape(type);
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x): a reshape only relabels the row-major
/// element order, so the inner one is redundant.
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    Value source = inner.getInput();
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> sourceShape =
        cast<RankedTensorType>(source.getType()).getShape();
    SmallVector<int64_t> newShape(op.getNewShape());
    // Inferring the -1 from `source` may give a less static type than the
    // inner reshape did; then spell the static result shape out.
    if (ArrayRef<int64_t>(inferReshape(sourceShape, newShape)) !=
        type.getShape()) {
      if (!type.hasStaticShape())
        return failure();
      newShape.assign(type.getShape().begin(), type.getShape().end());
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, source, newShape);
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult
TransposeOp::inferReturnTypes(MLIRContext *context,
                              std::optional<Location> location, Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> input = inputType.getShape();
  SmallVector<int64_t> shape;
  if (DenseI64ArrayAttr perm = adaptor.getPermAttr())
    for (int64_t p : perm.asArrayRef())
      shape.push_back(axisInRange(p, input.size()) ? input[p]
                                                   : ShapedType::kDynamic);
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> perm = getPerm();
  int64_t rank = input.size();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError() << "perm " << formatShape(perm) << " has "
                         << perm.size() << " entries but the input "
                         << formatShape(input) << " has rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (auto [i, p] : llvm::enumerate(perm)) {
    if (!axisInRange(p, rank))
      return emitOpError() << "perm entry #" << i << " is " << p
                           << ", out of range for the input "
                           << formatShape(input) << " (entries must be in [0, "
                           << rank << "))";
    if (seen[p])
      return emitOpError() << "perm " << formatShape(perm)
                           << " is not a permutation: " << p
                           << " appears more than once";
    seen[p] = true;
  }
  return success();
}

/// True when `perm` is a permutation of 0 .. rank-1. Folders and patterns
/// check it too: they may see ops that were built but not verified yet.
static bool isPermutation(ArrayRef<int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank)
    return false;
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (!axisInRange(p, rank) || seen[p])
      return false;
    seen[p] = true;
  }
  return true;
}

static bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return false;
  return true;
}

/// Elements of `values` (row-major over `inputShape`) permuted by `perm`.
template <typename T>
static SmallVector<T> permuteElements(ArrayRef<T> values,
                                      ArrayRef<int64_t> inputShape,
                                      ArrayRef<int64_t> perm) {
  // No elements: nothing to permute, and the strides of the other dims may
  // not fit in int64.
  if (values.empty())
    return {};
  size_t rank = inputShape.size();
  SmallVector<int64_t> inputStrides(rank, 1);
  for (size_t d = rank; d-- > 1;)
    inputStrides[d - 1] = inputStrides[d] * inputShape[d];
  SmallVector<int64_t> resultShape, strides;
  for (int64_t p : perm) {
    resultShape.push_back(inputShape[p]);
    strides.push_back(inputStrides[p]);
  }
  SmallVector<T> result;
  result.reserve(values.size());
  SmallVector<int64_t> position(rank, 0);
  for (size_t n = 0; n < values.size(); ++n) {
    int64_t index = 0;
    for (size_t d = 0; d < rank; ++d)
      index += position[d] * strides[d];
    result.push_back(values[index]);
    for (size_t d = rank; d-- > 0;) {
      if (++position[d] < resultShape[d])
        break;
      position[d] = 0;
    }
  }
  return result;
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (!isPermutation(getPerm(), getInput().getType().getRank()))
    return {};
  if (isIdentityPermutation(getPerm()) && getInput().getType() == getType())
    return getInput();
  RankedTensorType type = getType();
  DenseElementsAttr input = getFoldableConstant(adaptor.getInput(), type);
  if (!input)
    return {};
  if (input.isSplat())
    return input.resizeSplat(type);
  ArrayRef<int64_t> inputShape = input.getType().getShape();
  Type elementType = type.getElementType();
  if (isa<FloatType>(elementType)) {
    SmallVector<APFloat> values = llvm::to_vector(input.getValues<APFloat>());
    return DenseElementsAttr::get(
        type, permuteElements<APFloat>(values, inputShape, getPerm()));
  }
  if (elementType.isInteger(1)) {
    SmallVector<bool> values = llvm::to_vector(input.getValues<bool>());
    return DenseElementsAttr::get(
        type, permuteElements<bool>(values, inputShape, getPerm()));
  }
  if (isa<IntegerType>(elementType)) {
    SmallVector<APInt> values = llvm::to_vector(input.getValues<APInt>());
    return DenseElementsAttr::get(
        type, permuteElements<APInt>(values, inputShape, getPerm()));
  }
  if (isa<ComplexType>(elementType)) {
    using Complex = std::complex<APFloat>;
    SmallVector<Complex> values = llvm::to_vector(input.getValues<Complex>());
    return DenseElementsAttr::get(
        type, permuteElements<Complex>(values, inputShape, getPerm()));
  }
  return {};
}

namespace {
/// transpose(transpose(x, inner), outer) -> transpose(x, inner o outer), or
/// x when the composition is the identity.
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> innerPerm = inner.getPerm();
    int64_t rank = inner.getInput().getType().getRank();
    if (!isPermutation(innerPerm, rank) || !isPermutation(op.getPerm(), rank))
      return failure();
    // result dim i = inner dim outer[i] = source dim inner[outer[i]].
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(innerPerm[p]);
    Value source = inner.getInput();
    if (isIdentityPermutation(perm) && source.getType() == op.getType()) {
      rewriter.replaceOp(op, source);
      return success();
    }
    rewriter.replaceOpWithNewOp<TransposeOp>(op, source, perm);
    return success();
  }
};

/// A transpose that moves only dims of size 1 keeps the row-major element
/// order: it is a reshape, which no target copies (a decode step's
/// [B, 1, H, D] -> [B, H, 1, D] head transposes, say).
struct TransposeOfUnitDimsToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isPermutation(op.getPerm(), op.getInput().getType().getRank()) ||
        !isTransposeOfUnitDims(op.getInput().getType(), op.getPerm()))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        op, op.getInput(), llvm::to_vector(op.getType().getShape()));
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes, TransposeOfUnitDimsToReshape>(context);
}

//===----------------------------------------------------------------------===//
// NarrowOp
//===----------------------------------------------------------------------===//

LogicalResult
NarrowOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  SmallVector<int64_t> shape(inputType.getShape());
  IntegerAttr axis = adaptor.getAxisAttr();
  IntegerAttr len = adaptor.getLenAttr();
  if (axis && axisInRange(axis.getInt(), shape.size()))
    shape[axis.getInt()] =
        len && len.getInt() >= 0 ? len.getInt() : ShapedType::kDynamic;
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult NarrowOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  int64_t axis = getAxis();
  int64_t start = getStart();
  int64_t len = getLen();
  if (!axisInRange(axis, input.size()))
    return emitAxisError(*this, axis, "the input", input);
  int64_t dim = input[axis];
  // start and len are non-negative; start + len may not fit in int64.
  if (!ShapedType::isDynamic(dim) && (len > dim || start > dim - len)) {
    InFlightDiagnostic diag = emitOpError() << "slice [" << start << ", ";
    if (start <= std::numeric_limits<int64_t>::max() - len)
      diag << start + len;
    else
      diag << start << " + " << len;
    return diag << ") (start " << start << ", len " << len << ") exceeds dim "
                << axis << " of the input " << formatShape(input)
                << ", which has size " << dim;
  }
  return success();
}

OpFoldResult NarrowOp::fold(FoldAdaptor) {
  int64_t axis = getAxis();
  if (axisInRange(axis, getType().getRank()) && getStart() == 0 &&
      getInput().getType() == getType() &&
      static_cast<int64_t>(getLen()) == getType().getDimSize(axis))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult
ConcatOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  ValueRange inputs = adaptor.getInputs();
  // The operand-count error is the verifier's; infer a well-formed type.
  if (inputs.empty()) {
    inferredReturnTypes.push_back(
        RankedTensorType::get({}, Float32Type::get(context)));
    return success();
  }
  auto first = cast<RankedTensorType>(inputs.front().getType());
  IntegerAttr axisAttr = adaptor.getAxisAttr();
  int64_t rank = first.getRank();
  if (!axisAttr || !axisInRange(axisAttr.getInt(), rank)) {
    inferredReturnTypes.push_back(first);
    return success();
  }
  int64_t axis = axisAttr.getInt();
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  int64_t total = 0;
  for (Value input : inputs) {
    ArrayRef<int64_t> dims = cast<RankedTensorType>(input.getType()).getShape();
    if (static_cast<int64_t>(dims.size()) != rank) {
      total = ShapedType::kDynamic;
      continue;
    }
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && ShapedType::isDynamic(shape[d]))
        shape[d] = dims[d];
    if (ShapedType::isDynamic(dims[axis]) || ShapedType::isDynamic(total))
      total = ShapedType::kDynamic;
    else if (llvm::AddOverflow(total, dims[axis], total))
      return emitOptionalError(location,
                               "'rlx.concat' op the inputs' sizes along axis ",
                               axis, " add up to more than 2^63 - 1");
  }
  shape[axis] = total;
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult ConcatOp::verify() {
  auto first = cast<RankedTensorType>(getInputs().front().getType());
  ArrayRef<int64_t> firstShape = first.getShape();
  int64_t rank = first.getRank();
  int64_t axis = getAxis();
  if (!axisInRange(axis, rank))
    return emitAxisError(*this, axis, "input #0", firstShape);
  // The first static size seen in each dim, and the input it came from.
  SmallVector<int64_t> expected(firstShape);
  SmallVector<unsigned> source(rank, 0);
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> shape = type.getShape();
    if (type.getRank() != rank)
      return emitOpError() << "input #" << i << " " << formatShape(shape)
                           << " has rank " << type.getRank() << " but input #0 "
                           << formatShape(firstShape) << " has rank " << rank;
    if (type.getElementType() != first.getElementType())
      return emitOpError() << "input #" << i << " has element type "
                           << type.getElementType() << " but input #0 has "
                           << first.getElementType();
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (!dimsCompatible(shape[d], expected[d]))
        return emitOpError()
               << "input #" << i << " " << formatShape(shape) << " has size "
               << shape[d] << " in dim " << d << " but input #" << source[d]
               << " has " << expected[d] << "; inputs may differ only along "
               << "axis " << axis;
      if (ShapedType::isDynamic(expected[d])) {
        expected[d] = shape[d];
        source[d] = i;
      }
    }
  }
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

//===----------------------------------------------------------------------===//
// ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult
ExpandOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> input = inputType.getShape();
  ArrayRef<int64_t> target;
  if (DenseI64ArrayAttr attr = adaptor.getTargetShapeAttr())
    target = attr.asArrayRef();
  int64_t offset =
      static_cast<int64_t>(target.size()) - static_cast<int64_t>(input.size());
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(target)) {
    int64_t inputIndex = static_cast<int64_t>(i) - offset;
    if (dim >= 0)
      shape.push_back(dim);
    else if (dim == -1 && inputIndex >= 0)
      shape.push_back(input[inputIndex]);
    else
      shape.push_back(ShapedType::kDynamic);
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult ExpandOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> target = getTargetShape();
  for (auto [i, dim] : llvm::enumerate(target))
    if (dim < -1)
      return emitOpError() << "target_shape entry #" << i << " is " << dim
                           << "; entries are sizes >= 0 or -1 (keep the "
                              "input dim)";
  if (target.size() < input.size())
    return emitOpError() << "target_shape " << formatShape(target)
                         << " has rank " << target.size()
                         << ", less than the rank " << input.size()
                         << " of the input " << formatShape(input);
  size_t offset = target.size() - input.size();
  for (auto [i, dim] : llvm::enumerate(target)) {
    if (i < offset) {
      if (dim == -1)
        return emitOpError()
               << "target_shape entry #" << i << " is -1 but the input "
               << formatShape(input) << " has no dim there to keep";
      continue;
    }
    int64_t inputDim = input[i - offset];
    if (dim == -1 || inputDim == 1 || ShapedType::isDynamic(inputDim) ||
        inputDim == dim)
      continue;
    return emitOpError() << "input dim " << i - offset << " of size "
                         << inputDim << " cannot expand to " << dim
                         << " (input " << formatShape(input)
                         << ", target_shape " << formatShape(target)
                         << "); only size-1 dims stretch";
  }
  return success();
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto input = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (input && input.isSplat() && getType().hasStaticShape())
    return input.resizeSplat(getType());
  return {};
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult
GatherOp::inferReturnTypes(MLIRContext *context,
                           std::optional<Location> location, Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  auto tableType = cast<RankedTensorType>(adaptor.getTable().getType());
  auto indicesType = cast<RankedTensorType>(adaptor.getIndices().getType());
  ArrayRef<int64_t> table = tableType.getShape();
  IntegerAttr axisAttr = adaptor.getAxisAttr();
  // A bad axis is the verifier's to report; index the leading dim instead.
  int64_t axis = 0;
  if (axisAttr && axisInRange(axisAttr.getInt(), table.size()))
    axis = axisAttr.getInt();
  SmallVector<int64_t> shape(table.take_front(axis));
  llvm::append_range(shape, indicesType.getShape());
  if (!table.empty())
    llvm::append_range(shape, table.drop_front(axis + 1));
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, tableType.getElementType()));
  return success();
}

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> table = getTable().getType().getShape();
  if (!axisInRange(getAxis(), table.size()))
    return emitAxisError(*this, getAxis(), "the table", table);
  return success();
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXShapeOps.cpp.inc"
