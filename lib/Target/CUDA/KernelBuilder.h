//===- KernelBuilder.h - arithmetic in kernel bodies ------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_TARGET_CUDA_KERNELBUILDER_H
#define RLX_LIB_TARGET_CUDA_KERNELBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir {
namespace rlx {

constexpr int64_t kWarpThreads = 32;

/// Index and f32 arithmetic in a kernel body, without the boilerplate.
struct KernelBuilder {
  OpBuilder &b;
  Location loc;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value f32(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value i32(int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
  }
  Value add(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::AddFOp::create(b, loc, x, y).getResult()
               : arith::AddIOp::create(b, loc, x, y).getResult();
  }
  Value sub(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::SubFOp::create(b, loc, x, y).getResult()
               : arith::SubIOp::create(b, loc, x, y).getResult();
  }
  Value mul(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::MulFOp::create(b, loc, x, y).getResult()
               : arith::MulIOp::create(b, loc, x, y).getResult();
  }
  Value div(Value x, Value y) {
    return isa<FloatType>(x.getType())
               ? arith::DivFOp::create(b, loc, x, y).getResult()
               : arith::DivUIOp::create(b, loc, x, y).getResult();
  }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value minIndex(Value x, Value y) {
    return arith::MinSIOp::create(b, loc, x, y);
  }
  Value maxIndex(Value x, Value y) {
    return arith::MaxSIOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value toF32(Value x) {
    if (x.getType().isF32())
      return x;
    return arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  }
  /// The warp-wide maximum or sum of a per-lane f32, in every lane.
  Value warpReduce(Value x, bool isMax) {
    for (int64_t offset = kWarpThreads / 2; offset > 0; offset /= 2) {
      Value other =
          gpu::ShuffleOp::create(b, loc, x, i32(offset), i32(kWarpThreads),
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult();
      x = isMax ? arith::MaximumFOp::create(b, loc, x, other).getResult()
                : arith::AddFOp::create(b, loc, x, other).getResult();
    }
    return x;
  }
};

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CUDA_KERNELBUILDER_H
