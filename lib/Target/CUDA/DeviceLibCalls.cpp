//===- DeviceLibCalls.cpp - libdevice calls for ops PTX lacks -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Target/CUDA/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace rlx {
#define GEN_PASS_DEF_RLXCUDADEVICELIBCALLS
#include "rlx/Target/CUDA/Passes.h.inc"
} // namespace rlx
} // namespace mlir

using namespace mlir;

namespace {

struct RLXCUDADeviceLibCallsPass
    : rlx::impl::RLXCUDADeviceLibCallsBase<RLXCUDADeviceLibCallsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    // The upstream libdevice patterns cover math ops as well; only the ops
    // marked illegal here are rewritten, the rest wait for the NVVM
    // conversion as before.
    RewritePatternSet patterns(context);
    populateLibDeviceConversionPatterns(converter, patterns);
    ConversionTarget target(*context);
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addIllegalOp<arith::RemFOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
