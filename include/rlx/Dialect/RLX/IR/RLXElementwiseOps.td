//===- RLXElementwiseOps.td - constants, elementwise and casts -*- tablegen -*-//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXELEMENTWISEOPS_TD
#define RLX_DIALECT_RLX_IR_RLXELEMENTWISEOPS_TD

include "rlx/Dialect/RLX/IR/RLXInterfaces.td"
include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// An elementwise op on NumPy-broadcast operands: the result shape is the
// broadcast of the operand shapes (InferTypeOpInterface, in C++), the
// verifier reports operands that do not broadcast and the folder evaluates
// constant operands.
class RLX_BroadcastElementwiseOp<string mnemonic, list<Trait> traits = []>
    : RLX_PureOp<mnemonic, !listconcat(traits, [
          DeclareOpInterfaceMethods<InferTypeOpInterface>,
          DeclareOpInterfaceMethods<RLX_ScalarizableOpInterface>])> {
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.constant
//===----------------------------------------------------------------------===//

def RLX_ConstantOp : RLX_PureOp<"constant", [
    ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor constant (RLX `Constant`)";
  let description = [{
    A tensor constant holding dense or `dense_resource` elements. The result
    type is the type of `value`.

    Example:

    ```mlir
    %bias = rlx.constant dense<[0.5, -1.0]> : tensor<2xf32>
    %w = rlx.constant dense_resource<weights> : tensor<768x768xf32>
    ```
  }];

  let arguments = (ins ElementsAttr:$value);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.activation
//===----------------------------------------------------------------------===//

def RLX_ActivationOp : RLX_SameTypeOp<"activation", [
    DeclareOpInterfaceMethods<RLX_ScalarizableOpInterface>]> {
  let summary = "unary activation function (RLX `Activation`)";
  let description = [{
    Applies the activation `kind` to every element of `input`. The result has
    the input's type.

    | kind | definition |
    |------|------------|
    | `gelu` | `0.5 x (1 + erf(x / sqrt(2)))` |
    | `gelu_approx` | `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` |
    | `silu` | `x * sigmoid(x)` |
    | `relu` | `max(x, 0)` |
    | `sigmoid` | `1 / (1 + exp(-x))` |
    | `tanh`, `exp`, `log`, `sqrt`, `sin`, `cos`, `tan`, `atan` | as named |
    | `rsqrt` | `1 / sqrt(x)` |
    | `neg`, `abs` | as named |
    | `round` | round to nearest integer, ties to even |

    `relu`, `neg` and `abs` accept signed integer tensors too; every other
    kind requires a floating-point element type. Integer `neg` and `abs`
    wrap around for the most negative value. `relu` of a NaN is NaN and
    `relu(-0.0)` is `+0.0`.

    A constant input with at most 1024 elements folds to a constant computed
    as the lowered code computes it: the op's scalar computation
    (`ScalarizableOpInterface`) evaluated by the constant folders of the
    arith / math ops it is made of, so `f16` / `bf16` are computed in `f32`
    and rounded once. A kind whose computation uses a math op without a
    constant folder (`rsqrt`) is not folded.

    Example:

    ```mlir
    %y = rlx.activation gelu %x : tensor<4x128x768xf32>
    ```
  }];

  let arguments = (ins RLX_ActivationKindAttr:$kind,
                       RankedTensorOf<[RLX_Float, RLX_SignedInt]>:$input);
  let results = (outs RankedTensorOf<[RLX_Float, RLX_SignedInt]>:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.binary
//===----------------------------------------------------------------------===//

def RLX_BinaryOp : RLX_BroadcastElementwiseOp<"binary", [
    AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "broadcasting elementwise binary op (RLX `Binary`)";
  let description = [{
    Computes `lhs <kind> rhs` element by element. Shapes broadcast
    NumPy-style: right-aligned, a dimension of size 1 stretches to the other
    operand's size, missing leading dimensions count as 1. The result has the
    broadcast shape and the operands' element type (both operands have the
    same element type; convert with `rlx.cast` first).

    `add`, `sub`, `mul` and `div` apply to floats, integers and
    `complex<f32>` (integer `div` truncates toward zero). `max` and `min`
    apply to floats, integers and `i1` (logical or / and). `pow` needs a
    floating-point element type. Integer arithmetic wraps around on overflow
    (two's complement); `ui8` and `ui32` compare, divide and take `max` /
    `min` as unsigned numbers. Integer division never traps: `x / 0` is 0
    and the overflowing `MIN / -1` wraps to `MIN`. Float `max` and `min`
    propagate NaN and order `-0.0 < +0.0`.

    Folding (only exact rewrites; the constants are splats):
    - `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x` and `x / 1` fold to `x`
      when the result type is `x`'s type (the constant does not broadcast
      `x`). For floats the zero added must be `-0.0` and the zero
      subtracted `+0.0`: `x + (+0.0)` and `x - (-0.0)` turn `-0.0` into
      `+0.0`, so they are not folded.
    - `x * 0` folds to a zero constant only for integer element types. For
      floats it is wrong: `NaN * 0` and `Inf * 0` are NaN and `-1.0 * 0.0`
      is `-0.0`.
    - Operands that are both constants with at most 1024 result elements
      fold to a constant computed as the lowered code computes it (the
      scalar computation evaluated by the constant folders of the arith /
      math ops it is made of). Not for `complex<f32>`: complex arithmetic
      has no constant folders.

    Example:

    ```mlir
    %y = rlx.binary add %x, %bias : tensor<4x128x768xf32>, tensor<768xf32>
    ```
  }];

  let arguments = (ins RLX_BinaryKindAttr:$kind,
                       RLX_NumericTensor:$lhs,
                       RLX_NumericTensor:$rhs);
  let results = (outs RLX_NumericTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $lhs `,` $rhs attr-dict `:` type($lhs) `,`
    type($rhs)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.cast
//===----------------------------------------------------------------------===//

def RLX_CastOp : RLX_InferredTypeOp<"cast", [
    DeclareOpInterfaceMethods<RLX_ScalarizableOpInterface>]> {
  let summary = "element type conversion (RLX `Cast`)";
  let description = [{
    Converts every element of `input` to the element type `to`. The result
    has the input's shape and element type `to`. Any pair of rlx element
    types is accepted; a cast to the input's own element type is the
    identity and folds away.

    Conversion rules (the same as Rust's `as`, which RLX follows):

    | from -> to | rule |
    |------------|------|
    | float -> float | round to nearest, ties to even; out-of-range values become infinities (NaN for `f8E4M3FN`, which has none) |
    | float -> integer | truncate toward zero, then saturate to the target's range; NaN becomes 0 |
    | integer -> float | round to nearest, ties to even |
    | integer -> integer | keep the low bits (wrap around); a narrower source is sign-extended when signed (`i8`..`i64`), zero-extended when unsigned (`ui8`, `ui32`) |
    | `i1` -> number | `true` is 1, `false` is 0 |
    | any -> `i1` | `x != 0` (a NaN becomes `true`; a complex is true when either part is non-zero) |
    | real -> `complex<f32>` | converts to `f32` as above, imaginary part 0 |
    | `complex<f32>` -> real | converts the real part; the imaginary part is dropped |

    A constant input with at most 1024 elements folds to a constant computed
    as the lowered code computes it (the scalar computation evaluated by the
    constant folders of the arith ops it is made of); a cast to
    `complex<f32>` is not folded.

    Example:

    ```mlir
    %h = rlx.cast %x : tensor<4x8xf32> to f16
    %m = rlx.cast %mask : tensor<4x8xi1> to f32
    ```
  }];

  let arguments = (ins RLX_Tensor:$input,
                       TypeAttrOf<RLX_ElementType>:$to);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $input attr-dict `:` type($input) `to` $to
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.stop_gradient
//===----------------------------------------------------------------------===//

def RLX_StopGradientOp : RLX_SameTypeOp<"stop_gradient"> {
  let summary = "identity that blocks gradients (RLX `StopGradient`)";
  let description = [{
    Returns `input` unchanged (same shape and element type). Reverse-mode
    autodiff gives `input` no gradient contribution through this op (the
    `detach` / `lax.stop_gradient` of other frameworks), which lets a graph
    use a value forward without differentiating through it.

    The op is deliberately never folded or canonicalized away, even though
    its forward value is its input: removing it would change the gradients.
    Only autodiff lowers it (to a plain use of `input`).

    Example:

    ```mlir
    %t = rlx.stop_gradient %target : tensor<4x10xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = "$input attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// rlx.compare
//===----------------------------------------------------------------------===//

def RLX_CompareOp : RLX_BroadcastElementwiseOp<"compare", [
    AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "broadcasting elementwise comparison (RLX `Compare`)";
  let description = [{
    Computes `lhs <kind> rhs` element by element and returns an `i1` tensor.
    Shapes broadcast NumPy-style (right-aligned, size-1 dims stretch,
    missing leading dims count as 1); the result has the broadcast shape.
    Both operands have the same element type.

    | kind | true when |
    |------|-----------|
    | `eq` | `lhs == rhs` |
    | `ne` | `lhs != rhs` |
    | `lt`, `le`, `gt`, `ge` | `lhs < rhs`, `<=`, `>`, `>=` |

    Floats compare as IEEE-754 values: every comparison with a NaN is false
    except `ne`, which is true; `-0.0 == +0.0`. `ui8` and `ui32` compare as
    unsigned numbers, `i1` as `false < true`. `complex<f32>` supports only
    `eq` and `ne`.

    Constant operands with at most 1024 result elements fold to a constant
    (not for `complex<f32>`, whose comparisons have no constant folder).

    Example:

    ```mlir
    %m = rlx.compare gt %x, %zero : tensor<4x8xf32>, tensor<f32>
    // %m : tensor<4x8xi1>
    ```
  }];

  let arguments = (ins RLX_CompareKindAttr:$kind,
                       RLX_Tensor:$lhs,
                       RLX_Tensor:$rhs);
  let results = (outs RLX_BoolTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $lhs `,` $rhs attr-dict `:` type($lhs) `,`
    type($rhs)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.where
//===----------------------------------------------------------------------===//

def RLX_WhereOp : RLX_BroadcastElementwiseOp<"where", [
    AllElementTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "broadcasting elementwise select (RLX `Where`)";
  let description = [{
    Computes `cond ? on_true : on_false` element by element. `cond` is an
    `i1` tensor (build it with `rlx.compare`, or `rlx.cast` a number to
    `i1`, which tests `!= 0`). All three operands broadcast NumPy-style
    against each other; the result has the broadcast shape and the element
    type of `on_true` and `on_false`, which must agree.

    Gradient: `on_true` gets `where(cond, g, 0)` and `on_false`
    `where(cond, 0, g)`; `cond` gets none. As with `torch.where`, the
    branch that is not taken is still computed and differentiated: where
    its derivative is inf or NaN (`sqrt(x)` or `log(x)` at `x <= 0`,
    `1 / x` at 0), the chain rule multiplies that by the 0 and the gradient
    is NaN. The safe idiom keeps the untaken branch's input in its domain:
    `where(x > 0, sqrt(where(x > 0, x, 1)), 0)` instead of
    `where(x > 0, sqrt(x), 0)`.

    A `cond` that is a constant all-`true` (all-`false`) folds to `on_true`
    (`on_false`) and `where(c, x, x)` folds to `x`, when the type of the
    chosen value is the result type. Three constant operands with at most
    1024 result elements fold to a constant.

    Example:

    ```mlir
    %y = rlx.where %m, %x, %zero : tensor<4x8xi1>, tensor<4x8xf32>, tensor<f32>
    // %y : tensor<4x8xf32>
    ```
  }];

  let arguments = (ins RLX_BoolTensor:$cond,
                       RLX_Tensor:$on_true,
                       RLX_Tensor:$on_false);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,`
    type($on_true) `,` type($on_false)
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXELEMENTWISEOPS_TD
