//===- LoweringUtils.cpp - helpers of the rlx to linalg lowering ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

Value rlx::buildBroadcastEmpty(OpBuilder &b, Location loc,
                               RankedTensorType type, ValueRange sources) {
  SmallVector<Value> dynamicSizes;
  int64_t rank = type.getRank();
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    // Right-aligned: result dim `dim` is dim `dim - (rank - srcRank)` of a
    // source. Take the first source that has it dynamic (not a broadcast 1).
    Value size;
    for (Value source : sources) {
      auto sourceType = cast<RankedTensorType>(source.getType());
      int64_t sourceDim = dim - (rank - sourceType.getRank());
      if (sourceDim < 0 || !sourceType.isDynamicDim(sourceDim))
        continue;
      size = tensor::DimOp::create(b, loc, source, sourceDim);
      break;
    }
    assert(size && "verified ops determine every dynamic result dim");
    dynamicSizes.push_back(size);
  }
  return tensor::EmptyOp::create(b, loc, type, dynamicSizes);
}

Value rlx::dynamicDimOf(OpBuilder &b, Location loc, Value value, int64_t dim) {
  if (!cast<RankedTensorType>(value.getType()).isDynamicDim(dim))
    return {};
  return tensor::DimOp::create(b, loc, value, dim);
}

Value rlx::buildZeros(OpBuilder &b, Location loc, RankedTensorType type,
                      ValueRange dynamicSizes) {
  Value empty = tensor::EmptyOp::create(b, loc, type, dynamicSizes);
  Value zero = arith::ConstantOp::create(b, loc, type.getElementType(),
                                         b.getZeroAttr(type.getElementType()));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

Value rlx::buildBroadcastElementwise(OpBuilder &b, Location loc,
                                     RankedTensorType resultType,
                                     ValueRange inputs,
                                     ScalarBodyBuilder body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto inputType = cast<RankedTensorType>(input.getType());
    int64_t offset = rank - inputType.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
      // A static 1 against a larger result dim is a broadcast: read index 0.
      bool broadcast = inputType.getDimSize(dim) == 1 &&
                       resultType.getDimSize(offset + dim) != 1;
      exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                : getAffineDimExpr(offset + dim, ctx));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = buildBroadcastEmpty(b, loc, resultType, inputs);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}
