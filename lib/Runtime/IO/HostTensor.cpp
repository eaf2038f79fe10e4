//===- HostTensor.cpp - tensors in host memory ----------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/HostTensor.h"
#include "rlx/Runtime/FileIO.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

using namespace rlxrt;

namespace {

struct DTypeInfo {
  DType dtype;
  const char *name;
  size_t size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 4},   {DType::F64, "f64", 8},   {DType::F16, "f16", 2},
    {DType::BF16, "bf16", 2}, {DType::I8, "i8", 1},     {DType::I16, "i16", 2},
    {DType::I32, "i32", 4},   {DType::I64, "i64", 8},   {DType::U8, "u8", 1},
    {DType::U32, "u32", 4},   {DType::Bool, "bool", 1}, {DType::C64, "c64", 8},
};

const DTypeInfo &info(DType dtype) {
  for (const DTypeInfo &entry : kDTypes)
    if (entry.dtype == dtype)
      return entry;
  std::abort(); // Unreachable: every enumerator is listed above.
}

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint16_t floatToBF16(float value) {
  uint32_t bits = floatBits(value);
  if (std::isnan(value))
    return 0x7fc0;
  // Round to nearest, ties to even, on the dropped 16 bits.
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float bf16ToFloat(uint16_t value) { return bitsToFloat(uint32_t(value) << 16); }

uint16_t floatToF16(float value) {
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) // Inf or NaN.
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  int32_t e = int32_t(exponent) - 127 + 15;
  if (e >= 0x1f) // Overflow to infinity.
    return sign | 0x7c00;
  if (e <= 0) { // Subnormal or zero in f16.
    if (e < -10)
      return sign;
    mantissa |= 0x800000;
    uint32_t shift = 14 - e;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (uint32_t(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // May carry into the exponent, which is the correct rounding.
  return static_cast<uint16_t>(half);
}

float f16ToFloat(uint16_t value) {
  uint32_t sign = uint32_t(value & 0x8000) << 16;
  uint32_t exponent = (value >> 10) & 0x1f;
  uint32_t mantissa = value & 0x3ff;
  if (exponent == 0x1f)
    return bitsToFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return bitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

template <typename T> T roundToInt(double value) {
  return static_cast<T>(std::nearbyint(value)); // Default mode: ties-to-even.
}

} // namespace

size_t rlxrt::dtypeSize(DType dtype) { return info(dtype).size; }
const char *rlxrt::dtypeName(DType dtype) { return info(dtype).name; }

std::optional<DType> rlxrt::parseDTypeName(const std::string &name) {
  for (const DTypeInfo &entry : kDTypes)
    if (name == entry.name)
      return entry.dtype;
  return std::nullopt;
}

std::string rlxrt::formatDims(const std::vector<int64_t> &dims) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < dims.size(); ++i)
    os << (i ? ", " : "") << dims[i];
  os << ']';
  return os.str();
}

std::optional<int64_t>
rlxrt::checkedNumElements(const std::vector<int64_t> &shape) {
  int64_t nonZero = 1;
  bool empty = false;
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim == 0) {
      empty = true;
      continue;
    }
    if (__builtin_mul_overflow(nonZero, dim, &nonZero))
      return std::nullopt;
  }
  return empty ? 0 : nonZero;
}

std::optional<int64_t>
rlxrt::checkedSizeInBytes(DType dtype, const std::vector<int64_t> &shape) {
  std::optional<int64_t> elements = checkedNumElements(shape);
  int64_t bytes;
  if (!elements ||
      __builtin_mul_overflow(*elements, static_cast<int64_t>(dtypeSize(dtype)),
                             &bytes))
    return std::nullopt;
  return bytes;
}

void HostTensor::FreeDeleter::operator()(void *p) const { std::free(p); }

std::optional<HostTensor> HostTensor::create(DType dtype,
                                             std::vector<int64_t> shape,
                                             std::string &error) {
  std::optional<int64_t> bytes = checkedSizeInBytes(dtype, shape);
  // aligned_alloc needs a multiple of the alignment; never ask for 0 bytes.
  // The rounding may not overflow either.
  if (!bytes || *bytes > INT64_MAX - 63) {
    error = formatDims(shape) + " " + dtypeName(dtype) +
            " has more elements or bytes than a 64-bit size holds";
    return std::nullopt;
  }
  size_t rounded =
      std::max<size_t>(64, (static_cast<size_t>(*bytes) + 63) / 64 * 64);
  void *storage = std::aligned_alloc(64, rounded);
  if (!storage) {
    error = "cannot allocate " + std::to_string(*bytes) + " bytes for " +
            formatDims(shape) + " " + dtypeName(dtype) + ": " +
            std::strerror(ENOMEM);
    return std::nullopt;
  }
  std::memset(storage, 0, rounded);
  HostTensor tensor;
  tensor.elementType = dtype;
  tensor.dims = std::move(shape);
  tensor.storage.reset(storage);
  return tensor;
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape) {
  std::string error;
  bool countable = checkedSizeInBytes(dtype, shape).has_value();
  std::optional<HostTensor> created = create(dtype, std::move(shape), error);
  if (!created) {
    // No error channel in a constructor, and the library never ends its
    // host process: throw, as std::vector does for the same failures.
    if (!countable)
      throw std::length_error(error);
    throw std::bad_alloc();
  }
  *this = std::move(*created);
}

int64_t HostTensor::numElements() const {
  // Every tensor was made by create(), whose shape passed this check.
  return checkedNumElements(dims).value_or(0);
}

std::string HostTensor::describe() const {
  return formatDims(dims) + " " + dtypeName(elementType);
}

double HostTensor::getAsDouble(int64_t i) const {
  switch (elementType) {
  case DType::F32:
    return dataAs<float>()[i];
  case DType::F64:
    return dataAs<double>()[i];
  case DType::F16:
    return f16ToFloat(dataAs<uint16_t>()[i]);
  case DType::BF16:
    return bf16ToFloat(dataAs<uint16_t>()[i]);
  case DType::I8:
    return dataAs<int8_t>()[i];
  case DType::I16:
    return dataAs<int16_t>()[i];
  case DType::I32:
    return dataAs<int32_t>()[i];
  case DType::I64:
    return static_cast<double>(dataAs<int64_t>()[i]);
  case DType::U8:
    return dataAs<uint8_t>()[i];
  case DType::U32:
    return dataAs<uint32_t>()[i];
  case DType::Bool:
    return dataAs<uint8_t>()[i] ? 1.0 : 0.0;
  case DType::C64:
    return dataAs<float>()[2 * i];
  }
  return 0.0;
}

void HostTensor::setFromDouble(int64_t i, double value) {
  switch (elementType) {
  case DType::F32:
    dataAs<float>()[i] = static_cast<float>(value);
    return;
  case DType::F64:
    dataAs<double>()[i] = value;
    return;
  case DType::F16:
    dataAs<uint16_t>()[i] = floatToF16(static_cast<float>(value));
    return;
  case DType::BF16:
    dataAs<uint16_t>()[i] = floatToBF16(static_cast<float>(value));
    return;
  case DType::I8:
    dataAs<int8_t>()[i] = roundToInt<int8_t>(value);
    return;
  case DType::I16:
    dataAs<int16_t>()[i] = roundToInt<int16_t>(value);
    return;
  case DType::I32:
    dataAs<int32_t>()[i] = roundToInt<int32_t>(value);
    return;
  case DType::I64:
    dataAs<int64_t>()[i] = roundToInt<int64_t>(value);
    return;
  case DType::U8:
    dataAs<uint8_t>()[i] = roundToInt<uint8_t>(value);
    return;
  case DType::U32:
    dataAs<uint32_t>()[i] = roundToInt<uint32_t>(value);
    return;
  case DType::Bool:
    dataAs<uint8_t>()[i] = value != 0.0;
    return;
  case DType::C64:
    dataAs<float>()[2 * i] = static_cast<float>(value);
    dataAs<float>()[2 * i + 1] = 0.0f;
    return;
  }
}

detail::UniqueFd::~UniqueFd() {
  if (fd >= 0)
    ::close(fd);
}

bool rlxrt::detail::readAt(int fd, uint64_t offset, void *out, size_t size) {
  auto *bytes = static_cast<char *>(out);
  while (size > 0) {
    ssize_t n = ::pread(fd, bytes, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes += n;
    offset += n;
    size -= n;
  }
  return true;
}

detail::UniqueFd rlxrt::detail::openRegularFile(const std::string &path,
                                                uint64_t &size,
                                                std::string &reason) {
  // POSIX calls rather than a stream: a stream opens a directory and then
  // throws from its first read; here every failure is a message.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) {
    reason = std::strerror(errno);
    return fd;
  }
  struct stat info;
  if (::fstat(fd.get(), &info) != 0)
    reason = std::strerror(errno);
  else if (S_ISDIR(info.st_mode))
    reason = "it is a directory, not a file";
  else if (!S_ISREG(info.st_mode))
    reason = "it is not a regular file";
  else {
    size = static_cast<uint64_t>(info.st_size);
    return fd;
  }
  return UniqueFd();
}

std::optional<std::string> rlxrt::detail::readWholeFile(const std::string &path,
                                                        std::string &error) {
  auto fail = [&](const std::string &what) {
    error = "cannot read '" + path + "': " + what;
    return std::nullopt;
  };
  uint64_t size = 0;
  std::string reason;
  UniqueFd fd = openRegularFile(path, size, reason);
  if (!fd)
    return fail(reason);
  std::string bytes;
  bytes.resize(static_cast<size_t>(size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return fail(std::strerror(errno));
    if (n == 0)
      return fail("the file ended early (it shrank while being read)");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

/// The process's umask, read without changing it (umask() cannot read it
/// alone, and setting it for a moment races with other threads' files).
static mode_t currentUmask() {
  if (FILE *status = std::fopen("/proc/self/status", "re")) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof(line), status))
      found = std::sscanf(line, "Umask: %o", &mask) == 1;
    std::fclose(status);
    if (found)
      return static_cast<mode_t>(mask);
  }
  return 022;
}

std::optional<std::string> rlxrt::detail::injectedWriteFailure() {
  // Writes left before the one that fails; negative when off.
  static std::atomic<int64_t> left{testHookCount("RLX_TEST_FAIL_WRITE_AFTER")};
  int64_t now = left.load(std::memory_order_relaxed);
  while (now >= 0 &&
         !left.compare_exchange_weak(now, now - 1, std::memory_order_relaxed)) {
  }
  if (now != 0)
    return std::nullopt;
  return std::string(std::strerror(ENOSPC)) +
         " (injected by the test hook RLX_TEST_FAIL_WRITE_AFTER)";
}

bool rlxrt::detail::writeFileAtomically(
    const std::string &path, const std::vector<std::string_view> &chunks,
    std::string &error) {
  auto fail = [&](const std::string &reason) {
    error = "cannot write '" + path + "': " + reason;
    return false;
  };
  size_t slash = path.rfind('/');
  std::string folder =
      slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = path.substr(folder.size());
  if (base.empty() || base == "." || base == "..")
    return fail("it names a folder, not a file");
  // Hidden and unique in the same folder: rename() is atomic only within
  // one file system.
  std::string temp = folder + "." + base + ".tmp-XXXXXX";
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0)
    return fail(std::strerror(errno));
  auto abandon = [&](const std::string &reason) {
    if (fd >= 0)
      ::close(fd);
    ::unlink(temp.c_str());
    return fail(reason);
  };
  for (std::string_view chunk : chunks) {
    size_t done = 0;
    while (done < chunk.size()) {
      ssize_t n = ::write(fd, chunk.data() + done, chunk.size() - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return abandon(std::strerror(errno));
      done += static_cast<size_t>(n);
    }
  }
  if (std::optional<std::string> reason = injectedWriteFailure())
    return abandon(*reason);
  // mkostemp made the file 0600; an output is as readable as any new file.
  if (::fchmod(fd, 0666 & ~currentUmask()) != 0)
    return abandon(std::strerror(errno));
  // Some file systems report a full disk only when the data is flushed.
  if (::fsync(fd) != 0)
    return abandon(std::strerror(errno));
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    return abandon(std::strerror(errno));
  if (::rename(temp.c_str(), path.c_str()) != 0)
    return abandon(std::strerror(errno));
  return true;
}
