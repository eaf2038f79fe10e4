//===- FileIO.h - file reads and text scanning for the loaders --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_FILEIO_H
#define RLX_RUNTIME_FILEIO_H

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rlxrt {
namespace detail {

/// A file descriptor, closed when this goes away.
class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : fd(fd) {}
  UniqueFd(UniqueFd &&other) : fd(other.fd) { other.fd = -1; }
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd();
  int get() const { return fd; }
  explicit operator bool() const { return fd >= 0; }

private:
  int fd;
};

/// Opens `path` for reading if it is a regular file (a directory or a
/// device such as /dev/zero is refused: reading one throws or never ends)
/// and sets `size` to its size; else an invalid descriptor and `reason`,
/// the system's or ours, without the file name.
UniqueFd openRegularFile(const std::string &path, uint64_t &size,
                         std::string &reason);

/// Reads `size` bytes at `offset` of `fd` into `out`, retrying interrupted
/// and short reads; false on an error or a file with fewer bytes.
bool readAt(int fd, uint64_t offset, void *out, size_t size);

/// The bytes of `path`, or std::nullopt with `error` naming the file and
/// the system's reason.
std::optional<std::string> readWholeFile(const std::string &path,
                                         std::string &error);

/// Writes `chunks`, one after another, as the file `path`, atomically: into
/// a new temporary file in the same folder (so no reader ever sees a part
/// of it), flushed to disk, then renamed over `path`. On failure (a full
/// disk, a file size limit, a missing folder) `path` is left as it was, the
/// temporary file is removed and `error` names `path` and the reason. The
/// file gets the mode a new file gets (0666 less the umask).
bool writeFileAtomically(const std::string &path,
                         const std::vector<std::string_view> &chunks,
                         std::string &error);

/// The test hook that fails a write on purpose, for fault-injection tests:
/// with RLX_TEST_FAIL_WRITE_AFTER=N in the environment (read once per
/// process), N more writes succeed and the next one fails, once. Every
/// writer of a file (writeFileAtomically; ahead-of-time libraries and
/// compile cache entries) calls it once per write, after filling its
/// temporary file and before renaming it into place, and fails with the
/// reason it returns ("No space left on device (injected by the test hook
/// RLX_TEST_FAIL_WRITE_AFTER)") as a full disk would make it fail. Leave
/// the variable unset in production.
std::optional<std::string> injectedWriteFailure();

/// The count a test hook's environment variable `name` holds (a decimal
/// integer from 0), or -1 when it is unset, empty or anything else.
inline int64_t testHookCount(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return -1;
  char *end = nullptr;
  long long n = std::strtoll(value, &end, 10);
  return *end == '\0' && n >= 0 ? int64_t(n) : int64_t(-1);
}

/// A position in the text of a header, for the loaders' parsers: the JSON
/// of .safetensors and the Python dict of .npy skip the same whitespace.
struct TextCursor {
  std::string_view text;
  size_t pos = 0;

  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\t' || text[pos] == '\r'))
      ++pos;
  }
  /// Skips whitespace, then `c` if it comes next.
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
};

} // namespace detail
} // namespace rlxrt

#endif // RLX_RUNTIME_FILEIO_H
