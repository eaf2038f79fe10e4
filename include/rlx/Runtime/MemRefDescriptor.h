//===- MemRefDescriptor.h - memref descriptors at run time ------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The in-memory layout of a ranked memref as the LLVM lowering passes it
// through `_mlir_ciface_*` functions. Defined here, not taken from MLIR's
// headers, so the runtime builds and runs without LLVM/MLIR installed.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_MEMREFDESCRIPTOR_H
#define RLX_RUNTIME_MEMREFDESCRIPTOR_H

#include <cstdint>

namespace rlxrt {

template <typename T, int Rank> struct MemRefDescriptor {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];

  T *data() const { return aligned + offset; }
};

} // namespace rlxrt

#endif // RLX_RUNTIME_MEMREFDESCRIPTOR_H
