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

#include <limits>

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
  /// Folds each lane's `state` with those of the lanes whose ids differ by
  /// xor with each of `offsets`, in that order (xor shuffles), by
  /// `combine`; every lane of the group ends with the group's state.
  SmallVector<Value>
  xorReduce(ArrayRef<Value> state, ArrayRef<int64_t> offsets,
            function_ref<SmallVector<Value>(ArrayRef<Value>, ArrayRef<Value>)>
                combine) {
    SmallVector<Value> current(state);
    for (int64_t offset : offsets) {
      SmallVector<Value> other;
      for (Value value : current)
        other.push_back(gpu::ShuffleOp::create(b, loc, value, i32(offset),
                                               i32(kWarpThreads),
                                               gpu::ShuffleMode::XOR)
                            .getShuffleResult());
      current = combine(current, other);
    }
    return current;
  }
  /// The xor offsets that fold a whole warp.
  static constexpr int64_t kWarpOffsets[] = {16, 8, 4, 2, 1};
  /// The maximum or sum of a per-lane f32 over the lanes `xorReduce`'s
  /// `offsets` reach, in each of them.
  Value shuffleReduce(Value x, ArrayRef<int64_t> offsets, bool isMax) {
    return xorReduce(x, offsets,
                     [&](ArrayRef<Value> a, ArrayRef<Value> c) {
                       return SmallVector<Value>{
                           isMax ? arith::MaximumFOp::create(b, loc, a[0], c[0])
                                       .getResult()
                                 : arith::AddFOp::create(b, loc, a[0], c[0])
                                       .getResult()};
                     })
        .front();
  }
  /// The warp-wide maximum or sum of a per-lane f32, in every lane.
  Value warpReduce(Value x, bool isMax) {
    return shuffleReduce(x, kWarpOffsets, isMax);
  }
  /// The value the exponentials of a row are taken against: its running
  /// maximum, or 0 while that is -inf (nothing but masked-out or -inf
  /// entries yet), so exp(-inf - 0) gives 0 where exp(-inf - -inf) would
  /// give NaN.
  Value pivotOfMax(Value max) {
    Value allNegInf =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max,
                              f32(-std::numeric_limits<double>::infinity()));
    return select(allNegInf, f32(0), max);
  }
};

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_TARGET_CUDA_KERNELBUILDER_H
