//===- Npz.cpp - NumPy .npz archives --------------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A .npz file is a zip archive of .npy files, one per array, named
// `NAME.npy` (np.savez). The reader takes the central directory as the truth
// and validates it whole (the end record, Zip64 records, every entry's
// sizes, offsets, local header and CRC-32, and that no two entries share
// bytes) before it allocates anything, so the arrays together are never
// larger than the file. Only stored (uncompressed) entries are read:
// inflating deflate would add a zlib dependency to this library, which the
// ahead-of-time runner links without LLVM; a compressed entry is an error
// that names it.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/FileIO.h"
#include "rlx/Runtime/HostTensor.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <set>

using namespace rlxrt;

namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr size_t kLocalHeaderSize = 30;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kZip64EndSize = 56;
constexpr size_t kZip64LocatorSize = 20;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kMethodStored = 0;
constexpr uint16_t kMethodDeflate = 8;
constexpr uint16_t kFlagEncrypted = 1 << 0;
constexpr uint16_t kFlagUtf8 = 1 << 11;

/// CRC-32 (IEEE 802.3, reflected, as zip uses it).
uint32_t crc32(uint32_t crc, const void *data, size_t size) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const auto *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i)
    crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

/// Little-endian reads at an offset the caller has bounds-checked.
uint16_t read16(std::string_view bytes, uint64_t at) {
  const auto *p = reinterpret_cast<const unsigned char *>(bytes.data() + at);
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t read32(std::string_view bytes, uint64_t at) {
  return static_cast<uint32_t>(read16(bytes, at)) |
         (static_cast<uint32_t>(read16(bytes, at + 2)) << 16);
}
uint64_t read64(std::string_view bytes, uint64_t at) {
  return static_cast<uint64_t>(read32(bytes, at)) |
         (static_cast<uint64_t>(read32(bytes, at + 4)) << 32);
}

/// True when [begin, begin + size) lies within [0, limit), compared without
/// overflow (every operand may come from the file).
bool fits(uint64_t begin, uint64_t size, uint64_t limit) {
  return begin <= limit && size <= limit - begin;
}

/// One array of the archive, as the central directory describes it.
struct Entry {
  std::string name; // The zip entry's name, `x.npy`.
  uint64_t localOffset = 0;
  uint64_t dataOffset = 0;
  uint64_t size = 0;
  uint32_t crc = 0;
};

/// Where the central directory is, from the end record (and the Zip64 end
/// record where the end record defers to it).
struct Directory {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t entries = 0;
  /// The first byte after the central directory that belongs to the end
  /// records: the directory must end there.
  uint64_t end = 0;
};

class NpzReader {
public:
  NpzReader(std::string_view bytes, const std::string &path, std::string &error)
      : bytes(bytes), path(path), error(error) {}

  std::optional<std::map<std::string, HostTensor>> read() {
    Directory directory;
    std::vector<Entry> entries;
    if (!readDirectory(directory) || !readEntries(directory, entries) ||
        !checkDisjoint(entries))
      return std::nullopt;
    std::map<std::string, HostTensor> tensors;
    for (const Entry &entry : entries) {
      std::string_view data = bytes.substr(entry.dataOffset, entry.size);
      if (crc32(0, data.data(), data.size()) != entry.crc) {
        failEntry(entry.name, "CRC-32 mismatch (the data is corrupt)");
        return std::nullopt;
      }
      std::optional<HostTensor> tensor =
          parseNpy(data, path + ":" + entry.name, error);
      if (!tensor)
        return std::nullopt;
      tensors.emplace(entry.name.substr(0, entry.name.size() - 4),
                      std::move(*tensor));
    }
    return tensors;
  }

private:
  bool fail(const std::string &why) {
    error = "'" + path + "' is not a valid .npz file: " + why;
    return false;
  }
  bool failEntry(const std::string &name, const std::string &why) {
    return fail("entry '" + name + "': " + why);
  }

  /// Finds the end of central directory record: the last one whose comment
  /// ends exactly at the end of the file.
  bool readDirectory(Directory &directory) {
    if (bytes.size() < kEndSize)
      return fail("too short for a zip archive (" +
                  std::to_string(bytes.size()) + " bytes)");
    uint64_t lowest =
        bytes.size() > kEndSize + 0xffff ? bytes.size() - kEndSize - 0xffff : 0;
    uint64_t end = bytes.size() - kEndSize;
    for (;; --end) {
      if (read32(bytes, end) == kEndSignature &&
          end + kEndSize + read16(bytes, end + 20) == bytes.size())
        break;
      if (end == lowest)
        return fail("no end of central directory record (not a zip "
                    "archive, or truncated)");
    }
    uint16_t disk = read16(bytes, end + 4),
             directoryDisk = read16(bytes, end + 6);
    uint64_t entriesHere = read16(bytes, end + 8);
    directory.entries = read16(bytes, end + 10);
    directory.size = read32(bytes, end + 12);
    directory.offset = read32(bytes, end + 16);
    directory.end = end;
    bool zip64Locator =
        end >= kZip64LocatorSize &&
        read32(bytes, end - kZip64LocatorSize) == kZip64LocatorSignature;
    if (zip64Locator) {
      uint64_t locator = end - kZip64LocatorSize;
      uint64_t record = read64(bytes, locator + 8);
      if (read32(bytes, locator + 4) != 0 || read32(bytes, locator + 16) != 1)
        return fail("multi-disk archives are not supported");
      if (!fits(record, kZip64EndSize, locator) ||
          read32(bytes, record) != kZip64EndSignature)
        return fail("the Zip64 end record the locator points to (offset " +
                    std::to_string(record) + ") is missing");
      // The record's own size field counts the bytes after its first 12.
      uint64_t recordSize = read64(bytes, record + 4);
      if (recordSize < kZip64EndSize - 12 ||
          recordSize != locator - record - 12)
        return fail("the Zip64 end record's size " +
                    std::to_string(recordSize) + " does not reach the locator");
      disk = read32(bytes, record + 16) ? 1 : 0;
      directoryDisk = read32(bytes, record + 20) ? 1 : 0;
      entriesHere = read64(bytes, record + 24);
      directory.entries = read64(bytes, record + 32);
      directory.size = read64(bytes, record + 40);
      directory.offset = read64(bytes, record + 48);
      directory.end = record;
    } else if (directory.entries == 0xffff || directory.size == 0xffffffff ||
               directory.offset == 0xffffffff) {
      return fail("the end record defers to a Zip64 end record that is "
                  "missing");
    }
    if (disk != 0 || directoryDisk != 0 || entriesHere != directory.entries)
      return fail("multi-disk archives are not supported");
    if (!fits(directory.offset, directory.size, directory.end))
      return fail("the central directory (offset " +
                  std::to_string(directory.offset) + ", " +
                  std::to_string(directory.size) +
                  " bytes) lies outside the file before its end record");
    if (directory.offset + directory.size != directory.end)
      return fail(
          std::to_string(directory.end - directory.offset - directory.size) +
          " bytes between the central directory and its end record");
    // Each entry takes at least a fixed header: checked before reserving.
    if (directory.entries > directory.size / kCentralHeaderSize)
      return fail(std::to_string(directory.entries) +
                  " entries cannot fit a central directory of " +
                  std::to_string(directory.size) + " bytes");
    return true;
  }

  /// Reads the Zip64 extra field of a central header: each of the sizes and
  /// the offset that is 0xffffffff in the header is there, in this order.
  bool readZip64Extra(std::string_view extra, const std::string &name,
                      uint64_t &uncompressed, uint64_t &compressed,
                      uint64_t &offset) {
    bool needed = uncompressed == 0xffffffff || compressed == 0xffffffff ||
                  offset == 0xffffffff;
    uint64_t at = 0;
    while (at < extra.size()) {
      if (extra.size() - at < 4)
        return failEntry(name, "truncated extra field");
      uint16_t id = read16(extra, at), size = read16(extra, at + 2);
      at += 4;
      if (size > extra.size() - at)
        return failEntry(name, "extra field " + std::to_string(id) +
                                   " overruns its header");
      if (id == kZip64ExtraId) {
        uint64_t field = at;
        for (uint64_t *value : {&uncompressed, &compressed, &offset}) {
          if (*value != 0xffffffff)
            continue;
          if (field + 8 > at + size)
            return failEntry(name, "the Zip64 extra field is too short");
          *value = read64(extra, field);
          field += 8;
        }
        needed = false;
      }
      at += size;
    }
    if (needed)
      return failEntry(name, "a size or offset is 0xffffffff without a Zip64 "
                             "extra field");
    return true;
  }

  bool readEntries(const Directory &directory, std::vector<Entry> &entries) {
    entries.reserve(directory.entries);
    std::set<std::string> names;
    uint64_t at = directory.offset, limit = directory.offset + directory.size;
    for (uint64_t i = 0; i < directory.entries; ++i) {
      std::string where = "central directory entry " + std::to_string(i);
      if (!fits(at, kCentralHeaderSize, limit) ||
          read32(bytes, at) != kCentralHeaderSignature)
        return fail(where + " (offset " + std::to_string(at) +
                    ") is missing or truncated");
      uint16_t flags = read16(bytes, at + 8), method = read16(bytes, at + 10);
      uint32_t crc = read32(bytes, at + 16);
      uint64_t compressed = read32(bytes, at + 20);
      uint64_t uncompressed = read32(bytes, at + 24);
      uint64_t nameLength = read16(bytes, at + 28);
      uint64_t extraLength = read16(bytes, at + 30);
      uint64_t commentLength = read16(bytes, at + 32);
      uint64_t offset = read32(bytes, at + 42);
      uint64_t variable = nameLength + extraLength + commentLength;
      if (!fits(at + kCentralHeaderSize, variable, limit))
        return fail(where + "'s name and extra fields overrun the central "
                            "directory");
      std::string name(bytes.substr(at + kCentralHeaderSize, nameLength));
      std::string_view extra =
          bytes.substr(at + kCentralHeaderSize + nameLength, extraLength);
      at += kCentralHeaderSize + variable;
      if (!readZip64Extra(extra, name, uncompressed, compressed, offset))
        return false;

      if (name.size() < 5 || name.compare(name.size() - 4, 4, ".npy") != 0)
        return failEntry(name, "not an array (an .npz holds NAME.npy "
                               "entries, NAME not empty)");
      if (flags & kFlagEncrypted)
        return failEntry(name, "encrypted entries are not supported");
      if (method == kMethodDeflate)
        return failEntry(name, "compressed (deflate); rlx reads only stored "
                               "entries: write it with np.savez, not "
                               "np.savez_compressed");
      if (method != kMethodStored)
        return failEntry(name, "unsupported compression method " +
                                   std::to_string(method));
      if (compressed != uncompressed)
        return failEntry(name,
                         "a stored entry of " + std::to_string(compressed) +
                             " bytes claims " + std::to_string(uncompressed) +
                             " uncompressed");
      if (!names.insert(name).second)
        return failEntry(name, "appears twice");

      // The local header repeats the name; the data follows it and lies
      // before the central directory.
      if (!fits(offset, kLocalHeaderSize, directory.offset) ||
          read32(bytes, offset) != kLocalHeaderSignature)
        return failEntry(name,
                         "no local header at offset " + std::to_string(offset));
      uint64_t localName = read16(bytes, offset + 26);
      uint64_t localExtra = read16(bytes, offset + 28);
      if (read16(bytes, offset + 8) != method)
        return failEntry(name, "the local header's compression method "
                               "differs from the central directory's");
      uint64_t dataOffset = offset + kLocalHeaderSize + localName + localExtra;
      if (!fits(offset + kLocalHeaderSize, localName + localExtra,
                directory.offset) ||
          bytes.substr(offset + kLocalHeaderSize, localName) != name)
        return failEntry(name, "the local header's name differs from the "
                               "central directory's");
      if (!fits(dataOffset, compressed, directory.offset))
        return failEntry(name, "its " + std::to_string(compressed) +
                                   " bytes at offset " +
                                   std::to_string(dataOffset) +
                                   " overrun the central directory (the file "
                                   "is truncated or corrupt)");
      entries.push_back({std::move(name), offset, dataOffset, compressed, crc});
    }
    if (at != limit)
      return fail(std::to_string(limit - at) +
                  " bytes after the last central directory entry");
    return true;
  }

  /// No two entries share a byte: otherwise a small file could describe
  /// arrays many times its size.
  bool checkDisjoint(std::vector<Entry> &entries) {
    std::vector<const Entry *> order;
    for (const Entry &entry : entries)
      order.push_back(&entry);
    std::sort(order.begin(), order.end(), [](const Entry *a, const Entry *b) {
      return a->localOffset < b->localOffset;
    });
    for (size_t i = 1; i < order.size(); ++i)
      if (order[i]->localOffset < order[i - 1]->dataOffset + order[i - 1]->size)
        return fail("entries '" + order[i - 1]->name + "' and '" +
                    order[i]->name + "' overlap");
    return true;
  }

  std::string_view bytes;
  const std::string &path;
  std::string &error;
};

void append16(std::string &out, uint16_t value) {
  out.push_back(static_cast<char>(value & 0xff));
  out.push_back(static_cast<char>(value >> 8));
}
void append32(std::string &out, uint32_t value) {
  append16(out, static_cast<uint16_t>(value & 0xffff));
  append16(out, static_cast<uint16_t>(value >> 16));
}

} // namespace

std::optional<std::map<std::string, HostTensor>>
rlxrt::readNpz(const std::string &path, std::string &error) {
  std::optional<std::string> contents = detail::readWholeFile(path, error);
  if (!contents)
    return std::nullopt;
  return parseNpz(*contents, path, error);
}

std::optional<std::map<std::string, HostTensor>>
rlxrt::parseNpz(std::string_view bytes, const std::string &path,
                std::string &error) {
  return NpzReader(bytes, path, error).read();
}

bool rlxrt::writeNpz(const std::string &path,
                     const std::map<std::string, HostTensor> &tensors,
                     std::string &error) {
  // Every header first, so that nothing is written when one fails.
  std::vector<std::string> npyHeaders;
  uint64_t total = 0;
  for (const auto &[name, tensor] : tensors) {
    std::optional<std::string> header = encodeNpyHeader(tensor, error);
    if (!header) {
      error = "cannot write '" + name + "' to '" + path + "': " + error;
      return false;
    }
    uint64_t entryName = name.size() + 4; // NAME.npy
    total += kLocalHeaderSize + kCentralHeaderSize + 2 * entryName +
             header->size() + tensor.sizeInBytes();
    npyHeaders.push_back(std::move(*header));
  }
  // Without Zip64 records, offsets and sizes are 32 bits.
  if (total + kEndSize >= 0xffffffffu || tensors.size() >= 0xffff) {
    error = "cannot write '" + path + "': " + std::to_string(tensors.size()) +
            " arrays of " + std::to_string(total) +
            " bytes exceed what a zip without Zip64 records holds (4 GiB, "
            "65534 entries); use .safetensors";
    return false;
  }
  // Entries are stored, dated 1980-01-01 00:00 (reproducible files).
  auto header = [](uint32_t signature, bool central, const std::string &name,
                   uint32_t crc, uint32_t size, uint32_t offset) {
    std::string h;
    append32(h, signature);
    if (central)
      append16(h, 20); // version made by
    append16(h, 20);   // version needed: 2.0
    bool ascii = std::all_of(name.begin(), name.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x80;
    });
    append16(h, ascii ? 0 : kFlagUtf8);
    append16(h, kMethodStored);
    append16(h, 0);    // time
    append16(h, 0x21); // date: 1980-01-01
    append32(h, crc);
    append32(h, size); // compressed
    append32(h, size); // uncompressed
    append16(h, static_cast<uint16_t>(name.size()));
    append16(h, 0); // extra field length
    if (central) {
      append16(h, 0); // comment length
      append16(h, 0); // disk
      append16(h, 0); // internal attributes
      append32(h, 0); // external attributes
      append32(h, offset);
    }
    return h + name;
  };
  std::string directory;
  uint32_t offset = 0;
  size_t index = 0;
  // The pieces in file order; `locals` owns the local headers they view.
  std::vector<std::string> locals;
  locals.reserve(tensors.size());
  std::vector<std::string_view> chunks;
  for (const auto &[name, tensor] : tensors) {
    const std::string &npyHeader = npyHeaders[index++];
    std::string entryName = name + ".npy";
    uint32_t crc = crc32(0, npyHeader.data(), npyHeader.size());
    crc = crc32(crc, tensor.data(), tensor.sizeInBytes());
    uint32_t size =
        static_cast<uint32_t>(npyHeader.size() + tensor.sizeInBytes());
    std::string local =
        header(kLocalHeaderSignature, false, entryName, crc, size, 0);
    directory +=
        header(kCentralHeaderSignature, true, entryName, crc, size, offset);
    offset += static_cast<uint32_t>(local.size()) + size;
    locals.push_back(std::move(local));
    chunks.push_back(locals.back());
    chunks.push_back(npyHeader);
    chunks.emplace_back(static_cast<const char *>(tensor.data()),
                        tensor.sizeInBytes());
  }
  std::string end;
  append32(end, kEndSignature);
  append16(end, 0); // this disk
  append16(end, 0); // the directory's disk
  append16(end, static_cast<uint16_t>(tensors.size()));
  append16(end, static_cast<uint16_t>(tensors.size()));
  append32(end, static_cast<uint32_t>(directory.size()));
  append32(end, offset);
  append16(end, 0); // comment length
  chunks.push_back(directory);
  chunks.push_back(end);
  return detail::writeFileAtomically(path, chunks, error);
}
