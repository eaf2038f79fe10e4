//===- GraphSignature.cpp - the interface of a graph to run ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/GraphSignature.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

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
          return fail("expected one 'param=PARAM' on an output, got '" + line +
                      "'");
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

namespace {
/// 'RLXABI01' read as a little-endian word: the record's format. A change
/// of the layout below takes a new tag, so an older loader rejects it.
constexpr uint64_t kABIRecordTag = 0x3130494241584c52ull;
/// The words before the per-tensor ones: tag, word count, the checksums of
/// the signature and the profile labels, argument and result counts.
constexpr size_t kABIHeaderWords = 6;
constexpr size_t kABIWordsPerTensor = 3;
/// Elements of a tensor with a `?` dim.
constexpr uint64_t kABIDynamicElements = ~0ull;

/// 64-bit FNV-1a: detects an edited or damaged text; not a defence against
/// someone who rewrites the library (its code runs when it is loaded).
uint64_t checksum(llvm::StringRef text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char byte : text.bytes()) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

/// Elements of `spec`, kABIDynamicElements with a `?` dim, wrapping like
/// the compiled code (the record only compares them).
uint64_t elementsOf(const TensorSpec &spec) {
  uint64_t elements = 1;
  for (int64_t dim : spec.shape) {
    if (dim == TensorSpec::kDynamicDim)
      return kABIDynamicElements;
    elements *= static_cast<uint64_t>(dim);
  }
  return elements;
}
} // namespace

std::vector<uint64_t> rlxrt::graphABIRecord(const GraphSignature &signature,
                                            llvm::StringRef signatureText,
                                            llvm::StringRef profileLabels) {
  size_t tensors = signature.arguments.size() + signature.results.size();
  std::vector<uint64_t> record = {
      kABIRecordTag,
      kABIHeaderWords + kABIWordsPerTensor * tensors,
      checksum(signatureText),
      profileLabels.empty() ? 0 : checksum(profileLabels),
      signature.arguments.size(),
      signature.results.size()};
  for (const std::vector<TensorSpec> *specs :
       {&signature.arguments, &signature.results})
    for (const TensorSpec &spec : *specs) {
      record.push_back(static_cast<uint64_t>(spec.dtype));
      record.push_back(spec.shape.size());
      record.push_back(elementsOf(spec));
    }
  return record;
}

llvm::Error rlxrt::checkGraphABIRecord(llvm::ArrayRef<uint64_t> record,
                                       const GraphSignature &signature,
                                       llvm::StringRef signatureText,
                                       llvm::StringRef profileLabels) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(why);
  };
  if (record.size() < kABIHeaderWords || record[0] != kABIRecordTag)
    return fail("its rlx_graph_abi is not of this version's format "
                "(compile the library again)");
  if (record[1] != record.size())
    return fail("its rlx_graph_abi holds " + llvm::Twine(record.size()) +
                " words but says " + llvm::Twine(record[1]));
  std::vector<uint64_t> expected =
      graphABIRecord(signature, signatureText, profileLabels);
  // The layout first, whose difference says what was changed; then the
  // checksums, which catch any other edit.
  if (record[4] != expected[4] || record[5] != expected[5])
    return fail("its signature lists " + llvm::Twine(expected[4]) +
                " arguments and " + llvm::Twine(expected[5]) +
                " outputs, but the compiled entry takes " +
                llvm::Twine(record[4]) + " and " + llvm::Twine(record[5]));
  if (record.size() != expected.size())
    return fail("its rlx_graph_abi holds " + llvm::Twine(record.size()) +
                " words; its signature needs " + llvm::Twine(expected.size()));
  size_t index = 0;
  for (const std::vector<TensorSpec> *specs :
       {&signature.arguments, &signature.results})
    for (const TensorSpec &spec : *specs) {
      size_t at = kABIHeaderWords + kABIWordsPerTensor * index++;
      if (std::equal(record.begin() + at,
                     record.begin() + at + kABIWordsPerTensor,
                     expected.begin() + at))
        continue;
      auto elements = [](uint64_t count) -> std::string {
        return count == kABIDynamicElements
                   ? "a `?` dim"
                   : std::to_string(count) + " elements";
      };
      const char *dtype = record[at] <= static_cast<uint64_t>(DType::C64)
                              ? dtypeName(static_cast<DType>(record[at]))
                              : "an unknown element type";
      return fail(
          "its signature gives " + spec.kindName() + " '" + spec.name +
          "' as " + spec.describe() + " (" + elements(expected[at + 2]) +
          "), but the compiled entry takes " + dtype + " of rank " +
          llvm::Twine(record[at + 1]) + " (" + elements(record[at + 2]) + ")");
    }
  if (record[2] != expected[2])
    return fail("its rlx_graph_signature does not match the checksum the "
                "compiler recorded (the signature was edited or damaged)");
  if (record[3] != expected[3])
    return fail("its rlx_graph_profile_labels do not match the checksum the "
                "compiler recorded (edited or damaged)");
  return llvm::Error::success();
}
