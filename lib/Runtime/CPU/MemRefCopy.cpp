//===- MemRefCopy.cpp - strided memref copies for compiled graphs ---------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The LLVM lowering of `memref.copy` between non-contiguous memrefs calls
// `memrefCopy`. Defined here so compiled graphs need no MLIR runtime
// library.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

/// A ranked memref descriptor behind an unranked memref: allocated,
/// aligned, offset, then `rank` sizes and `rank` strides (in elements).
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

struct DescriptorView {
  char *data;
  const int64_t *sizes;
  const int64_t *strides;

  DescriptorView(const UnrankedMemRef &memref, int64_t elemSize) {
    auto *fields = static_cast<int64_t *>(memref.descriptor);
    char *aligned = reinterpret_cast<char *>(fields[1]);
    data = aligned + fields[2] * elemSize;
    sizes = fields + 3;
    strides = fields + 3 + memref.rank;
  }
};

} // namespace

extern "C" void memrefCopy(int64_t elemSize, UnrankedMemRef *srcArg,
                           UnrankedMemRef *dstArg) {
  int64_t rank = srcArg->rank;
  DescriptorView src(*srcArg, elemSize), dst(*dstArg, elemSize);
  for (int64_t d = 0; d < rank; ++d)
    if (src.sizes[d] == 0)
      return;
  if (rank == 0) {
    std::memcpy(dst.data, src.data, elemSize);
    return;
  }
  // Odometer over all but the innermost dim; the innermost runs as one
  // memcpy when both sides are unit-stride there.
  std::vector<int64_t> index(rank, 0);
  int64_t inner = src.sizes[rank - 1];
  bool contiguous = src.strides[rank - 1] == 1 && dst.strides[rank - 1] == 1;
  while (true) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t d = 0; d < rank - 1; ++d) {
      srcOffset += index[d] * src.strides[d];
      dstOffset += index[d] * dst.strides[d];
    }
    char *from = src.data + srcOffset * elemSize;
    char *to = dst.data + dstOffset * elemSize;
    if (contiguous) {
      std::memcpy(to, from, inner * elemSize);
    } else {
      for (int64_t i = 0; i < inner; ++i)
        std::memcpy(to + i * dst.strides[rank - 1] * elemSize,
                    from + i * src.strides[rank - 1] * elemSize, elemSize);
    }
    int64_t d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < src.sizes[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}
