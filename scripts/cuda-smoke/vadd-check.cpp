//===- vadd-check.cpp - runs the compiled vadd graph and checks it --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The host side of the CUDA smoke test, built by scripts/cuda-smoke.sh and
// run on a GPU machine that has no LLVM/MLIR: it loads librlx_cuda_runtime.so
// and vadd.so from its own directory, calls the graph through its C interface
// on random non-zero inputs, and compares every output element with the sum
// computed here. The sum of two floats is exact IEEE arithmetic on both
// sides, so results must match bit for bit.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/MemRefDescriptor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <limits.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr int64_t kElements = 1000003;
constexpr int kRuns = 3;

using Vector = rlxrt::MemRefDescriptor<float, 1>;
using AvailableFn = int (*)(char *, size_t);
using TimeBeginFn = void *(*)(void *);
using TimeEndFn = float (*)(void *, void *);
using VaddFn = void (*)(Vector *, Vector *, Vector *);

std::string ownDirectory() {
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0)
    return ".";
  path[length] = 0;
  std::string text = path;
  return text.substr(0, text.rfind('/'));
}

void *load(const std::string &path) {
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    std::fprintf(stderr, "vadd-check: cannot load %s: %s\n", path.c_str(),
                 dlerror());
    std::exit(2);
  }
  return library;
}

template <typename Fn> Fn symbol(void *library, const char *name) {
  void *address = dlsym(library, name);
  if (!address) {
    std::fprintf(stderr, "vadd-check: no symbol %s\n", name);
    std::exit(2);
  }
  return reinterpret_cast<Fn>(address);
}

/// Non-zero values of both signs spanning a few binades, from xorshift64.
void fillRandom(std::vector<float> &values, uint64_t &state) {
  for (float &value : values) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    float mantissa = 1.0f + float(state >> 40) / float(1 << 24);
    int exponent = int((state >> 8) % 9) - 4;
    value = std::ldexp((state & 1) ? -mantissa : mantissa, exponent);
  }
}

Vector describe(std::vector<float> &values) {
  return {values.data(), values.data(), 0, {int64_t(values.size())}, {1}};
}

} // namespace

int main() {
  // Line-buffered, so what was printed survives a runtime abort.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string directory = ownDirectory();
  // The runtime first, to report an unusable CUDA plainly: loading vadd.so
  // runs its module load, which aborts without a device.
  void *runtime = load(directory + "/librlx_cuda_runtime.so");
  char message[512];
  if (!symbol<AvailableFn>(runtime, "rlx_cuda_available")(message,
                                                          sizeof(message))) {
    std::fprintf(stderr, "vadd-check: CUDA unavailable: %s\n", message);
    return 2;
  }
  std::printf("device: %s\n", message);
  auto timeBegin = symbol<TimeBeginFn>(runtime, "rlx_cuda_time_begin");
  auto timeEnd = symbol<TimeEndFn>(runtime, "rlx_cuda_time_end");
  void *graph = load(directory + "/vadd.so");
  auto vadd = symbol<VaddFn>(graph, "_mlir_ciface_vadd");

  std::vector<float> a(kElements), b(kElements), c(kElements);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  int64_t totalFailed = 0;
  // Several runs: later ones reuse the device blocks the first one cached.
  for (int run = 1; run <= kRuns; ++run) {
    fillRandom(a, state);
    fillRandom(b, state);
    std::fill(c.begin(), c.end(), std::nanf(""));
    Vector va = describe(a), vb = describe(b), vc = describe(c);
    void *timer = timeBegin(nullptr);
    vadd(&va, &vb, &vc);
    float milliseconds = timeEnd(timer, nullptr);
    int64_t passed = 0, failed = 0;
    for (int64_t i = 0; i < kElements; ++i) {
      float expected = a[i] + b[i];
      if (std::memcmp(&c[i], &expected, sizeof(float)) == 0) {
        ++passed;
        continue;
      }
      if (failed++ < 5)
        std::printf("  mismatch at %lld: %a + %a = %a, got %a\n", (long long)i,
                    a[i], b[i], expected, c[i]);
    }
    std::printf("vadd run %d: %lld passed, %lld failed (%.3f ms)\n", run,
                (long long)passed, (long long)failed, milliseconds);
    totalFailed += failed;
  }
  std::printf("vadd: %s\n", totalFailed ? "FAILED" : "all runs passed");
  return totalFailed ? 1 : 0;
}
