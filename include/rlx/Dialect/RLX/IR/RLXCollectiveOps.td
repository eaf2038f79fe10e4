//===- RLXCollectiveOps.td - communication between ranks --*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Collectives over a group of ranks (processes) that each run the same graph
// on their own data (SPMD). The group is a `#rlx.group` attribute: a static
// mesh and the axes it spans, printed as `mesh [2, 4] axes [1]`
// (docs/distributed.md).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXCOLLECTIVEOPS_TD
#define RLX_DIALECT_RLX_IR_RLXCOLLECTIVEOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// The tensors collectives move: floats, signless integers and booleans.
// Unsigned and complex element types change their tensor types in the
// lowering to linalg, which the buffers handed to the runtime must keep.
def RLX_CollectiveTensor : RankedTensorOf<[RLX_Float, RLX_SignedInt, I1]>;

// Every collective is a pure function of its operand on each rank: the
// ranks run the same program, so they reach the same collectives in the
// same order (docs/distributed.md says what breaks that).
class RLX_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : RLX_InferredTypeOp<mnemonic, traits> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.all_reduce
//===----------------------------------------------------------------------===//

def RLX_AllReduceOp : RLX_CollectiveOp<"all_reduce"> {
  let summary = "combine a tensor elementwise across the group, result on "
                "every rank";
  let description = [{
    Every rank of the group receives the elementwise `sum`, `mean`, `max` or
    `min` of the group's `input` tensors, which have one shape on every
    rank. `mean` is the sum divided by the group size and needs a float
    element type; `bool` tensors are not reduced.

    Shape rule: the result has the input's type.

    Derivatives: the VJP of `sum` (`mean`) is `all_reduce sum` (`mean`) of
    the cotangent; of `max`/`min`, the summed cotangent goes to the ranks
    holding the extremum, split evenly between ties.

    ```mlir
    %g = rlx.all_reduce mean %grad mesh [4] : tensor<64x10xf32>
    %s = rlx.all_reduce sum %x mesh [2, 4] axes [1] : tensor<8xf32>
    ```
  }];

  let arguments = (ins RLX_CollectiveKindAttr:$kind,
                       RLX_CollectiveTensor:$input,
                       RLX_GroupAttr:$group);
  let results = (outs RLX_CollectiveTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input custom<Group>($group) attr-dict `:`
    type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.all_gather
//===----------------------------------------------------------------------===//

def RLX_AllGatherOp : RLX_CollectiveOp<"all_gather"> {
  let summary = "concatenate the group's tensors along a dim, result on every "
                "rank";
  let description = [{
    Every rank receives the concatenation along `dim` of the group's
    `input` tensors, in the order of the ranks' indices in the group.

    Shape rule: `input` has rank >= 1 and `dim` is in `[0, rank)`; the
    result is the input's shape with `dim` multiplied by the group size
    (`?` stays `?`).

    Derivatives: the VJP is `reduce_scatter sum` of the cotangent along
    `dim`; the JVP is the gather of the tangent.

    ```mlir
    %all = rlx.all_gather %shard dim = 0 mesh [4] : tensor<2x16xf32>
    // %all : tensor<8x16xf32>
    ```
  }];

  let arguments = (ins RLX_CollectiveTensor:$input,
                       RLX_NonNegativeI64Attr:$dim,
                       RLX_GroupAttr:$group);
  let results = (outs RLX_CollectiveTensor:$result);

  let assemblyFormat = [{
    $input `dim` `=` $dim custom<Group>($group) attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.reduce_scatter
//===----------------------------------------------------------------------===//

def RLX_ReduceScatterOp : RLX_CollectiveOp<"reduce_scatter"> {
  let summary = "combine across the group, each rank keeping one slice";
  let description = [{
    The elementwise `sum`, `mean`, `max` or `min` of the group's `input`
    tensors (as `rlx.all_reduce`), split along `dim` into as many equal
    slices as the group has ranks: the rank of index `i` in the group
    receives slice `i`.

    Shape rule: `input` has rank >= 1, `dim` is in `[0, rank)` and a static
    size along `dim` is a multiple of the group size; the result is the
    input's shape with `dim` divided by the group size. `mean` needs a
    float element type.

    Derivatives: the VJP of `sum` is `all_gather` of the cotangent along
    `dim` (`mean` divides it by the group size; `max`/`min` send it to the
    ranks holding the extremum, split between ties).

    ```mlir
    %mine = rlx.reduce_scatter sum %partial dim = 0 mesh [4]
        : tensor<8x16xf32>
    // %mine : tensor<2x16xf32>
    ```
  }];

  let arguments = (ins RLX_CollectiveKindAttr:$kind,
                       RLX_CollectiveTensor:$input,
                       RLX_NonNegativeI64Attr:$dim,
                       RLX_GroupAttr:$group);
  let results = (outs RLX_CollectiveTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `dim` `=` $dim custom<Group>($group)
    attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.all_to_all
//===----------------------------------------------------------------------===//

def RLX_AllToAllOp : RLX_CollectiveOp<"all_to_all"> {
  let summary = "each rank sends slice j of its tensor to rank j";
  let description = [{
    Each rank splits its `input` along `split_dim` into as many equal
    slices as the group has ranks and sends slice `j` to the rank of index
    `j` in the group; each rank concatenates the slices it receives along
    `concat_dim`, in the order of the senders' indices. With `split_dim ==
    concat_dim` the shape is unchanged and the op permutes blocks between
    ranks.

    Shape rule: `input` has rank >= 1, both dims are in `[0, rank)` and a
    static size along `split_dim` is a multiple of the group size; the
    result divides `split_dim` by the group size, then multiplies
    `concat_dim` by it.

    Derivatives: the VJP is `all_to_all` of the cotangent with the two
    dims swapped; the JVP is the op on the tangent.

    ```mlir
    %t = rlx.all_to_all %x split_dim = 1 concat_dim = 0 mesh [4]
        : tensor<2x8xf32>
    // %t : tensor<8x2xf32>
    ```
  }];

  let arguments = (ins RLX_CollectiveTensor:$input,
                       RLX_NonNegativeI64Attr:$split_dim,
                       RLX_NonNegativeI64Attr:$concat_dim,
                       RLX_GroupAttr:$group);
  let results = (outs RLX_CollectiveTensor:$result);

  let assemblyFormat = [{
    $input `split_dim` `=` $split_dim `concat_dim` `=` $concat_dim
    custom<Group>($group) attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.broadcast
//===----------------------------------------------------------------------===//

def RLX_BroadcastOp : RLX_CollectiveOp<"broadcast"> {
  let summary = "every rank of the group receives the root's tensor";
  let description = [{
    Every rank receives the `input` of the rank of index `root` in the
    group; the other ranks' inputs are ignored (their shape is the same).
    Not NumPy broadcasting: that is `rlx.expand`.

    Shape rule: the result has the input's type; `root` is in `[0, group
    size)`.

    Derivatives: the VJP is `reduce_to_root sum` of the cotangent (the
    root receives the sum, the other ranks zeros); the JVP is the
    broadcast of the tangent.

    ```mlir
    %w0 = rlx.broadcast %w root = 0 mesh [4] : tensor<64x10xf32>
    ```
  }];

  let arguments = (ins RLX_CollectiveTensor:$input,
                       RLX_NonNegativeI64Attr:$root,
                       RLX_GroupAttr:$group);
  let results = (outs RLX_CollectiveTensor:$result);

  let assemblyFormat = [{
    $input `root` `=` $root custom<Group>($group) attr-dict `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// rlx.reduce_to_root
//===----------------------------------------------------------------------===//

def RLX_ReduceToRootOp : RLX_CollectiveOp<"reduce_to_root"> {
  let summary = "combine across the group, result on the root, zeros "
                "elsewhere";
  let description = [{
    The rank of index `root` in the group receives the elementwise `sum`,
    `mean`, `max` or `min` of the group's `input` tensors (as
    `rlx.all_reduce`); every other rank receives zeros, so that `sum` is
    the adjoint of `rlx.broadcast`.

    Shape rule: the result has the input's type; `root` is in `[0, group
    size)`; `mean` needs a float element type.

    Derivatives: the VJP of `sum` is `broadcast` of the cotangent from
    `root` (`mean` divides it by the group size; `max`/`min` send it to
    the ranks holding the extremum, split between ties).

    ```mlir
    %total = rlx.reduce_to_root sum %loss root = 0 mesh [4] : tensor<1xf32>
    ```
  }];

  let arguments = (ins RLX_CollectiveKindAttr:$kind,
                       RLX_CollectiveTensor:$input,
                       RLX_NonNegativeI64Attr:$root,
                       RLX_GroupAttr:$group);
  let results = (outs RLX_CollectiveTensor:$result);

  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `root` `=` $root custom<Group>($group)
    attr-dict `:` type($input)
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXCOLLECTIVEOPS_TD
