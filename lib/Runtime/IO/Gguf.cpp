//===- Gguf.cpp - GGUF v3 parameter files ---------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Layout (GGUF version 2 and 3; every integer little-endian):
//
//   u32 magic "GGUF", u32 version, u64 tensor_count, u64 metadata_kv_count,
//   metadata_kv_count x { string key, u32 value_type, value },
//   tensor_count x { string name, u32 n_dims, u64 dims[n_dims] (innermost
//                    first), u32 ggml_type, u64 offset },
//   padding to `general.alignment` (default 32), the data section.
//
// A string is a u64 byte count and the bytes; an array a u32 element type,
// a u64 count and the elements (arrays nest). A tensor's offset is relative
// to the start of the data section and a multiple of the alignment.
//
// Untrusted data (docs/security.md): the header is parsed and every count,
// length, dim, size and offset checked against the file before anything is
// allocated; sizes are computed in checked 64-bit arithmetic.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/FileIO.h"
#include "rlx/Runtime/HostTensor.h"

#include <algorithm>
#include <cstring>
#include <set>

using namespace rlxrt;

namespace {

/// A GGML tensor type: its GGUF code, name, and block (elements, bytes).
/// Plain types have one-element blocks and a host dtype.
struct GgmlType {
  uint32_t code;
  const char *name;
  int64_t blockElements;
  int64_t blockBytes;
  std::optional<DType> dtype;
};

// Every type code of the published format (codes 4, 5 and 31..33, 36..38
// were retired), so that the layout of any tensor can be validated. Only
// the plain ones become typed host tensors; the rest are kept as packed
// blocks.
const GgmlType kGgmlTypes[] = {
    {0, "f32", 1, 4, DType::F32},
    {1, "f16", 1, 2, DType::F16},
    {2, "q4_0", 32, 18, std::nullopt},
    {3, "q4_1", 32, 20, std::nullopt},
    {6, "q5_0", 32, 22, std::nullopt},
    {7, "q5_1", 32, 24, std::nullopt},
    {8, "q8_0", 32, 34, std::nullopt},
    {9, "q8_1", 32, 36, std::nullopt},
    {10, "q2_k", 256, 84, std::nullopt},
    {11, "q3_k", 256, 110, std::nullopt},
    {12, "q4_k", 256, 144, std::nullopt},
    {13, "q5_k", 256, 176, std::nullopt},
    {14, "q6_k", 256, 210, std::nullopt},
    {15, "q8_k", 256, 292, std::nullopt},
    {16, "iq2_xxs", 256, 66, std::nullopt},
    {17, "iq2_xs", 256, 74, std::nullopt},
    {18, "iq3_xxs", 256, 98, std::nullopt},
    {19, "iq1_s", 256, 50, std::nullopt},
    {20, "iq4_nl", 32, 18, std::nullopt},
    {21, "iq3_s", 256, 110, std::nullopt},
    {22, "iq2_s", 256, 82, std::nullopt},
    {23, "iq4_xs", 256, 136, std::nullopt},
    {24, "i8", 1, 1, DType::I8},
    {25, "i16", 1, 2, DType::I16},
    {26, "i32", 1, 4, DType::I32},
    {27, "i64", 1, 8, DType::I64},
    {28, "f64", 1, 8, DType::F64},
    {29, "iq1_m", 256, 56, std::nullopt},
    {30, "bf16", 1, 2, DType::BF16},
    {34, "tq1_0", 256, 54, std::nullopt},
    {35, "tq2_0", 256, 66, std::nullopt},
    {39, "mxfp4", 32, 17, std::nullopt},
    {40, "nvfp4", 64, 36, std::nullopt},
    {41, "q1_0", 128, 18, std::nullopt},
    {42, "q2_0", 64, 18, std::nullopt},
};

const GgmlType *findGgmlType(uint32_t code) {
  for (const GgmlType &type : kGgmlTypes)
    if (type.code == code)
      return &type;
  return nullptr;
}

// Metadata value types.
enum ValueType : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

/// Bytes of a fixed-size value type; 0 for strings, arrays and unknown
/// codes.
uint64_t fixedValueSize(uint32_t type) {
  switch (type) {
  case kU8:
  case kI8:
  case kBool:
    return 1;
  case kU16:
  case kI16:
    return 2;
  case kU32:
  case kI32:
  case kF32:
    return 4;
  case kU64:
  case kI64:
  case kF64:
    return 8;
  default:
    return 0;
  }
}

/// The most tensors and metadata entries a header may declare, the longest
/// key or tensor name, the most dims, the deepest array nesting and the
/// largest alignment. Real files are far below each (ggml itself allows 4
/// dims and 64-byte names); counts are also checked against the bytes left,
/// since every entry takes at least a few bytes.
constexpr uint64_t kMaxTensors = uint64_t(1) << 20;
constexpr uint64_t kMaxMetadata = uint64_t(1) << 20;
constexpr uint64_t kMaxNameBytes = 1 << 16;
constexpr uint32_t kMaxDims = 4;
constexpr int kMaxArrayDepth = 8;
constexpr uint64_t kMaxAlignment = uint64_t(1) << 16;

/// Reads the header's little-endian fields, never past the end.
class Reader {
public:
  explicit Reader(std::string_view bytes) : bytes(bytes) {}
  uint64_t position() const { return pos; }
  uint64_t left() const { return bytes.size() - pos; }

  bool u32(uint32_t &out) {
    uint64_t wide;
    if (!little(4, wide))
      return false;
    out = static_cast<uint32_t>(wide);
    return true;
  }
  bool u64(uint64_t &out) { return little(8, out); }
  bool skip(uint64_t n) {
    if (n > left())
      return false;
    pos += n;
    return true;
  }
  /// A string's length, then its bytes if `out` is given; false when the
  /// length runs past the end or exceeds `maxBytes`. `tooLong` tells which.
  bool string(std::string *out, uint64_t maxBytes, bool &tooLong) {
    uint64_t length;
    tooLong = false;
    if (!u64(length))
      return false;
    if (length > maxBytes) {
      tooLong = true;
      return false;
    }
    if (length > left())
      return false;
    if (out)
      out->assign(bytes.substr(pos, length));
    pos += length;
    return true;
  }

private:
  bool little(int n, uint64_t &out) {
    if (left() < static_cast<uint64_t>(n))
      return false;
    out = 0;
    for (int i = 0; i < n; ++i)
      out |= uint64_t(static_cast<unsigned char>(bytes[pos + i])) << (8 * i);
    pos += n;
    return true;
  }

  std::string_view bytes;
  uint64_t pos = 0;
};

/// One tensor of the header, validated but not yet read.
struct TensorInfo {
  std::string name;
  const GgmlType *type;
  std::vector<int64_t> dims; // GGUF order, innermost first
  uint64_t offset;
  uint64_t size;
};

/// The printable form of a key or name for messages: control bytes and
/// quotes escaped, at most 80 bytes.
std::string printable(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 80)) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || c == '\'' || c == '\\') {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    } else {
      out += c;
    }
  }
  if (text.size() > 80)
    out += "...";
  return out;
}

/// Skips one metadata value of `type`; on failure `why` says what is wrong
/// (it starts with "truncated" when the file ends inside the value).
bool skipValue(Reader &reader, uint32_t type, int depth, std::string &why) {
  if (uint64_t size = fixedValueSize(type)) {
    if (!reader.skip(size)) {
      why = "truncated in a value";
      return false;
    }
    return true;
  }
  if (type == kString) {
    bool tooLong;
    if (!reader.string(nullptr, UINT64_MAX, tooLong)) {
      why = "truncated in a string value";
      return false;
    }
    return true;
  }
  if (type != kArray) {
    why = "unknown value type " + std::to_string(type);
    return false;
  }
  if (depth >= kMaxArrayDepth) {
    why = "arrays nested more than " + std::to_string(kMaxArrayDepth) + " deep";
    return false;
  }
  uint32_t elementType;
  uint64_t count;
  if (!reader.u32(elementType) || !reader.u64(count)) {
    why = "truncated in an array header";
    return false;
  }
  // Every element takes at least one byte (a string or an array at least
  // eight or twelve), so a count beyond the bytes left is a lie; checking it
  // first keeps the loop below bounded by the file size.
  uint64_t elementSize = fixedValueSize(elementType);
  if (elementType != kString && elementType != kArray && !elementSize) {
    why = "unknown array element type " + std::to_string(elementType);
    return false;
  }
  uint64_t least = elementSize ? elementSize : elementType == kString ? 8 : 12;
  if (count > reader.left() / least) {
    why = "an array of " + std::to_string(count) + " elements of type " +
          std::to_string(elementType) + " needs more than the " +
          std::to_string(reader.left()) + " bytes left";
    return false;
  }
  if (elementSize)
    return reader.skip(count * elementSize); // Within the bytes left.
  for (uint64_t i = 0; i < count; ++i)
    if (!skipValue(reader, elementType, depth + 1, why))
      return false;
  return true;
}

std::string ggufTypeName(const GgmlType &type) { return type.name; }

} // namespace

std::optional<std::map<std::string, ParamTensor>>
rlxrt::readGguf(const std::string &path, std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  return parseGguf(*contents, path, error);
}

std::optional<std::map<std::string, ParamTensor>>
rlxrt::parseGguf(std::string_view bytes, const std::string &path,
                 std::string &error) {
  auto fail = [&](const std::string &why)
      -> std::optional<std::map<std::string, ParamTensor>> {
    error = "'" + path + "' is not a valid GGUF file: " + why;
    return std::nullopt;
  };
  Reader reader(bytes);
  uint32_t magic, version;
  uint64_t tensorCount, metadataCount;
  if (!reader.u32(magic))
    return fail("shorter than the 4-byte magic");
  if (magic != 0x46554747) // "GGUF"
    return fail("bad magic (the file does not start with \"GGUF\")");
  if (!reader.u32(version) || !reader.u64(tensorCount) ||
      !reader.u64(metadataCount))
    return fail("truncated header (shorter than 24 bytes)");
  if (version != 2 && version != 3)
    return fail("unsupported version " + std::to_string(version) +
                " (versions 2 and 3 are read)");
  if (tensorCount > kMaxTensors)
    return fail("tensor count " + std::to_string(tensorCount) +
                " exceeds the limit of " + std::to_string(kMaxTensors));
  if (metadataCount > kMaxMetadata)
    return fail("metadata count " + std::to_string(metadataCount) +
                " exceeds the limit of " + std::to_string(kMaxMetadata));
  // Each metadata entry takes at least 12 bytes (an empty key and a type),
  // each tensor info at least 24 (an empty name, n_dims, type, offset).
  if (metadataCount > reader.left() / 12 ||
      tensorCount > (reader.left() - metadataCount * 12) / 24)
    return fail("truncated header: " + std::to_string(tensorCount) +
                " tensors and " + std::to_string(metadataCount) +
                " metadata entries do not fit in the " +
                std::to_string(bytes.size()) + "-byte file");

  uint64_t alignment = 32;
  std::set<std::string> keys;
  for (uint64_t i = 0; i < metadataCount; ++i) {
    std::string key;
    bool tooLong;
    uint32_t type;
    if (!reader.string(&key, kMaxNameBytes, tooLong))
      return fail(tooLong ? "metadata key " + std::to_string(i) +
                                " is longer than " +
                                std::to_string(kMaxNameBytes) + " bytes"
                          : "truncated in metadata key " + std::to_string(i));
    if (!keys.insert(key).second)
      return fail("metadata key '" + printable(key) + "' appears twice");
    if (!reader.u32(type))
      return fail("truncated in the type of metadata '" + printable(key) + "'");
    if (key == "general.alignment") {
      uint32_t value;
      if (type != kU32)
        return fail("general.alignment has value type " + std::to_string(type) +
                    ", not u32 (4)");
      if (!reader.u32(value))
        return fail("truncated in metadata 'general.alignment'");
      if (value == 0 || (value & (value - 1)) || value > kMaxAlignment)
        return fail("general.alignment " + std::to_string(value) +
                    " is not a power of two up to " +
                    std::to_string(kMaxAlignment));
      alignment = value;
      continue;
    }
    std::string why;
    if (!skipValue(reader, type, 0, why))
      return fail("metadata '" + printable(key) + "': " + why);
  }

  std::vector<TensorInfo> infos;
  std::set<std::string> names;
  infos.reserve(tensorCount);
  for (uint64_t i = 0; i < tensorCount; ++i) {
    TensorInfo info;
    bool tooLong;
    if (!reader.string(&info.name, kMaxNameBytes, tooLong))
      return fail(tooLong
                      ? "the name of tensor " + std::to_string(i) +
                            " is longer than " + std::to_string(kMaxNameBytes) +
                            " bytes"
                      : "truncated in the name of tensor " + std::to_string(i));
    std::string quoted = "tensor '" + printable(info.name) + "'";
    uint32_t numDims, typeCode;
    if (!reader.u32(numDims))
      return fail("truncated in the info of " + quoted);
    if (numDims > kMaxDims)
      return fail(quoted + " has " + std::to_string(numDims) +
                  " dims; GGUF allows at most " + std::to_string(kMaxDims));
    for (uint32_t d = 0; d < numDims; ++d) {
      uint64_t dim;
      if (!reader.u64(dim))
        return fail("truncated in the info of " + quoted);
      if (dim > static_cast<uint64_t>(INT64_MAX))
        return fail(quoted + " has dim " + std::to_string(dim) +
                    ", beyond the int64 range");
      info.dims.push_back(static_cast<int64_t>(dim));
    }
    if (!reader.u32(typeCode) || !reader.u64(info.offset))
      return fail("truncated in the info of " + quoted);
    info.type = findGgmlType(typeCode);
    if (!info.type)
      return fail(quoted + " has unknown type " + std::to_string(typeCode));
    // Elements and bytes: a block type quantizes the innermost dim in
    // whole blocks.
    std::optional<int64_t> elements = checkedNumElements(info.dims);
    if (!elements)
      return fail("the element count of " + quoted + " " +
                  formatDims(info.dims) + " overflows 64 bits");
    int64_t inner = info.dims.empty() ? 1 : info.dims[0];
    if (inner % info.type->blockElements != 0)
      return fail(quoted + " of type " + ggufTypeName(*info.type) +
                  " has innermost dim " + std::to_string(inner) +
                  ", not a multiple of its block of " +
                  std::to_string(info.type->blockElements) + " elements");
    int64_t size;
    if (__builtin_mul_overflow(*elements / info.type->blockElements,
                               info.type->blockBytes, &size))
      return fail("the byte size of " + quoted + " overflows 64 bits");
    info.size = static_cast<uint64_t>(size);
    if (!names.insert(info.name).second)
      return fail(quoted + " appears twice");
    infos.push_back(std::move(info));
  }

  // A file without tensors needs no data section (nor the padding before
  // it).
  if (infos.empty())
    return std::map<std::string, ParamTensor>();
  uint64_t infoEnd = reader.position();
  uint64_t dataStart = (infoEnd + alignment - 1) / alignment * alignment;
  if (dataStart > bytes.size())
    return fail("truncated: the data section would start at byte " +
                std::to_string(dataStart) + " of a " +
                std::to_string(bytes.size()) + "-byte file");
  uint64_t dataSize = bytes.size() - dataStart;
  for (const TensorInfo &info : infos) {
    std::string quoted = "tensor '" + printable(info.name) + "'";
    if (info.offset % alignment != 0)
      return fail(quoted + " has offset " + std::to_string(info.offset) +
                  ", not a multiple of the alignment " +
                  std::to_string(alignment));
    if (info.offset > dataSize || info.size > dataSize - info.offset)
      return fail("truncated data: " + quoted + " (" + info.type->name + " " +
                  formatDims(info.dims) + ", " + std::to_string(info.size) +
                  " bytes at offset " + std::to_string(info.offset) +
                  ") ends beyond the " + std::to_string(dataSize) +
                  "-byte data section");
  }

  // In offset order the tensors may not overlap (two names for the same
  // bytes), and between them only alignment padding may lie.
  std::vector<const TensorInfo *> byOffset;
  for (const TensorInfo &info : infos)
    byOffset.push_back(&info);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const TensorInfo *a, const TensorInfo *b) {
              return a->offset != b->offset ? a->offset < b->offset
                                            : a->size < b->size;
            });
  uint64_t covered = 0;
  const TensorInfo *previous = nullptr;
  for (const TensorInfo *info : byOffset) {
    if (info->offset < covered)
      return fail("the data of tensors '" + printable(previous->name) +
                  "' and '" + printable(info->name) + "' overlap (bytes " +
                  std::to_string(info->offset) + " to " +
                  std::to_string(covered) + ")");
    if (info->offset - covered >= alignment)
      return fail("bytes " + std::to_string(covered) + " to " +
                  std::to_string(info->offset) +
                  " of the data section belong to no tensor (before tensor '" +
                  printable(info->name) + "')");
    covered = info->offset + info->size;
    previous = info;
  }
  if (dataSize - covered >= alignment)
    return fail(std::to_string(dataSize - covered) +
                " bytes after the last tensor's data belong to no tensor");

  std::map<std::string, ParamTensor> tensors;
  for (TensorInfo &info : infos) {
    ParamTensor param;
    DType dtype = info.type->dtype.value_or(DType::U8);
    std::vector<int64_t> shape;
    if (info.type->dtype) {
      // Row-major, outermost first: GGUF's dims reversed.
      shape.assign(info.dims.rbegin(), info.dims.rend());
    } else {
      shape = {static_cast<int64_t>(info.size)};
      param.packedType = info.type->name;
      param.packedDims = info.dims;
    }
    std::string allocError;
    std::optional<HostTensor> tensor =
        HostTensor::create(dtype, std::move(shape), allocError);
    if (!tensor)
      return fail("tensor '" + printable(info.name) + "': " + allocError);
    if (info.size)
      std::memcpy(tensor->data(), bytes.data() + dataStart + info.offset,
                  info.size);
    param.tensor = std::move(*tensor);
    tensors.emplace(std::move(info.name), std::move(param));
  }
  return tensors;
}

std::optional<std::map<std::string, ParamTensor>>
rlxrt::readParamsFile(const std::string &path, std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  // By magic; a .gguf file without it is reported as a bad GGUF file.
  if (contents->compare(0, 4, "GGUF") == 0 ||
      (path.size() >= 5 && path.compare(path.size() - 5, 5, ".gguf") == 0))
    return parseGguf(*contents, path, error);
  bool npz = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0;
  auto tensors = npz ? parseNpz(*contents, path, error)
                     : parseSafetensors(*contents, path, error);
  if (!tensors)
    return std::nullopt;
  return asParamTensors(std::move(*tensors));
}

std::map<std::string, ParamTensor>
rlxrt::asParamTensors(std::map<std::string, HostTensor> tensors) {
  std::map<std::string, ParamTensor> params;
  for (auto &[name, tensor] : tensors)
    params.emplace(name, ParamTensor{std::move(tensor), {}, {}});
  return params;
}
