//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/FileIO.h"
#include "rlx/Runtime/HostTensor.h"

#include <cctype>
#include <cstring>
#include <sstream>
#include <string_view>

using namespace rlxrt;

namespace {

struct NpyDType {
  const char *descr;
  DType dtype;
};

// NumPy descriptors of the dtypes the runners exchange. Single-byte types
// may be written with '|' or '<'.
constexpr NpyDType kNpyDTypes[] = {
    {"<f4", DType::F32},  {"<f8", DType::F64}, {"<f2", DType::F16},
    {"|i1", DType::I8},   {"<i1", DType::I8},  {"<i2", DType::I16},
    {"<i4", DType::I32},  {"<i8", DType::I64}, {"|u1", DType::U8},
    {"<u1", DType::U8},   {"<u4", DType::U32}, {"|b1", DType::Bool},
    {"<b1", DType::Bool}, {"<c8", DType::C64},
};

/// The most dims a shape may have (NumPy's own limit).
constexpr size_t kMaxRank = 64;

/// The header dict of a .npy file, a Python literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`: exactly
/// these three keys, each once, and nothing else. Parsed strictly rather
/// than searched for keys, so that no text of one field is read as another.
class NpyHeaderParser : detail::TextCursor {
public:
  explicit NpyHeaderParser(std::string_view text) : TextCursor{text} {}

  /// False with `error` set when the header is not such a dict.
  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape, std::string &error) {
    bool seenDescr = false, seenFortran = false, seenShape = false;
    if (!consume('{'))
      return fail("the header is not a Python dict", error);
    while (!consume('}')) {
      std::string key;
      if (!parseString(key) || !consume(':'))
        return fail("malformed header dict near byte " + std::to_string(pos),
                    error);
      bool *seen = key == "descr"           ? &seenDescr
                   : key == "fortran_order" ? &seenFortran
                   : key == "shape"         ? &seenShape
                                            : nullptr;
      if (!seen)
        return fail("unexpected key '" + key + "' in the header", error);
      if (*seen)
        return fail("key '" + key + "' appears twice in the header", error);
      *seen = true;
      if (key == "descr" && !parseString(descr))
        return fail("descr is not a string", error);
      if (key == "fortran_order" && !parseBool(fortranOrder))
        return fail("fortran_order is neither True nor False", error);
      if (key == "shape" && !parseShape(shape, error))
        return false;
      if (!consume(',')) {
        if (!consume('}'))
          return fail("malformed header dict near byte " + std::to_string(pos),
                      error);
        break;
      }
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the header dict", error);
    if (!seenDescr || !seenFortran || !seenShape)
      return fail("header lacks descr, fortran_order or shape", error);
    return true;
  }

private:
  static bool fail(const std::string &why, std::string &error) {
    error = why;
    return false;
  }

  /// A quoted string without escapes (descr values and keys have none).
  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return false;
    char quote = text[pos];
    size_t end = text.find(quote, pos + 1);
    if (end == std::string_view::npos)
      return false;
    out.assign(text.substr(pos + 1, end - pos - 1));
    if (out.find('\\') != std::string::npos)
      return false;
    pos = end + 1;
    return true;
  }

  bool parseBool(bool &value) {
    skipSpace();
    for (bool candidate : {true, false}) {
      std::string_view word = candidate ? "True" : "False";
      if (text.substr(pos, word.size()) == word) {
        pos += word.size();
        value = candidate;
        return true;
      }
    }
    return false;
  }

  /// A tuple of non-negative decimal integers: `()`, `(5,)`, `(2, 3)`.
  bool parseShape(std::vector<int64_t> &shape, std::string &error) {
    skipSpace();
    size_t start = pos;
    auto malformed = [&](const char *why) {
      size_t close = text.find(')', start);
      std::string_view shown = text.substr(
          start, close == std::string_view::npos ? std::string_view::npos
                                                 : close - start + 1);
      error = "malformed shape '" + std::string(shown) + "': " + why;
      return false;
    };
    if (!consume('('))
      return malformed("not a tuple");
    bool trailingComma = false;
    while (!consume(')')) {
      skipSpace();
      if (pos >= text.size() ||
          !std::isdigit(static_cast<unsigned char>(text[pos])))
        return malformed("a dim is not a non-negative integer");
      int64_t dim = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (__builtin_mul_overflow(dim, 10, &dim) ||
            __builtin_add_overflow(dim, text[pos] - '0', &dim))
          return malformed("a dim exceeds the int64 range");
        ++pos;
      }
      if (shape.size() == kMaxRank)
        return malformed("more than 64 dims");
      shape.push_back(dim);
      trailingComma = consume(',');
      if (!trailingComma) {
        if (!consume(')'))
          return malformed("expected ',' or ')' after a dim");
        break;
      }
    }
    if (shape.size() == 1 && !trailingComma)
      return malformed("a one-dim tuple needs a trailing comma");
    return true;
  }
};

} // namespace

std::optional<HostTensor> rlxrt::readNpy(const std::string &path,
                                         std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  return parseNpy(*contents, path, error);
}

std::optional<HostTensor> rlxrt::parseNpy(std::string_view bytes,
                                          const std::string &path,
                                          std::string &error) {
  auto fail = [&](const std::string &why) -> std::optional<HostTensor> {
    error = "'" + path + "' is not a valid .npy file: " + why;
    return std::nullopt;
  };
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
    return fail("missing the \\x93NUMPY magic");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<unsigned char>(bytes[8]) |
                (static_cast<unsigned char>(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return fail("unsupported format version " + std::to_string(major));
  }
  // Compared without adding: the length is 32 bits read from the file.
  if (headerLen > bytes.size() - headerStart)
    return fail("header length " + std::to_string(headerLen) +
                " exceeds the file size");
  std::string_view header = bytes.substr(headerStart, headerLen);

  std::string descr, headerError;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  if (!NpyHeaderParser(header).parse(descr, fortranOrder, shape, headerError))
    return fail(headerError);
  if (fortranOrder)
    return fail("Fortran-order arrays are not supported (save with "
                "np.ascontiguousarray)");
  std::optional<DType> dtype;
  for (const NpyDType &entry : kNpyDTypes)
    if (descr == entry.descr)
      dtype = entry.dtype;
  if (!dtype)
    return fail("unsupported dtype '" + descr + "'");

  // Every size is checked against the file before the tensor is allocated,
  // so a header cannot request more memory than the file holds.
  std::string shapeText = formatDims(shape) + " " + dtypeName(*dtype);
  std::optional<int64_t> expected = checkedSizeInBytes(*dtype, shape);
  if (!expected)
    return fail("the size of " + shapeText + " overflows a 64-bit byte count");
  size_t dataStart = headerStart + headerLen;
  size_t available = bytes.size() - dataStart;
  if (available < static_cast<uint64_t>(*expected))
    return fail("truncated data: " + shapeText + " needs " +
                std::to_string(*expected) + " bytes, the file has " +
                std::to_string(available));
  if (available > static_cast<uint64_t>(*expected))
    return fail(std::to_string(available - *expected) +
                " unexpected bytes after the data of " + shapeText);
  std::string allocError;
  std::optional<HostTensor> tensor =
      HostTensor::create(*dtype, std::move(shape), allocError);
  if (!tensor)
    return fail(allocError);
  if (*expected)
    std::memcpy(tensor->data(), bytes.data() + dataStart, *expected);
  return tensor;
}

std::optional<std::string> rlxrt::encodeNpyHeader(const HostTensor &tensor,
                                                  std::string &error) {
  const char *descr = nullptr;
  for (const NpyDType &entry : kNpyDTypes)
    if (entry.dtype == tensor.dtype() && !descr)
      descr = entry.descr;
  if (!descr) {
    error = std::string("cannot write ") + dtypeName(tensor.dtype()) +
            " to .npy (NumPy has no such dtype); use .safetensors";
    return std::nullopt;
  }
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.shape())
    dict << dim << (tensor.shape().size() == 1 ? "," : ", ");
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces so the data starts on a 64-byte boundary, newline last.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  uint16_t len = static_cast<uint16_t>(header.size());
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(len & 0xff));
  bytes.push_back(static_cast<char>(len >> 8));
  return bytes + header;
}

bool rlxrt::writeNpy(const std::string &path, const HostTensor &tensor,
                     std::string &error) {
  std::optional<std::string> header = encodeNpyHeader(tensor, error);
  if (!header)
    return false;
  return detail::writeFileAtomically(
      path,
      {*header, std::string_view(static_cast<const char *>(tensor.data()),
                                 tensor.sizeInBytes())},
      error);
}
