// RUN: not rlx-opt %s --convert-rlx-to-linalg --split-input-file 2>&1 | FileCheck %s

// The fake-quantize family lowers for f32 and f64; other float types are
// reported at the op.
// CHECK: error: 'rlx.fake_quantize' op the CPU lowering supports f32 and f64 only, got 'f16'
func.func @fake_quantize_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %y = rlx.fake_quantize %x bits = 8 : tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// CHECK: error: 'rlx.fake_quantize_lsq_backward_scale' op the CPU lowering supports f32 and f64 only, got 'bf16'
func.func @lsq_scale_bf16(%x: tensor<4x8xbf16>, %s: tensor<1xbf16>, %dy: tensor<4x8xbf16>) -> tensor<1xbf16> {
  %0 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 4 : tensor<4x8xbf16>, tensor<1xbf16>, tensor<4x8xbf16>
  return %0 : tensor<1xbf16>
}
