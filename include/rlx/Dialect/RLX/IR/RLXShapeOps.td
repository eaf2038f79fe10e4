//===- RLXShapeOps.td - shape manipulation and indexing ----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXSHAPEOPS_TD
#define RLX_DIALECT_RLX_IR_RLXSHAPEOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// A layout op: moves elements without computing on them. The result type
// follows from the input type and the attributes in C++, the verifier checks
// the attributes against the input shape, and the folder removes the op where
// it is the identity or combines it with constant operands.
class RLX_ShapeOp<string mnemonic, list<Trait> traits = []>
    : RLX_InferredTypeOp<mnemonic, traits> {
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// rlx.reshape
//===----------------------------------------------------------------------===//

def RLX_ReshapeOp : RLX_ShapeOp<"reshape"> {
  let summary = "row-major reshape (RLX `Reshape`)";
  let description = [{
    Reinterprets `input` with the shape `new_shape`, keeping the row-major
    order of the elements and the element type. One entry of `new_shape`
    may be `-1`: that dim is inferred so that the element count is
    preserved (it is `?` when the input has dynamic dims). Every other
    entry is a size `>= 0`. When the input shape is static, the element
    counts must agree; with dynamic input dims the check happens at run
    time.

    Shape rule: `result = new_shape` with the `-1` replaced by
    `numel(input) / product(other entries)`.

    Folding: a reshape to the input's own type folds to the input; a
    reshape of a reshape becomes one reshape of the original input; a
    reshape of a constant (a splat, or at most 1024 elements) folds to a
    constant.

    Example:

    ```mlir
    %y = rlx.reshape %x new_shape = [4, -1, 64] : tensor<4x128x768xf32>
    // %y : tensor<4x1536x64xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input, DenseI64ArrayAttr:$new_shape);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $input `new_shape` `=` $new_shape attr-dict `:` type($input)
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// rlx.transpose
//===----------------------------------------------------------------------===//

def RLX_TransposeOp : RLX_ShapeOp<"transpose"> {
  let summary = "dimension permutation (RLX `Transpose`)";
  let description = [{
    Permutes the dims of `input`: result dim `i` is input dim `perm[i]`,
    so the result element at index `(j_0, ..., j_last)` is the input element
    whose index along dim `perm[k]` is `j_k`. `perm` is a permutation of `0 .. rank-1` (its
    length is the input rank; entries are non-negative, RLX's `usize`).

    Shape rule: `result.shape[i] = input.shape[perm[i]]`.

    Folding: an identity `perm` folds to the input; a transpose of a
    transpose becomes one transpose with the composed permutation
    (`perm[i] = inner_perm[outer_perm[i]]`), or the original input when
    that is the identity; a transpose of a constant (a splat, or at most
    1024 elements) folds to a constant; a transpose that moves only dims
    of size 1 (the rest keep their order) becomes the `rlx.reshape` it
    equals, which no target copies.

    Example:

    ```mlir
    %y = rlx.transpose %x perm = [0, 2, 1, 3] : tensor<2x128x12x64xf32>
    // %y : tensor<2x12x128x64xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input)
  }];
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// rlx.narrow
//===----------------------------------------------------------------------===//

def RLX_NarrowOp : RLX_ShapeOp<"narrow"> {
  let summary = "contiguous slice along one axis (RLX `Narrow`)";
  let description = [{
    Selects the elements `start .. start + len - 1` of `input` along `axis`
    and keeps every other dim whole (`torch.narrow`). `axis`, `start` and
    `len` are non-negative (RLX `usize`); `axis < rank` and, when the dim
    is static, `start + len <= input.shape[axis]`. `len = 0` gives an empty
    tensor.

    Shape rule: the input shape with dim `axis` replaced by `len`.

    Folding: a narrow that keeps the whole axis (`start = 0`,
    `len = input.shape[axis]`) folds to the input.

    Example:

    ```mlir
    %q = rlx.narrow %qkv axis = 2 start = 0 len = 768 : tensor<4x128x2304xf32>
    // %q : tensor<4x128x768xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input, I64Attr:$axis,
                       RLX_NonNegativeI64Attr:$start,
                       RLX_NonNegativeI64Attr:$len);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $input `axis` `=` $axis `start` `=` $start `len` `=` $len attr-dict `:`
    type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.concat
//===----------------------------------------------------------------------===//

def RLX_ConcatOp : RLX_ShapeOp<"concat", [
    ParamNativeOpTrait<"AtLeastNOperands", "1">]> {
  let summary = "concatenation along one axis (RLX `Concat`)";
  let description = [{
    Joins one or more tensors end to end along `axis`. All inputs have the
    same rank and element type, and agree on every dim other than `axis`.
    `axis` is non-negative (RLX `usize`) and less than the rank.

    Shape rule: the inputs' common shape with dim `axis` replaced by the sum
    of the inputs' sizes along `axis` (`?` if any of them is dynamic).

    Folding: a concat of a single input whose type is the result type folds
    to that input.

    Example:

    ```mlir
    %y = rlx.concat %a, %b axis = 1 : tensor<4x3xf32>, tensor<4x5xf32>
    // %y : tensor<4x8xf32>
    ```
  }];

  let arguments = (ins Variadic<RLX_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.expand
//===----------------------------------------------------------------------===//

def RLX_ExpandOp : RLX_ShapeOp<"expand"> {
  let summary = "broadcast to a target shape (RLX `Expand`)";
  let description = [{
    Broadcasts `input` to `target_shape` NumPy-style: the shapes are aligned
    at their last dims, the target may have more (leading) dims than the
    input, and an input dim of size 1 stretches to the target size. Every
    other input dim must equal its target dim. A target entry `-1` keeps the
    aligned input dim (it is not allowed for the leading dims that have no
    input dim). The element type is kept. A dynamic input dim is checked
    at run time: it must be 1 or the target size.

    Shape rule: `target_shape` with each `-1` replaced by the aligned input
    dim.

    Folding: an expand to the input's own type folds to the input; an
    expand of a splat constant folds to a splat constant.

    Example:

    ```mlir
    %y = rlx.expand %bias target_shape = [4, 128, -1] : tensor<1x768xf32>
    // %y : tensor<4x128x768xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$input, DenseI64ArrayAttr:$target_shape);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $input `target_shape` `=` $target_shape attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.gather
//===----------------------------------------------------------------------===//

def RLX_GatherOp : RLX_InferredTypeOp<"gather"> {
  let summary = "index selection along one axis (RLX `Gather`)";
  let description = [{
    Picks slices of `table` along `axis` by the integer `indices`, like
    `numpy.take(table, indices, axis)` (a generalised
    `torch.index_select`; with `axis = 0` and a 2-D table it is an embedding
    lookup):

    `result[a..., i..., b...] = table[a..., indices[i...], b...]`

    where `a...` runs over the dims before `axis` and `b...` over those
    after it. `axis` is non-negative (RLX `usize`) and less than the
    table's rank. `indices` is an `i32` or `i64` tensor of any rank (rank 0
    drops the axis). Each index should lie in `[0, table.shape[axis])`;
    negative indices do not count from the end, and an index outside that
    range (a negative one included) selects a slice of zeros (`false` for
    `i1`).

    Shape rule:
    `result.shape = table.shape[:axis] + indices.shape + table.shape[axis+1:]`,
    with the table's element type.

    Example:

    ```mlir
    %e = rlx.gather %embedding, %tokens axis = 0 : tensor<50257x768xf32>, tensor<4x128xi64>
    // %e : tensor<4x128x768xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$table, RLX_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs RLX_Tensor:$result);

  let assemblyFormat = [{
    $table `,` $indices `axis` `=` $axis attr-dict `:` type($table) `,`
    type($indices)
  }];
  let hasVerifier = 1;
}


#endif // RLX_DIALECT_RLX_IR_RLXSHAPEOPS_TD
