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

#include "FileIO.h"
#include "rlx/Runtime/HostTensor.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

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
  double number = 0;
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

class JsonParser {
public:
  explicit JsonParser(const std::string &text) : text(text) {}

  bool parse(Json &value, std::string &error) {
    if (!parseValue(value, 0) || (skipSpace(), pos != text.size())) {
      error = "malformed JSON header near byte " + std::to_string(pos);
      return false;
    }
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

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
        case 'u':
          // Names are ASCII in practice; keep escapes verbatim otherwise.
          out += "\\u";
          break;
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
    for (const char *word : {"true", "false", "null"}) {
      size_t len = std::strlen(word);
      if (text.compare(pos, len, word) == 0) {
        pos += len;
        value.kind = word[0] == 'n' ? Json::Null : Json::Bool;
        value.number = word[0] == 't';
        return true;
      }
    }
    const char *begin = text.c_str() + pos;
    char *end = nullptr;
    value.number = std::strtod(begin, &end);
    if (end == begin)
      return false;
    value.kind = Json::Number;
    pos += end - begin;
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};

bool asIndex(const Json &value, int64_t &out) {
  if (value.kind != Json::Number || value.number < 0 ||
      value.number != static_cast<double>(static_cast<int64_t>(value.number)))
    return false;
  out = static_cast<int64_t>(value.number);
  return true;
}

} // namespace

std::optional<std::map<std::string, HostTensor>>
rlxrt::readSafetensors(const std::string &path, std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  const std::string &bytes = *contents;
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
  std::string headerText = bytes.substr(8, headerLen);
  Json header;
  std::string parseError;
  if (!JsonParser(headerText).parse(header, parseError))
    return fail(parseError);
  if (header.kind != Json::Object)
    return fail("the header is not a JSON object");

  size_t dataStart = 8 + headerLen;
  size_t dataSize = bytes.size() - dataStart;
  std::map<std::string, HostTensor> tensors;
  for (const auto &[name, entry] : header.members) {
    if (name == "__metadata__")
      continue;
    const Json *dtypeJson = entry.get("dtype");
    const Json *shapeJson = entry.get("shape");
    const Json *offsetsJson = entry.get("data_offsets");
    if (entry.kind != Json::Object || !dtypeJson || !shapeJson ||
        !offsetsJson || dtypeJson->kind != Json::String ||
        shapeJson->kind != Json::Array || offsetsJson->kind != Json::Array ||
        offsetsJson->items.size() != 2)
      return fail("tensor '" + name +
                  "' lacks a valid dtype, shape or data_offsets");
    std::optional<DType> dtype;
    for (const SafetensorsDType &candidate : kDTypes)
      if (dtypeJson->text == candidate.name)
        dtype = candidate.dtype;
    if (!dtype)
      return fail("tensor '" + name + "' has unsupported dtype '" +
                  dtypeJson->text + "'");
    std::vector<int64_t> shape;
    for (const Json &dim : shapeJson->items) {
      int64_t size;
      if (!asIndex(dim, size))
        return fail("tensor '" + name + "' has a malformed shape");
      shape.push_back(size);
    }
    int64_t begin, end;
    if (!asIndex(offsetsJson->items[0], begin) ||
        !asIndex(offsetsJson->items[1], end) || end < begin)
      return fail("tensor '" + name + "' has malformed data_offsets");
    HostTensor tensor(*dtype, shape);
    if (static_cast<size_t>(end - begin) != tensor.sizeInBytes())
      return fail("tensor '" + name + "' (" + tensor.describe() + ") needs " +
                  std::to_string(tensor.sizeInBytes()) +
                  " bytes but its data_offsets span " +
                  std::to_string(end - begin));
    if (static_cast<size_t>(end) > dataSize)
      return fail("truncated data: tensor '" + name + "' ends at byte " +
                  std::to_string(end) + " of the data section, which has " +
                  std::to_string(dataSize));
    std::memcpy(tensor.data(), bytes.data() + dataStart + begin,
                tensor.sizeInBytes());
    tensors.emplace(name, std::move(tensor));
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
    header << (first ? "" : ",") << '"' << name << "\":{\"dtype\":\"" << dtype
           << "\",\"shape\":[";
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
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  uint64_t len = text.size();
  char lenBytes[8];
  for (int i = 0; i < 8; ++i)
    lenBytes[i] = static_cast<char>((len >> (8 * i)) & 0xff);
  out.write(lenBytes, 8);
  out.write(text.data(), text.size());
  for (const auto &entry : tensors)
    out.write(static_cast<const char *>(entry.second.data()),
              entry.second.sizeInBytes());
  if (!out) {
    error = "failed writing '" + path + "'";
    return false;
  }
  return true;
}
