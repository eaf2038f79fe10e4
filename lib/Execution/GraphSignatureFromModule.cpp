//===- GraphSignatureFromModule.cpp - a graph's signature from its IR -----===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/GraphSignature.h"

#include "rlx/Dialect/RLX/IR/OpCosts.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/YAMLParser.h"

using namespace mlir;
using namespace rlxrt;

static std::optional<DType> dtypeOf(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (auto complex = dyn_cast<ComplexType>(type))
    if (complex.getElementType().isF32())
      return DType::C64;
  if (auto intType = dyn_cast<IntegerType>(type)) {
    if (intType.getWidth() == 1)
      return DType::Bool;
    if (intType.isUnsigned())
      switch (intType.getWidth()) {
      case 8:
        return DType::U8;
      case 32:
        return DType::U32;
      default:
        return std::nullopt;
      }
    switch (intType.getWidth()) {
    case 8:
      return DType::I8;
    case 16:
      return DType::I16;
    case 32:
      return DType::I32;
    case 64:
      return DType::I64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Names travel in the signature's text form (docs/abi.md): one line per
/// tensor, fields separated by spaces, the whole NUL-terminated. A name
/// holding a space, a line break, another control character or NUL would
/// change the fields or lines of the library's signature, so such names are
/// rejected here, when the graph is compiled, rather than escaped.
static llvm::Error checkSignatureName(llvm::StringRef name,
                                      const llvm::Twine &what) {
  if (name.empty())
    return llvm::createStringError(what + " has an empty name");
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7f)
      return llvm::createStringError(
          what + " has the name '" + llvm::yaml::escape(name) +
          "', which holds a space or control character (byte 0x" +
          llvm::utohexstr(byte, /*LowerCase=*/true, /*Width=*/2) +
          "); names of graph leaves and results must be printable "
          "characters without spaces");
  }
  return llvm::Error::success();
}

/// The exclusive bound of the indices `op` reads from operand `index`, where
/// `op` takes indices there and the bound is static; 0 otherwise.
static int64_t indexBoundOfUse(Operation *op, Value index) {
  auto dim = [](Value value, int64_t axis) -> int64_t {
    auto type = cast<RankedTensorType>(value.getType());
    if (axis < 0)
      axis += type.getRank();
    if (axis < 0 || axis >= type.getRank() || type.isDynamicDim(axis))
      return 0;
    return type.getDimSize(axis);
  };
  if (auto gather = dyn_cast<rlx::GatherOp>(op))
    return gather.getIndices() == index
               ? dim(gather.getTable(), gather.getAxis())
               : 0;
  if (auto gather = dyn_cast<rlx::GatherBackwardOp>(op))
    return gather.getIndices() == index
               ? dim(gather.getResult(), gather.getAxis())
               : 0;
  if (auto loss = dyn_cast<rlx::SoftmaxCrossEntropyWithLogitsOp>(op))
    return loss.getLabels() == index ? dim(loss.getLogits(), 1) : 0;
  if (auto grad = dyn_cast<rlx::SoftmaxCrossEntropyBackwardOp>(op))
    return grad.getLabels() == index ? dim(grad.getLogits(), 1) : 0;
  if (auto scatter = dyn_cast<rlx::ScatterAddOp>(op))
    return scatter.getIndices() == index ? dim(scatter.getResult(), 0) : 0;
  if (auto grouped = dyn_cast<rlx::GroupedMatMulOp>(op))
    return grouped.getExpertIdx() == index ? dim(grouped.getWeight(), 0) : 0;
  return 0;
}

/// Sets `indexBound` of each integer argument that indexes something: the
/// smallest bound over its uses, followed through reshapes and casts
/// between integer types, so `--random-inputs` draws labels and indices in
/// range.
static void recordIndexBounds(func::FuncOp fn, GraphSignature &sig) {
  for (BlockArgument arg : fn.getArguments()) {
    if (!getElementTypeOrSelf(arg.getType()).isSignlessInteger() ||
        getElementTypeOrSelf(arg.getType()).isInteger(1))
      continue;
    int64_t bound = 0;
    SmallVector<Value> worklist = {arg};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (isa<rlx::ReshapeOp>(user) ||
            (isa<rlx::CastOp>(user) &&
             getElementTypeOrSelf(user->getResult(0).getType())
                 .isSignlessInteger())) {
          worklist.push_back(user->getResult(0));
          continue;
        }
        int64_t use = indexBoundOfUse(user, value);
        if (use > 0)
          bound = bound ? std::min(bound, use) : use;
      }
    }
    sig.arguments[arg.getArgNumber()].indexBound = bound;
  }
}

static llvm::Expected<TensorSpec> makeSpec(Type type, std::string name,
                                           TensorSpec::Kind kind) {
  TensorSpec spec;
  spec.name = std::move(name);
  spec.kind = kind;
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(spec.kindName() + " '" + spec.name + "' " +
                                   why);
  };
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType)
    return fail("is not a ranked tensor");
  std::optional<DType> dtype = dtypeOf(tensorType.getElementType());
  if (!dtype) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << tensorType.getElementType();
    return fail("has element type " + text +
                ", which a host tensor cannot hold");
  }
  spec.dtype = *dtype;
  for (int64_t dim : tensorType.getShape())
    spec.shape.push_back(ShapedType::isDynamic(dim) ? TensorSpec::kDynamicDim
                                                    : dim);
  return spec;
}

llvm::Expected<GraphSignature>
GraphSignature::fromModule(ModuleOp module, llvm::StringRef entry) {
  func::FuncOp fn;
  if (!entry.empty()) {
    fn = module.lookupSymbol<func::FuncOp>(entry);
    if (!fn || fn.isExternal())
      return llvm::createStringError("no graph function @" + entry +
                                     " in the module");
  } else {
    SmallVector<func::FuncOp> candidates;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        candidates.push_back(f);
    if (candidates.empty())
      return llvm::createStringError("the module has no public function to "
                                     "run");
    if (candidates.size() > 1) {
      std::string names;
      for (func::FuncOp f : candidates)
        names += (names.empty() ? "@" : ", @") + f.getName().str();
      return llvm::createStringError("the module has several graphs (" + names +
                                     "); choose one with --entry");
    }
    fn = candidates.front();
  }

  GraphSignature sig;
  sig.name = fn.getName().str();
  if (llvm::Error error = checkSignatureName(sig.name, "the graph function"))
    return std::move(error);
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::string name = "arg" + std::to_string(i);
    TensorSpec::Kind kind = TensorSpec::Kind::Unnamed;
    if (auto attr = fn.getArgAttrOfType<StringAttr>(
            i, rlx::RLXDialect::kInputAttrName)) {
      name = attr.getValue().str();
      kind = TensorSpec::Kind::Input;
    } else if (auto attr = fn.getArgAttrOfType<StringAttr>(
                   i, rlx::RLXDialect::kParamAttrName)) {
      name = attr.getValue().str();
      kind = fn.getArgAttr(i, rlx::RLXDialect::kStateAttrName)
                 ? TensorSpec::Kind::State
                 : TensorSpec::Kind::Param;
    }
    if (llvm::Error error = checkSignatureName(
            name, "argument " + llvm::Twine(i) + " of @" + sig.name))
      return std::move(error);
    llvm::Expected<TensorSpec> spec =
        makeSpec(fn.getArgumentTypes()[i], name, kind);
    if (!spec)
      return spec.takeError();
    sig.arguments.push_back(std::move(*spec));
  }
  for (auto [i, type] : llvm::enumerate(fn.getResultTypes())) {
    llvm::Expected<TensorSpec> spec =
        makeSpec(type, "output_" + std::to_string(i), TensorSpec::Kind::Result);
    if (!spec)
      return spec.takeError();
    // Read here: lowering drops the attribute (rlx-export-graph-functions).
    if (auto param = fn.getResultAttrOfType<StringAttr>(
            i, rlx::RLXDialect::kParamAttrName)) {
      if (llvm::Error error = checkSignatureName(
              param.getValue(),
              "the rlx.param of result " + llvm::Twine(i) + " of @" + sig.name))
        return std::move(error);
      spec->param = param.getValue().str();
    }
    sig.results.push_back(std::move(*spec));
  }
  // The GGUF type and row length each packed-weight argument is decoded
  // with, so that a GGUF file's tensor is checked against them.
  llvm::DenseMap<unsigned, std::pair<std::string, int64_t>> packedUses;
  llvm::DenseSet<unsigned> conflicting;
  auto recordPackedUse = [&](Value weight, rlx::QuantScheme quantScheme,
                             int64_t k) {
    auto arg = dyn_cast<BlockArgument>(weight);
    StringRef scheme = rlx::stringifyEnum(quantScheme);
    if (!arg || arg.getOwner() != &fn.getBody().front() ||
        !scheme.consume_front("gguf_"))
      return;
    std::pair<std::string, int64_t> use{scheme.str(),
                                        ShapedType::isDynamic(k) ? 0 : k};
    auto [it, inserted] = packedUses.try_emplace(arg.getArgNumber(), use);
    if (!inserted && it->second != use)
      conflicting.insert(arg.getArgNumber());
  };
  fn.walk([&](Operation *op) {
    if (auto matmul = dyn_cast<rlx::DequantMatMulOp>(op))
      recordPackedUse(matmul.getWQ(), matmul.getScheme(),
                      matmul.getX().getType().getDimSize(1));
    else if (auto grouped = dyn_cast<rlx::DequantGroupedMatMulOp>(op))
      recordPackedUse(grouped.getWeight(), grouped.getScheme(),
                      grouped.getInput().getType().getDimSize(1));
    else if (auto stack = dyn_cast<rlx::DequantMoEWeightsOp>(op))
      recordPackedUse(stack.getPacked(), stack.getScheme(),
                      stack.getType().getDimSize(1));
  });
  for (auto &[index, use] : packedUses) {
    if (conflicting.contains(index))
      continue;
    sig.arguments[index].packedType = use.first;
    sig.arguments[index].packedRowElements = use.second;
  }
  recordIndexBounds(fn, sig);
  fn.walk([&](Operation *op) {
    if (std::optional<double> flops = rlx::estimateFlops(op))
      sig.flops += *flops;
  });
  return sig;
}
