//===- RLXToLinalg.cpp - the convert-rlx-to-linalg pass -------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Conversion/Passes.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"
#include "rlx/Dialect/RLX/IR/RLXShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_CONVERTRLXTOLINALG
#include "rlx/Conversion/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;
using namespace mlir::rlx;

RLXToLinalgTypeConverter::RLXToLinalgTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    auto intType = dyn_cast<IntegerType>(type.getElementType());
    if (!intType || intType.isSignless())
      return type;
    return type.clone(IntegerType::get(type.getContext(), intType.getWidth()));
  });
  auto castMaterialization = [](OpBuilder &b, Type type, ValueRange inputs,
                                Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(castMaterialization);
  addTargetMaterialization(castMaterialization);
}

void rlx::populateRLXToLinalgPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  populateElementwiseToLinalgPatterns(converter, patterns);
  populateLinalgOpsToLinalgPatterns(converter, patterns);
  populateShapeToLinalgPatterns(converter, patterns);
  populateNormalizationToLinalgPatterns(converter, patterns);
  populateReductionToLinalgPatterns(converter, patterns);
  populateAttentionToLinalgPatterns(converter, patterns);
  populateConvPoolToLinalgPatterns(converter, patterns);
  populateQuantizationToLinalgPatterns(converter, patterns);
  populateRegionToLinalgPatterns(converter, patterns);
  populateControlFlowToLinalgPatterns(converter, patterns);
  populateSolveToLinalgPatterns(converter, patterns);
  populateSampleToLinalgPatterns(converter, patterns);
  populateFftToLinalgPatterns(converter, patterns);
  populateMoEToLinalgPatterns(converter, patterns);
  populateDequantToLinalgPatterns(converter, patterns);
  populateSSMToLinalgPatterns(converter, patterns);
}

namespace {

/// Moves the remat mark (RLXDialect::kRematAttrName) of a lowered op to the
/// ops producing its replacement values, so CSE does not merge a value
/// recomputed for the backward sweep with the forward value it duplicates.
struct RematMarkForwarder : RewriterBase::Listener {
  void notifyOperationReplaced(Operation *op, ValueRange values) override {
    if (!op->hasAttr(RLXDialect::kRematAttrName))
      return;
    for (Value value : values)
      if (Operation *producer = value.getDefiningOp())
        producer->setAttr(RLXDialect::kRematAttrName,
                          UnitAttr::get(op->getContext()));
  }
};

struct ConvertRLXToLinalgPass
    : rlx::impl::ConvertRLXToLinalgBase<ConvertRLXToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    RLXToLinalgTypeConverter converter;
    RewritePatternSet patterns(context);
    populateRLXToLinalgPatterns(converter, patterns);

    if (failed(checkEverythingLowers(module, patterns)))
      return signalPassFailure();

    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*context);
    target.addIllegalDialect<RLXDialect>();
    target.addLegalDialect<arith::ArithDialect, cf::ControlFlowDialect,
                           complex::ComplexDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    RematMarkForwarder marks;
    ConversionConfig config;
    config.listener = &marks;
    if (failed(applyPartialConversion(module, target, std::move(patterns),
                                      config)))
      signalPassFailure();
  }

  /// Reports every rlx op that no pattern lowers, each at its location.
  static LogicalResult checkEverythingLowers(ModuleOp module,
                                             RewritePatternSet &set) {
    llvm::DenseSet<OperationName> lowerable;
    SmallVector<TypeID> lowerableInterfaces;
    for (const std::unique_ptr<RewritePattern> &pattern :
         set.getNativePatterns()) {
      if (std::optional<OperationName> root = pattern->getRootKind())
        lowerable.insert(*root);
      if (std::optional<TypeID> interface = pattern->getRootInterfaceID())
        lowerableInterfaces.push_back(*interface);
    }
    int unsupported = 0;
    module.walk([&](Operation *op) {
      // Terminators of rlx regions are lowered with their parent op.
      if (!isa<RLXDialect>(op->getDialect()) || isa<YieldOp>(op))
        return;
      if (std::optional<Type> huge = findUncountableType(op)) {
        op->emitError() << "'" << op->getName() << "' has a value of type "
                        << *huge
                        << " whose static dims multiply past 2^63 - 1: the "
                           "lowering cannot count its elements";
        ++unsupported;
        return;
      }
      if (lowerable.contains(op->getName()) ||
          llvm::any_of(lowerableInterfaces, [&](TypeID interface) {
            return op->getName().hasInterface(interface);
          }))
        return;
      op->emitError() << "'" << op->getName()
                      << "' cannot be lowered by convert-rlx-to-linalg";
      ++unsupported;
    });
    if (unsupported)
      return module.emitError()
             << unsupported
             << " rlx op(s) cannot be lowered to linalg; see the errors above";
    return success();
  }
};

} // namespace
