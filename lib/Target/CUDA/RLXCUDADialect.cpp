//===- RLXCUDADialect.cpp - the CUDA target's kernel ops ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/RLXCUDADialect.h"

#include "rlx/Dialect/RLX/IR/GgufBlock.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::rlx;
using namespace mlir::rlx::cuda;

#include "rlx/Target/CUDA/RLXCUDADialect.cpp.inc"

void RLXCUDADialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Target/CUDA/RLXCUDAOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "rlx/Target/CUDA/RLXCUDAOps.cpp.inc"

//===----------------------------------------------------------------------===//
// FlashAttentionOp
//===----------------------------------------------------------------------===//

/// Checks what every kernel op's operands share: all tensors or all
/// buffers, the first operand's element type, which is f32, f16 or bf16.
static LogicalResult
verifyKernelOperands(Operation *op,
                     ArrayRef<std::pair<StringRef, Value>> operands) {
  auto [firstName, first] = operands.front();
  auto firstType = cast<ShapedType>(first.getType());
  bool onTensors = isa<RankedTensorType>(firstType);
  for (auto [name, value] : operands.drop_front()) {
    auto type = cast<ShapedType>(value.getType());
    if (isa<RankedTensorType>(type) != onTensors)
      return op->emitOpError()
             << "operands are all tensors or all buffers, but " << name
             << " is " << type;
    if (type.getElementType() != firstType.getElementType())
      return op->emitOpError()
             << name << " has element type " << type.getElementType() << ", "
             << firstName << " " << firstType.getElementType();
  }
  if (!isa<Float32Type, Float16Type, BFloat16Type>(firstType.getElementType()))
    return op->emitOpError()
           << "supports f32, f16 and bf16, not " << firstType.getElementType();
  return success();
}

/// Checks a kernel op's results: on tensors one per init, of its type;
/// none on buffers.
static LogicalResult verifyKernelResults(Operation *op, ValueRange inits) {
  if (isa<RankedTensorType>(inits.front().getType())) {
    if (op->getResultTypes() != inits.getTypes())
      return op->emitOpError()
             << (inits.size() == 1
                     ? "on tensors returns one result of init's type"
                     : "on tensors returns one result of each init's type");
  } else if (op->getNumResults() != 0) {
    return op->emitOpError() << "on buffers has no results";
  }
  return success();
}

LogicalResult FlashAttentionOp::verify() {
  auto queryType = cast<ShapedType>(getQuery().getType());
  SmallVector<std::pair<StringRef, Value>> operands = {{"query", getQuery()},
                                                       {"key", getKey()},
                                                       {"value", getValue()},
                                                       {"init", getInit()}};
  if (getMask())
    operands.push_back({"mask", getMask()});
  if (failed(verifyKernelOperands(*this, operands)))
    return failure();
  int64_t rank = queryType.getRank();
  if (rank != 3 && rank != 4)
    return emitOpError() << "query has rank " << rank << "; expected 3 or 4";
  for (Value value : {getKey(), getValue(), getInit()})
    if (cast<ShapedType>(value.getType()).getRank() != rank)
      return emitOpError() << "query, key, value and init share one rank";
  if (failed(verifyCompatibleShape(getInit().getType(), queryType)))
    return emitOpError() << "init " << getInit().getType()
                         << " does not have the shape of query " << queryType;
  if (std::optional<uint64_t> kvHeads = getKvHeads()) {
    int64_t numHeads = getNumHeads();
    if (numHeads % static_cast<int64_t>(*kvHeads) != 0)
      return emitOpError() << "kv_heads " << *kvHeads
                           << " does not divide num_heads " << numHeads;
    // The key's and value's heads: dim 1 of [B, H, S, D], or the last dim of
    // [B, S, H * D] over head_dim.
    for (Value value : {getKey(), getValue()}) {
      auto type = cast<ShapedType>(value.getType());
      int64_t size = type.getDimSize(rank == 4 ? 1 : 2);
      int64_t expected = rank == 4 ? static_cast<int64_t>(*kvHeads)
                                   : static_cast<int64_t>(*kvHeads) *
                                         static_cast<int64_t>(getHeadDim());
      if (!ShapedType::isDynamic(size) && size != expected)
        return emitOpError() << "key and value " << type << " must hold "
                             << *kvHeads << " heads (kv_heads)";
    }
  }
  int64_t headDim = getHeadDim();
  if (headDim > kMaxHeadDim)
    return emitOpError() << "head_dim " << headDim << " exceeds "
                         << kMaxHeadDim;
  MaskKind kind = getMaskKind();
  bool needsMask = kind == MaskKind::Custom || kind == MaskKind::Bias;
  if (needsMask != static_cast<bool>(getMask()))
    return emitOpError() << "mask_kind " << stringifyMaskKind(kind)
                         << (needsMask ? " needs" : " takes no")
                         << " mask operand";
  if ((kind == MaskKind::SlidingWindow) != getWindow().has_value())
    return emitOpError() << "window is given iff mask_kind is sliding_window";
  if (!(getScoreScale().convertToFloat() > 0.0f))
    return emitOpError() << "score_scale must be positive";
  return verifyKernelResults(*this, ValueRange{getInit()});
}

//===----------------------------------------------------------------------===//
// What every kernel op shares
//===----------------------------------------------------------------------===//

void cuda::detail::getKernelOpEffects(
    Operation *op, MutableOperandRange inits,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!isa<MemRefType>(inits[0].get().getType()))
    return;
  auto isInit = [&](OpOperand &operand) {
    return llvm::any_of(inits,
                        [&](OpOperand &init) { return &init == &operand; });
  };
  for (OpOperand &operand : op->getOpOperands()) {
    if (isInit(operand))
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

LogicalResult cuda::detail::bufferizeKernelOp(
    Operation *op, MutableOperandRange inits, RewriterBase &rewriter,
    const bufferization::BufferizationOptions &options,
    bufferization::BufferizationState &state) {
  SmallVector<Value> buffers;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, operand, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  rewriter.setInsertionPoint(op);
  OperationState bufferized(op->getLoc(), op->getName(), buffers, TypeRange(),
                            op->getAttrs());
  rewriter.create(bufferized);
  SmallVector<Value> results;
  for (OpOperand &init : inits)
    results.push_back(buffers[init.getOperandNumber()]);
  bufferization::replaceOpWithBufferizedValues(rewriter, op, results);
  return success();
}

//===----------------------------------------------------------------------===//
// The GEMM kernels
//===----------------------------------------------------------------------===//

/// Checks the shapes of the GEMM kernels: `input` `[.., M, K]` of rank 2 or
/// 3, `weight` `[K, N]`, the `[N]` vector `row` (a bias or its gradient) and
/// `outputs` `[.., M, N]` of the input's rank.
static LogicalResult
verifyGemmShapes(Operation *op, Value input, Value weight,
                 std::pair<StringRef, Value> row,
                 ArrayRef<std::pair<StringRef, Value>> outputs) {
  auto inputType = cast<ShapedType>(input.getType());
  auto weightType = cast<ShapedType>(weight.getType());
  auto rowType = cast<ShapedType>(row.second.getType());
  int64_t rank = inputType.getRank();
  bool ranksOk = (rank == 2 || rank == 3) && weightType.getRank() == 2 &&
                 rowType.getRank() == 1;
  for (auto [name, output] : outputs)
    ranksOk = ranksOk && cast<ShapedType>(output.getType()).getRank() == rank;
  if (!ranksOk) {
    InFlightDiagnostic diag = op->emitOpError() << "expects input";
    for (auto [name, output] : outputs)
      diag << ", " << name;
    return diag << " of rank 2 or 3, weight of rank 2 and " << row.first
                << " of rank 1";
  }
  auto compatible = [](int64_t a, int64_t b) {
    return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
  };
  ArrayRef<int64_t> in = inputType.getShape(), w = weightType.getShape();
  bool ok =
      compatible(in.back(), w[0]) && compatible(rowType.getShape()[0], w[1]);
  for (auto [name, output] : outputs) {
    ArrayRef<int64_t> out = cast<ShapedType>(output.getType()).getShape();
    ok = ok && compatible(out.back(), w[1]);
    for (int64_t i = 0; i + 1 < rank; ++i)
      ok = ok && compatible(in[i], out[i]);
  }
  if (!ok) {
    InFlightDiagnostic diag =
        op->emitOpError() << "input " << inputType << ", weight " << weightType
                          << ", " << row.first << " " << rowType;
    for (auto [name, output] : outputs)
      diag << ", " << name << " " << output.getType();
    return diag << " do not form [.., M, K] x [K, N] with [N] -> [.., M, N]";
  }
  return success();
}

LogicalResult MatmulBiasOp::verify() {
  if (failed(verifyKernelOperands(*this, {{"input", getInput()},
                                          {"weight", getWeight()},
                                          {"bias", getBias()},
                                          {"init", getInit()}})) ||
      failed(verifyGemmShapes(*this, getInput(), getWeight(),
                              {"bias", getBias()}, {{"init", getInit()}})))
    return failure();
  if (std::optional<ActivationKind> kind = getActivation();
      kind && *kind != ActivationKind::Relu &&
      *kind != ActivationKind::GeluApprox)
    return emitOpError() << "activation " << stringifyActivationKind(*kind)
                         << " is not a cuBLASLt epilogue (relu, gelu_approx)";
  return verifyKernelResults(*this, ValueRange{getInit()});
}

LogicalResult MatmulBiasGeluAuxOp::verify() {
  if (failed(verifyKernelOperands(*this, {{"input", getInput()},
                                          {"weight", getWeight()},
                                          {"bias", getBias()},
                                          {"init", getInit()},
                                          {"aux_init", getAuxInit()}})) ||
      failed(
          verifyGemmShapes(*this, getInput(), getWeight(), {"bias", getBias()},
                           {{"init", getInit()}, {"aux_init", getAuxInit()}})))
    return failure();
  return verifyKernelResults(*this, {getInit(), getAuxInit()});
}

LogicalResult MatmulDgeluOp::verify() {
  if (failed(verifyKernelOperands(*this,
                                  {{"input", getInput()},
                                   {"weight", getWeight()},
                                   {"pre_activation", getPreActivation()},
                                   {"init", getInit()},
                                   {"bias_grad_init", getBiasGradInit()}})) ||
      failed(verifyGemmShapes(
          *this, getInput(), getWeight(), {"bias_grad_init", getBiasGradInit()},
          {{"pre_activation", getPreActivation()}, {"init", getInit()}})))
    return failure();
  return verifyKernelResults(*this, {getInit(), getBiasGradInit()});
}

//===----------------------------------------------------------------------===//
// Row kernels
//===----------------------------------------------------------------------===//

/// Checks what the row kernels share beyond every kernel's: a rank >= 1
/// input, init (and `inputShaped` operands) of its shape, `[N]` vectors for
/// rows of `N`.
static LogicalResult
verifyRowKernel(Operation *op, ArrayRef<std::pair<StringRef, Value>> rowVectors,
                ArrayRef<std::pair<StringRef, Value>> inputShaped = {}) {
  Value input = op->getOperand(0), init = op->getOperands().back();
  SmallVector<std::pair<StringRef, Value>> operands = {{"input", input}};
  operands.append(rowVectors.begin(), rowVectors.end());
  operands.append(inputShaped.begin(), inputShaped.end());
  operands.push_back({"init", init});
  if (failed(verifyKernelOperands(op, operands)))
    return failure();
  auto inputType = cast<ShapedType>(input.getType());
  if (inputType.getRank() < 1)
    return op->emitOpError() << "needs an input of rank >= 1";
  SmallVector<std::pair<StringRef, Value>> sameShape(inputShaped);
  sameShape.push_back({"init", init});
  for (auto [name, value] : sameShape)
    if (failed(verifyCompatibleShape(value.getType(), inputType)))
      return op->emitOpError()
             << name << " " << value.getType()
             << " does not have the shape of input " << inputType;
  int64_t rowLength = inputType.getShape().back();
  for (auto [name, vector] : rowVectors) {
    auto type = cast<ShapedType>(vector.getType());
    if (type.getRank() != 1 ||
        failed(verifyCompatibleShape({rowLength}, type.getShape())))
      return op->emitOpError() << "expects [N] scale and shift vectors for "
                                  "rows of N, not "
                               << type << " for " << inputType;
  }
  return verifyKernelResults(op, ValueRange{init});
}

LogicalResult SoftmaxOp::verify() { return verifyRowKernel(*this, {}); }

LogicalResult NormOp::verify() {
  return verifyRowKernel(*this, {{"gamma", getGamma()}, {"beta", getBeta()}});
}

LogicalResult NormBackwardInputOp::verify() {
  return verifyRowKernel(*this, {{"gamma", getGamma()}}, {{"dy", getDy()}});
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

std::array<Value, 3> Conv2dOp::getConvolutionOperands() {
  return {getInput(), getFilter(), getInit()};
}

std::array<Value, 3> Conv2dBackwardDataOp::getConvolutionOperands() {
  return {getInit(), getFilter(), getOutputGrad()};
}

std::array<Value, 3> Conv2dBackwardFilterOp::getConvolutionOperands() {
  return {getInput(), getInit(), getOutputGrad()};
}

/// Checks what the three convolutions share: NCHW input, KCRS filter and
/// NKPQ output (or NHWC, KRSC and NPQK with `channels_last`) of one element
/// type, two-entry geometry attributes, groups
/// dividing both channel counts, and the output size of rlx.conv's rule
/// (where the extents are static).
template <typename ConvolutionOp>
static LogicalResult verifyConvolution(ConvolutionOp op) {
  auto [input, filter, output] = op.getConvolutionOperands();
  if (failed(verifyKernelOperands(
          op, {{"input", input}, {"filter", filter}, {"output", output}})))
    return failure();
  auto x = cast<ShapedType>(input.getType());
  auto w = cast<ShapedType>(filter.getType());
  auto y = cast<ShapedType>(output.getType());
  bool channelsLast = op.getChannelsLast();
  if (x.getRank() != 4 || w.getRank() != 4 || y.getRank() != 4)
    return op.emitOpError()
           << "takes " << (channelsLast ? "NHWC" : "NCHW") << " input, "
           << (channelsLast ? "KRSC" : "KCRS") << " filter and "
           << (channelsLast ? "NPQK" : "NKPQ") << " output of rank 4, not " << x
           << ", " << w << ", " << y;
  for (auto [name, values] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"stride", op.getStride()},
        {"padding", op.getPadding()},
        {"dilation", op.getDilation()}}) {
    if (values.size() != 2)
      return op.emitOpError()
             << name << " has " << values.size() << " entries, not 2 ([H, W])";
    int64_t least = name == "padding" ? 0 : 1;
    if (values[0] < least || values[1] < least)
      return op.emitOpError() << name << " entries must be at least " << least;
  }
  auto known = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b);
  };
  int64_t groups = op.getGroups();
  // The checks below read the logical NCHW / KCRS / NKPQ extents.
  auto logical = [&](ShapedType type) {
    ArrayRef<int64_t> shape = type.getShape();
    if (!channelsLast)
      return SmallVector<int64_t>(shape);
    return SmallVector<int64_t>{shape[0], shape[3], shape[1], shape[2]};
  };
  SmallVector<int64_t> xs = logical(x), ws = logical(w), ys = logical(y);
  if ((known(xs[0], ys[0]) && xs[0] != ys[0]) ||
      (known(ws[0], ys[1]) && ws[0] != ys[1]) ||
      (known(xs[1], ws[1]) && xs[1] != ws[1] * groups) ||
      (!ShapedType::isDynamic(ws[0]) && ws[0] % groups != 0))
    return op.emitOpError()
           << "input " << x << ", filter " << w << " and output " << y
           << " do not form a convolution of " << groups << " group(s)";
  for (int i = 0; i < 2; ++i) {
    int64_t in = xs[2 + i], kernel = ws[2 + i], out = ys[2 + i];
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel) ||
        ShapedType::isDynamic(out))
      continue;
    int64_t span = op.getDilation()[i] * (kernel - 1) + 1;
    int64_t expected =
        (in + 2 * op.getPadding()[i] - span) / op.getStride()[i] + 1;
    if (in + 2 * op.getPadding()[i] < span || expected != out)
      return op.emitOpError()
             << "output extent " << out << " along " << (i ? "W" : "H")
             << " is not the convolution's (input " << in << ", kernel "
             << kernel << ")";
  }
  return verifyKernelResults(op, ValueRange{op.getInit()});
}

LogicalResult Conv2dOp::verify() { return verifyConvolution(*this); }

LogicalResult Conv2dBackwardDataOp::verify() {
  return verifyConvolution(*this);
}

LogicalResult Conv2dBackwardFilterOp::verify() {
  return verifyConvolution(*this);
}

//===----------------------------------------------------------------------===//
// CollectiveOp
//===----------------------------------------------------------------------===//

LogicalResult CollectiveOp::verify() {
  StringRef name = getCollective();
  if (!llvm::is_contained({"all_reduce", "all_gather", "reduce_scatter",
                           "all_to_all", "broadcast", "reduce_to_root"},
                          name))
    return emitOpError() << "names '" << name
                         << "', which is not an rlx collective";
  bool combines = llvm::is_contained(
      {"all_reduce", "reduce_scatter", "reduce_to_root"}, name);
  if (combines != getKind().has_value())
    return emitOpError() << name << (combines ? " needs" : " takes no")
                         << " kind";
  auto input = cast<ShapedType>(getInput().getType());
  auto init = cast<ShapedType>(getInit().getType());
  if (isa<RankedTensorType>(input) != isa<RankedTensorType>(init))
    return emitOpError() << "operands are all tensors or all buffers";
  if (input.getElementType() != init.getElementType() ||
      input.getRank() != init.getRank())
    return emitOpError() << "input " << input << " and init " << init
                         << " differ in element type or rank";
  return verifyKernelResults(*this, ValueRange{getInit()});
}

//===----------------------------------------------------------------------===//
// QuantGemvOp
//===----------------------------------------------------------------------===//

LogicalResult QuantGemvOp::verify() {
  auto x = cast<ShapedType>(getX().getType());
  auto w = cast<ShapedType>(getWQ().getType());
  auto init = cast<ShapedType>(getInit().getType());
  if (isa<RankedTensorType>(x) != isa<RankedTensorType>(w) ||
      isa<RankedTensorType>(x) != isa<RankedTensorType>(init))
    return emitOpError() << "operands are all tensors or all buffers";
  QuantScheme scheme = getScheme();
  if (scheme != QuantScheme::GgufQ8_0 && scheme != QuantScheme::GgufQ4_0)
    return emitOpError() << "supports gguf_q8_0 and gguf_q4_0, not "
                         << stringifyQuantScheme(scheme);
  for (auto [name, type] :
       {std::pair<StringRef, ShapedType>{"x", x}, {"init", init}})
    if (!isa<Float32Type, Float16Type, BFloat16Type>(type.getElementType()))
      return emitOpError() << name << " has element type "
                           << type.getElementType()
                           << "; expected f32, f16 or bf16";
  if (!w.getElementType().isSignlessInteger(8))
    return emitOpError() << "w_q has element type " << w.getElementType()
                         << "; expected the packed bytes as i8";
  if (!x.hasStaticShape() || !w.hasStaticShape() || !init.hasStaticShape() ||
      x.getRank() != 2 || w.getRank() != 1 || init.getRank() != 2)
    return emitOpError() << "takes static x [M, K], w_q [bytes] and init "
                            "[M, N], not "
                         << x << ", " << w << " and " << init;
  int64_t rows = x.getDimSize(0), depth = x.getDimSize(1);
  int64_t columns = init.getDimSize(1);
  if (rows > kMaxRows || init.getDimSize(0) != rows)
    return emitOpError() << "x " << x << " and init " << init
                         << " need the same rows, at most " << kMaxRows;
  if (depth % 64 != 0)
    return emitOpError() << "K = " << depth << " is not a multiple of 64";
  GgufBlock block = *ggufBlock(scheme);
  // depth, a static dim, is far below 2^62; columns * rowBytes is checked.
  int64_t rowBytes = depth / block.elements * block.bytes;
  int64_t bytes;
  if (llvm::MulOverflow(columns, rowBytes, bytes) || bytes != w.getDimSize(0))
    return emitOpError() << "w_q has " << w.getDimSize(0) << " bytes, not "
                         << columns << " rows of " << rowBytes;
  return verifyKernelResults(*this, ValueRange{getInit()});
}
