//===- RLXReductionOps.td - reductions, scans, softmax, top-k and sampling --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXREDUCTIONOPS_TD
#define RLX_DIALECT_RLX_IR_RLXREDUCTIONOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// Real numbers: the element types reductions, scans and top-k order or add.
def RLX_RealTensor : RankedTensorOf<[RLX_Float, RLX_Int]>;

//===----------------------------------------------------------------------===//
// rlx.reduce
//===----------------------------------------------------------------------===//

def RLX_ReduceOp : RLX_InferredTypeOp<"reduce", [
    AllElementTypesMatch<["input", "result"]>]> {
  let summary = "reduction over a set of axes (RLX `Reduce`)";
  let description = [{
    Reduces `input` over the dimensions listed in `axes` with `kind`:

    | kind | result | element types |
    |------|--------|---------------|
    | `sum` | sum of the elements | floats, integers, `complex<f32>` |
    | `mean` | sum divided by the number of reduced elements | floats, `complex<f32>` |
    | `max`, `min` | largest / smallest element (NaN propagates) | floats, integers |
    | `prod` | product of the elements | floats, integers, `complex<f32>` |

    Integer `sum` and `prod` wrap around. `axes` are distinct dimension
    indices in `[0, rank)` (no negative values), in any order. The result
    has the input's element type; its shape drops the reduced dims, or
    keeps them with size 1 when `keep_dim` is set. Reducing over no axes
    returns the input unchanged, and so does reducing over dims of static
    size 1 with `keep_dim`; the folder applies both.

    Example:

    ```mlir
    %s = rlx.reduce sum %x axes = [1] : tensor<4x8x16xf32>
    // %s : tensor<4x16xf32>
    %m = rlx.reduce max %x axes = [0, 2] keep_dim : tensor<4x8x16xf32>
    // %m : tensor<1x8x1xf32>
    ```
  }];

  let arguments = (ins RLX_ReduceKindAttr:$kind,
                       RankedTensorOf<[RLX_Float, RLX_Int, RLX_Complex]>:$input,
                       DenseI64ArrayAttr:$axes,
                       UnitAttr:$keep_dim);
  let results = (outs RankedTensorOf<[RLX_Float, RLX_Int, RLX_Complex]>:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `axes` `=` $axes
    (`keep_dim` $keep_dim^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.cumsum
//===----------------------------------------------------------------------===//

def RLX_CumsumOp : RLX_SameTypeOp<"cumsum"> {
  let summary = "cumulative sum along an axis (RLX `Cumsum`)";
  let description = [{
    Running sum of `input` along `axis` (negative values count from the
    end; any axis is allowed). Inclusive by default; with `exclusive` the
    element itself is left out, so the first element along the axis is 0:

    ```
    inclusive: y[..., i, ...] = sum_{j <= i} x[..., j, ...]
    exclusive: y[..., i, ...] = sum_{j <  i} x[..., j, ...]
    ```

    `input` has rank >= 1 and a float or integer element type (integer
    sums wrap around). The result has the input's type. An inclusive
    cumsum along a dim of static size 1 folds to its input.

    Example:

    ```mlir
    %y = rlx.cumsum %x {axis = -1 : i64} : tensor<2x16xf32>
    %o = rlx.cumsum %n {axis = 0 : i64, exclusive} : tensor<8xi64>
    ```
  }];

  let arguments = (ins RLX_RealTensor:$input,
                       I64Attr:$axis,
                       UnitAttr:$exclusive);
  let results = (outs RLX_RealTensor:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.softmax
//===----------------------------------------------------------------------===//

def RLX_SoftmaxOp : RLX_SameTypeOp<"softmax"> {
  let summary = "softmax along an axis (RLX `Softmax`)";
  let description = [{
    Normalized exponential of `input` along `axis` (negative values count
    from the end; any axis is allowed), computed stably:

    ```
    y = exp(x - max(x, axis)) / sum(exp(x - max(x, axis)), axis)
    ```

    `input` has rank >= 1 and a floating-point element type; the result has
    the input's type.

    Example:

    ```mlir
    %p = rlx.softmax %scores {axis = -1 : i64} : tensor<2x12x128x128xf32>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$input, I64Attr:$axis);
  let results = (outs RLX_FloatTensor:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.top_k
//===----------------------------------------------------------------------===//

def RLX_TopKOp : RLX_InferredTypeOp<"top_k", [
    AllElementTypesMatch<["input", "values"]>]> {
  let summary = "k largest elements along the last axis (RLX `TopK`)";
  let description = [{
    Selects the `k` largest elements of every row along the last axis of
    `input` `[..., N]`. `values` `[..., k]` holds them in descending order
    and `indices` `[..., k]` (`i64`) their positions in `[0, N)`. Equal
    values are ordered by smaller index first, like
    `torch.topk(largest=True, sorted=True)`. Float NaN counts as larger than
    every other value.

    `input` has rank >= 1 and a float or integer element type; `values` has
    that element type. `1 <= k <= N` (checked when `N` is static).

    Example:

    ```mlir
    %v, %i = rlx.top_k %logits {k = 2 : i64} : tensor<16x8xf32>
    // %v : tensor<16x2xf32>, %i : tensor<16x2xi64>
    ```
  }];

  let arguments = (ins RLX_RealTensor:$input, RLX_PositiveI64Attr:$k);
  let results = (outs RLX_RealTensor:$values,
                      RankedTensorOf<[I64]>:$indices);

  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.sample
//===----------------------------------------------------------------------===//

def RLX_SampleOp : RLX_InferredTypeOp<"sample"> {
  let summary = "seeded token sampling from logits (RLX `Sample`)";
  let description = [{
    Draws one token id per row of `logits` `[batch, vocab]`; the result is
    `[batch]` of `i64` ids in `[0, vocab)`. Per row:

    1. divide the logits by `temperature` (> 0, finite);
    2. if `top_k > 0`, keep only the `top_k` largest logits (ties by
       smaller id); `top_k = 0` disables the filter;
    3. turn the kept logits into probabilities with a softmax;
    4. if `top_p < 1.0`, keep the smallest prefix of the ids sorted by
       descending probability (ties by smaller id) whose cumulative
       probability reaches `top_p`, and renormalize; `top_p = 1.0`
       disables the filter;
    5. draw one id by inverse CDF: with `u` uniform in `[0, 1)`, return the
       first kept id, in the order of step 4, whose cumulative probability
       exceeds `u`.

    **Randomness and determinism.** `u` comes from the counter-based
    Philox-4x32-10 generator keyed by the 64-bit `seed` (the `i64` value's
    bit pattern; low word first) with counter `(row, 0, 0, 0)`: the first
    32-bit output word `w` gives `u = w * 2^-32`. The result therefore
    depends only on `logits` and the attributes: the same op on the same
    logits returns the same ids on every run and target, rows are
    independent of each other and of the batch size, and the op is `Pure`
    (it may be CSE'd, hoisted or removed when unused). `seed = 0` does
    *not* mean "fresh randomness": it is the fixed default key
    `0xDEADBEEF`, i.e. identical to `seed = 3735928559`. For a different
    draw per call, pass a different seed (e.g. derived from the step
    number by the caller).

    `0 <= top_k <= vocab` (checked when `vocab` is static) and
    `0 < top_p <= 1`. `top_k = 1` is greedy (argmax) decoding.

    Example:

    ```mlir
    %ids = rlx.sample %logits {seed = 42 : i64, temperature = 7.000000e-01 : f32,
        top_k = 40 : i64, top_p = 0.949999988 : f32} : tensor<4x32000xf32>
    // %ids : tensor<4xi64>
    ```
  }];

  let arguments = (ins RLX_FloatTensor:$logits,
                       RLX_NonNegativeI64Attr:$top_k,
                       RLX_F32AttrIn<"> 0.0f", "<= 1.0f", "(0, 1]">:$top_p,
                       RLX_PositiveF32Attr:$temperature,
                       I64Attr:$seed);
  let results = (outs RankedTensorOf<[I64]>:$result);

  let assemblyFormat = "$logits attr-dict `:` type($logits)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.scatter_add
//===----------------------------------------------------------------------===//

def RLX_ScatterAddOp : RLX_PureOp<"scatter_add", [
    AllElementTypesMatch<["updates", "result"]>]> {
  let summary = "accumulate rows into a zero-initialized tensor "
                "(RLX `ScatterAdd`)";
  let description = [{
    Starts from a zero `[out_dim, T]` tensor and adds row `i` of `updates`
    `[U, T]` to row `indices[i]`:

    ```
    y = 0
    y[indices[i], :] += updates[i, :]     for i in [0, U)
    ```

    Repeated indices accumulate. An index outside `[0, out_dim)`
    contributes nothing. `indices` is `[U]` of `i32` or `i64`. `out_dim`
    cannot be derived from the operands, so the result type is written in
    the assembly and verified: rank 2, `T` columns, the element type of
    `updates` (float or integer).

    Example:

    ```mlir
    %y = rlx.scatter_add %updates, %idx : tensor<6x64xf32>, tensor<6xi64>
        -> tensor<10x64xf32>
    ```
  }];

  let arguments = (ins RLX_RealTensor:$updates,
                       RLX_IndexTensor:$indices);
  let results = (outs RLX_RealTensor:$result);

  let assemblyFormat = [{
    $updates `,` $indices attr-dict `:` type($updates) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXREDUCTIONOPS_TD
