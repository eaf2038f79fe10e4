//===- LoweringUtils.h - helpers of the rlx to linalg lowering --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_CONVERSION_RLXTOLINALG_LOWERINGUTILS_H
#define RLX_LIB_CONVERSION_RLXTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace rlx {

/// The body of an elementwise generic: scalar inputs -> scalar result.
using ScalarBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Checks at run time that the sizes `actual` and `expected` are equal, where
/// a `?` dim leaves it to the run (two static sizes were verified): a
/// `cf.assert` whose message names the op being lowered at `loc` and
/// `what` ("operand #1 dim 0"); the target turns a failure into an error of
/// the run (rlx-cpu-lower-shape-checks).
void buildSizeCheck(OpBuilder &b, Location loc, OpFoldResult actual,
                    OpFoldResult expected, const Twine &what);

/// Checks at run time that `holds` (an i1) is true: a `cf.assert` whose
/// message names the op being lowered at `loc` and `what`, as
/// buildSizeCheck's.
void buildShapeAssert(OpBuilder &b, Location loc, Value holds,
                      const Twine &what);

/// A `linalg.generic` computing `body` over `inputs` broadcast NumPy-style
/// to `resultType` (right-aligned; size-1 dims stretch). A dynamic result
/// dim takes its size from the first input that has that dim dynamic; a
/// `?` dim never stretches: every input's size of a result dim is checked
/// at run time to be the result's (buildSizeCheck).
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

/// The size of `dim` of tensor `value` as an index value (a constant when
/// static).
Value dimSizeOf(OpBuilder &b, Location loc, Value value, int64_t dim);

/// The body of an `scf.for`: (induction variable, iter_args) -> yielded.
using LoopBody =
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)>;

/// `scf.for iv = lower to upper step 1` carrying `inits`; returns its
/// results.
SmallVector<Value> buildForLoop(OpBuilder &b, Location loc, Value lower,
                                Value upper, ValueRange inits, LoopBody body);

/// The body of a multi-result generic (one value per accumulator).
using GenericBody =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// The type sums and statistics are computed in: f32 for f16/bf16, else
/// `type`.
Type computeTypeOf(Type type);

Value extendTo(OpBuilder &b, Location loc, Type type, Value value);

Value truncateTo(OpBuilder &b, Location loc, Type type, Value value);

Value floatConstant(OpBuilder &b, Location loc, Type type, double value);

/// The map from an iteration space of `numDims` dims onto the listed dims.
AffineMap projection(MLIRContext *ctx, unsigned numDims,
                     ArrayRef<int64_t> dims);

/// A parallel `linalg.generic` over `sizes` with one identity-mapped result
/// per element type in `resultTypes`.
SmallVector<Value> buildParallel(OpBuilder &b, Location loc,
                                 ArrayRef<OpFoldResult> sizes,
                                 TypeRange resultTypes, ValueRange inputs,
                                 ArrayRef<AffineMap> inputMaps,
                                 GenericBody body);

/// A `linalg.generic` reducing `input` over `reducedDims`. The iteration
/// space is the kept dims in order, then the reduced dims (innermost, so
/// the outermost loop is a parallel one). `keptInputs` are indexed by the
/// kept dims; there is one result per scalar in `inits`, shaped like the
/// kept dims and filled with it first. The body gets (input element, kept
/// input elements..., accumulators...).
///
/// Reduced dims of static size 1 are read at index 0 and get no loop: the
/// affine vectorizer takes a single-trip reduction loop for a parallel one
/// and emits an invalid broadcasting store for its accumulator.
SmallVector<Value> buildReduction(OpBuilder &b, Location loc, Value input,
                                  ArrayRef<int64_t> reducedDims,
                                  ValueRange keptInputs, ValueRange inits,
                                  GenericBody body);

/// The number of elements of `input` in `dims`, as a `type` float.
Value countOf(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
              Type type);

/// Nearest-neighbour 2x upsampling of the NCHW `input`: a parallel generic
/// over the result viewed as [N, C, H, 2, W, 2] reading x[n, c, h, w]
/// through a projection (rather than a `floordiv 2`), collapsed to
/// [N, C, 2H, 2W]; any element type.
Value buildUpsampleNearest2x(OpBuilder &b, Location loc, Value input);

/// A single-result `linalg.generic` over `inputs` writing into `init`, with
/// one indexing map per input and one for `init`; the body sees every input
/// then the init value.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs, Value init,
                   ArrayRef<AffineMap> maps,
                   ArrayRef<utils::IteratorType> iterators,
                   ScalarBodyBuilder body);

} // namespace rlx
} // namespace mlir

#endif // RLX_LIB_CONVERSION_RLXTOLINALG_LOWERINGUTILS_H
