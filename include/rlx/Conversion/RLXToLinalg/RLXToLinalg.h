//===- RLXToLinalg.h - lowering rlx ops to linalg ---------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_CONVERSION_RLXTOLINALG_RLXTOLINALG_H
#define RLX_CONVERSION_RLXTOLINALG_RLXTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace rlx {

/// Converts tensor types for lowered code: unsigned integer element types
/// become signless (the op patterns know the signedness from the rlx op).
class RLXToLinalgTypeConverter : public TypeConverter {
public:
  RLXToLinalgTypeConverter();
};

/// Patterns lowering rlx ops, one function per op family.
void populateElementwiseToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);
void populateLinalgOpsToLinalgPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateShapeToLinalgPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);
void populateNormalizationToLinalgPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns);
void populateReductionToLinalgPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateAttentionToLinalgPatterns(const TypeConverter &converter,
                                       RewritePatternSet &patterns);
void populateConvPoolToLinalgPatterns(const TypeConverter &converter,
                                      RewritePatternSet &patterns);
void populateQuantizationToLinalgPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns);
void populateRegionToLinalgPatterns(const TypeConverter &converter,
                                    RewritePatternSet &patterns);
/// rlx.fft, its butterfly stage, log-mel features and complex helpers.
void populateFftToLinalgPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);
/// rlx.if, rlx.while and rlx.scan to scf.
void populateControlFlowToLinalgPatterns(const TypeConverter &converter,
                                         RewritePatternSet &patterns);

/// rlx.dense_solve and rlx.batched_dense_solve to scf loops (pivoted LU).
void populateSolveToLinalgPatterns(const TypeConverter &converter,
                                   RewritePatternSet &patterns);

/// rlx.sample to scf loops (sorts, softmax, Philox-4x32-10).
void populateSampleToLinalgPatterns(const TypeConverter &converter,
                                    RewritePatternSet &patterns);

/// rlx.grouped_matmul and rlx.q_matmul.
void populateMoEToLinalgPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);
/// rlx.dequant_matmul, rlx.dequant_grouped_matmul, rlx.dequant_moe_weights
/// and rlx.q_conv2d.
void populateDequantToLinalgPatterns(const TypeConverter &converter,
                                     RewritePatternSet &patterns);
/// rlx.selective_scan and rlx.gated_delta_net to an scf.for over time.
void populateSSMToLinalgPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);

/// Every pattern of convert-rlx-to-linalg.
void populateRLXToLinalgPatterns(const TypeConverter &converter,
                                 RewritePatternSet &patterns);

} // namespace rlx
} // namespace mlir

#endif // RLX_CONVERSION_RLXTOLINALG_RLXTOLINALG_H
