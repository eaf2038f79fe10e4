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
// (rlx_rt_buffer_peak_bytes, rlx_rt_buffer_live_bytes).
//
// An allocation that fails ends the run with an error (RunStatus.cpp): the
// pool records it and returns null, and the compiled code returns early. A
// test hook makes an allocation fail on purpose: RLX_TEST_FAIL_ALLOC_AFTER=N
// (read once) or rlx_rt_debug_fail_allocation(N) lets N more allocations
// succeed and fails the next one, once (docs/security.md).
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

#include "RunStatus.h"
#include "rlx/Runtime/FileIO.h"

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

/// The test hook's count of allocations left before the one that fails;
/// negative when off. Atomic: parallel loops may allocate.
std::atomic<int64_t> allocationsBeforeFailure{
    rlxrt::detail::testHookCount("RLX_TEST_FAIL_ALLOC_AFTER")};

/// Whether the test hook fails this allocation.
bool injectFailure() {
  int64_t left = allocationsBeforeFailure.load(std::memory_order_relaxed);
  while (left >= 0 && !allocationsBeforeFailure.compare_exchange_weak(
                          left, left - 1, std::memory_order_relaxed)) {
  }
  return left == 0;
}

/// Ends the run with an allocation failure of `size` bytes.
void *failAllocation(size_t size, bool injected) {
  char message[256];
  std::snprintf(message, sizeof(message),
                "the compiled graph cannot allocate a temporary buffer of %zu "
                "bytes (%.1f GiB): out of memory%s",
                size, static_cast<double>(size) / (1u << 30),
                injected ? " (injected by the test hook)" : "");
  rlxrt::cpu::recordRunFailure(message, /*outOfMemory=*/true);
  return nullptr;
}

Pool &pool() {
  // Never destroyed: graphs may free buffers during process exit.
  static Pool *instance = new Pool;
  return *instance;
}

} // namespace

extern "C" void _mlir_memref_to_llvm_free(void *block);

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  if (injectFailure())
    return failAllocation(size, /*injected=*/true);
  Pool &p = pool();
  char *block = nullptr;
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
      block = raw + kHeaderBytes;
    }
  }
  if (!block) {
    // The graph's shapes may ask for more memory than there is: the run
    // fails with the size (the compiled code checks for null).
    char *raw = size > SIZE_MAX - kHeaderBytes
                    ? nullptr
                    : static_cast<char *>(std::malloc(size + kHeaderBytes));
    if (!raw)
      return failAllocation(size, /*injected=*/false);
    *reinterpret_cast<size_t *>(raw) = size;
    if (poisoning())
      std::memset(raw + kHeaderBytes, kPoisonByte, size);
    countAllocated(size);
    block = raw + kHeaderBytes;
  }
  if (!rlxrt::cpu::noteRunAllocation(block)) {
    _mlir_memref_to_llvm_free(block);
    return failAllocation(size, /*injected=*/false);
  }
  return block;
}

extern "C" void _mlir_memref_to_llvm_free(void *block) {
  if (!block)
    return;
  rlxrt::cpu::noteRunFree(block);
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

/// The bytes of buffers handed out and not freed yet.
extern "C" int64_t rlx_rt_buffer_live_bytes() {
  return liveBytes.load(std::memory_order_relaxed);
}

/// The test hook: `after` more allocations succeed and the next one fails,
/// once; a negative `after` turns the hook off.
extern "C" void rlx_rt_debug_fail_allocation(int64_t after) {
  allocationsBeforeFailure.store(after < 0 ? -1 : after,
                                 std::memory_order_relaxed);
}

/// Starts a new peak from the bytes held now.
extern "C" void rlx_rt_buffer_reset_peak() {
  peakBytes.store(liveBytes.load(std::memory_order_relaxed),
                  std::memory_order_relaxed);
}
