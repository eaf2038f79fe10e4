// RUN: rlx-opt %s --convert-rlx-to-linalg | FileCheck %s

// The IQ formats decode through ggml's tables (GgmlTables.inc), emitted as
// constant byte tensors of their little-endian entries beside the decoding
// generic: iq2_xxs reads iq2xxs_grid (256 x 8 bytes, entry 0 is eight 8s)
// and ksigns_iq2xs (128 bytes: 0, 129, 130, 3, ...).
// CHECK-LABEL: func.func @iq2_xxs
// CHECK-DAG: %[[GRID:.*]] = arith.constant dense<"0x08080808080808082B08{{.*}}"> : tensor<2048xi8>
// CHECK-DAG: %[[SIGNS:.*]] = arith.constant dense<"0x0081820384{{.*}}"> : tensor<128xi8>
// CHECK: linalg.generic
// CHECK: tensor.extract %[[SIGNS]]
// CHECK: tensor.extract %[[GRID]]
// CHECK: linalg.matmul
func.func @iq2_xxs(%x: tensor<1x256xf32>, %w: tensor<132xui8>) -> tensor<1x2xf32> {
  %0 = rlx.dequant_matmul gguf_iq2_xxs %x, %w : tensor<1x256xf32>, tensor<132xui8>
  return %0 : tensor<1x2xf32>
}

// iq1_s reads iq1s_grid (2048 x 8 signed bytes; entry 0 is eight -1s).
// CHECK-LABEL: func.func @iq1_s
// CHECK: arith.constant dense<"0xFFFFFFFFFFFFFFFF01FF{{.*}}"> : tensor<16384xi8>
func.func @iq1_s(%x: tensor<1x256xf32>, %w: tensor<50xui8>) -> tensor<1x1xf32> {
  %0 = rlx.dequant_matmul gguf_iq1_s %x, %w : tensor<1x256xf32>, tensor<50xui8>
  return %0 : tensor<1x1xf32>
}

// The 4-bit non-linear formats read a 16-entry table, mxfp4 and nvfp4
// ggml's doubled E2M1 values.
// CHECK-LABEL: func.func @iq4_nl
// CHECK: arith.constant dense<[-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113]> : tensor<16xi8>
func.func @iq4_nl(%x: tensor<1x32xf32>, %w: tensor<18xui8>) -> tensor<1x1xf32> {
  %0 = rlx.dequant_matmul gguf_iq4_nl %x, %w : tensor<1x32xf32>, tensor<18xui8>
  return %0 : tensor<1x1xf32>
}

// CHECK-LABEL: func.func @mxfp4
// CHECK: arith.constant dense<[0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12]> : tensor<16xi8>
func.func @mxfp4(%x: tensor<1x32xf32>, %w: tensor<17xui8>) -> tensor<1x1xf32> {
  %0 = rlx.dequant_matmul gguf_mxfp4 %x, %w : tensor<1x32xf32>, tensor<17xui8>
  return %0 : tensor<1x1xf32>
}

// The ternary formats need no table.
// CHECK-LABEL: func.func @tq2_0
// CHECK-NOT: arith.constant dense
// CHECK: linalg.matmul
func.func @tq2_0(%x: tensor<1x256xf32>, %w: tensor<66xui8>) -> tensor<1x1xf32> {
  %0 = rlx.dequant_matmul gguf_tq2_0 %x, %w : tensor<1x256xf32>, tensor<66xui8>
  return %0 : tensor<1x1xf32>
}
