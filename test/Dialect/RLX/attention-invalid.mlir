// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @attention_num_heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.attention %q, %k, %v {num_heads = 0 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = -2 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_heads_overflow(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{num_heads * head_dim overflows int64}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4294967296 : i64, head_dim = 4294967296 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_query_rank(%q: tensor<8x64xf32>, %k: tensor<8x64xf32>, %v: tensor<8x64xf32>) {
  // expected-error @+1 {{query must be [B, H, S, D] (rank 4) or [B, S, H * D] (rank 3), got [8, 64]}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<2x4x8x16xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{key [2, 8, 64] must have the rank of query [2, 4, 8, 16]}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x8x64xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_value_rank(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x8x64xf32>) {
  // expected-error @+1 {{value [2, 8, 64] must have the rank of query [2, 4, 8, 16]}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x8x64xf32>
  return
}

// -----

func.func @attention_query_heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{query [2, 4, 8, 16] has 4 heads (dim 1 of [B, H, S, D]) but num_heads = 8}}
  %0 = rlx.attention %q, %k, %v {num_heads = 8 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_key_head_dim(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x32xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{key [2, 4, 8, 32] has head dim 32 (dim 3 of [B, H, S, D]) but head_dim = 16}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x32xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_value_heads(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x2x8x16xf32>) {
  // expected-error @+1 {{value [2, 2, 8, 16] has 2 heads (dim 1 of [B, H, S, D]) but num_heads = 4}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>
  return
}

// -----

func.func @attention_rank3_query(%q: tensor<2x8x64xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x8x64xf32>) {
  // expected-error @+1 {{query [2, 8, 64] has last dim 64 but num_heads * head_dim = 96 (layout [B, S, H * D])}}
  %0 = rlx.attention %q, %k, %v {num_heads = 6 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  return
}

// -----

func.func @attention_rank3_value(%q: tensor<2x8x64xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x8x32xf32>) {
  // expected-error @+1 {{value [2, 8, 32] has last dim 32 but num_heads * head_dim = 64 (layout [B, S, H * D])}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @attention_key_batch(%q: tensor<2x4x8x16xf32>, %k: tensor<3x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{batch sizes differ: query [2, 4, 8, 16] has B = 2 but key [3, 4, 8, 16] has B = 3}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<3x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_value_batch(%q: tensor<2x8x64xf32>, %k: tensor<2x8x64xf32>, %v: tensor<1x8x64xf32>) {
  // expected-error @+1 {{batch sizes differ: query [2, 8, 64] has B = 2 but value [1, 8, 64] has B = 1}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<1x8x64xf32>
  return
}

// -----

func.func @attention_kv_seq(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x9x16xf32>) {
  // expected-error @+1 {{key and value sequence lengths differ: key [2, 4, 8, 16] has Sk = 8 but value [2, 4, 9, 16] has 9}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x9x16xf32>
  return
}

// -----

func.func @attention_custom_needs_mask(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op mask_kind 'custom' requires a mask operand}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_bias_needs_mask(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op mask_kind 'bias' requires a mask operand}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_causal_no_mask(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %m: tensor<2x8xf32>) {
  // expected-error @+1 {{mask_kind 'causal' takes no mask operand (only 'custom' and 'bias' do)}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_none_no_mask(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %m: tensor<2x8xf32>) {
  // expected-error @+1 {{mask_kind 'none' takes no mask operand (only 'custom' and 'bias' do)}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_window_required(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{mask_kind 'sliding_window' requires the window attribute}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_window_not_allowed(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{window is only valid with mask_kind 'sliding_window', not 'causal'}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>, window = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_window_negative(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op attribute 'window' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, window = -1 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_causal_short_keys(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x4x16xf32>, %v: tensor<2x4x4x16xf32>) {
  // expected-error @+1 {{mask_kind 'causal' needs at least as many keys as queries, got Sk = 4 < Sq = 8}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<causal>} : tensor<2x4x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>
  return
}

// -----

func.func @attention_window_short_keys(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x4x16xf32>, %v: tensor<2x4x4x16xf32>) {
  // expected-error @+1 {{mask_kind 'sliding_window' needs at least as many keys as queries, got Sk = 4 < Sq = 8}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<sliding_window>, window = 2 : i64} : tensor<2x4x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>
  return
}

// -----

func.func @attention_custom_mask_shape(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x4x16xf32>, %v: tensor<2x4x4x16xf32>, %m: tensor<2x8xf32>) {
  // expected-error @+1 {{mask_kind 'custom' needs a [B, Sk] mask [2, 4], got [2, 8]}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x4x8x16xf32>, tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>
  return
}

// -----

func.func @attention_custom_mask_rank(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %m: tensor<2x4x8x8xf32>) {
  // expected-error @+1 {{mask_kind 'custom' needs a [B, Sk] mask [2, 8], got [2, 4, 8, 8]}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x4x8x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_bias_shape(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %m: tensor<2x1x8x8xf32>) {
  // expected-error @+1 {{mask_kind 'bias' needs a [B, H, Sq, Sk] mask [2, 4, 8, 8], got [2, 1, 8, 8]}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x1x8x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_bias_rank3_layout(%q: tensor<2x2x64xf32>, %k: tensor<2x8x64xf32>, %v: tensor<2x8x64xf32>, %m: tensor<2x4x1x8xf32>) {
  // expected-error @+1 {{mask_kind 'bias' needs a [B, H, Sq, Sk] mask [2, 4, 2, 8], got [2, 4, 1, 8]}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x4x1x8xf32> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<bias>} : tensor<2x2x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
  return
}

// -----

func.func @attention_mask_element_type(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>, %m: tensor<2x8xf16>) {
  // expected-error @+1 {{mask element type 'f16' differs from query element type 'f32'}}
  %0 = rlx.attention %q, %k, %v mask %m : tensor<2x8xf16> {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_score_scale_zero(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op attribute 'score_scale' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>, score_scale = 0.0 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_score_scale_negative(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{attribute 'score_scale' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>, score_scale = -0.125 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_softcap_zero(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{'rlx.attention' op attribute 'attn_logit_softcap' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>, attn_logit_softcap = 0.0 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_softcap_inf(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{attribute 'attn_logit_softcap' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>, attn_logit_softcap = 0x7F800000 : f32} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_element_types(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x8x16xf32>, %v: tensor<2x4x8x16xf16>) {
  // expected-error @+1 {{all of {query, key, value} have same element type}}
  %0 = rlx.attention %q, %k, %v {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf16>
  return
}

// -----

func.func @attention_int(%q: tensor<2x4x8x16xi8>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.attention"(%q, %q, %q) {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : (tensor<2x4x8x16xi8>, tensor<2x4x8x16xi8>, tensor<2x4x8x16xi8>) -> tensor<2x4x8x16xi8>
  return
}

// -----

func.func @attention_result_type(%q: tensor<2x4x8x16xf32>) {
  // expected-error @+1 {{all of {query, result} have same type}}
  %0 = "rlx.attention"(%q, %q, %q) {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<none>} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

func.func @attention_bool_mask(%q: tensor<2x4x8x16xf32>, %m: tensor<2x8xi1>) {
  // expected-error @+1 {{operand #3 must be ranked tensor of floating-point values, but got 'tensor<2x8xi1>'}}
  %0 = "rlx.attention"(%q, %q, %q, %m) {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<custom>} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x8xi1>) -> tensor<2x4x8x16xf32>
  return
}

// -----

func.func @attention_unknown_mask_kind(%q: tensor<2x4x8x16xf32>) {
  // expected-error @+2 {{expected ::mlir::rlx::MaskKind to be one of: none, causal, sliding_window, custom, bias}}
  // expected-error @+1 {{failed to parse RLX_MaskKindAttr parameter 'value'}}
  %0 = rlx.attention %q, %q, %q {num_heads = 4 : i64, head_dim = 16 : i64, mask_kind = #rlx.mask<padding>} : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  return
}

// -----

func.func @rope_head_dim(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{'rlx.rope' op attribute 'head_dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.rope %x, %c, %s {head_dim = 0 : i64, n_rot = 8 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_n_rot_odd(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{'rlx.rope' op n_rot must be even, positive and <= head_dim = 16, got 7}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 7 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_n_rot_large(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{n_rot must be even, positive and <= head_dim = 16, got 18}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 18 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_n_rot_zero(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{n_rot must be even, positive and <= head_dim = 16, got 0}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 0 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_rank(%x: tensor<128xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{'rlx.rope' op input must be [B, H, S, D], [B, S, H * D] or [S, H * D], got [128]}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<128xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_rank5(%x: tensor<1x1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{input must be [B, H, S, D], [B, S, H * D] or [S, H * D], got [1, 1, 4, 8, 16]}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<1x1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_rank4_head_dim(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{input [1, 4, 8, 16] has head dim 16 (dim 3 of [B, H, S, D]) but head_dim = 32}}
  %0 = rlx.rope %x, %c, %s {head_dim = 32 : i64, n_rot = 8 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_rank3_heads(%x: tensor<1x8x60xf32>, %c: tensor<8x4xf32>, %s: tensor<8x4xf32>) {
  // expected-error @+1 {{input [1, 8, 60] has last dim 60, not a multiple of head_dim = 16}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<1x8x60xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @rope_table_seq(%x: tensor<1x4x8x16xf32>, %c: tensor<16x4xf32>, %s: tensor<16x4xf32>) {
  // expected-error @+1 {{cos and sin must be [S, n_rot / 2] = [8, 4] for input [1, 4, 8, 16], got [16, 4]}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<1x4x8x16xf32>, tensor<16x4xf32>, tensor<16x4xf32>
  return
}

// -----

func.func @rope_table_width(%x: tensor<1x4x8x16xf32>, %c: tensor<8x8xf32>, %s: tensor<8x8xf32>) {
  // expected-error @+1 {{cos and sin must be [S, n_rot / 2] = [8, 4] for input [1, 4, 8, 16], got [8, 8]}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<1x4x8x16xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return
}

// -----

func.func @rope_table_rank(%x: tensor<8x64xf32>, %c: tensor<1x8x8xf32>, %s: tensor<1x8x8xf32>) {
  // expected-error @+1 {{cos and sin must be [S, n_rot / 2] = [8, 8] for input [8, 64], got [1, 8, 8]}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 16 : i64} : tensor<8x64xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>
  return
}

// -----

func.func @rope_cos_sin_types(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf32>, %s: tensor<8x2xf32>) {
  // expected-error @+1 {{all of {cos, sin} have same type}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf32>, tensor<8x2xf32>
  return
}

// -----

func.func @rope_element_types(%x: tensor<1x4x8x16xf32>, %c: tensor<8x4xf16>, %s: tensor<8x4xf16>) {
  // expected-error @+1 {{all of {input, cos} have same element type}}
  %0 = rlx.rope %x, %c, %s {head_dim = 16 : i64, n_rot = 8 : i64} : tensor<1x4x8x16xf32>, tensor<8x4xf16>, tensor<8x4xf16>
  return
}

// -----

func.func @axial_end_x(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{'rlx.axial_rope2d' op attribute 'end_x' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.axial_rope2d %x {end_x = 0 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_end_y(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{'rlx.axial_rope2d' op attribute 'end_y' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = -8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_num_heads(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{attribute 'num_heads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 0 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_repeat(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{attribute 'repeat_factor' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 0 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_head_dim(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{head_dim must be a positive multiple of 4 (x and y rotate head_dim / 4 pairs each), got 6}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 6 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_theta(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{'rlx.axial_rope2d' op attribute 'theta' failed to satisfy constraint: 32-bit float attribute whose value is finite and positive}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = -10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_overflow(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{num_heads * head_dim or end_x * end_y * repeat_factor overflows int64}}
  %0 = rlx.axial_rope2d %x {end_x = 4294967296 : i64, end_y = 4294967296 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_rank(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{input must be [B, S, num_heads * head_dim] (rank 3), got [64, 32]}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<64x32xf32>
  return
}

// -----

func.func @axial_hidden(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{input [1, 64, 32] has last dim 32 but num_heads * head_dim = 48}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 3 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_seq(%x: tensor<1x64x32xf32>) {
  // expected-error @+1 {{input [1, 64, 32] has S = 64 but end_x * end_y * repeat_factor = 128}}
  %0 = rlx.axial_rope2d %x {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 2 : i64, theta = 10000.0 : f32} : tensor<1x64x32xf32>
  return
}

// -----

func.func @axial_int(%x: tensor<1x64x32xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = "rlx.axial_rope2d"(%x) {end_x = 8 : i64, end_y = 8 : i64, head_dim = 16 : i64, num_heads = 2 : i64, repeat_factor = 1 : i64, theta = 10000.0 : f32} : (tensor<1x64x32xi32>) -> tensor<1x64x32xi32>
  return
}
