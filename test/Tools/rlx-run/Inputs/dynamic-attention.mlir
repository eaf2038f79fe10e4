// Causal attention with `?` batch and sequence dims (dynamic-attention.test).
func.func @att(%q: tensor<?x2x?x8xf32> {rlx.input = "q"}, %k: tensor<?x2x?x8xf32> {rlx.input = "k"}, %v: tensor<?x2x?x8xf32> {rlx.input = "v"}) -> tensor<?x2x?x8xf32> {
  %a = rlx.attention %q, %k, %v {num_heads = 2 : i64, head_dim = 8 : i64, mask_kind = #rlx.mask<causal>}
      : tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>
  return %a : tensor<?x2x?x8xf32>
}
