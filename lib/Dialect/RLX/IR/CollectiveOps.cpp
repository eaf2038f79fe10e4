//===- CollectiveOps.cpp - communication between ranks --------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The group attribute (#rlx.group), its `mesh [..] axes [..]` form in ops,
// and the shape rules of the collectives.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerCollectiveOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXCollectiveOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// GroupAttr
//===----------------------------------------------------------------------===//

GroupAttr GroupAttr::get(MLIRContext *context, ArrayRef<int64_t> mesh) {
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, static_cast<int64_t>(mesh.size())));
  // ArrayRef arguments pick the generated builder, which the storage
  // (defined with the dialect) backs.
  return get(context, mesh, ArrayRef<int64_t>(axes));
}

int64_t GroupAttr::getGroupSize() const {
  int64_t size = 1;
  for (int64_t axis : getAxes())
    if (axis >= 0 && axis < static_cast<int64_t>(getMesh().size()))
      size *= getMesh()[axis];
  return size;
}

LogicalResult GroupAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                ArrayRef<int64_t> mesh,
                                ArrayRef<int64_t> axes) {
  if (mesh.empty())
    return emitError() << "#rlx.group: the mesh needs at least one axis";
  for (auto [i, size] : llvm::enumerate(mesh))
    if (size < 1)
      return emitError() << "#rlx.group: mesh " << formatShape(mesh)
                         << " has size " << size << " on axis " << i
                         << "; sizes are static and >= 1";
  if (axes.empty())
    return emitError() << "#rlx.group: a group spans at least one mesh axis";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= static_cast<int64_t>(mesh.size()))
      return emitError() << "#rlx.group: axis " << axis << " is outside mesh "
                         << formatShape(mesh) << " (axes are in [0, "
                         << mesh.size() << "))";
    if (i > 0 && axes[i - 1] >= axis)
      return emitError() << "#rlx.group: axes " << formatShape(axes)
                         << " must be strictly increasing";
  }
  return success();
}

/// `[2, 4]`, then `axes [1]` unless every axis is spanned. The keyword
/// before the shape is the caller's: `mesh` in ops, none in the attribute.
static ParseResult parseMeshAndAxes(AsmParser &parser,
                                    SmallVectorImpl<int64_t> &mesh,
                                    SmallVectorImpl<int64_t> &axes,
                                    bool commaBeforeAxes) {
  auto parseList = [&](SmallVectorImpl<int64_t> &list) {
    return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
      return parser.parseInteger(list.emplace_back());
    });
  };
  if (parseList(mesh))
    return failure();
  bool hasAxes = commaBeforeAxes
                     ? succeeded(parser.parseOptionalComma())
                     : succeeded(parser.parseOptionalKeyword("axes"));
  if (!hasAxes) {
    axes.assign(llvm::seq<int64_t>(0, mesh.size()).begin(),
                llvm::seq<int64_t>(0, mesh.size()).end());
    return success();
  }
  if (commaBeforeAxes && (parser.parseKeyword("axes") || parser.parseEqual()))
    return failure();
  return parseList(axes);
}

static bool spansEveryAxis(GroupAttr group) {
  return llvm::equal(group.getAxes(),
                     llvm::seq<int64_t>(0, group.getMesh().size()));
}

Attribute GroupAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> mesh, axes;
  if (parser.parseLess() ||
      parseMeshAndAxes(parser, mesh, axes, /*commaBeforeAxes=*/true) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    ArrayRef<int64_t>(mesh), ArrayRef<int64_t>(axes));
}

void GroupAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getMesh(), printer);
  printer << "]";
  if (!spansEveryAxis(*this)) {
    printer << ", axes = [";
    llvm::interleaveComma(getAxes(), printer);
    printer << "]";
  }
  printer << ">";
}

/// `custom<Group>($group)`: `mesh [2, 4] axes [1]`.
static ParseResult parseGroup(OpAsmParser &parser, GroupAttr &group) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> mesh, axes;
  if (parser.parseKeyword("mesh") ||
      parseMeshAndAxes(parser, mesh, axes, /*commaBeforeAxes=*/false))
    return failure();
  group = GroupAttr::getChecked([&] { return parser.emitError(loc); },
                                parser.getContext(), ArrayRef<int64_t>(mesh),
                                ArrayRef<int64_t>(axes));
  return success(static_cast<bool>(group));
}

static void printGroup(OpAsmPrinter &printer, Operation *, GroupAttr group) {
  printer << "mesh [";
  llvm::interleaveComma(group.getMesh(), printer);
  printer << "]";
  if (!spansEveryAxis(group)) {
    printer << " axes [";
    llvm::interleaveComma(group.getAxes(), printer);
    printer << "]";
  }
}

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

/// `mean` divides, which needs a float element type.
static LogicalResult verifyKind(Operation *op, CollectiveKind kind,
                                Value input) {
  Type et = getElementTypeOrSelf(input.getType());
  if (et.isInteger(1))
    return op->emitOpError() << "cannot reduce i1 tensors (cast them to an "
                                "integer type first)";
  if (kind == CollectiveKind::Mean && !isa<FloatType>(et))
    return op->emitOpError() << "mean needs a float element type, got " << et
                             << " (sum, then divide after a cast)";
  return success();
}

/// `dim` names a dim of `input`, which has rank >= 1.
static LogicalResult verifyDim(Operation *op, Value input, int64_t dim,
                               StringRef name) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  if (shape.empty())
    return op->emitOpError() << "input must have rank >= 1, got []";
  if (dim >= static_cast<int64_t>(shape.size()))
    return op->emitOpError()
           << name << " " << dim << " is outside input " << formatShape(shape)
           << " (dims are in [0, " << shape.size() << "))";
  return success();
}

/// A static size along `dim` splits into one equal slice per rank.
static LogicalResult verifySplits(Operation *op, Value input, int64_t dim,
                                  StringRef name, GroupAttr group) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  int64_t size = shape[dim], ranks = group.getGroupSize();
  if (!ShapedType::isDynamic(size) && size % ranks != 0)
    return op->emitOpError()
           << name << " " << dim << " of input " << formatShape(shape)
           << " has size " << size << ", which does not split into " << ranks
           << " equal slices (one per rank of the group)";
  return success();
}

static LogicalResult verifyRoot(Operation *op, int64_t root, GroupAttr group) {
  if (root >= group.getGroupSize())
    return op->emitOpError()
           << "root " << root << " is not a rank of the "
           << "group, which has " << group.getGroupSize() << " ranks";
  return success();
}

/// `shape` with `dim` multiplied (`times`) or divided by the group size;
/// `?` stays `?`, and a dim out of range leaves the shape as it is.
static SmallVector<int64_t> scaleDim(ArrayRef<int64_t> shape, int64_t dim,
                                     int64_t ranks, bool times) {
  SmallVector<int64_t> result(shape);
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()) || ranks < 1 ||
      ShapedType::isDynamic(shape[dim]))
    return result;
  result[dim] = times ? shape[dim] * ranks : shape[dim] / ranks;
  return result;
}

static int64_t groupSizeOr1(GroupAttr group) {
  return group ? group.getGroupSize() : 1;
}

static int64_t intOr(IntegerAttr attr, int64_t fallback) {
  return attr ? attr.getInt() : fallback;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult
AllReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyKind(*this, getKind(), getInput());
}

LogicalResult
AllGatherOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t dim = intOr(adaptor.getProperties().dim, -1);
  inferredReturnTypes.push_back(type.clone(scaleDim(
      type.getShape(), dim, groupSizeOr1(adaptor.getProperties().group),
      /*times=*/true)));
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyDim(*this, getInput(), getDim(), "dim");
}

LogicalResult
ReduceScatterOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t dim = intOr(adaptor.getProperties().dim, -1);
  inferredReturnTypes.push_back(type.clone(scaleDim(
      type.getShape(), dim, groupSizeOr1(adaptor.getProperties().group),
      /*times=*/false)));
  return success();
}

LogicalResult ReduceScatterOp::verify() {
  if (failed(verifyKind(*this, getKind(), getInput())) ||
      failed(verifyDim(*this, getInput(), getDim(), "dim")))
    return failure();
  return verifySplits(*this, getInput(), getDim(), "dim", getGroup());
}

LogicalResult
AllToAllOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                             Adaptor adaptor,
                             SmallVectorImpl<Type> &inferredReturnTypes) {
  auto type = cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t ranks = groupSizeOr1(adaptor.getProperties().group);
  SmallVector<int64_t> shape =
      scaleDim(type.getShape(), intOr(adaptor.getProperties().split_dim, -1),
               ranks, /*times=*/false);
  shape = scaleDim(shape, intOr(adaptor.getProperties().concat_dim, -1), ranks,
                   /*times=*/true);
  inferredReturnTypes.push_back(type.clone(shape));
  return success();
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyDim(*this, getInput(), getSplitDim(), "split_dim")) ||
      failed(verifyDim(*this, getInput(), getConcatDim(), "concat_dim")))
    return failure();
  return verifySplits(*this, getInput(), getSplitDim(), "split_dim",
                      getGroup());
}

LogicalResult
BroadcastOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult BroadcastOp::verify() {
  return verifyRoot(*this, getRoot(), getGroup());
}

LogicalResult
ReduceToRootOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult ReduceToRootOp::verify() {
  if (failed(verifyKind(*this, getKind(), getInput())))
    return failure();
  return verifyRoot(*this, getRoot(), getGroup());
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXCollectiveOps.cpp.inc"
