//===- RLXSSMOps.td - state-space and linear-attention recurrences --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXSSMOPS_TD
#define RLX_DIALECT_RLX_IR_RLXSSMOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

//===----------------------------------------------------------------------===//
// rlx.selective_scan
//===----------------------------------------------------------------------===//

def RLX_SelectiveScanOp : RLX_PureOp<"selective_scan", [
    AllElementTypesMatch<["x", "delta", "a", "b", "c", "result"]>,
    AllTypesMatch<["x", "result"]>]> {
  let summary = "Mamba selective state-space scan (RLX `SelectiveScan`)";
  let description = [{
    Scans the sequence axis carrying a per-channel state `h [hidden, n]`
    that starts at zero for every batch entry:

    `h[t, j, :] = exp(delta[t, j] * a[j, :]) * h[t-1, j, :] + delta[t, j] * b[t, :] * x[t, j]`
    `y[t, j] = sum_i c[t, i] * h[t, j, i]`

    Operands (one floating-point element type): `x [b, s, h]`,
    `delta [b, s, h]`, `a [h, n]`, `b [b, s, n]`, `c [b, s, n]`, with
    `n = state_size` (> 0). The result `y` has the type of `x`.

    Example:

    ```mlir
    %y = rlx.selective_scan %x, %delta, %a, %b, %c state_size = 16
        : tensor<2x64x32xf32>, tensor<2x64x32xf32>, tensor<32x16xf32>,
          tensor<2x64x16xf32>, tensor<2x64x16xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$x,
                       RLX_FloatTensor:$delta,
                       RLX_FloatTensor:$a,
                       RLX_FloatTensor:$b,
                       RLX_FloatTensor:$c,
                       RLX_PositiveI64Attr:$state_size);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = [{
    $x `,` $delta `,` $a `,` $b `,` $c `state_size` `=` $state_size attr-dict
    `:` type($x) `,` type($delta) `,` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.gated_delta_net
//===----------------------------------------------------------------------===//

def RLX_GatedDeltaNetOp : RLX_InferredTypeOp<"gated_delta_net"> {
  let summary = "gated delta-rule linear attention recurrence (RLX `GatedDeltaNet`)";
  let description = [{
    Per batch entry and head, a state matrix `S [n, n]` evolves over the
    sequence; for each token `t`:

    ```
    S      = exp(g[t]) * S
    sk[j]  = sum_i S[i, j] * k[t, i]
    d[j]   = (v[t, j] - sk[j]) * beta[t]
    S[i,j] = S[i, j] + k[t, i] * d[j]
    o[t,j] = sum_i S[i, j] * q[t, i] / sqrt(n)
    ```

    Operands (one floating-point element type): `q`, `k`, `v`
    `[b, s, h, n]`, the log-gate `g` and mixing factor `beta` `[b, s, h]`,
    with `n = state_size` (> 0). Without `carry_state`, `S` starts at zero
    and the only result is `output [b, s, h, n]`. With `carry_state`, the
    operand `state [b, h, n, n]` is the initial `S` and the op has a second
    result `final_state` (the state's type) holding `S` after the last
    token; values are immutable, so the state is returned, not updated in
    place.

    Example:

    ```mlir
    %o = rlx.gated_delta_net %q, %k, %v, %g, %beta state_size = 64
        : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>,
          tensor<1x16x4xf32>, tensor<1x16x4xf32>
    %o2, %s1 = rlx.gated_delta_net %q, %k, %v, %g, %beta state_size = 64
        carry_state state %s0 : tensor<1x4x64x64xf32>
        : tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>, tensor<1x16x4x64xf32>,
          tensor<1x16x4xf32>, tensor<1x16x4xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$q,
                       RLX_FloatTensor:$k,
                       RLX_FloatTensor:$v,
                       RLX_FloatTensor:$g,
                       RLX_FloatTensor:$beta,
                       Optional<RLX_FloatTensor>:$state,
                       RLX_PositiveI64Attr:$state_size,
                       UnitAttr:$carry_state);
  let results = (outs RLX_FloatTensor:$output,
                      Optional<RLX_FloatTensor>:$final_state);

  // `carry_state` and the state operand print together; the verifier
  // rejects one without the other (the generic form can express that).
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $g `,` $beta `state_size` `=` $state_size
    (`carry_state` $carry_state^)? (`state` $state^ `:` type($state))?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `,` type($g) `,`
    type($beta)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXSSMOPS_TD
