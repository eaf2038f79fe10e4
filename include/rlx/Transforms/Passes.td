//===- Passes.td - rlx graph transformations ---------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TRANSFORMS_PASSES_TD
#define RLX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RLXUnfuse : Pass<"rlx-unfuse", "ModuleOp"> {
  let summary = "Decompose composite rlx ops into primitives, per target";
  let description = [{
    Rewrites composite ops into the primitive rlx ops they are defined by.
    Which decompositions run is a per-target policy (a table in
    `UnfusePolicy.cpp`, listed by `docs/passes.md`):

    | target | decomposes | keeps native |
    |--------|------------|--------------|
    | `cpu` | every fused op, `lora_matmul`, `dot_general`, `custom_fn`, `transform_region` | rank-3 attention, `elementwise_region`, `batch_elementwise_region`, `if`, `while` (lowered directly, to scf) |
    | `cuda` | `fused_swiglu`, `lora_matmul`, `fused_attention_block`, `fused_transformer_layer`, `dot_general`, rank-3 `attention` (to rank 4), `if`, bounded `while`, `custom_fn`, `transform_region` | `fused_matmul_bias_act`, `fused_residual_ln`, `fused_residual_rms_norm`, rank-4 attention, `elementwise_region`, `batch_elementwise_region` |
    | `autodiff` | every fused op, `lora_matmul`, `dot_general`, rank-3 `attention`, the three region ops | `if`, `while` and `custom_fn` (differentiated as such) |
    | `all` | everything above | nothing |

    Control flow and regions: `rlx.if` runs both branches and selects each
    result with `rlx.where` (an eager select; an `if` whose branches have
    side effects stays, one without results and effects is erased).
    `rlx.while` with `max_iterations = n` (n <= 4096) becomes n copies of
    cond + body that update each carried value with `where(running, body,
    carried)`, `running` being the i1 conjunction of the predicates so far;
    the body always runs n times. A `while` without `max_iterations` stays.
    `custom_fn` becomes its forward body (its derivative rules are dropped)
    and `transform_region` its geometry chain. The body of
    `elementwise_region` / `batch_elementwise_region` (rlx ops on rank-0
    tensors) is inlined: each body op is re-created on the full-size
    operands, which broadcast as the region's inputs do (a prologue input
    through an explicit `resize_nearest2x`).

    Backward kernel ops become the primitive form of their forward op's
    derivative, recomputing norm statistics, softmax probabilities and
    window maxima from the forward operands (`all` decomposes every family;
    `cpu` all but `softmax_cross_entropy_backward`, which it lowers
    directly; `cuda` keeps the families it has kernels for; `autodiff`
    keeps them all, since they are what it emits):

    | backward op | primitive form | cuda |
    |-------------|----------------|------|
    | `relu_backward`, `activation_backward` | compare/where, closed-form `f'(x) * dy` per kind (gelu's `Phi` as `gelu(x) / x`), round passes `dy` | yes |
    | `layer_norm_backward_*`, `group_norm_backward_*` | keep-dim mean/var over the axis (groups via `[N, G, C/G*H*W]`), `inv_std (g - mean g - xhat mean(g xhat))`, sums for the parameters | yes |
    | `rms_norm_backward_*` | `r (g - x r^2 mean(g x))`, sums for gamma/beta | native |
    | `batch_norm_inference_backward_*` | `dy gamma rsqrt(var + eps)`, sums over the leading axes | yes |
    | `rope_backward` | `rope` with negated `sin` | native |
    | `cumsum_backward` | gather-reverse, `cumsum` (same exclusivity), gather-reverse | native |
    | `gather_backward` | transpose/reshape to rows, `scatter_add`, back | native |
    | `softmax_cross_entropy_backward` | `(softmax - onehot(labels)) * d_loss` | yes |
    | `complex_norm_sq_backward` | `cast(g) * z` | yes |
    | `attention_backward` | recomputed probabilities (scale, soft cap, every mask), `p^T dy` / `dS k` / `dS^T q` | native |
    | `conv2d_backward_input` / `_weight` | `conv_transpose2d` with the forward weight / grouped `im2col` matmul | yes |
    | `max_pool2d_backward` | `im2col` windows, first maximum's tap gets `dy`, col2im as `conv_transpose2d` | native |

    Every decomposition preserves the composite op's semantics exactly
    (attention keeps `score_scale`, softcap, window and its mask; broadcasts
    keep their dtype) and gives the new ops a fused location naming the
    composite op. A composite op whose shapes a decomposition cannot express
    (for instance a dynamic sequence length where heads are split, or the
    dynamic extents a backward op's reshapes, reversal index or masks need)
    is left in place.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"all\"",
           "Target whose policy to apply: cpu, cuda, autodiff or all">,
  ];
}

def RLXFuse : Pass<"rlx-fuse", "func::FuncOp"> {
  let summary = "Fuse chains of primitive rlx ops into fused ops";
  let description = [{
    Greedy rewrite patterns, each selectable by an option (all on by
    default), matched by dataflow (never by position). Each checks what
    makes the rewrite valid: the intermediates it swallows have one use,
    shapes of bias/gamma/beta, axes, element types.

    | option | rewrite |
    |--------|---------|
    | `matmul-bias-act` | `matmul` + `add` of a `[N]` bias (+ `activation`) -> `rlx.fused_matmul_bias_act` |
    | `residual-norm` | `add(x, residual)` (+ `add` of a `[D]` bias) + `layer_norm` / `rms_norm` over the last axis -> `rlx.fused_residual_ln` / `rlx.fused_residual_rms_norm` |
    | `lora` | `x @ W + (x @ A) @ B * s` (splat constant `s`) -> `rlx.lora_matmul` |
    | `swiglu` | `mul(silu(gate), up)` (either operand order) -> `rlx.fused_swiglu`, where up / gate are the halves `[0, H)` / `[H, 2H)` of one value's static last axis `2H` (swapped: `gate_first`), or `x @ Wu` / `x @ Wg` with `[K, H]` weights of one type (then one GEMM `x @ concat(Wu, Wg)` of width `2H` feeds the op); a `cast` of the result to a float type the op takes becomes `cast_to`. Runs before `matmul-bias-act`, which would otherwise take the projections |
    | `attention-block` | QKV projection (`matmul` (+ `add` bias)) -> three `narrow`s cutting q, k, v thirds of the last axis -> heads `reshape` [B, S, H, D] + `transpose` [0, 2, 1, 3] (or none, for rank-3 attention) -> `rope` on q and k alike (same tables, all `head_dim` dims) or neither -> `attention` -> merge `transpose` + `reshape` -> output projection (+ bias) -> `rlx.fused_attention_block`; mask kind, mask (an `i1` mask under a `cast` is taken as is), `window` and `score_scale` carry over; both projection biases or neither; no logit soft cap (runs first, before `matmul-bias-act` takes the projections) |
    | `transformer-layer` | `fused_attention_block` (no rope, mask kind `none` or `custom`, default score scale) + `fused_residual_ln` with the layer input + FFN (`fused_matmul_bias_act` with activation, or `matmul` (+ bias) + `activation`; then `matmul` (+ bias)) + `fused_residual_ln` with the first norm's output -> `rlx.fused_transformer_layer` with both eps; all four projection biases or none; zero-constant norm shifts are dropped. Matches the fused ops the earlier patterns produce, so it needs `attention-block` and `residual-norm` |
    | `elementwise-region` | maximal chains of `activation`, `binary`, `compare`, `where`, `cast` (with broadcasting inputs; splat constants become rank-0 `rlx.constant`s of the body) -> one `rlx.elementwise_region` whose body holds the chain's ops cloned on rank-0 tensors; a producer joins only if its one use is in the chain and it has the result's shape, so no work is duplicated (runs after the other patterns) |

    With `report=true` every near miss (a candidate that fails one check)
    emits a remark at the op saying why it was not fused.
  }];
  let options = [
    Option<"matmulBiasAct", "matmul-bias-act", "bool", /*default=*/"true",
           "Fuse matmul + bias (+ activation)">,
    Option<"residualNorm", "residual-norm", "bool", /*default=*/"true",
           "Fuse residual add (+ bias) + layer_norm / rms_norm">,
    Option<"lora", "lora", "bool", /*default=*/"true",
           "Fuse LoRA matmuls">,
    Option<"swiglu", "swiglu", "bool", /*default=*/"true",
           "Fuse SwiGLU (narrow-split and dual-matmul forms)">,
    Option<"attentionBlock", "attention-block", "bool", /*default=*/"true",
           "Fuse the QKV-projection .. out-projection attention chain">,
    Option<"transformerLayer", "transformer-layer", "bool",
           /*default=*/"true", "Fuse whole post-LN encoder layers">,
    Option<"elementwiseRegion", "elementwise-region", "bool",
           /*default=*/"true",
           "Fuse chains of elementwise ops into rlx.elementwise_region">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for each near miss saying why it did not fuse">,
  ];
}

def RLXPropagateTransposes : Pass<"rlx-propagate-transposes", "func::FuncOp"> {
  let summary = "Move rlx.transpose ops below elementwise ops and reductions "
                "so that pairs of them cancel";
  let description = [{
    A layout choice made for one op (a convolution run channels-last, whose
    input is transposed to NHWC and whose result is transposed back to
    NCHW) puts a pair of transposes between every two such ops. This pass
    moves each transpose past the ops that follow it, which then compute in
    the transposed layout, until it meets the next op's inverse transpose
    and the pair folds away (`rlx.transpose`'s folder composes
    permutations). Between two convolutions of a CNN, the batch norm's
    arithmetic, the activation and the residual add then read and write
    NHWC, and only the graph's edges transpose.

    An op `f(T(x), ...)` becomes `T(f(x, ...))` when it is:
    - elementwise (`rlx.activation`, `rlx.cast`, `rlx.binary`,
      `rlx.compare`, `rlx.where`), and every other operand is either a
      transpose with the same permutation or a smaller, broadcast operand
      (a per-channel scale `[C, 1, 1]`): that one is brought to the result's
      rank and transposed the other way, which costs a few elements. A
      full-size operand that is not transposed is taken when the graph
      already transposes it the other way before the op (a residual
      shortcut that the next convolution reads in NHWC), and that value is
      used; otherwise it stops the move, as moving would only trade one
      full-size transpose for another. Of a permutation and its inverse,
      only the lexicographically greater one's transposes take such an
      operand (NHWC to NCHW, `[0, 3, 1, 2]`), so that no move undoes
      another;
    - `rlx.reduce`: the axes are mapped through the permutation, and the
      result is transposed back only where the kept dims change order (the
      `mean` over H and W of an NHWC tensor is already `[N, C]`).

    A transpose with several users moves into each of them; the original
    stays while any user does not take it. Nothing else changes, so the
    results are bit for bit those of the graph before (each element is
    computed by the same scalar operations from the same values).

    Before:
    ```mlir
    %t = rlx.transpose %y perm = [0, 3, 1, 2] : tensor<1x8x8x4xf32>
    %b = rlx.binary add %t, %bias : tensor<1x4x8x8xf32>, tensor<4x1x1xf32>
    %r = rlx.activation relu %b : tensor<1x4x8x8xf32>
    %n = rlx.transpose %r perm = [0, 2, 3, 1] : tensor<1x4x8x8xf32>
    ```
    After: `%n` is `relu(%y + transpose(reshape(%bias, [1, 4, 1, 1]),
    [0, 2, 3, 1]))`, computed in `[1, 8, 8, 4]`; no transpose of a
    full-size tensor is left.
  }];
}

def RLXTagOpLocations : Pass<"rlx-tag-op-locations"> {
  let summary = "Name each rlx op's location after the op";
  let description = [{
    Wraps the location of every `rlx` op in a `NameLoc` carrying the op
    name (`"rlx.matmul"(loc)`). Lowerings, decompositions and fusions keep
    locations, so whatever an op becomes still says which op it came from:
    `rlx-cpu-profile` labels its timers with these names.
  }];
}

def RLXAutodiff : Pass<"rlx-autodiff", "ModuleOp"> {
  let summary = "Reverse-mode differentiation: add `@f_grad` (and a training step)";
  let description = [{
    For the function `@f` named by `func`, whose **first result is the
    loss**, adds `@f_grad` beside it (`@f` itself stays):

    - arguments: `@f`'s, plus, when the loss has more than one element, a
      last argument `{rlx.input = "d_loss"}` of the loss's type, the
      cotangent that seeds the sweep (a one-element loss is seeded with 1);
    - results: `[@f's results..., d loss / d wrt_1, ..., d loss / d wrt_n]`,
      the gradients in `wrt` order, each of its argument's own type.

    `wrt` lists `rlx.input` / `rlx.param` names; by default every
    `rlx.param` argument. A `wrt` argument no gradient reaches is an error
    naming it, unless `zero-missing=true`, which returns zeros of its own
    type (an f64 argument gets f64 zeros).

    How: a copy of `@f` is first decomposed with the `autodiff` policy of
    `rlx-unfuse` (fused ops, `dot_general`, rank-3 attention and the region
    ops become primitives). Then each op on a path from a `wrt` argument to
    the loss, in reverse order, emits its vector-Jacobian product through
    `DifferentiableOpInterface` (the rules, one file per op family, are in
    `lib/Dialect/RLX/Autodiff/`; see `docs/autodiff.md`). The backward sweep
    reads the forward values of `@f_grad`'s own forward part; nothing is
    recomputed, unless `remat=elementwise`: then each backward op reads its
    own copy of every elementwise, normalization or data-movement value
    that at most one forward op reads and that is not returned, recomputed
    right before it from the values the forward part keeps (arguments,
    matmul and reduction results, values several forward ops read), marked
    `{rlx.remat}` so the lowering's CSE keeps it apart. Gradients of a value used several times are added; a
    broadcast operand's gradient is summed back to its shape; integer and
    boolean values carry no gradient. An op on such a path without a rule
    is an error naming the op at its location; nothing is emitted then.

    The result is a function like any other: `rlx-jvp` applied to
    `@f_grad` gives Hessian-vector products, wherever the backward ops it
    contains have rules of their own.

    **Training step.** With `optimizer=sgd` or `optimizer=adam` (and a
    one-element loss) the pass also adds `@f_train_step`, `@f_grad` followed
    by one update of every `wrt` parameter, returning `[loss, updated
    parameters..., updated optimizer state...]`, each update carrying the
    result attribute `{rlx.param = "<name>"}` of the argument it replaces,
    so a runner feeds it back by name. Hyperparameters outside the ranges
    PyTorch's optimizers accept (`lr`, `momentum` and `eps` finite and
    `>= 0`, `beta1` and `beta2` in `[0, 1)`) are an error naming the option.
    The optimizer state is extra
    `rlx.param` arguments, zeros at the start, with PyTorch's update rules
    (no weight decay):

    | optimizer | state arguments | update |
    |-----------|-----------------|--------|
    | `sgd` | none | `w -= lr g` |
    | `sgd` with `momentum` m | `<name>.momentum` | `buf = m buf + g`, `w -= lr buf` |
    | `adam` | `adam.step` (rank 0), `<name>.adam_m`, `<name>.adam_v` | `t += 1`, `m = b1 m + (1 - b1) g`, `v = b2 v + (1 - b2) g^2`, `w -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)` |

    **Data parallel.** With `data-parallel=N` the training step is the
    per-rank program of N ranks (`mpirun -np N rlx-run --data-parallel`,
    docs/distributed.md) that each hold a slice of the batch: `@f`'s batch
    inputs have the per-rank batch size. Between the gradients and the
    update, `@f_train_step` combines each gradient over the ranks with
    `rlx.all_reduce` over `mesh [N]` (`gradient-reduction=mean`, for a loss
    that is a mean over the batch: the mean of the ranks' gradients is the
    gradient of the whole batch; `sum` for a loss that is a sum over it),
    so every rank applies the same update, and returns the loss combined
    the same way (the loss of the whole batch). Gradients of one element
    type are flattened into buckets of at most `bucket-mb` MiB, in the
    order the backward pass computes them, one all-reduce each, placed
    right after the bucket's last gradient so that the rest of the
    backward pass can run while it is in flight (a larger gradient is a
    bucket of its own; `bucket-mb=0`: one all-reduce per gradient); f16
    and bf16 buckets are reduced in f32, or in their own type with
    `gradient-precision=native` (the CUDA target's NCCL takes them, the
    CPU's MPI does not). `@f_grad` keeps the rank's own gradients.
  }];
  let options = [
    Option<"func", "func", "std::string", /*default=*/"\"\"",
           "Function to differentiate (default: the module's only function)">,
    ListOption<"wrt", "wrt", "std::string",
               "rlx.input / rlx.param names to differentiate with respect to "
               "(default: every rlx.param argument)">,
    Option<"zeroMissing", "zero-missing", "bool", /*default=*/"false",
           "Return zeros for a wrt argument no gradient reaches instead of "
           "failing">,
    Option<"remat", "remat", "std::string", /*default=*/"\"none\"",
           "Rematerialisation policy: none (keep every forward value the "
           "backward sweep reads) or elementwise (recompute elementwise, "
           "normalization and data-movement values that one forward op "
           "reads right before each backward op that reads them)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"none\"",
           "Training step to add as @f_train_step: none, sgd or adam">,
    Option<"lr", "lr", "double", /*default=*/"0.01",
           "Learning rate of the training step (finite, >= 0)">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum (finite, >= 0)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "Adam's first-moment decay (in [0, 1))">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "Adam's second-moment decay (in [0, 1))">,
    Option<"eps", "eps", "double", /*default=*/"1e-8",
           "Adam's denominator epsilon (finite, >= 0)">,
    Option<"dataParallel", "data-parallel", "int64_t", /*default=*/"0",
           "Number of data-parallel ranks: the training step all-reduces "
           "its gradients and loss over mesh [N] (0: a single-rank step)">,
    Option<"gradientReduction", "gradient-reduction", "std::string",
           /*default=*/"\"mean\"",
           "With data-parallel: how the ranks' gradients and losses combine, "
           "mean (a loss that is a mean over the batch) or sum (a sum over "
           "the batch)">,
    Option<"bucketMb", "bucket-mb", "double", /*default=*/"25",
           "With data-parallel: the most MiB of gradients one all-reduce "
           "carries (0: one all-reduce per gradient)">,
    Option<"gradientPrecision", "gradient-precision", "std::string",
           /*default=*/"\"f32\"",
           "With data-parallel: the type f16 and bf16 gradients and losses "
           "are all-reduced in, f32 (every backend; MPI has no 16-bit "
           "float) or native (their own type, half the bytes; NCCL)">,
  ];
}

def RLXJvp : Pass<"rlx-jvp", "ModuleOp"> {
  let summary = "Forward-mode differentiation: add `@f_jvp`";
  let description = [{
    For the function `@f` named by `func`, adds `@f_jvp` (`@f` stays),
    taking `@f`'s arguments plus one tangent per `wrt` argument, in `wrt`
    order (`{rlx.input = "t_<name>"}`, of the argument's type), and
    returning `[@f's results..., the tangent of each result]`. A result no
    tangent reaches gets zeros of its type.

    `wrt` lists `rlx.input` / `rlx.param` names (default: every
    `rlx.param` argument). Like `rlx-autodiff`, it first decomposes a copy
    of `@f` with the `autodiff` unfuse policy, then walks the ops in order
    and emits each one's Jacobian-vector product through
    `DifferentiableOpInterface`, reusing the forward values. An op a
    tangent reaches without a forward-mode rule is an error naming it.
    Applied to `@f_grad` it gives Hessian-vector products.
  }];
  let options = [
    Option<"func", "func", "std::string", /*default=*/"\"\"",
           "Function to differentiate (default: the module's only function)">,
    ListOption<"wrt", "wrt", "std::string",
               "rlx.input / rlx.param names with a tangent (default: every "
               "rlx.param argument)">,
  ];
}

def RLXShardPartition : Pass<"rlx-shard-partition", "ModuleOp"> {
  let summary = "Partition a sharded rlx graph into the per-rank program";
  let description = [{
    A function with a mesh (`attributes {rlx.mesh = [2]}`, the sizes of
    its axes) and per-argument splits (`{rlx.split = [[], [0]]}`: for each
    tensor dim, the mesh axes it is split over, in order; an argument or
    result without one is replicated) becomes the program each rank runs,
    taking and returning its local shards:

    1. the annotations become the `shard` dialect's: a `shard.grid`, and a
       `shard.shard` of every tensor argument, constant and returned value;
    2. upstream `sharding-propagation` gives every op a sharding through
       `ShardingInterface`, whose models on rlx ops (elementwise ops,
       `rlx.matmul`, `rlx.reduce`, `rlx.softmax`, `rlx.layer_norm`,
       `rlx.transpose`)
       describe each op as a loop nest with indexing maps;
    3. upstream `shard-partition` clones each op on its local shards and
       reshards between ops; an op whose reduction loop is split (a
       row-split matmul) gets an `rlx.all_reduce` of its partial result;
    4. the `shard` collectives that resharding made become rlx collectives
       over `#rlx.group`s of the mesh (`all_gather`, `all_to_all`,
       `all_reduce`; `all_slice` of a replicated value is a
       `rlx.reduce_scatter max`, every rank's copy being the same), and
       the annotations are dropped.

    The column-split then row-split MLP of Megatron-LM (`w1` split
    `[[], [0]]`, its bias `[[0]]`, `w2` `[[0], []]`) partitions into local
    matmuls and one `all_reduce sum` before the second bias.

    Errors name the op: an op with no sharding model (propagation needs
    one for every op), a split dim that the mesh axes do not divide, a
    split normalised axis (softmax, layer norm) or `prod` reduction, a
    split broadcast dim of size 1. docs/distributed.md ("Sharding and
    tensor parallelism") says what is supported.
  }];
  let dependentDialects = ["rlx::RLXDialect", "shard::ShardDialect",
                           "tensor::TensorDialect"];
}

#endif // RLX_TRANSFORMS_PASSES_TD
