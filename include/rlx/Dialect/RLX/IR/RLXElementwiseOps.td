//===- RLXElementwiseOps.td - constants, elementwise and casts -*- tablegen -*-//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXELEMENTWISEOPS_TD
#define RLX_DIALECT_RLX_IR_RLXELEMENTWISEOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

//===----------------------------------------------------------------------===//
// rlx.constant
//===----------------------------------------------------------------------===//

def RLX_ConstantOp : RLX_Op<"constant", [
    ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
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

def RLX_ActivationOp : RLX_Op<"activation", [
    Pure, SameOperandsAndResultType]> {
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
    kind requires a floating-point element type.

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
}

//===----------------------------------------------------------------------===//
// rlx.binary
//===----------------------------------------------------------------------===//

def RLX_BinaryOp : RLX_Op<"binary", [
    Pure, AllElementTypesMatch<["lhs", "rhs", "result"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
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
    floating-point element type.

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
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXELEMENTWISEOPS_TD
