// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Packed heads [B, S, H*D]: head-major copies, Q K^T and e V as plain
// batch_matmuls, scale -> soft cap -> key-padding mask in one generic, a
// max-subtracted softmax, and the division fused with the layout back.
// CHECK-DAG: #[[HEADS:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 2, d1, (d0 mod 2) * 4 + d2)>
// CHECK-DAG: #[[KT:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 2, d2, (d0 mod 2) * 4 + d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEYPAD:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 2, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @attention_rank3_custom_softcap
// CHECK: %[[Q:.*]] = linalg.generic {indexing_maps = [#[[HEADS]], #[[ID]]], {{.*}} ins(%arg0 : tensor<2x3x8xf32>) outs(%{{.*}} : tensor<4x3x4xf32>)
// CHECK: %[[K:.*]] = linalg.generic {indexing_maps = [#[[KT]], #[[ID]]], {{.*}} ins(%arg1 : tensor<2x5x8xf32>) outs(%{{.*}} : tensor<4x4x5xf32>)
// CHECK: %[[S:.*]] = linalg.batch_matmul ins(%[[Q]], %[[K]] : tensor<4x3x4xf32>, tensor<4x4x5xf32>) outs(%{{.*}} : tensor<4x3x5xf32>)
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEYPAD]], #[[ID]]], {{.*}} ins(%[[S]], %arg3 : tensor<4x3x5xf32>, tensor<2x5xf32>)
// CHECK:   %[[SC:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:   %[[C:.*]] = arith.constant 5.000000e+01 : f32
// CHECK:   %[[D:.*]] = arith.divf %[[SC]], %[[C]] : f32
// CHECK:   %[[T:.*]] = math.tanh %[[D]] : f32
// CHECK:   %[[CAP:.*]] = arith.mulf %[[C]], %[[T]] : f32
// CHECK:   %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:   %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:   %[[KEEP:.*]] = arith.cmpf oge, %{{.*}}, %[[HALF]] : f32
// CHECK:   arith.select %[[KEEP]], %[[CAP]], %[[NEGINF]] : f32
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[M]] : tensor<4x3x5xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], {{.*}} ins(%[[M]], %[[MAX]] : tensor<4x3x5xf32>, tensor<4x3xf32>)
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[E]] : tensor<4x3x5xf32>)
// CHECK:   arith.addf
// CHECK: %[[V:.*]] = linalg.generic {indexing_maps = [#[[HEADS]], #[[ID]]], {{.*}} ins(%arg2 : tensor<2x5x8xf32>) outs(%{{.*}} : tensor<4x5x4xf32>)
// CHECK: %[[PV:.*]] = linalg.batch_matmul ins(%[[E]], %[[V]] : tensor<4x3x5xf32>, tensor<4x5x4xf32>) outs(%{{.*}} : tensor<4x3x4xf32>)
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[HEADS]]], {{.*}} ins(%[[PV]], %[[SUM]] : tensor<4x3x4xf32>, tensor<4x3xf32>) outs(%{{.*}} : tensor<2x3x8xf32>)
// CHECK:   arith.divf
// CHECK: return %[[OUT]]
func.func @attention_rank3_custom_softcap(%q: tensor<2x3x8xf32>, %k: tensor<2x5x8xf32>, %v: tensor<2x5x8xf32>, %m: tensor<2x5xf32>) -> tensor<2x3x8xf32> {
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x5xf32> {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<custom>, attn_logit_softcap = 5.0e+01 : f32, score_scale = 0.5 : f32} : tensor<2x3x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// Causal with Sk = 7 > Sq = 4: query i sees keys j <= i + 3. The default
// scale is 1/sqrt(16).
// CHECK-LABEL: func.func @attention_causal_kv_longer
// CHECK-DAG: %[[SK:.*]] = arith.constant 7 : index
// CHECK-DAG: %[[SQ:.*]] = arith.constant 4 : index
// CHECK: %[[OFF:.*]] = arith.subi %[[SK]], %[[SQ]] : index
// CHECK: linalg.generic
// CHECK:   arith.constant 2.500000e-01 : f32
// CHECK-NOT: math.tanh
// CHECK:   %[[I:.*]] = linalg.index 1 : index
// CHECK:   %[[J:.*]] = linalg.index 2 : index
// CHECK:   %[[LAST:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK:   %[[KEEP:.*]] = arith.cmpi sle, %[[J]], %[[LAST]] : index
// CHECK:   arith.select %[[KEEP]]
func.func @attention_causal_kv_longer(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x7x16xf32>, %v: tensor<1x2x7x16xf32>) -> tensor<1x2x4x16xf32> {
  %0 = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>} : tensor<1x2x4x16xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32>
  return %0 : tensor<1x2x4x16xf32>
}

// -----

// Sliding window: i + off - window <= j <= i + off.
// CHECK-LABEL: func.func @attention_sliding_window
// CHECK:   %[[I:.*]] = linalg.index 1 : index
// CHECK:   %[[J:.*]] = linalg.index 2 : index
// CHECK:   %[[LAST:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:   %[[UPPER:.*]] = arith.cmpi sle, %[[J]], %[[LAST]] : index
// CHECK:   %[[W:.*]] = arith.constant 3 : index
// CHECK:   %[[FIRST:.*]] = arith.subi %[[LAST]], %[[W]] : index
// CHECK:   %[[LOWER:.*]] = arith.cmpi sge, %[[J]], %[[FIRST]] : index
// CHECK:   %[[KEEP:.*]] = arith.andi %[[UPPER]], %[[LOWER]] : i1
// CHECK:   arith.select %[[KEEP]]
func.func @attention_sliding_window(%q: tensor<2x6x8xf64>, %k: tensor<2x6x8xf64>, %v: tensor<2x6x8xf64>) -> tensor<2x6x8xf64> {
  %0 = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<sliding_window>, window = 3 : i64} : tensor<2x6x8xf64>, tensor<2x6x8xf64>, tensor<2x6x8xf64>
  return %0 : tensor<2x6x8xf64>
}

// -----

// Additive bias [B, H, Sq, Sk] read per (batch, head) of the B*H dim.
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2) -> (d0 floordiv 3, d0 mod 3, d1, d2)>
// CHECK-LABEL: func.func @attention_bias
// CHECK: linalg.batch_matmul {{.*}} -> tensor<6x5x4xf64>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %arg3 : tensor<6x5x4xf64>, tensor<2x3x5x4xf64>)
// CHECK:   arith.mulf
// CHECK-NEXT: arith.constant 0xFFF0000000000000 : f64
// CHECK-NEXT: arith.addf
func.func @attention_bias(%q: tensor<2x3x5x8xf64>, %k: tensor<2x3x4x8xf64>, %v: tensor<2x3x4x8xf64>, %b: tensor<2x3x5x4xf64>) -> tensor<2x3x5x8xf64> {
  %0 = rlx.attention %q, %k, %v mask %b : tensor<2x3x5x4xf64> {num_heads = 3 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x3x5x8xf64>, tensor<2x3x4x8xf64>, tensor<2x3x4x8xf64>
  return %0 : tensor<2x3x5x8xf64>
}

// -----

// f16 accumulates in f32 and rounds once at the end.
// CHECK-LABEL: func.func @attention_f16
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf16>, tensor<2x4x3xf16>) outs(%{{.*}} : tensor<2x3x3xf32>)
// CHECK: math.exp %{{.*}} : f32
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x3xf32>, tensor<2x3x4xf16>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK: linalg.generic
// CHECK:   arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:   arith.truncf %{{.*}} : f32 to f16
func.func @attention_f16(%q: tensor<1x2x3x4xf16>, %k: tensor<1x2x3x4xf16>, %v: tensor<1x2x3x4xf16>) -> tensor<1x2x3x4xf16> {
  %0 = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<none>} : tensor<1x2x3x4xf16>, tensor<1x2x3x4xf16>, tensor<1x2x3x4xf16>
  return %0 : tensor<1x2x3x4xf16>
}

// -----

// Dynamic batch and sequence dims: B*H and the key offset are computed.
// The native [B, H, S, D] query is viewed as [B*H, S, D] without a copy;
// the transposed keys are copied.
// CHECK-LABEL: func.func @attention_dynamic
// CHECK: %[[H:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[BH:.*]] = arith.muli %{{.*}}, %[[H]] : index
// CHECK: %[[QH:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : tensor<?x4x?x8xf32> into tensor<?x?x8xf32>
// CHECK: tensor.empty(%[[BH]], %{{.*}}) : tensor<?x8x?xf32>
// CHECK: linalg.batch_matmul ins(%[[QH]], {{.*}} -> tensor<?x?x?xf32>
// CHECK: %[[VH:.*]] = tensor.collapse_shape %arg2 {{\[\[}}0, 1], [2], [3]]
// CHECK: linalg.batch_matmul ins(%{{.*}}, %[[VH]] :
func.func @attention_dynamic(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<causal>} : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>
  return %0 : tensor<?x4x?x8xf32>
}

// -----

// NeoX rope on [B, S, H*D] with partial rotation (n_rot 4 of head_dim 6):
// the per-head view, then one generic reading the element, its partner
// (`(d + n_rot/2) mod n_rot`) and the tables (`d mod n_rot/2`) through
// indexing maps.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[PARTNER:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, (d3 + 2) mod 4)>
// CHECK-DAG: #[[TABLE:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3 mod 2)>
// CHECK-LABEL: func.func @rope_partial
// CHECK: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2, 3]] output_shape [2, 5, 3, 6] : tensor<2x5x18xf32> into tensor<2x5x3x6xf32>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[PARTNER]], #[[TABLE]], #[[TABLE]], #[[ID]]], {{.*}} ins(%[[X]], %[[X]], %arg1, %arg2 : tensor<2x5x3x6xf32>, tensor<2x5x3x6xf32>, tensor<5x2xf32>, tensor<5x2xf32>)
// CHECK:   linalg.index 3 : index
// CHECK:   arith.cmpi ult, %{{.*}}, %c2
// CHECK:   arith.cmpi ult, %{{.*}}, %c4
// CHECK:   arith.subf
// CHECK:   arith.addf
// CHECK: tensor.collapse_shape %[[Y]] {{\[\[}}0], [1], [2, 3]] : tensor<2x5x3x6xf32> into tensor<2x5x18xf32>
func.func @rope_partial(%x: tensor<2x5x18xf32>, %c: tensor<5x2xf32>, %s: tensor<5x2xf32>) -> tensor<2x5x18xf32> {
  %0 = rlx.rope %x, %c, %s {head_dim = 6 : i64, n_rot = 4 : i64} : tensor<2x5x18xf32>, tensor<5x2xf32>, tensor<5x2xf32>
  return %0 : tensor<2x5x18xf32>
}

// -----

// Axial 2-D rope: a frequency table constant, cos/sin of position * f.
// CHECK-LABEL: func.func @axial_rope2d
// CHECK: arith.constant dense<[1.000000e+00, 1.000000e-01, 1.000000e+00, 1.000000e-01]> : tensor<4xf32>
// CHECK: linalg.generic
// CHECK:   arith.remui
// CHECK:   arith.divui
// CHECK:   arith.uitofp
// CHECK:   math.cos
// CHECK:   math.sin
func.func @axial_rope2d(%x: tensor<1x12x16xf32>) -> tensor<1x12x16xf32> {
  %0 = rlx.axial_rope2d %x {end_x = 3 : i64, end_y = 2 : i64, head_dim = 8 : i64, num_heads = 2 : i64, repeat_factor = 2 : i64, theta = 1.0e+02 : f32} : tensor<1x12x16xf32>
  return %0 : tensor<1x12x16xf32>
}
