//===- LoweringUtils.cpp - helpers of the rlx to linalg lowering ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::rlx;

namespace {
SmallVector<int64_t> rangeOf(int64_t size) {
  return llvm::to_vector(llvm::seq<int64_t>(0, size));
}
} // namespace

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

void rlx::buildSizeCheck(OpBuilder &b, Location loc, OpFoldResult actual,
                         OpFoldResult expected, const Twine &what) {
  std::optional<int64_t> actualSize = getConstantIntValue(actual);
  std::optional<int64_t> expectedSize = getConstantIntValue(expected);
  if (actualSize && expectedSize)
    return;
  Value same =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            getValueOrCreateConstantIndexOp(b, loc, actual),
                            getValueOrCreateConstantIndexOp(b, loc, expected));
  buildShapeAssert(b, loc, same, what);
}

void rlx::buildShapeAssert(OpBuilder &b, Location loc, Value holds,
                           const Twine &what) {
  // The op being lowered sits at the insertion point of its pattern.
  std::string opName = "an op";
  if (Block *block = b.getInsertionBlock();
      block && b.getInsertionPoint() != block->end() &&
      b.getInsertionPoint()->getLoc() == loc)
    opName = "'" + b.getInsertionPoint()->getName().getStringRef().str() + "'";
  std::string where;
  llvm::raw_string_ostream os(where);
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    os << " at " << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine()
       << ":" << fileLoc.getColumn();
  cf::AssertOp::create(
      b, loc, holds,
      b.getStringAttr("shape mismatch in " + opName + where + ": " + what));
}

Value rlx::dynamicDimOf(OpBuilder &b, Location loc, Value value, int64_t dim) {
  if (!cast<RankedTensorType>(value.getType()).isDynamicDim(dim))
    return {};
  return tensor::DimOp::create(b, loc, value, dim);
}

Value rlx::dimSizeOf(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(dim))
    return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, value, dim);
}

SmallVector<Value> rlx::buildForLoop(OpBuilder &b, Location loc, Value lower,
                                     Value upper, ValueRange inits,
                                     LoopBody body) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, one, inits,
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, nl, body(nb, nl, iv, args));
      });
  return SmallVector<Value>(loop.getResults());
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
  // What the verifier could not see: the inputs' `?` sizes of each result
  // dim agree with the result's.
  if (!resultType.hasStaticShape() || llvm::any_of(inputs, [](Value input) {
        return !cast<RankedTensorType>(input.getType()).hasStaticShape();
      })) {
    for (auto [index, input] : llvm::enumerate(inputs)) {
      auto inputType = cast<RankedTensorType>(input.getType());
      int64_t offset = rank - inputType.getRank();
      for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
        if (maps[index].getResult(dim).getKind() == AffineExprKind::Constant)
          continue;
        // The result's `?` size is read from the first input with that dim
        // `?` (buildBroadcastEmpty): nothing to compare for that one.
        if (resultType.isDynamicDim(offset + dim) &&
            inputType.isDynamicDim(dim) &&
            llvm::none_of(inputs.take_front(index), [&](Value earlier) {
              auto earlierType = cast<RankedTensorType>(earlier.getType());
              int64_t earlierDim =
                  offset + dim - (rank - earlierType.getRank());
              return earlierDim >= 0 && earlierType.isDynamicDim(earlierDim);
            }))
          continue;
        buildSizeCheck(b, loc, tensor::getMixedSize(b, loc, input, dim),
                       tensor::getMixedSize(b, loc, init, offset + dim),
                       "operand #" + Twine(index) + " dim " + Twine(dim) +
                           " differs from the result's dim " +
                           Twine(offset + dim) +
                           " (a `?` dim must match, it is never broadcast)");
      }
    }
  }
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

SmallVector<Value> rlx::buildReduction(OpBuilder &b, Location loc, Value input,
                                       ArrayRef<int64_t> reducedDims,
                                       ValueRange keptInputs, ValueRange inits,
                                       GenericBody body) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> inputSizes = tensor::getMixedSizes(b, loc, input);
  SmallVector<OpFoldResult> keptSizes;
  SmallVector<int64_t> position(rank, -1);
  int64_t next = 0;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (llvm::is_contained(reducedDims, dim))
      continue;
    position[dim] = next++;
    keptSizes.push_back(inputSizes[dim]);
  }
  int64_t numKept = next;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (llvm::is_contained(reducedDims, dim) && type.getDimSize(dim) != 1)
      position[dim] = next++;
  int64_t numLoops = next;
  SmallVector<AffineExpr> inputExprs;
  for (int64_t dim = 0; dim < rank; ++dim)
    inputExprs.push_back(position[dim] < 0
                             ? getAffineConstantExpr(0, ctx)
                             : getAffineDimExpr(position[dim], ctx));

  AffineMap keptMap = projection(ctx, numLoops, rangeOf(numKept));
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, inputExprs, ctx)};
  for (size_t i = 0; i < keptInputs.size(); ++i)
    maps.push_back(keptMap);
  // Without reduction loops (every reduced dim is a unit dim) the result is
  // one step from the start values: a plain elementwise generic that does
  // not read its outputs, so that fusion leaves no store of an accumulator
  // behind in a unit loop.
  bool reduces = numLoops > numKept;
  SmallVector<Value> outs;
  SmallVector<Type> outTypes;
  for (Value init : inits) {
    Value empty = tensor::EmptyOp::create(b, loc, keptSizes, init.getType());
    outs.push_back(
        reduces ? linalg::FillOp::create(b, loc, init, empty).getResult(0)
                : empty);
    outTypes.push_back(empty.getType());
    maps.push_back(keptMap);
  }
  SmallVector<utils::IteratorType> iterators(numKept,
                                             utils::IteratorType::parallel);
  iterators.append(numLoops - numKept, utils::IteratorType::reduction);
  SmallVector<Value> operands = {input};
  llvm::append_range(operands, keptInputs);
  auto generic = linalg::GenericOp::create(
      b, loc, outTypes, operands, outs, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> bodyArgs(args);
        if (!reduces)
          llvm::copy(inits, bodyArgs.end() - inits.size());
        linalg::YieldOp::create(nb, nl, body(nb, nl, bodyArgs));
      });
  return SmallVector<Value>(generic.getResults());
}

Value rlx::countOf(OpBuilder &b, Location loc, Value input,
                   ArrayRef<int64_t> dims, Type type) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t staticCount = 1;
  Value dynamicCount;
  for (int64_t dim : dims) {
    if (!inputType.isDynamicDim(dim)) {
      staticCount *= inputType.getDimSize(dim);
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, input, dim);
    dynamicCount =
        dynamicCount ? Value(arith::MulIOp::create(b, loc, dynamicCount, size))
                     : size;
  }
  if (!dynamicCount)
    return floatConstant(b, loc, type, static_cast<double>(staticCount));
  if (staticCount != 1)
    dynamicCount = arith::MulIOp::create(
        b, loc, dynamicCount,
        arith::ConstantIndexOp::create(b, loc, staticCount));
  Value asInt =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), dynamicCount);
  return arith::SIToFPOp::create(b, loc, type, asInt);
}

Value rlx::buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                        Value init, ArrayRef<AffineMap> maps,
                        ArrayRef<utils::IteratorType> iterators,
                        ScalarBodyBuilder body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange blockArgs) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, blockArgs));
             })
      .getResult(0);
}

Type rlx::computeTypeOf(Type type) {
  auto floatType = dyn_cast<FloatType>(type);
  if (floatType && floatType.getWidth() < 32)
    return Float32Type::get(type.getContext());
  return type;
}

Value rlx::extendTo(OpBuilder &b, Location loc, Type type, Value value) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(b, loc, type, value);
}

Value rlx::truncateTo(OpBuilder &b, Location loc, Type type, Value value) {
  if (value.getType() == type)
    return value;
  return arith::TruncFOp::create(b, loc, type, value);
}

Value rlx::floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

AffineMap rlx::projection(MLIRContext *ctx, unsigned numDims,
                          ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim : dims)
    exprs.push_back(getAffineDimExpr(dim, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

SmallVector<Value> rlx::buildParallel(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> sizes,
                                      TypeRange resultTypes, ValueRange inputs,
                                      ArrayRef<AffineMap> inputMaps,
                                      GenericBody body) {
  MLIRContext *ctx = b.getContext();
  unsigned rank = sizes.size();
  SmallVector<AffineMap> maps(inputMaps);
  SmallVector<Value> inits;
  SmallVector<Type> tensorTypes;
  for (Type type : resultTypes) {
    Value init = tensor::EmptyOp::create(b, loc, sizes, type);
    inits.push_back(init);
    tensorTypes.push_back(init.getType());
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  }
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, tensorTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args));
      });
  return SmallVector<Value>(generic.getResults());
}

Value rlx::buildUpsampleNearest2x(OpBuilder &b, Location loc, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  OpFoldResult two = b.getIndexAttr(2);
  SmallVector<OpFoldResult> blockSizes = {sizes[0], sizes[1], sizes[2],
                                          two,      sizes[3], two};
  Value blocks =
      buildParallel(b, loc, blockSizes, {type.getElementType()}, input,
                    {projection(b.getContext(), 6, {0, 1, 2, 4})},
                    [](OpBuilder &, Location, ValueRange args) {
                      return SmallVector<Value>{args[0]};
                    })
          .front();
  SmallVector<ReassociationIndices> groups = {{0}, {1}, {2, 3}, {4, 5}};
  return tensor::CollapseShapeOp::create(b, loc, blocks, groups);
}
