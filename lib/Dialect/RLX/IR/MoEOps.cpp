//===- MoEOps.cpp - quantized matmuls and mixture of experts --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Dialect/RLX/IR/ConvGeometry.h"
#include "rlx/Dialect/RLX/IR/GgufBlock.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rlx;

void RLXDialect::registerMoEOps() {
  addOperations<
#define GET_OP_LIST
#include "rlx/Dialect/RLX/IR/RLXMoEOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Quantization scheme facts
//===----------------------------------------------------------------------===//

std::optional<GgufBlock> rlx::ggufBlock(QuantScheme scheme) {
  switch (scheme) {
  case QuantScheme::GgufQ4_0:
    return GgufBlock{32, 18};
  case QuantScheme::GgufQ4_1:
    return GgufBlock{32, 20};
  case QuantScheme::GgufQ5_0:
    return GgufBlock{32, 22};
  case QuantScheme::GgufQ5_1:
    return GgufBlock{32, 24};
  case QuantScheme::GgufQ8_0:
    return GgufBlock{32, 34};
  case QuantScheme::GgufQ2K:
    return GgufBlock{256, 84};
  case QuantScheme::GgufQ3K:
    return GgufBlock{256, 110};
  case QuantScheme::GgufQ4K:
    return GgufBlock{256, 144};
  case QuantScheme::GgufQ5K:
    return GgufBlock{256, 176};
  case QuantScheme::GgufQ6K:
    return GgufBlock{256, 210};
  case QuantScheme::GgufQ8K:
    return GgufBlock{256, 292};
  case QuantScheme::GgufIQ4NL:
    return GgufBlock{32, 18};
  case QuantScheme::GgufIQ4XS:
    return GgufBlock{256, 136};
  case QuantScheme::GgufIQ2XXS:
    return GgufBlock{256, 66};
  case QuantScheme::GgufIQ2XS:
    return GgufBlock{256, 74};
  case QuantScheme::GgufIQ2S:
    return GgufBlock{256, 82};
  case QuantScheme::GgufIQ3XXS:
    return GgufBlock{256, 98};
  case QuantScheme::GgufIQ3S:
    return GgufBlock{256, 110};
  case QuantScheme::GgufIQ1S:
    return GgufBlock{256, 50};
  case QuantScheme::GgufIQ1M:
    return GgufBlock{256, 56};
  case QuantScheme::GgufTQ1_0:
    return GgufBlock{256, 54};
  case QuantScheme::GgufTQ2_0:
    return GgufBlock{256, 66};
  case QuantScheme::GgufMXFP4:
    return GgufBlock{32, 17};
  case QuantScheme::GgufNVFP4:
    return GgufBlock{64, 36};
  case QuantScheme::Int8Block:
  case QuantScheme::Int8BlockAsym:
  case QuantScheme::Int4Block:
  case QuantScheme::Fp8E4M3:
  case QuantScheme::Fp8E5M2:
  case QuantScheme::Nvfp4Block:
    return std::nullopt;
  }
  llvm_unreachable("unknown quant scheme");
}

/// Schemes whose scales are shared by `block_size` consecutive K elements.
static bool hasBlockSize(QuantScheme scheme) {
  return scheme == QuantScheme::Int8Block ||
         scheme == QuantScheme::Int8BlockAsym ||
         scheme == QuantScheme::Int4Block;
}

/// Group size of NVFP4 block scales along K.
static constexpr int64_t kNvfp4Group = 16;

static int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/// The element count of `shape`; dynamic when a dim is, or when the count
/// overflows int64 (the verifier reports such a weight).
static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (ShapedType::isDynamic(d) || llvm::MulOverflow(n, d, n))
      return ShapedType::kDynamic;
  return n;
}

/// Checks `K` against a GGUF block and returns the bytes of one row of `K`
/// elements, or 0 when `K` is dynamic.
static FailureOr<int64_t> ggufRowBytes(Operation *op, QuantScheme scheme,
                                       GgufBlock block, int64_t k) {
  if (ShapedType::isDynamic(k))
    return int64_t(0);
  if (k <= 0 || k % block.elements != 0)
    return op->emitOpError()
           << "scheme '" << stringifyEnum(scheme)
           << "' quantizes K in blocks of " << block.elements
           << " elements, but K = " << k << " is not a positive multiple of "
           << block.elements;
  return k / block.elements * block.bytes;
}

//===----------------------------------------------------------------------===//
// DequantMatMulOp
//===----------------------------------------------------------------------===//

LogicalResult
DequantMatMulOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferredReturnTypes) {
  Type f32 = Float32Type::get(context);
  auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto wType = dyn_cast<RankedTensorType>(adaptor.getWQ().getType());
  int64_t m = ShapedType::kDynamic, k = ShapedType::kDynamic;
  if (xType && xType.getRank() == 2) {
    m = xType.getDimSize(0);
    k = xType.getDimSize(1);
  }
  int64_t n = ShapedType::kDynamic;
  QuantSchemeAttr schemeAttr =
      inferenceAttr(adaptor.getSchemeAttr(), adaptor.getAttributes(), "scheme");
  if (wType && schemeAttr) {
    QuantScheme scheme = schemeAttr.getValue();
    if (std::optional<GgufBlock> block = ggufBlock(scheme)) {
      int64_t bytes = product(wType.getShape());
      if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(bytes) && k > 0 &&
          k % block->elements == 0) {
        int64_t rowBytes = k / block->elements * block->bytes;
        if (bytes % rowBytes == 0)
          n = bytes / rowBytes;
      }
    } else if (wType.getRank() == 2) {
      n = wType.getDimSize(1);
      bool nibbles =
          scheme == QuantScheme::Int4Block || scheme == QuantScheme::Nvfp4Block;
      // Two values per byte; a count too large for 64 bits stays unknown
      // here and is the verifier's error.
      if (nibbles && !ShapedType::isDynamic(n) &&
          llvm::MulOverflow(n, int64_t(2), n))
        n = ShapedType::kDynamic;
    }
  }
  inferredReturnTypes.push_back(RankedTensorType::get({m, n}, f32));
  return success();
}

LogicalResult DequantMatMulOp::verify() {
  QuantScheme scheme = getScheme();
  StringRef name = stringifyEnum(scheme);
  ArrayRef<int64_t> x = getX().getType().getShape();
  RankedTensorType wType = getWQ().getType();
  ArrayRef<int64_t> w = wType.getShape();
  Type wElement = wType.getElementType();
  if (x.size() != 2)
    return emitOpError() << "x must have rank 2 ([M, K]), got "
                         << formatShape(x);
  int64_t k = x[1];

  // block_size belongs to the three block schemes.
  std::optional<int64_t> blockSize = getBlockSize();
  if (hasBlockSize(scheme)) {
    if (!blockSize)
      return emitOpError() << "scheme '" << name
                           << "' requires a block_size attribute";
  } else if (blockSize) {
    return emitOpError() << "scheme '" << name
                         << "' takes no block_size attribute";
  }

  // Which side operands the scheme takes.
  bool gguf = ggufBlock(scheme).has_value();
  bool wantsScale = !gguf;
  bool allowsZeroPoint = hasBlockSize(scheme);
  bool needsZeroPoint = scheme == QuantScheme::Int8BlockAsym;
  bool needsGlobalScale = scheme == QuantScheme::Nvfp4Block;
  StringRef why = gguf ? " (GGUF scales live inside the packed bytes)" : "";
  if (wantsScale && !getScale())
    return emitOpError() << "scheme '" << name << "' requires a scale operand";
  if (!wantsScale && getScale())
    return emitOpError() << "scheme '" << name << "' takes no scale operand"
                         << why;
  if (needsZeroPoint && !getZeroPoint())
    return emitOpError() << "scheme '" << name
                         << "' requires a zero_point operand";
  if (!allowsZeroPoint && getZeroPoint())
    return emitOpError() << "scheme '" << name
                         << "' takes no zero_point operand" << why;
  if (needsGlobalScale && !getGlobalScale())
    return emitOpError() << "scheme '" << name
                         << "' requires a global_scale operand";
  if (!needsGlobalScale && getGlobalScale())
    return emitOpError() << "scheme '" << name
                         << "' takes no global_scale operand" << why;

  // The packed weight.
  if (std::optional<GgufBlock> block = ggufBlock(scheme)) {
    if (!wElement.isUnsignedInteger(8) || w.size() != 1)
      return emitOpError() << "scheme '" << name
                           << "' takes w_q as packed ui8 bytes [bytes], got "
                           << wType;
    FailureOr<int64_t> rowBytes = ggufRowBytes(*this, scheme, *block, k);
    if (failed(rowBytes))
      return failure();
    if (*rowBytes && !ShapedType::isDynamic(w[0]) && w[0] % *rowBytes != 0)
      return emitOpError() << "w_q has " << w[0]
                           << " bytes, not a whole number of rows of K = " << k
                           << " elements (" << *rowBytes << " bytes each)";
    return success();
  }

  Type expected;
  bool nibbles = false;
  Builder b(getContext());
  switch (scheme) {
  case QuantScheme::Int8Block:
  case QuantScheme::Int8BlockAsym:
    expected = b.getIntegerType(8);
    break;
  case QuantScheme::Int4Block:
  case QuantScheme::Nvfp4Block:
    expected = b.getIntegerType(8, /*isSigned=*/false);
    nibbles = true;
    break;
  case QuantScheme::Fp8E4M3:
    expected = b.getType<Float8E4M3FNType>();
    break;
  case QuantScheme::Fp8E5M2:
    expected = b.getType<Float8E5M2Type>();
    break;
  default:
    llvm_unreachable("GGUF schemes handled above");
  }
  if (wElement != expected)
    return emitOpError() << "scheme '" << name << "' expects w_q elements of "
                         << expected << ", got " << wElement;
  if (w.size() != 2)
    return emitOpError() << "w_q must have rank 2 ("
                         << (nibbles ? "[K, N/2]" : "[K, N]") << "), got "
                         << formatShape(w);
  if (!dimsCompatible(w[0], k))
    return emitOpError() << "contraction dims differ: x " << formatShape(x)
                         << " has K = " << k << " but w_q " << formatShape(w)
                         << " has K = " << w[0];
  int64_t n = w[1];
  if (nibbles && !ShapedType::isDynamic(n) &&
      llvm::MulOverflow(n, int64_t(2), n))
    return emitOpError() << "w_q " << formatShape(w)
                         << " holds two values per element: N = 2 * " << w[1]
                         << " overflows 64 bits";

  // Side operands.
  auto scaleType = cast<RankedTensorType>(getScale().getType());
  SmallVector<int64_t> scaleShape;
  Type scaleElement = b.getF32Type();
  if (hasBlockSize(scheme)) {
    int64_t blocks = ShapedType::isDynamic(k) ? ShapedType::kDynamic
                                              : ceilDiv(k, *blockSize);
    scaleShape = {blocks, n};
  } else if (scheme == QuantScheme::Nvfp4Block) {
    if (!ShapedType::isDynamic(k) && k % kNvfp4Group != 0)
      return emitOpError() << "scheme 'nvfp4_block' groups K in blocks of "
                           << kNvfp4Group << ", but K = " << k
                           << " is not a multiple of " << kNvfp4Group;
    int64_t groups =
        ShapedType::isDynamic(k) ? ShapedType::kDynamic : k / kNvfp4Group;
    scaleShape = {groups, n};
    scaleElement = b.getIntegerType(8, /*isSigned=*/false);
  } else {
    scaleShape = {n};
  }
  auto checkSide = [&](StringRef side, RankedTensorType type,
                       ArrayRef<int64_t> shape, Type element) -> LogicalResult {
    ArrayRef<int64_t> actual = type.getShape();
    bool shapeOk =
        actual.size() == shape.size() &&
        llvm::all_of(llvm::zip(actual, shape), [](auto pair) {
          return dimsCompatible(std::get<0>(pair), std::get<1>(pair));
        });
    if (!shapeOk)
      return emitOpError() << side << " must have shape " << formatShape(shape)
                           << " for scheme '" << name << "', got "
                           << formatShape(actual);
    if (type.getElementType() != element)
      return emitOpError() << side << " of scheme '" << name << "' must have "
                           << element << " elements, got "
                           << type.getElementType();
    return success();
  };
  if (failed(checkSide("scale", scaleType, scaleShape, scaleElement)))
    return failure();
  if (Value zp = getZeroPoint())
    if (failed(checkSide("zero_point", cast<RankedTensorType>(zp.getType()),
                         scaleShape, b.getF32Type())))
      return failure();
  if (Value global = getGlobalScale())
    if (failed(checkSide("global_scale",
                         cast<RankedTensorType>(global.getType()), {1},
                         b.getF32Type())))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// QMatMulOp / QConv2dOp
//===----------------------------------------------------------------------===//

LogicalResult
QMatMulOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
  int64_t m = xType && xType.getRank() == 2 ? xType.getDimSize(0)
                                            : ShapedType::kDynamic;
  int64_t n = wType && wType.getRank() == 2 ? wType.getDimSize(1)
                                            : ShapedType::kDynamic;
  inferredReturnTypes.push_back(
      RankedTensorType::get({m, n}, IntegerType::get(context, 8)));
  return success();
}

LogicalResult QMatMulOp::verify() {
  ArrayRef<int64_t> x = getX().getType().getShape();
  ArrayRef<int64_t> w = getW().getType().getShape();
  ArrayRef<int64_t> bias = getBias().getType().getShape();
  if (x.size() != 2)
    return emitOpError() << "x must have rank 2 ([M, K]), got "
                         << formatShape(x);
  if (w.size() != 2)
    return emitOpError() << "w must have rank 2 ([K, N]), got "
                         << formatShape(w);
  if (!dimsCompatible(x[1], w[0]))
    return emitOpError() << "contraction dims differ: x " << formatShape(x)
                         << " has K = " << x[1] << " but w " << formatShape(w)
                         << " has K = " << w[0];
  if (bias.size() != 1 || !dimsCompatible(bias[0], w[1]))
    return emitOpError() << "bias must have shape " << formatShape({w[1]})
                         << " ([N]), got " << formatShape(bias);
  return success();
}

/// H_out of a convolution; dynamic when `in` is, computed without overflow
/// (conv_geometry::slidingOutputSize).
static int64_t convOutSize(int64_t in, int64_t kernel, int64_t stride,
                           int64_t pad, int64_t dilation) {
  return conv_geometry::slidingOutputSize(in, kernel, stride, pad, dilation);
}

LogicalResult
QConv2dOp::inferReturnTypes(MLIRContext *context, std::optional<Location>,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  auto xType = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto wType = dyn_cast<RankedTensorType>(adaptor.getW().getType());
  SmallVector<int64_t> shape(4, ShapedType::kDynamic);
  auto arrayOf = [&](DenseI64ArrayAttr attr, StringRef name) {
    attr = inferenceAttr(attr, adaptor.getAttributes(), name);
    return attr ? attr.asArrayRef() : ArrayRef<int64_t>();
  };
  ArrayRef<int64_t> kernel =
      arrayOf(adaptor.getKernelSizeAttr(), "kernel_size");
  ArrayRef<int64_t> stride = arrayOf(adaptor.getStrideAttr(), "stride");
  ArrayRef<int64_t> padding = arrayOf(adaptor.getPaddingAttr(), "padding");
  ArrayRef<int64_t> dilation = arrayOf(adaptor.getDilationAttr(), "dilation");
  if (xType && xType.getRank() == 4) {
    shape[0] = xType.getDimSize(0);
    if (kernel.size() == 2 && stride.size() == 2 && padding.size() == 2 &&
        dilation.size() == 2)
      for (int i = 0; i < 2; ++i) {
        int64_t size = convOutSize(xType.getDimSize(2 + i), kernel[i],
                                   stride[i], padding[i], dilation[i]);
        shape[2 + i] =
            !ShapedType::isDynamic(size) &&
                    (size <= 0 || size == conv_geometry::kOverflowingExtent)
                ? ShapedType::kDynamic
                : size;
      }
  }
  if (wType && wType.getRank() == 4)
    shape[1] = wType.getDimSize(0);
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 8)));
  return success();
}

LogicalResult QConv2dOp::verify() {
  ArrayRef<int64_t> x = getX().getType().getShape();
  ArrayRef<int64_t> w = getW().getType().getShape();
  ArrayRef<int64_t> bias = getBias().getType().getShape();
  if (x.size() != 4)
    return emitOpError() << "x must have rank 4 ([N, C_in, H, W]), got "
                         << formatShape(x);
  if (w.size() != 4)
    return emitOpError()
           << "w must have rank 4 ([C_out, C_in/groups, kH, kW]), got "
           << formatShape(w);
  for (auto [name, values] :
       {std::pair{"kernel_size", getKernelSize()},
        std::pair{"stride", getStride()}, std::pair{"padding", getPadding()},
        std::pair{"dilation", getDilation()}})
    if (values.size() != 2)
      return emitOpError() << name << " must have 2 entries [h, w], got "
                           << values.size();
  ArrayRef<int64_t> kernel = getKernelSize();
  ArrayRef<int64_t> stride = getStride();
  ArrayRef<int64_t> padding = getPadding();
  ArrayRef<int64_t> dilation = getDilation();
  if (!dimsCompatible(w[2], kernel[0]) || !dimsCompatible(w[3], kernel[1]))
    return emitOpError() << "kernel_size " << formatShape(kernel)
                         << " differs from the spatial dims of w "
                         << formatShape(w);
  int64_t groups = getGroups();
  int64_t cIn = x[1], cOut = w[0];
  if (!ShapedType::isDynamic(cIn) && cIn % groups != 0)
    return emitOpError() << "groups = " << groups
                         << " does not divide C_in = " << cIn;
  if (!ShapedType::isDynamic(cOut) && cOut % groups != 0)
    return emitOpError() << "groups = " << groups
                         << " does not divide C_out = " << cOut;
  if (!ShapedType::isDynamic(cIn) && !dimsCompatible(w[1], cIn / groups))
    return emitOpError() << "w " << formatShape(w) << " has " << w[1]
                         << " input channels per group, expected C_in / "
                            "groups = "
                         << cIn / groups;
  if (bias.size() != 1 || !dimsCompatible(bias[0], cOut))
    return emitOpError() << "bias must have shape " << formatShape({cOut})
                         << " ([C_out]), got " << formatShape(bias);
  for (int i = 0; i < 2; ++i) {
    int64_t size =
        convOutSize(x[2 + i], kernel[i], stride[i], padding[i], dilation[i]);
    if (!ShapedType::isDynamic(size) && size <= 0)
      return emitOpError() << "the window does not fit: input "
                           << formatShape(x) << " gives output "
                           << (i == 0 ? "height " : "width ") << size;
    if (size == conv_geometry::kOverflowingExtent)
      return emitOpError() << "output " << (i == 0 ? "height" : "width")
                           << " overflows 64 bits: input " << formatShape(x)
                           << " with kernel_size " << formatShape(kernel)
                           << ", stride " << formatShape(stride) << ", padding "
                           << formatShape(padding) << ", dilation "
                           << formatShape(dilation);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GroupedMatMulOp
//===----------------------------------------------------------------------===//

LogicalResult
GroupedMatMulOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferredReturnTypes) {
  auto inType = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto wType = dyn_cast<RankedTensorType>(adaptor.getWeight().getType());
  if (!inType || !wType) {
    inferredReturnTypes.push_back(adaptor.getInput().getType());
    return success();
  }
  int64_t m =
      inType.getRank() == 2 ? inType.getDimSize(0) : ShapedType::kDynamic;
  int64_t n = wType.getRank() == 3 ? wType.getDimSize(2) : ShapedType::kDynamic;
  inferredReturnTypes.push_back(
      RankedTensorType::get({m, n}, inType.getElementType()));
  return success();
}

/// `input [M, K]` and `expert_idx [M]` of the grouped matmuls.
static LogicalResult verifyRouting(Operation *op, ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> idx) {
  if (input.size() != 2)
    return op->emitOpError()
           << "input must have rank 2 ([M, K]), got " << formatShape(input);
  if (idx.size() != 1 || !dimsCompatible(idx[0], input[0]))
    return op->emitOpError()
           << "expert_idx must have shape " << formatShape({input[0]})
           << " (one expert per input row), got " << formatShape(idx);
  return success();
}

LogicalResult GroupedMatMulOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> weight = getWeight().getType().getShape();
  if (failed(verifyRouting(*this, input, getExpertIdx().getType().getShape())))
    return failure();
  if (weight.size() != 3)
    return emitOpError() << "weight must have rank 3 ([E, K, N]), got "
                         << formatShape(weight);
  if (!dimsCompatible(input[1], weight[1]))
    return emitOpError() << "contraction dims differ: input "
                         << formatShape(input) << " has K = " << input[1]
                         << " but weight " << formatShape(weight)
                         << " has K = " << weight[1];
  return success();
}

//===----------------------------------------------------------------------===//
// DequantGroupedMatMulOp / DequantMoEWeightsOp
//===----------------------------------------------------------------------===//

/// Requires a GGUF scheme and returns its block geometry.
static FailureOr<GgufBlock> requireGguf(Operation *op, QuantScheme scheme) {
  std::optional<GgufBlock> block = ggufBlock(scheme);
  if (!block)
    return op->emitOpError() << "scheme '" << stringifyEnum(scheme)
                             << "' is not supported: expert slabs are "
                                "GGUF-packed, use a gguf_* scheme";
  return *block;
}

/// Checks that `packed [bytes]` holds a whole number of slabs of `n` rows of
/// `k` elements (`experts` slabs when it is known).
static LogicalResult verifySlabs(Operation *op, QuantScheme scheme,
                                 GgufBlock block, ArrayRef<int64_t> packed,
                                 int64_t k, int64_t n,
                                 std::optional<int64_t> experts) {
  if (packed.size() != 1)
    return op->emitOpError() << "packed weight must have rank 1 ([bytes]), got "
                             << formatShape(packed);
  FailureOr<int64_t> rowBytes = ggufRowBytes(op, scheme, block, k);
  if (failed(rowBytes))
    return failure();
  if (!*rowBytes || ShapedType::isDynamic(n) ||
      ShapedType::isDynamic(packed[0]))
    return success();
  // Sizes from attributes and types may be huge: checked products, an
  // overflow being a size no buffer has.
  std::optional<int64_t> slab = llvm::checkedMul(*rowBytes, n);
  if (!slab)
    return op->emitOpError()
           << "an expert slab of N = " << n << " rows of K = " << k
           << " elements (" << *rowBytes
           << " bytes each) overflows a 64-bit byte count";
  if (experts && !ShapedType::isDynamic(*experts)) {
    std::optional<int64_t> total = llvm::checkedMul(*experts, *slab);
    if (!total || packed[0] != *total) {
      InFlightDiagnostic diag =
          op->emitOpError()
          << "packed weight has " << packed[0] << " bytes, expected E * N * "
          << "(K / " << block.elements << ") * " << block.bytes << " = ";
      if (total)
        diag << *total;
      else
        diag << "more than 2^63 - 1";
      return diag << " for E = " << *experts << ", K = " << k << ", N = " << n;
    }
    return success();
  }
  if (*slab == 0 || packed[0] % *slab != 0 || packed[0] == 0)
    return op->emitOpError()
           << "packed weight has " << packed[0]
           << " bytes, not a positive whole number of expert slabs of " << *slab
           << " bytes (N = " << n << " rows of K = " << k << ")";
  return success();
}

LogicalResult DequantGroupedMatMulOp::verify() {
  FailureOr<GgufBlock> block = requireGguf(*this, getScheme());
  if (failed(block))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> result = getResult().getType().getShape();
  if (failed(verifyRouting(*this, input, getExpertIdx().getType().getShape())))
    return failure();
  if (result.size() != 2 || !dimsCompatible(result[0], input[0]))
    return emitOpError() << "result must have shape [" << input[0]
                         << ", N] (M rows of input), got "
                         << formatShape(result);
  return verifySlabs(*this, getScheme(), *block,
                     getWeight().getType().getShape(), input[1], result[1],
                     std::nullopt);
}

LogicalResult DequantMoEWeightsOp::verify() {
  FailureOr<GgufBlock> block = requireGguf(*this, getScheme());
  if (failed(block))
    return failure();
  ArrayRef<int64_t> result = getResult().getType().getShape();
  if (result.size() != 3)
    return emitOpError() << "result must have rank 3 ([E, K, N]), got "
                         << formatShape(result);
  return verifySlabs(*this, getScheme(), *block,
                     getPacked().getType().getShape(), result[1], result[2],
                     result[0]);
}

//===----------------------------------------------------------------------===//
// Generated op definitions
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "rlx/Dialect/RLX/IR/RLXMoEOps.cpp.inc"
