//===- KernelIndexing.h - thread indices to loop indices --------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TARGET_CUDA_KERNELINDEXING_H
#define RLX_LIB_TARGET_CUDA_KERNELINDEXING_H

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir {
namespace rlx {

/// Splits `linear` into the row-major indices of a space of `extents`: the
/// kernels flatten iteration spaces onto one grid dimension and recover
/// each loop's index from a thread's (or block's) linear index.
inline SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<Value> extents) {
  SmallVector<Value> indices(extents.size());
  Value rest = linear;
  for (size_t i = extents.size(); i-- > 0;) {
    if (i == 0) {
      indices[i] = rest;
      break;
    }
    indices[i] = arith::RemUIOp::create(b, loc, rest, extents[i]);
    rest = arith::DivUIOp::create(b, loc, rest, extents[i]);
  }
  return indices;
}

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CUDA_KERNELINDEXING_H
