//===- RLXControlFlowOps.td - regions and control flow -----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Region-holding rlx ops. Two conventions:
//
// * `rlx.if` and `rlx.while` are structured control flow in the style of
//   `scf.if` / `scf.while`: their regions are not isolated, a branch or loop
//   body uses values defined above it directly (implicit captures), and they
//   implement RegionBranchOpInterface.
// * `rlx.scan`, `rlx.scan_backward(_xs)`, `rlx.custom_fn` and the fused
//   region ops hold sub-graphs whose inputs are bound positionally to block
//   arguments. Those regions are IsolatedFromAbove: everything the body reads
//   is a block argument or is defined inside the body.
//
// Every region ends in an explicit `rlx.yield`.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXCONTROLFLOWOPS_TD
#define RLX_DIALECT_RLX_IR_RLXCONTROLFLOWOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

// An op of the second convention above: its regions are isolated sub-graphs,
// so its memory effects and speculatability are those of the ops inside,
// and a region verifier checks the block arguments and yields against the
// operands and results.
class RLX_IsolatedRegionOp<string mnemonic, list<Trait> traits = []>
    : RLX_Op<mnemonic, !listconcat([IsolatedFromAbove], traits,
                                   [RecursiveMemoryEffects,
                                    RecursivelySpeculatable])> {
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.if
//===----------------------------------------------------------------------===//

def RLX_IfOp : RLX_Op<"if", [
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
                              ["getEntrySuccessorRegions",
                               "getRegionInvocationBounds"]>,
    RecursiveMemoryEffects, RecursivelySpeculatable, NoRegionArguments]> {
  let summary = "two-way conditional on a boolean tensor (RLX `If`)";
  let description = [{
    Runs `then` when the single element of `predicate` is true, `else`
    otherwise, and returns what the branch yields. `predicate` is an `i1`
    tensor holding exactly one element: shape `[]` or `[1]`.

    Canonicalization inlines the taken region when the predicate is a
    constant.

    Captures are implicit: the regions are not isolated and use values
    defined above the op directly (the RLX captures `[predicate,
    captures...]` become plain SSA uses). Both regions have no arguments,
    end in `rlx.yield` and yield exactly the op's result types. An `rlx.if`
    may have no results.

    Example:

    ```mlir
    %y = rlx.if %p : tensor<i1> -> tensor<4xf32> {
      %a = rlx.activation relu %x : tensor<4xf32>
      rlx.yield %a : tensor<4xf32>
    } else {
      %b = rlx.activation sigmoid %x : tensor<4xf32>
      rlx.yield %b : tensor<4xf32>
    }
    ```
  }];

  let arguments = (ins RLX_BoolTensor:$predicate);
  let results = (outs Variadic<RLX_Tensor>:$results);
  let regions = (region SizedRegion<1>:$thenRegion,
                        SizedRegion<1>:$elseRegion);

  let assemblyFormat = [{
    $predicate `:` type($predicate) (`->` type($results)^)?
    $thenRegion `else` $elseRegion attr-dict
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// rlx.while
//===----------------------------------------------------------------------===//

def RLX_WhileOp : RLX_Op<"while", [
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<RegionBranchOpInterface,
                              ["getEntrySuccessorOperands"]>,
    RecursiveMemoryEffects]> {
  let summary = "loop with loop-carried values (RLX `While`)";
  let description = [{
    Iterates while `cond` holds. `inits` are the initial loop-carried
    values (at least one). Each iteration runs `cond` on the carried values;
    when its predicate is false the loop ends and the op returns the carried
    values, otherwise `body` runs on them and yields the next carried
    values.

    * `cond` has one block argument per carried value (the carried types).
      It yields the predicate, an `i1` tensor with a single element (shape
      `[]` or `[1]`), followed by its block arguments unchanged. `cond` only
      observes the carried values (RLX semantics); listing them in the yield
      makes their flow to `body` and to the results explicit, so that
      RegionBranchOpInterface describes the loop exactly.
    * `body` has the same block arguments and yields exactly the carried
      types.
    * The results have the carried types.
    * `max_iterations` (optional, > 0) bounds the number of `body` runs; the
      loop also ends after that many iterations. Targets without a runtime
      loop unroll the loop that many times and need it.

    As with `rlx.if`, the regions may use values defined above the op.

    Canonicalization replaces a loop whose side-effect-free `cond` yields a
    constant false predicate by its initial values.

    Example:

    ```mlir
    %r = rlx.while %x : tensor<4xf32> max_iterations = 16 cond {
    ^bb0(%c: tensor<4xf32>):
      %p = ... : tensor<i1>
      rlx.yield %p, %c : tensor<i1>, tensor<4xf32>
    } do {
    ^bb0(%c: tensor<4xf32>):
      %n = rlx.activation tanh %c : tensor<4xf32>
      rlx.yield %n : tensor<4xf32>
    }
    ```
  }];

  let arguments = (ins Variadic<RLX_Tensor>:$inits,
                       OptionalAttr<RLX_PositiveI64Attr>:$max_iterations);
  let results = (outs Variadic<RLX_Tensor>:$results);
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);

  let assemblyFormat = [{
    $inits `:` type($inits) (`max_iterations` `=` $max_iterations^)?
    attr-dict `cond` $cond `do` $body
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// rlx.scan
//===----------------------------------------------------------------------===//

def RLX_ScanOp : RLX_IsolatedRegionOp<"scan", [
    AttrSizedOperandSegments, InferTypeOpAdaptor]> {
  let summary = "bounded loop over stacked inputs, like `lax.scan` (RLX `Scan`)";
  let description = [{
    Runs `body` `length` times, threading a carry:

    ```
    carry_0 = init
    carry_{t+1} = body(carry_t, bcasts..., xs_0[t], ..., xs_{n-1}[t])
    ```

    Operands, in RLX order `[init, bcast..., xs...]`:

    * `init`: the initial carry.
    * `bcasts`: values read unchanged by every step (RLX `num_bcast` is
      their count).
    * `xs`: per-step inputs of shape `[length, *x_t]`; step `t` reads row
      `t` (RLX `num_xs` is their count).

    `body` has the block arguments `[carry, bcast..., x_t...]` with the
    types of `init`, of each bcast and of each xs with its leading `length`
    dim removed, and yields the next carry (the type of `init`). The region
    is isolated: it reads only its block arguments and what it defines.

    Result:

    * without `save_trajectory`: the final carry, the type of `init`;
    * with `save_trajectory`: the stacked carries `[T, *carry]`, where row
      `t` is the carry after step `t + 1` (so row `length - 1` is the final
      carry). `T = length`, or, with `num_checkpoints = K` and
      `0 < K < length`, `T = K`: only the rows `floor(t * length / K)`,
      `t < K`, are kept (checkpointing for reverse-mode AD, which recomputes
      the rest).

    `length > 0`; `0 <= num_checkpoints <= length`; a non-zero
    `num_checkpoints` needs `save_trajectory`.

    Example:

    ```mlir
    %traj = rlx.scan %h0 : tensor<8xf32> bcast(%w : tensor<8xf32>)
        xs(%u : tensor<16x8xf32>) length = 16 save_trajectory body {
    ^bb0(%h: tensor<8xf32>, %wb: tensor<8xf32>, %ut: tensor<8xf32>):
      %a = rlx.binary mul %h, %wb : tensor<8xf32>, tensor<8xf32>
      %n = rlx.binary add %a, %ut : tensor<8xf32>, tensor<8xf32>
      rlx.yield %n : tensor<8xf32>
    }
    // %traj : tensor<16x8xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$init,
                       Variadic<RLX_Tensor>:$bcasts,
                       Variadic<RLX_Tensor>:$xs,
                       RLX_PositiveI64Attr:$length,
                       UnitAttr:$save_trajectory,
                       DefaultValuedAttr<I64Attr, "0">:$num_checkpoints);
  let results = (outs RLX_Tensor:$result);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    $init `:` type($init)
    (`bcast` `(` $bcasts^ `:` type($bcasts) `)`)?
    (`xs` `(` $xs^ `:` type($xs) `)`)?
    `length` `=` $length (`save_trajectory` $save_trajectory^)?
    (`num_checkpoints` `=` $num_checkpoints^)? attr-dict `body` $body
  }];
  let extraClassDeclaration = [{
    /// RLX `num_bcast`: the number of broadcast operands.
    unsigned getNumBcast() { return getBcasts().size(); }
    /// RLX `num_xs`: the number of per-step operands.
    unsigned getNumXs() { return getXs().size(); }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.scan_backward / rlx.scan_backward_xs
//===----------------------------------------------------------------------===//

class RLX_ScanBackwardBase<string mnemonic, list<Trait> traits = []>
    : RLX_IsolatedRegionOp<mnemonic, traits> {
  let regions = (region SizedRegion<1>:$body_vjp,
                        MaxSizedRegion<1>:$forward_body);
  let hasVerifier = 1;
}

def RLX_ScanBackwardOp : RLX_ScanBackwardBase<"scan_backward", [
    AllTypesMatch<["init", "result"]>]> {
  let summary = "carry gradient of an `rlx.scan` (RLX `ScanBackward`)";
  let description = [{
    Reverse-mode companion of `rlx.scan`: walks `t = length - 1 .. 0`,
    applying `body_vjp` to thread the carry cotangent back through the loop,
    and returns `dinit`, the gradient with respect to the scan's `init` (the
    type of `init`).

    Operands, in RLX order `[init, trajectory, upstream, xs...]`:

    * `init`: the forward scan's initial carry.
    * `trajectory`: the forward carries saved by a `save_trajectory` scan,
      `[T, *carry]` with `T = length`, or `T = num_checkpoints` when
      `0 < num_checkpoints < length`.
    * `upstream`: the cotangent of the forward scan's result: `[length,
      *carry]` when the forward scan had `save_trajectory` (this op's
      `save_trajectory`), the carry type otherwise.
    * `xs`: the forward scan's per-step inputs `[length, *x_t]` (broadcast
      operands are materialised as xs before differentiation).

    `body_vjp` has the block arguments `[carry, x_t..., d_output]` (the
    carry type, each per-step type, the carry type) and yields
    `[dcarry, dx_t...]` with the types `[carry, x_t...]`. The optional
    `forward_body` is the forward scan body, `[carry, x_t...] -> carry`; it
    is required when `0 < num_checkpoints < length` to recompute the carries
    between checkpoints.

    Example:

    ```mlir
    %d = rlx.scan_backward %h0, %traj, %dy : tensor<8xf32>, tensor<16x8xf32>,
        tensor<16x8xf32> xs(%u : tensor<16x8xf32>) length = 16
        save_trajectory body_vjp {
    ^bb0(%h: tensor<8xf32>, %ut: tensor<8xf32>, %g: tensor<8xf32>):
      rlx.yield %g, %g : tensor<8xf32>, tensor<8xf32>
    }
    ```
  }];

  let arguments = (ins RLX_Tensor:$init,
                       RLX_Tensor:$trajectory,
                       RLX_Tensor:$upstream,
                       Variadic<RLX_Tensor>:$xs,
                       RLX_PositiveI64Attr:$length,
                       UnitAttr:$save_trajectory,
                       DefaultValuedAttr<I64Attr, "0">:$num_checkpoints);
  let results = (outs RLX_Tensor:$result);
  let assemblyFormat = [{
    $init `,` $trajectory `,` $upstream `:` type($init) `,` type($trajectory)
    `,` type($upstream) (`xs` `(` $xs^ `:` type($xs) `)`)?
    `length` `=` $length (`save_trajectory` $save_trajectory^)?
    (`num_checkpoints` `=` $num_checkpoints^)?
    attr-dict `body_vjp` $body_vjp (`forward_body` $forward_body^)?
  }];
}

def RLX_ScanBackwardXsOp : RLX_ScanBackwardBase<"scan_backward_xs", [
    InferTypeOpAdaptor]> {
  let summary = "stacked per-step input gradient of an `rlx.scan` "
                "(RLX `ScanBackwardXs`)";
  let description = [{
    Same operands, attributes and regions as `rlx.scan_backward`, plus
    `xs_idx`: runs the same backward sweep and returns the stacked gradient
    of `xs[xs_idx]`, `[length, *x_t]` (the type of that operand), built from
    the `1 + xs_idx`-th value yielded by `body_vjp` at every step.
    `0 <= xs_idx < ` the number of xs.

    Example:

    ```mlir
    %dxs = rlx.scan_backward_xs %h0, %traj, %dy : tensor<8xf32>,
        tensor<16x8xf32>, tensor<16x8xf32> xs(%u : tensor<16x8xf32>)
        length = 16 save_trajectory xs_idx = 0 body_vjp {
    ^bb0(%h: tensor<8xf32>, %ut: tensor<8xf32>, %g: tensor<8xf32>):
      rlx.yield %g, %g : tensor<8xf32>, tensor<8xf32>
    }
    // %dxs : tensor<16x8xf32>
    ```
  }];

  let arguments = (ins RLX_Tensor:$init,
                       RLX_Tensor:$trajectory,
                       RLX_Tensor:$upstream,
                       Variadic<RLX_Tensor>:$xs,
                       RLX_PositiveI64Attr:$length,
                       UnitAttr:$save_trajectory,
                       DefaultValuedAttr<I64Attr, "0">:$num_checkpoints,
                       I64Attr:$xs_idx);
  let results = (outs RLX_Tensor:$result);
  let assemblyFormat = [{
    $init `,` $trajectory `,` $upstream `:` type($init) `,` type($trajectory)
    `,` type($upstream) (`xs` `(` $xs^ `:` type($xs) `)`)?
    `length` `=` $length (`save_trajectory` $save_trajectory^)?
    (`num_checkpoints` `=` $num_checkpoints^)?
    `xs_idx` `=` $xs_idx
    attr-dict `body_vjp` $body_vjp (`forward_body` $forward_body^)?
  }];
}

//===----------------------------------------------------------------------===//
// rlx.custom_fn
//===----------------------------------------------------------------------===//

def RLX_CustomFnOp : RLX_IsolatedRegionOp<"custom_fn"> {
  let summary = "function with user-supplied derivative rules (RLX `CustomFn`)";
  let description = [{
    JAX `custom_vjp` / `custom_jvp`. The op computes `fwd_body` on its
    operands (the primal inputs); automatic differentiation uses `vjp_body`
    (reverse mode) and `jvp_body` (forward mode) instead of differentiating
    `fwd_body` when they are present. An empty region means the rule is
    absent and AD differentiates `fwd_body`.

    With `n` primal inputs `x_i` and the primal output `y` (the op's result):

    | region | block arguments | yields |
    |--------|-----------------|--------|
    | `fwd` | `x_0 .. x_{n-1}` | `y` |
    | `vjp` | `x_0 .. x_{n-1}, primal_output, d_output` | `dx_0 .. dx_{n-1}` |
    | `jvp` | `x_0 .. x_{n-1}, t_0 .. t_{n-1} [, primal_output]` | `dy` |

    `primal_output`, `d_output` and `dy` have the result type; each gradient
    `dx_i` and tangent `t_i` has the type of `x_i`. The positions replace the
    RLX special input names (`"primal_output"`, `"d_output"`,
    `"tangent_i"`). The regions are isolated.

    Example:

    ```mlir
    %y = rlx.custom_fn(%x) : (tensor<4xf32>) -> tensor<4xf32> fwd {
    ^bb0(%a: tensor<4xf32>):
      %s = rlx.activation sin %a : tensor<4xf32>
      rlx.yield %s : tensor<4xf32>
    } vjp {
    ^bb0(%a: tensor<4xf32>, %y0: tensor<4xf32>, %dy: tensor<4xf32>):
      %c = rlx.activation cos %a : tensor<4xf32>
      %g = rlx.binary mul %c, %dy : tensor<4xf32>, tensor<4xf32>
      rlx.yield %g : tensor<4xf32>
    }
    ```
  }];

  let arguments = (ins Variadic<RLX_Tensor>:$inputs);
  let results = (outs RLX_Tensor:$result);
  let regions = (region SizedRegion<1>:$fwd_body,
                        MaxSizedRegion<1>:$vjp_body,
                        MaxSizedRegion<1>:$jvp_body);

  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, $result) attr-dict
    `fwd` $fwd_body (`vjp` $vjp_body^)? (`jvp` $jvp_body^)?
  }];
}

//===----------------------------------------------------------------------===//
// rlx.elementwise_region
//===----------------------------------------------------------------------===//

def RLX_ElementwiseRegionOp : RLX_IsolatedRegionOp<"elementwise_region"> {
  let summary = "fused elementwise chain with a scalar body "
                "(RLX `ElementwiseRegion`)";
  let description = [{
    A fused chain of elementwise ops, held like `linalg.generic`: the body
    computes one output element from one element of each input.

    * Operands: the inputs (at least one). Their shapes broadcast NumPy-style
      (right-aligned, size-1 dims stretch, missing leading dims count as 1)
      to the result shape; this subsumes the RLX `scalar_input_mask` and
      `input_modulus` encodings, which follow from the shapes.
    * Body: one block with one scalar block argument per input, of the
      input's element type (`f32`, `i1`, `complex<f32>`, ...). Its ops are
      side-effect-free `arith`, `math` and `complex` ops on scalars (the
      per-element semantics of the rlx elementwise ops), and it ends in
      `rlx.yield` of one scalar.
    * Result: the broadcast shape with the yielded element type.
    * `prologue_input` (optional, RLX `prologue = ResizeNearest2x`): that
      input is a half-resolution NCHW tensor `[N, C, H, W]` upsampled 2x by
      nearest neighbour before the chain reads it, so it takes part in the
      broadcast as `[N, C, 2H, 2W]`.

    Example (`relu(x * s + b)`):

    ```mlir
    %y = rlx.elementwise_region(%x, %s, %b)
        : (tensor<4x8xf32>, tensor<f32>, tensor<8xf32>) -> tensor<4x8xf32> body {
    ^bb0(%xe: f32, %se: f32, %be: f32):
      %m = arith.mulf %xe, %se : f32
      %a = arith.addf %m, %be : f32
      %z = arith.constant 0.0 : f32
      %r = arith.maximumf %a, %z : f32
      rlx.yield %r : f32
    }
    ```
  }];

  let arguments = (ins Variadic<RLX_Tensor>:$inputs,
                       OptionalAttr<I64Attr>:$prologue_input);
  let results = (outs RLX_Tensor:$result);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, $result)
    (`prologue_input` `=` $prologue_input^)? attr-dict `body` $body
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.transform_region
//===----------------------------------------------------------------------===//

def RLX_TransformRegionOp : RLX_IsolatedRegionOp<"transform_region"> {
  let summary = "fused geometry chain (RLX `TransformRegion`)";
  let description = [{
    A fused chain of geometry transforms (RLX `TransformStep`s, today
    `rlx.resize_nearest2x` on NCHW tensors) that a target may run as one
    kernel or decompose back into its ops.

    The body has one tensor block argument per input (the input types), its
    ops are geometry ops only (`rlx.resize_nearest2x`, `rlx.reshape`,
    `rlx.transpose`, `rlx.narrow`, `rlx.concat`, `rlx.expand`: data
    movement, no arithmetic), and it ends in `rlx.yield` of one tensor, the
    op's result type.

    Example:

    ```mlir
    %y = rlx.transform_region(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x3x32x32xf32> body {
    ^bb0(%a: tensor<1x3x8x8xf32>):
      %b = rlx.resize_nearest2x %a : tensor<1x3x8x8xf32>
      %c = rlx.resize_nearest2x %b : tensor<1x3x16x16xf32>
      rlx.yield %c : tensor<1x3x32x32xf32>
    }
    ```
  }];

  let arguments = (ins Variadic<RLX_Tensor>:$inputs);
  let results = (outs RLX_Tensor:$result);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, $result) attr-dict
    `body` $body
  }];
}

//===----------------------------------------------------------------------===//
// rlx.batch_elementwise_region
//===----------------------------------------------------------------------===//

def RLX_BatchElementwiseRegionOp
    : RLX_IsolatedRegionOp<"batch_elementwise_region"> {
  let summary = "one scalar chain applied to several inputs "
                "(RLX `BatchElementwiseRegion`)";
  let description = [{
    Horizontal fusion: the same scalar body applied independently to each of
    N batch inputs (N >= 1, RLX `num_batch_inputs`), producing N results.

    * Operands: N inputs of one identical tensor type.
    * Body: one block with one scalar block argument of the inputs' element
      type; side-effect-free `arith`, `math` and `complex` ops on scalars;
      `rlx.yield` of one scalar.
    * Results: N tensors, each of the inputs' shape with the yielded element
      type; result `i` is the body applied to every element of input `i`.

    Example:

    ```mlir
    %r:2 = rlx.batch_elementwise_region(%a, %b)
        : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) body {
    ^bb0(%e: f32):
      %n = math.tanh %e : f32
      rlx.yield %n : f32
    }
    ```
  }];

  let arguments = (ins Variadic<RLX_Tensor>:$inputs);
  let results = (outs Variadic<RLX_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, $results) attr-dict
    `body` $body
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// rlx.yield
//===----------------------------------------------------------------------===//

def RLX_YieldOp : RLX_Op<"yield", [
    Pure, Terminator,
    DeclareOpInterfaceMethods<RegionBranchTerminatorOpInterface,
                              ["getMutableSuccessorOperands"]>,
    ParentOneOf<["IfOp", "WhileOp", "ScanOp", "ScanBackwardOp",
                 "ScanBackwardXsOp", "CustomFnOp", "ElementwiseRegionOp",
                 "TransformRegionOp", "BatchElementwiseRegionOp"]>]> {
  let summary = "terminator of rlx op regions";
  let description = [{
    Returns values from the region of an rlx op (`rlx.if`, `rlx.while`,
    `rlx.scan`, `rlx.scan_backward`, `rlx.scan_backward_xs`, `rlx.custom_fn`,
    `rlx.elementwise_region`, `rlx.transform_region`,
    `rlx.batch_elementwise_region`) to the op. The enclosing op checks the
    number and types of the yielded values.

    The yielded values flow to the region's successor (the op results, or
    the next region of a loop). In the `cond` region of `rlx.while` the first
    value, the predicate, decides whether the loop continues; only the
    values after it are forwarded.

    Example:

    ```mlir
    rlx.yield %sum : f32
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // RLX_DIALECT_RLX_IR_RLXCONTROLFLOWOPS_TD
