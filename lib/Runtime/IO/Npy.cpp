//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "FileIO.h"
#include "rlx/Runtime/HostTensor.h"

#include <cstring>
#include <fstream>
#include <sstream>

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

/// Value of `'key': <value>` in the header dict, up to the next top-level
/// comma (tuples kept whole).
bool headerField(const std::string &header, const std::string &key,
                 std::string &value) {
  size_t pos = header.find("'" + key + "'");
  if (pos == std::string::npos)
    return false;
  pos = header.find(':', pos);
  if (pos == std::string::npos)
    return false;
  ++pos;
  int depth = 0;
  size_t end = pos;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  value = header.substr(pos, end - pos);
  // Trim spaces and quotes.
  size_t first = value.find_first_not_of(" '\"");
  size_t last = value.find_last_not_of(" '\"");
  value =
      first == std::string::npos ? "" : value.substr(first, last - first + 1);
  return true;
}

bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  // "(2, 3)", "(5,)" or "()".
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  std::string body = text.substr(1, text.size() - 2);
  std::stringstream ss(body);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    char *end = nullptr;
    long long dim = std::strtoll(item.c_str() + first, &end, 10);
    if (end == item.c_str() + first || dim < 0)
      return false;
    shape.push_back(dim);
  }
  return true;
}

} // namespace

std::optional<HostTensor> rlxrt::readNpy(const std::string &path,
                                         std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  const std::string &bytes = *contents;
  auto fail = [&](const std::string &why) -> std::optional<HostTensor> {
    error = "'" + path + "' is not a valid .npy file: " + why;
    return std::nullopt;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
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
  if (bytes.size() < headerStart + headerLen)
    return fail("truncated header");
  std::string header = bytes.substr(headerStart, headerLen);

  std::string descr, fortran, shapeText;
  if (!headerField(header, "descr", descr) ||
      !headerField(header, "fortran_order", fortran) ||
      !headerField(header, "shape", shapeText))
    return fail("header lacks descr, fortran_order or shape");
  if (fortran != "False")
    return fail("Fortran-order arrays are not supported (save with "
                "np.ascontiguousarray)");
  std::optional<DType> dtype;
  for (const NpyDType &entry : kNpyDTypes)
    if (descr == entry.descr)
      dtype = entry.dtype;
  if (!dtype)
    return fail("unsupported dtype '" + descr + "'");
  std::vector<int64_t> shape;
  if (!parseShape(shapeText, shape))
    return fail("malformed shape '" + shapeText + "'");

  HostTensor tensor(*dtype, shape);
  size_t dataStart = headerStart + headerLen;
  size_t expected = tensor.sizeInBytes();
  size_t available = bytes.size() - dataStart;
  if (available < expected)
    return fail("truncated data: " + tensor.describe() + " needs " +
                std::to_string(expected) + " bytes, the file has " +
                std::to_string(available));
  if (available > expected)
    return fail(std::to_string(available - expected) +
                " unexpected bytes after the data of " + tensor.describe());
  std::memcpy(tensor.data(), bytes.data() + dataStart, expected);
  return tensor;
}

bool rlxrt::writeNpy(const std::string &path, const HostTensor &tensor,
                     std::string &error) {
  const char *descr = nullptr;
  for (const NpyDType &entry : kNpyDTypes)
    if (entry.dtype == tensor.dtype() && !descr)
      descr = entry.descr;
  if (!descr) {
    error = std::string("cannot write ") + dtypeName(tensor.dtype()) +
            " to .npy (NumPy has no such dtype); use .safetensors";
    return false;
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
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  char lenBytes[2] = {char(len & 0xff), char(len >> 8)};
  out.write(lenBytes, 2);
  out.write(header.data(), header.size());
  out.write(static_cast<const char *>(tensor.data()), tensor.sizeInBytes());
  if (!out) {
    error = "failed writing '" + path + "'";
    return false;
  }
  return true;
}
