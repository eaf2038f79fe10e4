// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// CHECK-LABEL: func.func @dequant_matmul_block_schemes
func.func @dequant_matmul_block_schemes(%x: tensor<4x64xf32>, %w8: tensor<64x8xi8>, %w4: tensor<64x4xui8>,
                                        %s2: tensor<2x8xf32>, %s4: tensor<4x8xf32>, %z4: tensor<4x8xf32>,
                                        %z2: tensor<2x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: rlx.dequant_matmul int8_block block_size = 32 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w8 scale %s2 : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  // CHECK: rlx.dequant_matmul int8_block block_size = 32 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<2x8xf32> zero_point %{{.*}} : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  %1 = rlx.dequant_matmul int8_block block_size = 32 %x, %w8 scale %s2 : tensor<2x8xf32> zero_point %z2 : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  // CHECK: rlx.dequant_matmul int8_block_asym block_size = 16 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<4x8xf32> zero_point %{{.*}} : tensor<4x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  %2 = rlx.dequant_matmul int8_block_asym block_size = 16 %x, %w8 scale %s4 : tensor<4x8xf32> zero_point %z4 : tensor<4x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  // CHECK: rlx.dequant_matmul int4_block block_size = 32 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  %3 = rlx.dequant_matmul int4_block block_size = 32 %x, %w4 scale %s2 : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  // CHECK: rlx.dequant_matmul int4_block block_size = 32 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<2x8xf32> zero_point %{{.*}} : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  %4 = rlx.dequant_matmul int4_block block_size = 32 %x, %w4 scale %s2 : tensor<2x8xf32> zero_point %z2 : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  // A block size that does not divide K: ceil(64 / 48) = 2 blocks.
  // CHECK: rlx.dequant_matmul int8_block block_size = 48 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  %5 = rlx.dequant_matmul int8_block block_size = 48 %x, %w8 scale %s2 : tensor<2x8xf32> : tensor<4x64xf32>, tensor<64x8xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @dequant_matmul_fp_schemes
func.func @dequant_matmul_fp_schemes(%x: tensor<4x64xf32>, %e4: tensor<64x8xf8E4M3FN>, %e5: tensor<64x8xf8E5M2>,
                                     %s: tensor<8xf32>, %w4: tensor<64x4xui8>, %bs: tensor<4x8xui8>,
                                     %g: tensor<1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: rlx.dequant_matmul fp8_e4m3 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E4M3FN>
  %0 = rlx.dequant_matmul fp8_e4m3 %x, %e4 scale %s : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E4M3FN>
  // CHECK: rlx.dequant_matmul fp8_e5m2 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E5M2>
  %1 = rlx.dequant_matmul fp8_e5m2 %x, %e5 scale %s : tensor<8xf32> : tensor<4x64xf32>, tensor<64x8xf8E5M2>
  // CHECK: rlx.dequant_matmul nvfp4_block %{{.*}}, %{{.*}} scale %{{.*}} : tensor<4x8xui8> global_scale %{{.*}} : tensor<1xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  %2 = rlx.dequant_matmul nvfp4_block %x, %w4 scale %bs : tensor<4x8xui8> global_scale %g : tensor<1xf32> : tensor<4x64xf32>, tensor<64x4xui8>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// K = 256, N = 2 rows: bytes = 2 * (256 / block) * block_bytes.
// CHECK-LABEL: func.func @dequant_matmul_gguf
func.func @dequant_matmul_gguf(%x: tensor<4x256xf32>,
    %q40: tensor<288xui8>, %q41: tensor<320xui8>, %q50: tensor<352xui8>, %q51: tensor<384xui8>,
    %q80: tensor<544xui8>, %q2k: tensor<168xui8>, %q3k: tensor<220xui8>, %q4k: tensor<288xui8>,
    %q5k: tensor<352xui8>, %q6k: tensor<420xui8>, %q8k: tensor<584xui8>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  // CHECK: rlx.dequant_matmul gguf_q4_0 %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<288xui8>
  %0 = rlx.dequant_matmul gguf_q4_0 %x, %q40 : tensor<4x256xf32>, tensor<288xui8>
  // CHECK: rlx.dequant_matmul gguf_q4_1
  %1 = rlx.dequant_matmul gguf_q4_1 %x, %q41 : tensor<4x256xf32>, tensor<320xui8>
  // CHECK: rlx.dequant_matmul gguf_q5_0
  %2 = rlx.dequant_matmul gguf_q5_0 %x, %q50 : tensor<4x256xf32>, tensor<352xui8>
  // CHECK: rlx.dequant_matmul gguf_q5_1
  %3 = rlx.dequant_matmul gguf_q5_1 %x, %q51 : tensor<4x256xf32>, tensor<384xui8>
  // CHECK: rlx.dequant_matmul gguf_q8_0
  %4 = rlx.dequant_matmul gguf_q8_0 %x, %q80 : tensor<4x256xf32>, tensor<544xui8>
  // CHECK: rlx.dequant_matmul gguf_q2_k
  %5 = rlx.dequant_matmul gguf_q2_k %x, %q2k : tensor<4x256xf32>, tensor<168xui8>
  // CHECK: rlx.dequant_matmul gguf_q3_k
  %6 = rlx.dequant_matmul gguf_q3_k %x, %q3k : tensor<4x256xf32>, tensor<220xui8>
  // CHECK: rlx.dequant_matmul gguf_q4_k
  %7 = rlx.dequant_matmul gguf_q4_k %x, %q4k : tensor<4x256xf32>, tensor<288xui8>
  // CHECK: rlx.dequant_matmul gguf_q5_k
  %8 = rlx.dequant_matmul gguf_q5_k %x, %q5k : tensor<4x256xf32>, tensor<352xui8>
  // CHECK: rlx.dequant_matmul gguf_q6_k
  %9 = rlx.dequant_matmul gguf_q6_k %x, %q6k : tensor<4x256xf32>, tensor<420xui8>
  // CHECK: rlx.dequant_matmul gguf_q8_k %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<584xui8>
  %10 = rlx.dequant_matmul gguf_q8_k %x, %q8k : tensor<4x256xf32>, tensor<584xui8>
  // CHECK: return {{.*}} : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @dequant_matmul_dynamic
func.func @dequant_matmul_dynamic(%x: tensor<?x64xf32>, %w: tensor<64x?xi8>, %s: tensor<2x?xf32>,
                                  %xk: tensor<3x?xf32>, %p: tensor<?xui8>)
    -> (tensor<?x?xf32>, tensor<3x?xf32>) {
  // CHECK: rlx.dequant_matmul int8_block block_size = 32 %{{.*}}, %{{.*}} scale %{{.*}} : tensor<2x?xf32> : tensor<?x64xf32>, tensor<64x?xi8>
  %0 = rlx.dequant_matmul int8_block block_size = 32 %x, %w scale %s : tensor<2x?xf32> : tensor<?x64xf32>, tensor<64x?xi8>
  // CHECK: rlx.dequant_matmul gguf_q4_k %{{.*}}, %{{.*}} : tensor<3x?xf32>, tensor<?xui8>
  %1 = rlx.dequant_matmul gguf_q4_k %xk, %p : tensor<3x?xf32>, tensor<?xui8>
  return %0, %1 : tensor<?x?xf32>, tensor<3x?xf32>
}

// CHECK-LABEL: func.func @q_matmul
func.func @q_matmul(%x: tensor<4x16xi8>, %w: tensor<16x8xi8>, %b: tensor<8xi32>) -> tensor<4x8xi8> {
  // CHECK: rlx.q_matmul %{{.*}}, %{{.*}}, %{{.*}} {mult = 1.250000e-02 : f32, out_zp = -5 : i64, w_zp = 0 : i64, x_zp = 3 : i64} : tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi32>
  %0 = rlx.q_matmul %x, %w, %b {x_zp = 3 : i64, w_zp = 0 : i64, out_zp = -5 : i64, mult = 0.0125 : f32} : tensor<4x16xi8>, tensor<16x8xi8>, tensor<8xi32>
  return %0 : tensor<4x8xi8>
}

// CHECK-LABEL: func.func @q_conv2d
func.func @q_conv2d(%x: tensor<1x3x8x8xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>,
                    %xg: tensor<1x4x9x9xi8>, %wg: tensor<6x2x3x3xi8>, %bg: tensor<6xi32>)
    -> (tensor<1x4x8x8xi8>, tensor<1x6x4x4xi8>) {
  // CHECK: rlx.q_conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, groups = 1 : i64, kernel_size = array<i64: 3, 3>, mult = 0.00999999977 : f32, out_zp = 0 : i64, padding = array<i64: 1, 1>, stride = array<i64: 1, 1>, w_zp = 0 : i64, x_zp = 0 : i64} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  %0 = rlx.q_conv2d %x, %w, %b {kernel_size = array<i64: 3, 3>, stride = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, x_zp = 0 : i64, w_zp = 0 : i64, out_zp = 0 : i64, mult = 0.01 : f32} : tensor<1x3x8x8xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  // Grouped, strided and dilated: (9 + 2 - 2 * 2 - 1) / 2 + 1 = 4.
  // CHECK: rlx.q_conv2d {{.*}} : tensor<1x4x9x9xi8>, tensor<6x2x3x3xi8>, tensor<6xi32>
  %1 = rlx.q_conv2d %xg, %wg, %bg {kernel_size = array<i64: 3, 3>, stride = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 2 : i64, x_zp = -1 : i64, w_zp = 2 : i64, out_zp = 7 : i64, mult = 0.5 : f32} : tensor<1x4x9x9xi8>, tensor<6x2x3x3xi8>, tensor<6xi32>
  // CHECK: return {{.*}} : tensor<1x4x8x8xi8>, tensor<1x6x4x4xi8>
  return %0, %1 : tensor<1x4x8x8xi8>, tensor<1x6x4x4xi8>
}

// CHECK-LABEL: func.func @grouped_matmul
func.func @grouped_matmul(%x: tensor<6x16xf32>, %w: tensor<4x16x32xf32>, %i: tensor<6xi32>,
                          %xb: tensor<?x8xbf16>, %wb: tensor<2x8x4xbf16>, %ib: tensor<?xi64>)
    -> (tensor<6x32xf32>, tensor<?x4xbf16>) {
  // CHECK: rlx.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} : tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<6xi32>
  %0 = rlx.grouped_matmul %x, %w, %i : tensor<6x16xf32>, tensor<4x16x32xf32>, tensor<6xi32>
  // CHECK: rlx.grouped_matmul %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x8xbf16>, tensor<2x8x4xbf16>, tensor<?xi64>
  %1 = rlx.grouped_matmul %xb, %wb, %ib : tensor<?x8xbf16>, tensor<2x8x4xbf16>, tensor<?xi64>
  return %0, %1 : tensor<6x32xf32>, tensor<?x4xbf16>
}

// CHECK-LABEL: func.func @dequant_grouped_matmul
func.func @dequant_grouped_matmul(%x: tensor<6x64xf32>, %w: tensor<2176xui8>, %i: tensor<6xi64>,
                                  %x4: tensor<3x256xf32>, %w4: tensor<1152xui8>, %i4: tensor<3xi32>,
                                  %wd: tensor<?xui8>)
    -> (tensor<6x16xf32>, tensor<3x4xf32>, tensor<3x?xf32>) {
  // CHECK: rlx.dequant_grouped_matmul gguf_q8_0 %{{.*}}, %{{.*}}, %{{.*}} : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x16xf32>
  %0 = rlx.dequant_grouped_matmul gguf_q8_0 %x, %w, %i : tensor<6x64xf32>, tensor<2176xui8>, tensor<6xi64> -> tensor<6x16xf32>
  // CHECK: rlx.dequant_grouped_matmul gguf_q4_k %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x256xf32>, tensor<1152xui8>, tensor<3xi32> -> tensor<3x4xf32>
  %1 = rlx.dequant_grouped_matmul gguf_q4_k %x4, %w4, %i4 : tensor<3x256xf32>, tensor<1152xui8>, tensor<3xi32> -> tensor<3x4xf32>
  // CHECK: rlx.dequant_grouped_matmul gguf_q6_k %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x256xf32>, tensor<?xui8>, tensor<3xi32> -> tensor<3x?xf32>
  %2 = rlx.dequant_grouped_matmul gguf_q6_k %x4, %wd, %i4 : tensor<3x256xf32>, tensor<?xui8>, tensor<3xi32> -> tensor<3x?xf32>
  return %0, %1, %2 : tensor<6x16xf32>, tensor<3x4xf32>, tensor<3x?xf32>
}

// CHECK-LABEL: func.func @dequant_moe_weights
func.func @dequant_moe_weights(%p: tensor<1152xui8>, %q: tensor<216xui8>, %d: tensor<?xui8>)
    -> (tensor<2x256x4xf32>, tensor<3x64x2xf32>, tensor<?x32x?xf32>) {
  // CHECK: rlx.dequant_moe_weights gguf_q4_k %{{.*}} : tensor<1152xui8> -> tensor<2x256x4xf32>
  %0 = rlx.dequant_moe_weights gguf_q4_k %p : tensor<1152xui8> -> tensor<2x256x4xf32>
  // CHECK: rlx.dequant_moe_weights gguf_q4_0 %{{.*}} : tensor<216xui8> -> tensor<3x64x2xf32>
  %1 = rlx.dequant_moe_weights gguf_q4_0 %q : tensor<216xui8> -> tensor<3x64x2xf32>
  // CHECK: rlx.dequant_moe_weights gguf_q5_1 %{{.*}} : tensor<?xui8> -> tensor<?x32x?xf32>
  %2 = rlx.dequant_moe_weights gguf_q5_1 %d : tensor<?xui8> -> tensor<?x32x?xf32>
  return %0, %1, %2 : tensor<2x256x4xf32>, tensor<3x64x2xf32>, tensor<?x32x?xf32>
}

// The IQ, TQ and FP4 GGUF schemes: K = 256, N = 2 rows of their blocks.
// CHECK-LABEL: func.func @dequant_matmul_gguf_iq
func.func @dequant_matmul_gguf_iq(%x: tensor<4x256xf32>, %iq4_nl: tensor<288xui8>, %iq4_xs: tensor<272xui8>, %iq2_xxs: tensor<132xui8>, %iq2_xs: tensor<148xui8>, %iq2_s: tensor<164xui8>, %iq3_xxs: tensor<196xui8>, %iq3_s: tensor<220xui8>, %iq1_s: tensor<100xui8>, %iq1_m: tensor<112xui8>, %tq1_0: tensor<108xui8>, %tq2_0: tensor<132xui8>, %mxfp4: tensor<272xui8>, %nvfp4: tensor<288xui8>) {
  // CHECK: rlx.dequant_matmul gguf_iq4_nl %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<288xui8>
  %iq4_nl_0 = rlx.dequant_matmul gguf_iq4_nl %x, %iq4_nl : tensor<4x256xf32>, tensor<288xui8>
  // CHECK: rlx.dequant_matmul gguf_iq4_xs %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<272xui8>
  %iq4_xs_0 = rlx.dequant_matmul gguf_iq4_xs %x, %iq4_xs : tensor<4x256xf32>, tensor<272xui8>
  // CHECK: rlx.dequant_matmul gguf_iq2_xxs %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<132xui8>
  %iq2_xxs_0 = rlx.dequant_matmul gguf_iq2_xxs %x, %iq2_xxs : tensor<4x256xf32>, tensor<132xui8>
  // CHECK: rlx.dequant_matmul gguf_iq2_xs %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<148xui8>
  %iq2_xs_0 = rlx.dequant_matmul gguf_iq2_xs %x, %iq2_xs : tensor<4x256xf32>, tensor<148xui8>
  // CHECK: rlx.dequant_matmul gguf_iq2_s %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<164xui8>
  %iq2_s_0 = rlx.dequant_matmul gguf_iq2_s %x, %iq2_s : tensor<4x256xf32>, tensor<164xui8>
  // CHECK: rlx.dequant_matmul gguf_iq3_xxs %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<196xui8>
  %iq3_xxs_0 = rlx.dequant_matmul gguf_iq3_xxs %x, %iq3_xxs : tensor<4x256xf32>, tensor<196xui8>
  // CHECK: rlx.dequant_matmul gguf_iq3_s %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<220xui8>
  %iq3_s_0 = rlx.dequant_matmul gguf_iq3_s %x, %iq3_s : tensor<4x256xf32>, tensor<220xui8>
  // CHECK: rlx.dequant_matmul gguf_iq1_s %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<100xui8>
  %iq1_s_0 = rlx.dequant_matmul gguf_iq1_s %x, %iq1_s : tensor<4x256xf32>, tensor<100xui8>
  // CHECK: rlx.dequant_matmul gguf_iq1_m %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<112xui8>
  %iq1_m_0 = rlx.dequant_matmul gguf_iq1_m %x, %iq1_m : tensor<4x256xf32>, tensor<112xui8>
  // CHECK: rlx.dequant_matmul gguf_tq1_0 %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<108xui8>
  %tq1_0_0 = rlx.dequant_matmul gguf_tq1_0 %x, %tq1_0 : tensor<4x256xf32>, tensor<108xui8>
  // CHECK: rlx.dequant_matmul gguf_tq2_0 %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<132xui8>
  %tq2_0_0 = rlx.dequant_matmul gguf_tq2_0 %x, %tq2_0 : tensor<4x256xf32>, tensor<132xui8>
  // CHECK: rlx.dequant_matmul gguf_mxfp4 %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<272xui8>
  %mxfp4_0 = rlx.dequant_matmul gguf_mxfp4 %x, %mxfp4 : tensor<4x256xf32>, tensor<272xui8>
  // CHECK: rlx.dequant_matmul gguf_nvfp4 %{{.*}}, %{{.*}} : tensor<4x256xf32>, tensor<288xui8>
  %nvfp4_0 = rlx.dequant_matmul gguf_nvfp4 %x, %nvfp4 : tensor<4x256xf32>, tensor<288xui8>
  return
}
