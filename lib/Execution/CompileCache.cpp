//===- CompileCache.cpp - compiled graphs kept on disk --------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// An entry is `<key>.so` in the cache folder: the library bytes, then a
// trailer of kTrailerBytes (the ELF loader ignores bytes past what the
// headers describe):
//
//   key[32] checksum[32] payloadBytes:u64le version:u32le 0:u32le magic[8]
//
// `key` is the BLAKE3 hash of everything the compile depends on, `checksum`
// the BLAKE3 hash of the payload (the library), `magic` "RLXCACHE". A reader
// checks all of them before the library is mapped.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/CompileCache.h"
#include "rlx/Execution/CompilePhase.h"
#include "rlx/Execution/HostCode.h"
#include "rlx/Runtime/FileIO.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RLX_BUILD_REVISION
#define RLX_BUILD_REVISION "unknown"
#endif

using namespace rlxrt;

namespace {

using Digest = std::array<uint8_t, 32>;

constexpr char kMagic[8] = {'R', 'L', 'X', 'C', 'A', 'C', 'H', 'E'};
/// Bumped whenever the entry format or the key's fields change, so entries
/// of an older layout are never read as this one.
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kTrailerBytes = 32 + 32 + 8 + 4 + 4 + 8;
/// A temporary file older than this belongs to a writer that died.
constexpr auto kStaleTemporaryAge = std::chrono::hours(1);

/// The key's fields, each length-prefixed so that no two different field
/// lists hash alike.
class KeyBuilder {
public:
  void add(llvm::StringRef name, llvm::StringRef value) {
    addBytes(name);
    addBytes(value);
  }
  /// A file's identity: its path, size and modification time; a rebuilt
  /// or replaced file gives another key. A missing file is keyed as such.
  void addFile(llvm::StringRef name, llvm::StringRef path) {
    llvm::sys::fs::file_status status;
    std::string identity = path.str();
    if (!llvm::sys::fs::status(path, status))
      identity +=
          " " + std::to_string(status.getSize()) + " " +
          std::to_string(
              status.getLastModificationTime().time_since_epoch().count());
    else
      identity += " missing";
    add(name, identity);
  }
  Digest finish() { return hasher.final(); }

private:
  void addBytes(llvm::StringRef bytes) {
    uint8_t length[8];
    llvm::support::endian::write64le(length, bytes.size());
    hasher.update(llvm::ArrayRef<uint8_t>(length));
    hasher.update(bytes);
  }
  llvm::BLAKE3 hasher;
};

/// The file that maps `address`: a shared library, or the executable.
std::string getBinaryOf(void *address) {
  Dl_info info;
  if (dladdr(address, &info) && info.dli_fname &&
      llvm::sys::path::is_absolute(info.dli_fname))
    return info.dli_fname;
  // The executable's own name as it was started, perhaps relative.
  return llvm::sys::fs::getMainExecutable(nullptr, address);
}

/// The host CPU's name and its features, sorted: code compiled for one
/// CPU may use instructions another lacks.
std::string getHostCPUIdentity() {
  std::string identity = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> names;
  for (const auto &feature : features)
    names.push_back((feature.getValue() ? "+" : "-") + feature.getKey().str());
  llvm::sort(names);
  return identity + " " + llvm::join(names, ",");
}

Digest computeKey(const ExecutionTarget &target, llvm::StringRef moduleText,
                  llvm::StringRef entry, llvm::StringRef entryRule,
                  const CompileOptions &options) {
  KeyBuilder key;
  key.add("format", std::to_string(kFormatVersion));
  key.add("revision", RLX_BUILD_REVISION);
  // The revision names the sources a build came from; the binary's identity
  // tells builds of one revision apart (a working tree with local edits).
  // The project's compiler (rlx-run, or libRLXCAPI.so under Python), and
  // the MLIR and LLVM libraries it calls, which a package upgrade may
  // replace under it.
  key.addFile("compiler", getBinaryOf(reinterpret_cast<void *>(&computeKey)));
  key.addFile("mlir", getBinaryOf(reinterpret_cast<void *>(
                          &mlir::translateModuleToLLVMIR)));
  key.addFile("llvm", getBinaryOf(reinterpret_cast<void *>(
                          &llvm::sys::getHostCPUName)));
  key.add("target", target.getName());
  key.add("target description", target.getDescription());
  key.add("host cpu", getHostCPUIdentity());
  key.add("entry", entry);
  key.add("entry rule", entryRule);
  key.add("use blas", options.useBlas ? "1" : "0");
  key.add("profile", options.profile ? "1" : "0");
  key.add("pipeline options", options.pipelineOptions);
  // The library links its runtime by path: another runtime is another
  // entry.
  std::string runtime = options.runtimeLibrary;
  if (llvm::Expected<std::string> found = findRuntimeLibrary(
          options.runtimeLibrary,
          ("librlx_" + target.getName() + "_runtime.so").str(),
          target.getName()))
    runtime = *found;
  else
    llvm::consumeError(found.takeError());
  key.addFile("runtime", runtime);
  for (const std::string &plugin : getLoadedCustomOpPlugins())
    key.addFile("plugin", plugin);
  key.add("module", moduleText);
  return key.finish();
}

/// The BLAKE3 hash of the first `size` bytes of `fd`; nullopt on a read
/// error or a shorter file.
std::optional<Digest> hashFile(int fd, uint64_t size) {
  llvm::BLAKE3 hasher;
  std::vector<uint8_t> chunk(1 << 20);
  for (uint64_t offset = 0; offset < size;) {
    size_t n =
        static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - offset));
    if (!detail::readAt(fd, offset, chunk.data(), n))
      return std::nullopt;
    hasher.update(llvm::ArrayRef<uint8_t>(chunk.data(), n));
    offset += n;
  }
  return hasher.final();
}

/// Why entry `path` cannot be loaded, or "" when its trailer holds `key`
/// and the checksum of its library. Touches the entry (its modification
/// time orders the least recently used) when it is good.
std::string verifyEntry(llvm::StringRef path, const Digest &key) {
  uint64_t size = 0;
  std::string reason;
  detail::UniqueFd file = detail::openRegularFile(path.str(), size, reason);
  if (!file)
    return "cannot open it: " + reason;
  if (size < kTrailerBytes)
    return "truncated: " + std::to_string(size) + " bytes, no trailer";
  uint8_t trailer[kTrailerBytes];
  if (!detail::readAt(file.get(), size - kTrailerBytes, trailer, kTrailerBytes))
    return "cannot read its trailer";
  const uint8_t *field = trailer;
  if (std::memcmp(trailer + kTrailerBytes - 8, kMagic, 8) != 0)
    return "no trailer (truncated or overwritten)";
  uint32_t version = llvm::support::endian::read32le(field + 72);
  if (version != kFormatVersion)
    return "format version " + std::to_string(version) + ", not " +
           std::to_string(kFormatVersion);
  if (std::memcmp(field, key.data(), key.size()) != 0)
    return "its trailer holds another key";
  uint64_t payload = llvm::support::endian::read64le(field + 64);
  if (payload != size - kTrailerBytes)
    return "truncated: its library should have " + std::to_string(payload) +
           " bytes, the file holds " + std::to_string(size - kTrailerBytes);
  std::optional<Digest> checksum = hashFile(file.get(), payload);
  if (!checksum)
    return "cannot read its library";
  if (std::memcmp(checksum->data(), field + 32, checksum->size()) != 0)
    return "its library does not match its checksum";
  // A read-only cache still serves hits: the touch only orders evictions.
  (void)llvm::sys::fs::setLastAccessAndModificationTime(
      file.get(), std::chrono::system_clock::now());
  return "";
}

/// Appends the trailer for `key` to the library written at `path`.
llvm::Error appendTrailer(llvm::StringRef path, const Digest &key) {
  detail::UniqueFd file(::open(path.str().c_str(), O_RDWR | O_CLOEXEC));
  if (!file)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + std::strerror(errno));
  struct stat status;
  if (::fstat(file.get(), &status) != 0)
    return llvm::createStringError("cannot stat '" + path +
                                   "': " + std::strerror(errno));
  uint64_t size = static_cast<uint64_t>(status.st_size);
  std::optional<Digest> checksum = hashFile(file.get(), size);
  if (!checksum)
    return llvm::createStringError("cannot read '" + path + "'");
  uint8_t trailer[kTrailerBytes] = {};
  std::memcpy(trailer, key.data(), key.size());
  std::memcpy(trailer + 32, checksum->data(), checksum->size());
  llvm::support::endian::write64le(trailer + 64, size);
  llvm::support::endian::write32le(trailer + 72, kFormatVersion);
  std::memcpy(trailer + kTrailerBytes - 8, kMagic, 8);
  if (std::optional<std::string> reason = detail::injectedWriteFailure())
    return llvm::createStringError("cannot write '" + path + "': " + *reason);
  const uint8_t *bytes = trailer;
  size_t left = kTrailerBytes;
  uint64_t offset = size;
  while (left > 0) {
    ssize_t n = ::pwrite(file.get(), bytes, left, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return llvm::createStringError("cannot write '" + path +
                                     "': " + std::strerror(errno));
    bytes += n;
    offset += n;
    left -= n;
  }
  return llvm::Error::success();
}

bool isEntryName(llvm::StringRef name) {
  return name.size() == 64 + 3 && name.ends_with(".so") &&
         llvm::all_of(name.drop_back(3), llvm::isHexDigit);
}

/// Removes the least recently used entries until the rest fit in
/// `config.maxBytes`, never `keep` (the entry just stored); and temporary
/// files of writers that died.
void evict(const CompileCacheConfig &config, llvm::StringRef keep) {
  struct Entry {
    std::string path;
    uint64_t bytes;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(config.directory, ec), end;
       !ec && it != end; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::ErrorOr<llvm::sys::fs::basic_file_status> status = it->status();
    if (!status || status->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    if (name.starts_with(".") && name.contains(".tmp-")) {
      if (now - status->getLastModificationTime() > kStaleTemporaryAge)
        llvm::sys::fs::remove(it->path());
      continue;
    }
    if (!isEntryName(name))
      continue;
    total += status->getSize();
    if (it->path() != keep)
      entries.push_back(
          {it->path(), status->getSize(), status->getLastModificationTime()});
  }
  if (total <= config.maxBytes)
    return;
  llvm::sort(entries,
             [](const Entry &a, const Entry &b) { return a.used < b.used; });
  unsigned removed = 0;
  uint64_t removedBytes = 0;
  for (const Entry &entry : entries) {
    if (total <= config.maxBytes)
      break;
    // Another process may have removed it first; its bytes are gone all
    // the same.
    llvm::sys::fs::remove(entry.path);
    total -= entry.bytes;
    removedBytes += entry.bytes;
    ++removed;
  }
  if (config.verbose && removed)
    llvm::errs() << "rlx: compile cache: evicted " << removed << " entries ("
                 << removedBytes << " bytes) to stay within " << config.maxBytes
                 << " bytes\n";
}

std::string shortKey(llvm::StringRef hex) { return hex.take_front(16).str(); }

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Parses and compiles without the cache.
llvm::Expected<std::unique_ptr<CompiledGraph>>
compileDirectly(const ExecutionTarget &target,
                llvm::function_ref<llvm::Expected<ParsedGraph>()> parse,
                const CompileOptions &options) {
  llvm::Expected<ParsedGraph> parsed = parse();
  if (!parsed)
    return parsed.takeError();
  return target.compile(*parsed->module, parsed->entry, options);
}

/// Parses `value`, a byte count with an optional K, M or G suffix.
std::optional<uint64_t> parseByteCount(llvm::StringRef value) {
  value = value.trim();
  uint64_t scale = 1;
  if (!value.empty()) {
    char suffix = llvm::toUpper(value.back());
    if (suffix == 'K' || suffix == 'M' || suffix == 'G') {
      scale = suffix == 'K' ? 1u << 10 : suffix == 'M' ? 1u << 20 : 1u << 30;
      value = value.drop_back();
    }
  }
  uint64_t count;
  if (value.empty() || value.getAsInteger(10, count))
    return std::nullopt;
  uint64_t bytes;
  if (__builtin_mul_overflow(count, scale, &bytes))
    return std::nullopt;
  return bytes;
}

} // namespace

llvm::Expected<CompileCacheConfig> CompileCacheConfig::fromEnvironment() {
  CompileCacheConfig config;
  if (const char *dir = std::getenv("RLX_CACHE_DIR")) {
    config.directory = dir;
  } else {
    llvm::SmallString<256> path;
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    if (xdg && llvm::sys::path::is_absolute(xdg)) {
      path = xdg;
    } else if (const char *home = std::getenv("HOME"); home && *home) {
      path = home;
      llvm::sys::path::append(path, ".cache");
    }
    // Without a home there is no per-user place: no cache.
    if (!path.empty()) {
      llvm::sys::path::append(path, "rlx");
      config.directory = std::string(path);
    }
  }
  if (const char *bound = std::getenv("RLX_CACHE_MAX_BYTES")) {
    std::optional<uint64_t> bytes = parseByteCount(bound);
    if (!bytes)
      return llvm::createStringError(
          llvm::Twine("RLX_CACHE_MAX_BYTES='") + bound +
          "' is not a byte count (such as 2147483648, 512M or 2G)");
    config.maxBytes = *bytes;
  }
  if (const char *verbose = std::getenv("RLX_CACHE_VERBOSE"))
    config.verbose = *verbose && llvm::StringRef(verbose) != "0";
  return config;
}

llvm::Expected<std::unique_ptr<CompiledGraph>> rlxrt::compileWithCache(
    const ExecutionTarget &target, llvm::StringRef moduleText,
    llvm::StringRef entry, llvm::StringRef entryRule,
    llvm::function_ref<llvm::Expected<ParsedGraph>()> parse,
    const CompileOptions &options, const CompileCacheConfig &config) {
  if (!config.isEnabled()) {
    if (config.verbose)
      llvm::errs() << "rlx: compile cache: off\n";
    return compileDirectly(target, parse, options);
  }
  if (!target.supportsCompileCache()) {
    if (config.verbose)
      llvm::errs() << "rlx: compile cache: the " << target.getName()
                   << " target is compiled without it\n";
    return compileDirectly(target, parse, options);
  }
  auto start = std::chrono::steady_clock::now();
  Digest key = computeKey(target, moduleText, entry, entryRule, options);
  std::string hex = llvm::toHex(key, /*LowerCase=*/true);
  llvm::SmallString<256> path(config.directory);
  llvm::sys::path::append(path, hex + ".so");

  // A hit: a verified entry. Anything else about it is a miss; an entry
  // that exists but fails the check is removed first, so no later process
  // trips on it either.
  if (llvm::sys::fs::exists(path)) {
    std::string problem = verifyEntry(path, key);
    if (problem.empty()) {
      llvm::Expected<std::unique_ptr<CompiledGraph>> loaded =
          CompiledGraph::load(path);
      if (loaded && options.profile)
        if (llvm::Error error = (*loaded)->bindLibraryProfile())
          loaded = std::move(error);
      if (loaded) {
        if (config.verbose)
          llvm::errs() << "rlx: compile cache: hit " << shortKey(hex)
                       << " (verified and loaded in "
                       << llvm::format("%.1f", secondsSince(start) * 1e3)
                       << " ms)\n";
        return loaded;
      }
      problem = llvm::toString(loaded.takeError());
    }
    llvm::errs() << "rlx: compile cache: entry " << path << " is unusable ("
                 << problem << "); removed it, recompiling\n";
    llvm::sys::fs::remove(path);
  }

  // A miss: compiled into a temporary file of the cache folder, then
  // renamed into place, so concurrent readers and writers of the same key
  // see a whole entry or none.
  auto fallBack = [&](const llvm::Twine &why) {
    llvm::errs() << "rlx: compile cache: cannot use '" << config.directory
                 << "' (" << why << "); compiling without it\n";
    return compileDirectly(target, parse, options);
  };
  // Entries are code this user's processes run: a folder made here is
  // private to the user.
  if (std::error_code ec = llvm::sys::fs::create_directories(
          config.directory, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all))
    return fallBack(ec.message());
  // The library is linked by a C compiler driver; without one the graph is
  // JIT-compiled as before.
  if (!llvm::sys::findProgramByName("cc") &&
      !llvm::sys::findProgramByName("clang")) {
    if (config.verbose)
      llvm::errs() << "rlx: compile cache: no C compiler driver (cc or "
                      "clang) on PATH to link entries; compiling without it\n";
    return compileDirectly(target, parse, options);
  }
  llvm::SmallString<256> temp(config.directory);
  llvm::sys::path::append(temp, ".tmp-" + shortKey(hex) + "-%%%%%%%%.so");
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(temp, fd, temp))
    return fallBack(ec.message());
  ::close(fd);
  llvm::scope_exit removeTemp([&] { llvm::sys::fs::remove(temp); });

  llvm::Expected<ParsedGraph> parsed = parse();
  if (!parsed)
    return parsed.takeError();
  llvm::Expected<GraphSignature> signature =
      target.emitSharedLibrary(*parsed->module, parsed->entry, temp, options);
  if (!signature) {
    llvm::Error error = signature.takeError();
    // The library could not be written (a full disk, a file size limit):
    // not the graph's fault, so compiled without the cache as it would be
    // without one. The graph's own errors are returned as they are.
    if (isWriteFailure(error))
      return fallBack(llvm::toString(std::move(error)));
    return std::move(error);
  }
  if (llvm::Error error = appendTrailer(temp, key))
    return fallBack(llvm::toString(std::move(error)));
  uint64_t bytes = 0;
  llvm::sys::fs::file_size(temp, bytes);
  if (std::error_code ec = llvm::sys::fs::rename(temp, path))
    return fallBack(ec.message());
  removeTemp.release();
  if (config.verbose)
    llvm::errs() << "rlx: compile cache: miss " << shortKey(hex)
                 << ", compiled and stored " << bytes << " bytes in "
                 << llvm::format("%.2f", secondsSince(start)) << " s\n";
  evict(config, path);

  // Loaded from the entry, as a later hit would load it. Another writer of
  // the same key may have renamed its own entry over this one since (that
  // one is whole too), or an eviction removed it: then compiled again.
  llvm::Expected<std::unique_ptr<CompiledGraph>> loaded =
      CompiledGraph::load(path);
  if (!loaded)
    return fallBack(llvm::toString(loaded.takeError()));
  if (options.profile)
    if (llvm::Error error = (*loaded)->bindLibraryProfile())
      return std::move(error);
  return loaded;
}
