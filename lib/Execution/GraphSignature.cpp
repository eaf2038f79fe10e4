//===- GraphSignature.cpp - the interface of a graph to run ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/GraphSignature.h"

#include "llvm/ADT/STLExtras.h"

using namespace rlxrt;

std::string TensorSpec::describe() const {
  std::string dims = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    dims +=
        (i ? ", " : "") +
        (shape[i] == kDynamicDim ? std::string("?") : std::to_string(shape[i]));
  return dims + "] " + dtypeName(dtype);
}

bool TensorSpec::isDynamic() const {
  return llvm::is_contained(shape, kDynamicDim);
}

bool GraphSignature::returnsOutputs() const {
  return llvm::any_of(results,
                      [](const TensorSpec &spec) { return spec.isDynamic(); });
}

std::string TensorSpec::kindName() const {
  switch (kind) {
  case Kind::Input:
    return "input";
  case Kind::Param:
    return "parameter";
  case Kind::State:
    return "state";
  case Kind::Unnamed:
    return "argument";
  case Kind::Result:
    return "output";
  }
  return "tensor";
}

llvm::Error TensorSpec::checkMatches(const HostTensor &tensor,
                                     llvm::StringRef source) const {
  auto dimMatches = [](int64_t expected, int64_t actual) {
    return expected == kDynamicDim || expected == actual;
  };
  if (tensor.dtype() == dtype && tensor.shape().size() == shape.size() &&
      llvm::all_of(llvm::zip_equal(shape, tensor.shape()), [&](auto dims) {
        return dimMatches(std::get<0>(dims), std::get<1>(dims));
      }))
    return llvm::Error::success();
  return llvm::createStringError(
      "tensor '" + name + "' " +
      (source.empty() ? "" : "from " + source + " ") + "is " +
      tensor.describe() + ", the graph expects " + describe());
}

llvm::Error TensorSpec::checkMatches(const ParamTensor &param,
                                     llvm::StringRef source) const {
  if (param.packedType.empty())
    return checkMatches(param.tensor, source);
  const HostTensor &tensor = param.tensor;
  std::string what =
      "tensor '" + name + "' " +
      (source.empty() ? "" : "from " + source.str() + " ") + "is GGUF " +
      param.packedType + " " + formatDims(param.packedDims) + " (" +
      std::to_string(tensor.numElements()) + " bytes of packed blocks)";
  if (dtype != DType::U8 || shape.size() != 1)
    return llvm::createStringError(
        what + ", the graph expects " + describe() +
        "; a quantized GGUF tensor binds only to a ui8 [bytes] argument "
        "(the packed weight of rlx.dequant_matmul and the MoE ops)");
  if (!packedType.empty() && packedType != param.packedType)
    return llvm::createStringError(what + ", the graph decodes it as gguf_" +
                                   packedType);
  if (packedRowElements &&
      (param.packedDims.empty() || param.packedDims[0] != packedRowElements))
    return llvm::createStringError(
        what +
        ", the graph reads rows of K = " + std::to_string(packedRowElements) +
        " elements (the GGUF tensor's first, innermost dim)");
  if (shape[0] != tensor.numElements())
    return llvm::createStringError(what + ", the graph expects " + describe());
  return llvm::Error::success();
}

llvm::Expected<HostTensor> TensorSpec::allocate() const {
  if (isDynamic())
    return llvm::createStringError(
        kindName() + " '" + name + "' is " + describe() +
        ": a `?` dim has no size before the graph runs");
  std::string error;
  std::optional<HostTensor> tensor = HostTensor::create(dtype, shape, error);
  if (!tensor)
    return llvm::createStringError(kindName() + " '" + name + "': " + error);
  return std::move(*tensor);
}

std::optional<size_t>
GraphSignature::findArgumentIndex(llvm::StringRef name) const {
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].name == name)
      return i;
  return std::nullopt;
}

const TensorSpec *GraphSignature::findArgument(llvm::StringRef name) const {
  std::optional<size_t> index = findArgumentIndex(name);
  return index ? &arguments[*index] : nullptr;
}

std::string GraphSignature::argumentNames() const {
  std::string names;
  for (const TensorSpec &spec : arguments)
    names += (names.empty() ? "" : ", ") + spec.name;
  return names;
}

std::string GraphSignature::serialize() const {
  std::string text = "graph " + name + "\n";
  if (flops > 0)
    text += "flops " + std::to_string(static_cast<int64_t>(flops)) + "\n";
  auto line = [&](const TensorSpec &spec) {
    text +=
        spec.kindName() + " " + spec.name + " " + dtypeName(spec.dtype) + " ";
    for (size_t i = 0; i < spec.shape.size(); ++i)
      text += (i ? "," : "") + (spec.shape[i] == TensorSpec::kDynamicDim
                                    ? std::string("?")
                                    : std::to_string(spec.shape[i]));
    if (!spec.param.empty())
      text += " param=" + spec.param;
    if (spec.indexBound > 0)
      text += " bound=" + std::to_string(spec.indexBound);
    text += "\n";
  };
  for (const TensorSpec &spec : arguments)
    line(spec);
  for (const TensorSpec &spec : results)
    line(spec);
  return text;
}

llvm::Expected<GraphSignature> GraphSignature::parse(llvm::StringRef text) {
  GraphSignature sig;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError("malformed graph signature: " + why);
  };
  if (lines.empty() || !lines.front().starts_with("graph "))
    return fail("missing the 'graph NAME' line");
  sig.name = lines.front().drop_front(6).str();
  for (llvm::StringRef line : llvm::drop_begin(lines)) {
    if (line.consume_front("flops ")) {
      int64_t flops;
      if (line.getAsInteger(10, flops) || flops < 0)
        return fail("bad flops count '" + line + "'");
      sig.flops = static_cast<double>(flops);
      continue;
    }
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ' ', -1, /*KeepEmpty=*/true);
    if (fields.size() < 4 || fields.size() > 6)
      return fail("expected 'KIND NAME DTYPE DIMS [param=PARAM] "
                  "[bound=N]', got '" +
                  line + "'");
    TensorSpec spec;
    spec.name = fields[1].str();
    for (llvm::StringRef field : llvm::drop_begin(fields, 4)) {
      if (field.consume_front("param=")) {
        if (fields[0] != "output" || field.empty() || !spec.param.empty())
          return fail("expected one 'param=PARAM' on an output, got '" +
                      line + "'");
        spec.param = field.str();
      } else if (field.consume_front("bound=")) {
        if (fields[0] == "output" || spec.indexBound != 0 ||
            field.getAsInteger(10, spec.indexBound) || spec.indexBound <= 0)
          return fail("expected one 'bound=N' (N > 0) on an argument, got '" +
                      line + "'");
      } else {
        return fail("unknown field '" + field + "' in '" + line + "'");
      }
    }
    if (fields[0] == "input")
      spec.kind = TensorSpec::Kind::Input;
    else if (fields[0] == "parameter")
      spec.kind = TensorSpec::Kind::Param;
    else if (fields[0] == "state")
      spec.kind = TensorSpec::Kind::State;
    else if (fields[0] == "argument")
      spec.kind = TensorSpec::Kind::Unnamed;
    else if (fields[0] == "output")
      spec.kind = TensorSpec::Kind::Result;
    else
      return fail("unknown kind '" + fields[0] + "'");
    std::optional<DType> dtype = parseDTypeName(fields[2].str());
    if (!dtype)
      return fail("unknown dtype '" + fields[2] + "'");
    spec.dtype = *dtype;
    llvm::SmallVector<llvm::StringRef> dims;
    fields[3].split(dims, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef dim : dims) {
      if (dim == "?") {
        spec.shape.push_back(TensorSpec::kDynamicDim);
        continue;
      }
      int64_t size;
      if (dim.getAsInteger(10, size) || size < 0)
        return fail("bad dim '" + dim + "'");
      spec.shape.push_back(size);
    }
    (spec.kind == TensorSpec::Kind::Result ? sig.results : sig.arguments)
        .push_back(std::move(spec));
  }
  return sig;
}
