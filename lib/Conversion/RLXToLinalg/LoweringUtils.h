//===- LoweringUtils.h - helpers of the rlx to linalg lowering --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_CONVERSION_RLXTOLINALG_LOWERINGUTILS_H
#define RLX_LIB_CONVERSION_RLXTOLINALG_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace rlx {

/// The body of an elementwise generic: scalar inputs -> scalar result.
using ScalarBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A `linalg.generic` computing `body` over `inputs` broadcast NumPy-style
/// to `resultType` (right-aligned; size-1 dims stretch). A dynamic result
/// dim takes its size from the first input that has that dim dynamic.
Value buildBroadcastElementwise(OpBuilder &b, Location loc,
                                RankedTensorType resultType, ValueRange inputs,
                                ScalarBodyBuilder body);

/// `tensor.empty` of the broadcast result `type` of `sources`: each dynamic
/// dim is read from the first source (right-aligned) with that dim dynamic.
Value buildBroadcastEmpty(OpBuilder &b, Location loc, RankedTensorType type,
                          ValueRange sources);

/// A tensor of `type` filled with zero; `dynamicSizes` holds one index value
/// per dynamic dim, in order.
Value buildZeros(OpBuilder &b, Location loc, RankedTensorType type,
                 ValueRange dynamicSizes);

/// The size of `dim` of tensor `value` as an index value when dynamic, else
/// nothing is created and a null value is returned.
Value dynamicDimOf(OpBuilder &b, Location loc, Value value, int64_t dim);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_CONVERSION_RLXTOLINALG_LOWERINGUTILS_H
