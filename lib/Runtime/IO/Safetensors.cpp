//===- Safetensors.cpp - .safetensors files -------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON mapping
// each tensor name to {"dtype", "shape", "data_offsets": [begin, end]}
// (offsets relative to the end of the header), an optional "__metadata__"
// entry, then the data.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/FileIO.h"
#include "rlx/Runtime/HostTensor.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <sstream>
#include <string_view>

using namespace rlxrt;

namespace {

struct SafetensorsDType {
  const char *name;
  DType dtype;
};

constexpr SafetensorsDType kDTypes[] = {
    {"F32", DType::F32},   {"F64", DType::F64},   {"F16", DType::F16},
    {"BF16", DType::BF16}, {"I8", DType::I8},     {"I16", DType::I16},
    {"I32", DType::I32},   {"I64", DType::I64},   {"U8", DType::U8},
    {"U32", DType::U32},   {"BOOL", DType::Bool}, {"C64", DType::C64},
};

/// A JSON value of the header: enough of JSON for safetensors headers.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  /// A string's value, or a number's token as written.
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json *get(const std::string &key) const {
    for (const auto &member : members)
      if (member.first == key)
        return &member.second;
    return nullptr;
  }
};

class JsonParser : detail::TextCursor {
public:
  explicit JsonParser(std::string_view text) : TextCursor{text} {}

  bool parse(Json &value, std::string &error) {
    if (!parseValue(value, 0) || (skipSpace(), pos != text.size())) {
      error = "malformed JSON header near byte " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  bool parseString(std::string &out) {
    if (!consume('"'))
      return false;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c == '\\') {
        if (pos >= text.size())
          return false;
        char e = text[pos++];
        switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u': {
          // Four hex digits; the code point is stored as UTF-8 (a
          // surrogate half as its own three bytes, as names need no more).
          if (text.size() - pos < 4)
            return false;
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            char h = text[pos++];
            if (!std::isxdigit(static_cast<unsigned char>(h)))
              return false;
            code = code * 16 + (std::isdigit(static_cast<unsigned char>(h))
                                    ? h - '0'
                                    : (h | 0x20) - 'a' + 10);
          }
          if (code < 0x80) {
            out.push_back(static_cast<char>(code));
          } else if (code < 0x800) {
            out.push_back(static_cast<char>(0xc0 | (code >> 6)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
          } else {
            out.push_back(static_cast<char>(0xe0 | (code >> 12)));
            out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
            out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
          }
          break;
        }
        default:
          out.push_back(e);
          break;
        }
      } else {
        out.push_back(c);
      }
    }
    return consume('"');
  }

  bool parseValue(Json &value, int depth) {
    if (depth > 16)
      return false;
    skipSpace();
    if (pos >= text.size())
      return false;
    char c = text[pos];
    if (c == '{') {
      ++pos;
      value.kind = Json::Object;
      if (consume('}'))
        return true;
      do {
        std::string key;
        Json member;
        if (!parseString(key) || !consume(':') ||
            !parseValue(member, depth + 1))
          return false;
        value.members.emplace_back(std::move(key), std::move(member));
      } while (consume(','));
      return consume('}');
    }
    if (c == '[') {
      ++pos;
      value.kind = Json::Array;
      if (consume(']'))
        return true;
      do {
        Json item;
        if (!parseValue(item, depth + 1))
          return false;
        value.items.push_back(std::move(item));
      } while (consume(','));
      return consume(']');
    }
    if (c == '"') {
      value.kind = Json::String;
      return parseString(value.text);
    }
    for (std::string_view word : {"true", "false", "null"}) {
      if (text.substr(pos, word.size()) == word) {
        pos += word.size();
        value.kind = word[0] == 'n' ? Json::Null : Json::Bool;
        value.boolean = word[0] == 't';
        return true;
      }
    }
    return parseNumber(value);
  }

  /// JSON's number grammar, kept as text: -?(0|[1-9][0-9]*)(.[0-9]+)?
  /// ([eE][+-]?[0-9]+)?. Not strtod, which also takes "inf", "nan" and hex.
  bool parseNumber(Json &value) {
    size_t begin = pos;
    auto digits = [&] {
      size_t first = pos;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos])))
        ++pos;
      return pos > first;
    };
    if (pos < text.size() && text[pos] == '-')
      ++pos;
    if (pos < text.size() && text[pos] == '0')
      ++pos;
    else if (!digits())
      return false;
    if (pos < text.size() && text[pos] == '.' && (++pos, !digits()))
      return false;
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (!digits())
        return false;
    }
    value.kind = Json::Number;
    value.text.assign(text.substr(begin, pos - begin));
    return true;
  }
};

/// A non-negative integer written in decimal digits only that fits int64.
bool asIndex(const Json &value, int64_t &out) {
  if (value.kind != Json::Number || value.text.empty())
    return false;
  out = 0;
  for (char c : value.text)
    if (!std::isdigit(static_cast<unsigned char>(c)) ||
        __builtin_mul_overflow(out, 10, &out) ||
        __builtin_add_overflow(out, c - '0', &out))
      return false;
  return true;
}

/// The most a header may hold; larger ones are not headers of real files
/// (the reference implementation has the same cap).
constexpr uint64_t kMaxHeaderBytes = 100 << 20;
/// The most dims a tensor may have.
constexpr size_t kMaxRank = 64;

/// One tensor of the header, validated but not yet read.
struct TensorEntry {
  const std::string *name;
  DType dtype;
  std::vector<int64_t> shape;
  int64_t begin, end;
};

} // namespace

std::optional<std::map<std::string, HostTensor>>
rlxrt::readSafetensors(const std::string &path, std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  return parseSafetensors(*contents, path, error);
}

std::optional<std::map<std::string, HostTensor>>
rlxrt::parseSafetensors(std::string_view bytes, const std::string &path,
                        std::string &error) {
  auto fail = [&](const std::string &why)
      -> std::optional<std::map<std::string, HostTensor>> {
    error = "'" + path + "' is not a valid .safetensors file: " + why;
    return std::nullopt;
  };
  if (bytes.size() < 8)
    return fail("shorter than the 8-byte header length");
  uint64_t headerLen = 0;
  for (int i = 0; i < 8; ++i)
    headerLen |= uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  if (headerLen > bytes.size() - 8)
    return fail("header length " + std::to_string(headerLen) +
                " exceeds the file size");
  if (headerLen > kMaxHeaderBytes)
    return fail("header length " + std::to_string(headerLen) +
                " exceeds the limit of " + std::to_string(kMaxHeaderBytes) +
                " bytes");
  Json header;
  std::string parseError;
  if (!JsonParser(bytes.substr(8, headerLen)).parse(header, parseError))
    return fail(parseError);
  if (header.kind != Json::Object)
    return fail("the header is not a JSON object");

  // Every entry is validated, and the offsets checked to tile the data
  // section, before any tensor is allocated: each tensor is then no larger
  // than the file.
  uint64_t dataStart = 8 + headerLen;
  uint64_t dataSize = bytes.size() - dataStart;
  std::vector<TensorEntry> entries;
  std::set<std::string_view> names;
  for (const auto &[name, entry] : header.members) {
    if (!names.insert(name).second)
      return fail("tensor '" + name + "' appears twice in the header");
    if (name == "__metadata__") {
      if (entry.kind != Json::Object)
        return fail("__metadata__ is not a JSON object");
      continue;
    }
    const Json *dtypeJson = entry.get("dtype");
    const Json *shapeJson = entry.get("shape");
    const Json *offsetsJson = entry.get("data_offsets");
    if (entry.kind != Json::Object || !dtypeJson || !shapeJson ||
        !offsetsJson || dtypeJson->kind != Json::String ||
        shapeJson->kind != Json::Array || offsetsJson->kind != Json::Array ||
        offsetsJson->items.size() != 2)
      return fail("tensor '" + name +
                  "' lacks a valid dtype, shape or data_offsets");
    TensorEntry tensor{&name, DType::F32, {}, 0, 0};
    std::optional<DType> dtype;
    for (const SafetensorsDType &candidate : kDTypes)
      if (dtypeJson->text == candidate.name)
        dtype = candidate.dtype;
    if (!dtype)
      return fail("tensor '" + name + "' has unsupported dtype '" +
                  dtypeJson->text + "'");
    tensor.dtype = *dtype;
    if (shapeJson->items.size() > kMaxRank)
      return fail("tensor '" + name + "' has more than " +
                  std::to_string(kMaxRank) + " dims");
    for (const Json &dim : shapeJson->items) {
      int64_t size;
      if (!asIndex(dim, size))
        return fail("tensor '" + name +
                    "' has a malformed shape (a dim is "
                    "not a non-negative integer in the int64 range)");
      tensor.shape.push_back(size);
    }
    std::string described =
        formatDims(tensor.shape) + " " + dtypeName(tensor.dtype);
    std::optional<int64_t> size =
        checkedSizeInBytes(tensor.dtype, tensor.shape);
    if (!size)
      return fail("the size of tensor '" + name + "' (" + described +
                  ") overflows a 64-bit byte count");
    if (!asIndex(offsetsJson->items[0], tensor.begin) ||
        !asIndex(offsetsJson->items[1], tensor.end) ||
        tensor.end < tensor.begin)
      return fail("tensor '" + name + "' has malformed data_offsets");
    if (tensor.end - tensor.begin != *size)
      return fail("tensor '" + name + "' (" + described + ") needs " +
                  std::to_string(*size) + " bytes but its data_offsets span " +
                  std::to_string(tensor.end - tensor.begin));
    if (static_cast<uint64_t>(tensor.end) > dataSize)
      return fail("truncated data: tensor '" + name + "' ends at byte " +
                  std::to_string(tensor.end) +
                  " of the data section, which has " +
                  std::to_string(dataSize));
    entries.push_back(std::move(tensor));
  }

  // In offset order the tensors must follow each other from byte 0 to the
  // end of the file: an overlap would alias two tensors, a gap or trailing
  // bytes hide data no tensor names.
  std::vector<const TensorEntry *> byOffset;
  for (const TensorEntry &entry : entries)
    byOffset.push_back(&entry);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const TensorEntry *a, const TensorEntry *b) {
              return a->begin != b->begin ? a->begin < b->begin
                                          : a->end < b->end;
            });
  int64_t covered = 0;
  const TensorEntry *previous = nullptr;
  for (const TensorEntry *entry : byOffset) {
    if (entry->begin < covered)
      return fail("the data of tensors '" + *previous->name + "' and '" +
                  *entry->name + "' overlap (bytes " +
                  std::to_string(entry->begin) + " to " +
                  std::to_string(covered) + ")");
    if (entry->begin > covered)
      return fail("bytes " + std::to_string(covered) + " to " +
                  std::to_string(entry->begin) +
                  " of the data section belong to no tensor (before tensor '" +
                  *entry->name + "')");
    covered = entry->end;
    previous = entry;
  }
  if (static_cast<uint64_t>(covered) != dataSize)
    return fail(std::to_string(dataSize - covered) +
                " bytes after the last tensor's data belong to no tensor");

  std::map<std::string, HostTensor> tensors;
  for (TensorEntry &entry : entries) {
    std::string allocError;
    std::optional<HostTensor> tensor =
        HostTensor::create(entry.dtype, std::move(entry.shape), allocError);
    if (!tensor)
      return fail("tensor '" + *entry.name + "': " + allocError);
    if (entry.end > entry.begin)
      std::memcpy(tensor->data(), bytes.data() + dataStart + entry.begin,
                  entry.end - entry.begin);
    tensors.emplace(*entry.name, std::move(*tensor));
  }
  return tensors;
}

bool rlxrt::writeSafetensors(const std::string &path,
                             const std::map<std::string, HostTensor> &tensors,
                             std::string &error) {
  std::ostringstream header;
  header << '{';
  size_t offset = 0;
  bool first = true;
  for (const auto &[name, tensor] : tensors) {
    const char *dtype = nullptr;
    for (const SafetensorsDType &candidate : kDTypes)
      if (candidate.dtype == tensor.dtype())
        dtype = candidate.name;
    header << (first ? "" : ",") << '"';
    // Escaped as JSON, so any name reads back as itself.
    for (char c : name) {
      if (c == '"' || c == '\\')
        header << '\\' << c;
      else if (static_cast<unsigned char>(c) < 0x20)
        header << "\\u00" << "0123456789abcdef"[c >> 4]
               << "0123456789abcdef"[c & 15];
      else
        header << c;
    }
    header << "\":{\"dtype\":\"" << dtype << "\",\"shape\":[";
    for (size_t i = 0; i < tensor.shape().size(); ++i)
      header << (i ? "," : "") << tensor.shape()[i];
    header << "],\"data_offsets\":[" << offset << ','
           << offset + tensor.sizeInBytes() << "]}";
    offset += tensor.sizeInBytes();
    first = false;
  }
  header << '}';
  std::string text = header.str();
  text.append((8 - text.size() % 8) % 8, ' ');
  uint64_t len = text.size();
  char lenBytes[8];
  for (int i = 0; i < 8; ++i)
    lenBytes[i] = static_cast<char>((len >> (8 * i)) & 0xff);
  std::vector<std::string_view> chunks = {std::string_view(lenBytes, 8), text};
  for (const auto &entry : tensors)
    chunks.emplace_back(static_cast<const char *>(entry.second.data()),
                        entry.second.sizeInBytes());
  return detail::writeFileAtomically(path, chunks, error);
}
