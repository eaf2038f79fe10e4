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
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdlib>
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
  std::unordered_map<size_t, std::vector<void *>> freeBlocks;
  size_t cachedBytes = 0;
};

Pool &pool() {
  // Never destroyed: graphs may free buffers during process exit.
  static Pool *instance = new Pool;
  return *instance;
}

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  Pool &p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.freeBlocks.find(size);
    if (it != p.freeBlocks.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      p.cachedBytes -= size;
      return block;
    }
  }
  auto *raw = static_cast<char *>(std::malloc(size + kHeaderBytes));
  if (!raw)
    return nullptr;
  *reinterpret_cast<size_t *>(raw) = size;
  return raw + kHeaderBytes;
}

extern "C" void _mlir_memref_to_llvm_free(void *block) {
  if (!block)
    return;
  char *raw = static_cast<char *>(block) - kHeaderBytes;
  size_t size = *reinterpret_cast<size_t *>(raw);
  Pool &p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.cachedBytes + size <= kMaxCachedBytes) {
      p.freeBlocks[size].push_back(block);
      p.cachedBytes += size;
      return;
    }
  }
  std::free(raw);
}
