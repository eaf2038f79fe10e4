// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s

// Every mask kind on the native [B, H, S, D] layout.
// CHECK-LABEL: func.func @attention_mask_kinds
func.func @attention_mask_kinds(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>,
                                %v: tensor<2x4x8x16xf32>, %pad: tensor<2x8xf32>,
                                %bias: tensor<2x4x8x8xf32>) {
  // CHECK: rlx.attention %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<none>, num_heads = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  // CHECK: rlx.attention {{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<causal>, num_heads = 4 : i64}
  %1 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  // CHECK: rlx.attention {{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 4 : i64, window = 3 : i64}
  %2 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, window = 3 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  // CHECK: rlx.attention {{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 4 : i64, window = 0 : i64}
  %3 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, window = 0 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  // CHECK: rlx.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : tensor<2x8xf32> {head_dim = 16 : i64, mask_kind = #rlx.mask<custom>, num_heads = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  %4 = rlx.attention %q, %k, %v mask %pad : tensor<2x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  // CHECK: rlx.attention {{.*}} mask %{{.*}} : tensor<2x4x8x8xf32> {head_dim = 16 : i64, mask_kind = #rlx.mask<bias>, num_heads = 4 : i64}
  %5 = rlx.attention %q, %k, %v mask %bias : tensor<2x4x8x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// Optional score_scale and attn_logit_softcap, alone and together.
// CHECK-LABEL: func.func @attention_scale_softcap
func.func @attention_scale_softcap(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>,
                                   %v: tensor<1x2x4x8xbf16>, %bias: tensor<1x2x4x4xbf16>) {
  // CHECK: rlx.attention {{.*}} {head_dim = 8 : i64, mask_kind = #rlx.mask<causal>, num_heads = 2 : i64, score_scale = 6.250000e-02 : f32}
  %0 = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<causal>, score_scale = 0.0625 : f32} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
  // CHECK: rlx.attention {{.*}} {attn_logit_softcap = 5.000000e+01 : f32, head_dim = 8 : i64, mask_kind = #rlx.mask<none>, num_heads = 2 : i64}
  %1 = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<none>, attn_logit_softcap = 50.0 : f32} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
  // CHECK: rlx.attention {{.*}} mask %{{.*}} : tensor<1x2x4x4xbf16> {attn_logit_softcap = 3.000000e+01 : f32, head_dim = 8 : i64, mask_kind = #rlx.mask<bias>, num_heads = 2 : i64, score_scale = 2.500000e-01 : f32}
  %2 = rlx.attention %q, %k, %v mask %bias : tensor<1x2x4x4xbf16> {num_heads = 2 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<bias>, score_scale = 0.25 : f32, attn_logit_softcap = 30.0 : f32} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
  // CHECK: rlx.attention {{.*}} {attn_logit_softcap = 5.000000e+01 : f32, head_dim = 8 : i64, mask_kind = #rlx.mask<sliding_window>, num_heads = 2 : i64, score_scale = 1.000000e+00 : f32, window = 2 : i64}
  %3 = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<sliding_window>, window = 2 : i64, score_scale = 1.0 : f32, attn_logit_softcap = 50.0 : f32} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
  return
}

// Rank-3 [B, S, H * D] layout; kv_seq may differ from seq (decoding).
// CHECK-LABEL: func.func @attention_rank3_kv_seq
func.func @attention_rank3_kv_seq(%q: tensor<2x1x64xf32>, %k: tensor<2x9x64xf32>,
                                  %v: tensor<2x9x64xf32>, %pad: tensor<2x9xf32>,
                                  %bias: tensor<2x4x1x9xf32>)
    -> (tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>) {
  // CHECK: rlx.attention {{.*}} {head_dim = 16 : i64, mask_kind = #rlx.mask<causal>, num_heads = 4 : i64} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  // CHECK: rlx.attention {{.*}} mask %{{.*}} : tensor<2x9xf32> {{.*}}mask_kind = #rlx.mask<custom>{{.*}} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  %1 = rlx.attention %q, %k, %v mask %pad : tensor<2x9xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  // CHECK: rlx.attention {{.*}} mask %{{.*}} : tensor<2x4x1x9xf32> {{.*}}mask_kind = #rlx.mask<bias>
  %2 = rlx.attention %q, %k, %v mask %bias : tensor<2x4x1x9xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  // CHECK: rlx.attention {{.*}}mask_kind = #rlx.mask<sliding_window>{{.*}}window = 4 : i64} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  %3 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, window = 4 : i64} : tensor<2x1x64xf32>, tensor<2x9x64xf32>, tensor<2x9x64xf32>
  // CHECK: return {{.*}} : tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>
  return %0, %1, %2, %3 : tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>, tensor<2x1x64xf32>
}

// Dynamic batch and sequence dims verify; the mask shape follows them.
// CHECK-LABEL: func.func @attention_dynamic
func.func @attention_dynamic(%q: tensor<?x4x?x16xf16>, %k: tensor<?x4x?x16xf16>,
                             %pad: tensor<?x?xf16>) -> tensor<?x4x?x16xf16> {
  // CHECK: rlx.attention {{.*}} mask %{{.*}} : tensor<?x?xf16> {{.*}} : tensor<?x4x?x16xf16>, tensor<?x4x?x16xf16>, tensor<?x4x?x16xf16>
  %0 = rlx.attention %q, %k, %k mask %pad : tensor<?x?xf16> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<?x4x?x16xf16>, tensor<?x4x?x16xf16>, tensor<?x4x?x16xf16>
  // CHECK: rlx.attention {{.*}}mask_kind = #rlx.mask<causal>{{.*}} : tensor<?x4x?x16xf16>
  %1 = rlx.attention %q, %k, %k {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>} : tensor<?x4x?x16xf16>, tensor<?x4x?x16xf16>, tensor<?x4x?x16xf16>
  return %1 : tensor<?x4x?x16xf16>
}

// Full and partial rotation in every accepted layout.
// CHECK-LABEL: func.func @rope
func.func @rope(%x4: tensor<1x32x16x128xf32>, %x3: tensor<2x16x256xf32>,
                %x2: tensor<16x256xf32>, %c64: tensor<16x64xf32>, %c32: tensor<16x32xf32>,
                %h: tensor<1x2x8x4xf16>, %ch: tensor<8x2xf16>,
                %d: tensor<?x?x64xf32>, %cd: tensor<?x16xf32>)
    -> (tensor<1x32x16x128xf32>, tensor<2x16x256xf32>, tensor<?x?x64xf32>) {
  // CHECK: rlx.rope %{{.*}}, %{{.*}}, %{{.*}} {head_dim = 128 : i64, n_rot = 128 : i64} : tensor<1x32x16x128xf32>, tensor<16x64xf32>, tensor<16x64xf32>
  %0 = rlx.rope %x4, %c64, %c64 {head_dim = 128 : i64, n_rot = 128 : i64} : tensor<1x32x16x128xf32>, tensor<16x64xf32>, tensor<16x64xf32>
  // CHECK: rlx.rope {{.*}} {head_dim = 128 : i64, n_rot = 64 : i64} : tensor<1x32x16x128xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  %1 = rlx.rope %x4, %c32, %c32 {head_dim = 128 : i64, n_rot = 64 : i64} : tensor<1x32x16x128xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  // CHECK: rlx.rope {{.*}} {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x256xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  %2 = rlx.rope %x3, %c32, %c32 {head_dim = 64 : i64, n_rot = 64 : i64} : tensor<2x16x256xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  // CHECK: rlx.rope {{.*}} {head_dim = 128 : i64, n_rot = 64 : i64} : tensor<16x256xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  %3 = rlx.rope %x2, %c32, %c32 {head_dim = 128 : i64, n_rot = 64 : i64} : tensor<16x256xf32>, tensor<16x32xf32>, tensor<16x32xf32>
  // CHECK: rlx.rope {{.*}} {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<1x2x8x4xf16>, tensor<8x2xf16>, tensor<8x2xf16>
  %4 = rlx.rope %h, %ch, %ch {head_dim = 4 : i64, n_rot = 4 : i64} : tensor<1x2x8x4xf16>, tensor<8x2xf16>, tensor<8x2xf16>
  // CHECK: rlx.rope {{.*}} {head_dim = 32 : i64, n_rot = 32 : i64} : tensor<?x?x64xf32>, tensor<?x16xf32>, tensor<?x16xf32>
  %5 = rlx.rope %d, %cd, %cd {head_dim = 32 : i64, n_rot = 32 : i64} : tensor<?x?x64xf32>, tensor<?x16xf32>, tensor<?x16xf32>
  return %0, %2, %5 : tensor<1x32x16x128xf32>, tensor<2x16x256xf32>, tensor<?x?x64xf32>
}

// CHECK-LABEL: func.func @axial_rope2d
func.func @axial_rope2d(%q: tensor<1x64x256xf32>, %k: tensor<2x128x64xf32>,
                        %d: tensor<?x?x32xbf16>) -> tensor<2x128x64xf32> {
  // CHECK: rlx.axial_rope2d %{{.*}} {end_x = 8 : i64, end_y = 8 : i64, head_dim = 256 : i64, num_heads = 1 : i64, repeat_factor = 1 : i64, theta = 1.000000e+04 : f32} : tensor<1x64x256xf32>
  %0 = rlx.axial_rope2d %q {end_x = 8 : i64, end_y = 8 : i64, head_dim = 256 : i64, num_heads = 1 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x256xf32>
  // Keys spanning two frames repeat the 8 x 8 grid twice; 4 heads of 16.
  // CHECK: rlx.axial_rope2d %{{.*}} {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 4 : i64, repeat_factor = 2 : i64, theta = 1.000000e+04 : f32} : tensor<2x128x64xf32>
  %1 = rlx.axial_rope2d %k {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 4 : i64, repeat_factor = 2 : i64, theta = 10000.0 : f32} : tensor<2x128x64xf32>
  // CHECK: rlx.axial_rope2d %{{.*}} {end_x = 4 : i64, end_y = 2 : i64, head_dim = 8 : i64, num_heads = 4 : i64, repeat_factor = 1 : i64, theta = 1.000000e+02 : f32} : tensor<?x?x32xbf16>
  %2 = rlx.axial_rope2d %d {end_x = 4 : i64, end_y = 2 : i64, head_dim = 8 : i64, num_heads = 4 : i64, repeat_factor = 1 : i64, theta = 100.0 : f32} : tensor<?x?x32xbf16>
  return %1 : tensor<2x128x64xf32>
}
