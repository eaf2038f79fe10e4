//===- BufferPool.cpp - reused temporary buffers of compiled graphs -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Compiled graphs allocate their temporary buffers through the memref
// lowering's generic allocation functions, defined here. A freed buffer is
// kept, by size, and handed out again: every run of a graph allocates the
// same sizes, and a fresh large block from the system costs a page fault per
// page on first touch (a quarter of a BERT-base layer's run time when each
// run maps and unmaps its temporaries).
//
// The pool also counts the bytes handed out and not yet freed, and their
// peak, which runners read to report the memory a run holds
// (rlx_rt_buffer_peak_bytes).
//
// RLX_DEBUG_POISON=1 is the pool's debug mode, as allocators' debug modes
// poison freed memory: every new block and every freed block is filled with
// 0xFF bytes (a NaN in every float type), and freed blocks wait in a
// quarantine of up to 256 MiB before they are handed out again. A read of a
// buffer after its dealloc, or of one that nothing wrote (a buffer reuse
// decision gone wrong, an external library still reading a released
// operand), then yields NaN instead of a plausible stale value
// (docs/architecture.md, "Buffers handed to libraries").
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {

/// Bytes in front of each block holding its size; 16 keeps malloc's
/// alignment for the block itself.
constexpr size_t kHeaderBytes = 16;
/// Freed blocks beyond this many cached bytes go back to the system.
constexpr size_t kMaxCachedBytes = size_t(1) << 30;

struct Pool {
  std::mutex mutex;
  /// Freed blocks by size, each as the start of its malloc'd chunk (the
  /// header), not the pointer handed out: a zero-byte block's pointer is
  /// one past its chunk, which leak checkers do not count as a reference,
  /// so a cached one would be reported as leaked.
  std::unordered_map<size_t, std::vector<char *>> freeBlocks;
  size_t cachedBytes = 0;
  /// RLX_DEBUG_POISON: freed blocks (chunk starts), oldest first, and their
  /// bytes, not handed out again until they leave the quarantine.
  std::deque<char *> quarantine;
  size_t quarantinedBytes = 0;
};

/// The quarantine's bound under RLX_DEBUG_POISON.
constexpr size_t kMaxQuarantinedBytes = size_t(256) << 20;

/// Whether RLX_DEBUG_POISON asks for the debug mode (read once).
bool poisoning() {
  static const bool enabled = [] {
    const char *value = std::getenv("RLX_DEBUG_POISON");
    return value && *value && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

/// The byte of the debug mode's fill: 0xFFFFFFFF is a NaN as f32, f64, f16
/// and bf16, and -1 as an integer.
constexpr int kPoisonByte = 0xFF;

/// Bytes handed out and not yet freed, and their maximum since the last
/// reset. Atomic: parallel loops may allocate.
std::atomic<int64_t> liveBytes{0};
std::atomic<int64_t> peakBytes{0};

void countAllocated(size_t size) {
  int64_t live =
      liveBytes.fetch_add(size, std::memory_order_relaxed) + int64_t(size);
  int64_t peak = peakBytes.load(std::memory_order_relaxed);
  while (live > peak && !peakBytes.compare_exchange_weak(
                            peak, live, std::memory_order_relaxed)) {
  }
}

Pool &pool() {
  // Never destroyed: graphs may free buffers during process exit.
  static Pool *instance = new Pool;
  return *instance;
}

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  Pool &p = pool();
  // Under RLX_DEBUG_POISON only fresh memory: a quarantined block is never
  // handed out again while a stale pointer could still read it.
  if (!poisoning()) {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.freeBlocks.find(size);
    if (it != p.freeBlocks.end() && !it->second.empty()) {
      char *raw = it->second.back();
      it->second.pop_back();
      p.cachedBytes -= size;
      countAllocated(size);
      return raw + kHeaderBytes;
    }
  }
  // The compiled code has no error path: it would write through a null
  // buffer. Stop the process with the reason instead (the graph's static
  // shapes asked for more memory than there is).
  char *raw = size > SIZE_MAX - kHeaderBytes
                  ? nullptr
                  : static_cast<char *>(std::malloc(size + kHeaderBytes));
  if (!raw) {
    std::fprintf(stderr,
                 "error: the compiled graph cannot allocate a temporary "
                 "buffer of %zu bytes (%.1f GiB): out of memory\n",
                 size, static_cast<double>(size) / (1u << 30));
    std::fflush(stderr);
    // _Exit: the graph's other threads may still run; exit handlers and
    // static destructors must not run under them.
    std::_Exit(1);
  }
  *reinterpret_cast<size_t *>(raw) = size;
  if (poisoning())
    std::memset(raw + kHeaderBytes, kPoisonByte, size);
  countAllocated(size);
  return raw + kHeaderBytes;
}

extern "C" void _mlir_memref_to_llvm_free(void *block) {
  if (!block)
    return;
  char *raw = static_cast<char *>(block) - kHeaderBytes;
  size_t size = *reinterpret_cast<size_t *>(raw);
  liveBytes.fetch_sub(size, std::memory_order_relaxed);
  Pool &p = pool();
  if (poisoning()) {
    std::memset(block, kPoisonByte, size);
    std::lock_guard<std::mutex> lock(p.mutex);
    p.quarantine.push_back(raw);
    p.quarantinedBytes += size;
    while (p.quarantinedBytes > kMaxQuarantinedBytes) {
      char *oldest = p.quarantine.front();
      p.quarantine.pop_front();
      p.quarantinedBytes -= *reinterpret_cast<size_t *>(oldest);
      std::free(oldest);
    }
    return;
  }
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.cachedBytes + size <= kMaxCachedBytes) {
      p.freeBlocks[size].push_back(raw);
      p.cachedBytes += size;
      return;
    }
  }
  std::free(raw);
}

/// The most bytes of buffers held at once since the last reset.
extern "C" int64_t rlx_rt_buffer_peak_bytes() {
  return peakBytes.load(std::memory_order_relaxed);
}

/// Starts a new peak from the bytes held now.
extern "C" void rlx_rt_buffer_reset_peak() {
  peakBytes.store(liveBytes.load(std::memory_order_relaxed),
                  std::memory_order_relaxed);
}
