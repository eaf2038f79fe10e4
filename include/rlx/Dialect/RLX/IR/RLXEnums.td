//===- RLXEnums.td - rlx enum attributes -------------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The RLX enums. C++ names carry a `Kind` suffix where the plain RLX name
// would collide with an op class (RLX `BinaryOp` is `BinaryKind` here because
// `rlx.binary` is `BinaryOp`). Payload-carrying RLX variants
// (`MaskKind::SlidingWindow(w)`, `ScaleMode::EMA { decay }`,
// `QuantScheme::Int8Block { block_size }`) keep their payload in a separate
// attribute of the op that uses them.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXENUMS_TD
#define RLX_DIALECT_RLX_IR_RLXENUMS_TD

include "rlx/Dialect/RLX/IR/RLXDialect.td"
include "mlir/IR/EnumAttr.td"

class RLX_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::rlx";
  let genSpecializedAttr = 0;
}

// Standalone form `#rlx.binary<add>`; ops print the kind as a bare keyword
// through `custom<EnumKeyword>`.
class RLX_EnumAttr<EnumInfo info, string mnemonic>
    : EnumAttr<RLX_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Activation
//===----------------------------------------------------------------------===//

def RLX_ActivationKind : RLX_I32Enum<"ActivationKind",
    "unary activation function (RLX `Activation`)", [
  I32EnumAttrCase<"Gelu", 0, "gelu">,
  I32EnumAttrCase<"GeluApprox", 1, "gelu_approx">,
  I32EnumAttrCase<"Silu", 2, "silu">,
  I32EnumAttrCase<"Relu", 3, "relu">,
  I32EnumAttrCase<"Sigmoid", 4, "sigmoid">,
  I32EnumAttrCase<"Tanh", 5, "tanh">,
  I32EnumAttrCase<"Exp", 6, "exp">,
  I32EnumAttrCase<"Log", 7, "log">,
  I32EnumAttrCase<"Sqrt", 8, "sqrt">,
  I32EnumAttrCase<"Rsqrt", 9, "rsqrt">,
  I32EnumAttrCase<"Neg", 10, "neg">,
  I32EnumAttrCase<"Abs", 11, "abs">,
  I32EnumAttrCase<"Sin", 12, "sin">,
  I32EnumAttrCase<"Cos", 13, "cos">,
  I32EnumAttrCase<"Tan", 14, "tan">,
  I32EnumAttrCase<"Atan", 15, "atan">,
  I32EnumAttrCase<"Round", 16, "round">,
  I32EnumAttrCase<"Floor", 17, "floor">,
  I32EnumAttrCase<"Ceil", 18, "ceil">,
  I32EnumAttrCase<"Trunc", 19, "trunc">
]> {
  let description = [{
    `gelu` is the exact erf form, `gelu_approx` the tanh form
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`. `round` rounds half to
    even; `floor`, `ceil` and `trunc` round down, up and toward zero, and
    have a zero derivative (PyTorch's). `relu`, `neg` and `abs` also apply
    to signed integers; every other kind needs a floating-point element
    type.
  }];
}
def RLX_ActivationKindAttr : RLX_EnumAttr<RLX_ActivationKind, "activation">;

//===----------------------------------------------------------------------===//
// Binary, compare, reduce
//===----------------------------------------------------------------------===//

def RLX_BinaryKind : RLX_I32Enum<"BinaryKind",
    "elementwise binary operation (RLX `BinaryOp`)", [
  I32EnumAttrCase<"Add", 0, "add">,
  I32EnumAttrCase<"Sub", 1, "sub">,
  I32EnumAttrCase<"Mul", 2, "mul">,
  I32EnumAttrCase<"Div", 3, "div">,
  I32EnumAttrCase<"Max", 4, "max">,
  I32EnumAttrCase<"Min", 5, "min">,
  I32EnumAttrCase<"Pow", 6, "pow">,
  I32EnumAttrCase<"FloorDiv", 7, "floor_div">,
  I32EnumAttrCase<"Remainder", 8, "remainder">,
  I32EnumAttrCase<"Fmod", 9, "fmod">
]> {
  let description = [{
    `div` of integers truncates toward zero. `floor_div` rounds the
    quotient down (Python's `//`, `torch.floor_divide`), `remainder` is
    `a - floor_div(a, b) * b` with the divisor's sign (Python's `%`,
    `torch.remainder`) and `fmod` the remainder of the truncated quotient
    with the dividend's sign (C's `fmod`, `torch.fmod`); on floats they
    follow PyTorch's kernels (`floor_div` from `fmod`, so that
    `floor_div(1, 0.1)` is 9). An integer division by zero gives 0 (every
    kind; PyTorch raises), and `INT_MIN / -1` wraps. `pow`, `floor_div`,
    `remainder` and `fmod` take no complex operands; `pow` takes floats
    only.
  }];
}
def RLX_BinaryKindAttr : RLX_EnumAttr<RLX_BinaryKind, "binary">;

def RLX_CompareKind : RLX_I32Enum<"CompareKind",
    "elementwise comparison (RLX `CmpOp`)", [
  I32EnumAttrCase<"Eq", 0, "eq">,
  I32EnumAttrCase<"Ne", 1, "ne">,
  I32EnumAttrCase<"Lt", 2, "lt">,
  I32EnumAttrCase<"Le", 3, "le">,
  I32EnumAttrCase<"Gt", 4, "gt">,
  I32EnumAttrCase<"Ge", 5, "ge">
]>;
def RLX_CompareKindAttr : RLX_EnumAttr<RLX_CompareKind, "compare">;

def RLX_ReduceKind : RLX_I32Enum<"ReduceKind",
    "reduction kind (RLX `ReduceOp`), also the pooling kind", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Mean", 1, "mean">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">,
  I32EnumAttrCase<"Prod", 4, "prod">
]>;
def RLX_ReduceKindAttr : RLX_EnumAttr<RLX_ReduceKind, "reduce">;

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def RLX_MaskKind : RLX_I32Enum<"MaskKind", "attention mask kind", [
  I32EnumAttrCase<"None", 0, "none">,
  I32EnumAttrCase<"Causal", 1, "causal">,
  I32EnumAttrCase<"SlidingWindow", 2, "sliding_window">,
  I32EnumAttrCase<"Custom", 3, "custom">,
  I32EnumAttrCase<"Bias", 4, "bias">
]> {
  let description = [{
    `causal`: key k is visible to query q iff `k <= q`. `sliding_window`:
    iff `q - w <= k <= q` (the op's `window` attribute is w). `custom`: a
    key-padding mask operand `[B, Sk]`, a key is valid iff its value is
    `>= 0.5`. `bias`: an additive operand `[B, H, Sq, Sk]` added to the
    scaled (and soft-capped) scores.
  }];
}
def RLX_MaskKindAttr : RLX_EnumAttr<RLX_MaskKind, "mask">;

def RLX_AttentionBwdWrt : RLX_I32Enum<"AttentionBwdWrt",
    "which attention input a backward op differentiates", [
  I32EnumAttrCase<"Query", 0, "query">,
  I32EnumAttrCase<"Key", 1, "key">,
  I32EnumAttrCase<"Value", 2, "value">
]>;
def RLX_AttentionBwdWrtAttr : RLX_EnumAttr<RLX_AttentionBwdWrt, "wrt">;

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def RLX_SteKind : RLX_I32Enum<"SteKind",
    "straight-through estimator of a fake-quantize backward pass", [
  I32EnumAttrCase<"Identity", 0, "identity">,
  I32EnumAttrCase<"ClippedIdentity", 1, "clipped_identity">,
  I32EnumAttrCase<"Tanh", 2, "tanh">,
  I32EnumAttrCase<"HardTanh", 3, "hard_tanh">
]>;
def RLX_SteKindAttr : RLX_EnumAttr<RLX_SteKind, "ste">;

def RLX_ScaleMode : RLX_I32Enum<"ScaleMode",
    "how fake quantization obtains its scale", [
  I32EnumAttrCase<"PerBatch", 0, "per_batch">,
  I32EnumAttrCase<"Ema", 1, "ema">,
  I32EnumAttrCase<"Fixed", 2, "fixed">
]> {
  let description = [{
    `per_batch`: from the current batch's max-abs. `ema`: from a state
    operand updated as `decay * state + (1 - decay) * max_abs` (the op's
    `ema_decay` attribute). `fixed`: the state operand as given.
  }];
}
def RLX_ScaleModeAttr : RLX_EnumAttr<RLX_ScaleMode, "scale_mode">;

def RLX_QuantScheme : RLX_I32Enum<"QuantScheme",
    "weight quantization scheme of quantized matmuls", [
  I32EnumAttrCase<"Int8Block", 0, "int8_block">,
  I32EnumAttrCase<"Int8BlockAsym", 1, "int8_block_asym">,
  I32EnumAttrCase<"Int4Block", 2, "int4_block">,
  I32EnumAttrCase<"Fp8E4M3", 3, "fp8_e4m3">,
  I32EnumAttrCase<"Fp8E5M2", 4, "fp8_e5m2">,
  I32EnumAttrCase<"Nvfp4Block", 5, "nvfp4_block">,
  I32EnumAttrCase<"GgufQ4_0", 6, "gguf_q4_0">,
  I32EnumAttrCase<"GgufQ4_1", 7, "gguf_q4_1">,
  I32EnumAttrCase<"GgufQ5_0", 8, "gguf_q5_0">,
  I32EnumAttrCase<"GgufQ5_1", 9, "gguf_q5_1">,
  I32EnumAttrCase<"GgufQ8_0", 10, "gguf_q8_0">,
  I32EnumAttrCase<"GgufQ2K", 11, "gguf_q2_k">,
  I32EnumAttrCase<"GgufQ3K", 12, "gguf_q3_k">,
  I32EnumAttrCase<"GgufQ4K", 13, "gguf_q4_k">,
  I32EnumAttrCase<"GgufQ5K", 14, "gguf_q5_k">,
  I32EnumAttrCase<"GgufQ6K", 15, "gguf_q6_k">,
  I32EnumAttrCase<"GgufQ8K", 16, "gguf_q8_k">,
  I32EnumAttrCase<"GgufIQ4NL", 17, "gguf_iq4_nl">,
  I32EnumAttrCase<"GgufIQ4XS", 18, "gguf_iq4_xs">,
  I32EnumAttrCase<"GgufIQ2XXS", 19, "gguf_iq2_xxs">,
  I32EnumAttrCase<"GgufIQ2XS", 20, "gguf_iq2_xs">,
  I32EnumAttrCase<"GgufIQ2S", 21, "gguf_iq2_s">,
  I32EnumAttrCase<"GgufIQ3XXS", 22, "gguf_iq3_xxs">,
  I32EnumAttrCase<"GgufIQ3S", 23, "gguf_iq3_s">,
  I32EnumAttrCase<"GgufIQ1S", 24, "gguf_iq1_s">,
  I32EnumAttrCase<"GgufIQ1M", 25, "gguf_iq1_m">,
  I32EnumAttrCase<"GgufTQ1_0", 26, "gguf_tq1_0">,
  I32EnumAttrCase<"GgufTQ2_0", 27, "gguf_tq2_0">,
  I32EnumAttrCase<"GgufMXFP4", 28, "gguf_mxfp4">,
  I32EnumAttrCase<"GgufNVFP4", 29, "gguf_nvfp4">
]> {
  let description = [{
    Block schemes carry their block size in the op's `block_size`
    attribute. `gguf_*` schemes take the weights as packed GGUF bytes, in
    the block layouts of ggml's tensor types of the same name
    (docs/quantization.md).
  }];
}
def RLX_QuantSchemeAttr : RLX_EnumAttr<RLX_QuantScheme, "quant_scheme">;

//===----------------------------------------------------------------------===//
// FFT
//===----------------------------------------------------------------------===//

def RLX_FftNorm : RLX_I32Enum<"FftNorm", "FFT normalisation", [
  I32EnumAttrCase<"Backward", 0, "backward">,
  I32EnumAttrCase<"Forward", 1, "forward">,
  I32EnumAttrCase<"Ortho", 2, "ortho">
]> {
  let description = [{
    RLX semantics, not NumPy's: `backward` leaves both directions
    unnormalised (`ifft(fft(x)) = N x`), `forward` scales the inverse by
    `1/N`, `ortho` scales both directions by `1/sqrt(N)`.
  }];
}
def RLX_FftNormAttr : RLX_EnumAttr<RLX_FftNorm, "fft_norm">;

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

def RLX_ResizeMode : RLX_I32Enum<"ResizeMode", "resize interpolation", [
  I32EnumAttrCase<"Nearest", 0, "nearest">,
  I32EnumAttrCase<"NearestExact", 1, "nearest_exact">,
  I32EnumAttrCase<"Linear", 2, "linear">,
  I32EnumAttrCase<"Cubic", 3, "cubic">
]> {
  let description = [{
    How `rlx.resize` reads the input, per resized dim (PyTorch's
    `F.interpolate` modes): `nearest` takes `floor(o * scale)`,
    `nearest_exact` takes `floor((o + 0.5) * scale)`, `linear` blends
    the two nearest input positions (bilinear / trilinear over several
    dims), and `cubic` the four nearest with Keys' cubic convolution
    weights, `A = -0.75` (bicubic).
  }];
}
def RLX_ResizeModeAttr : RLX_EnumAttr<RLX_ResizeMode, "resize_mode">;

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def RLX_CollectiveKind : RLX_I32Enum<"CollectiveKind",
    "how a collective combines the ranks' tensors", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Mean", 1, "mean">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">
]> {
  let description = [{
    The elementwise combination of `rlx.all_reduce`, `rlx.reduce_scatter`
    and `rlx.reduce_to_root` across the ranks of their group: `sum`,
    `mean` (the sum divided by the group size; floats only), `max`, `min`.
  }];
}
def RLX_CollectiveKindAttr : RLX_EnumAttr<RLX_CollectiveKind, "collective">;

// The ranks a collective runs over. Not an enum, but the dialect's only
// attribute beside them, so it is generated with them (RLXAttrs.h.inc).
def RLX_GroupAttr : AttrDef<RLX_Dialect, "Group"> {
  let mnemonic = "group";
  let summary = "the ranks of a collective: a mesh and the axes it spans";
  let description = [{
    The processes of a run form a mesh of static shape `mesh` (sizes >= 1;
    their product is the number of processes). World rank `r` sits at the
    mesh coordinates of `r` in row-major order. A group spans the mesh
    `axes` (strictly increasing, in `[0, rank(mesh))`): the ranks that share
    their coordinates on every other axis form one group, and a rank's
    index in its group is the row-major index of its coordinates on
    `axes`. The group size is the product of the mesh sizes on `axes`.

    `#rlx.group<[4]>` is the world of 4 processes; `#rlx.group<[2, 4],
    axes = [1]>` splits 8 processes into 2 groups of 4 (ranks 0-3 and
    4-7), as a tensor-parallel axis inside a data-parallel one; `axes`
    is omitted when it lists every axis. Ops print it as `mesh [2, 4]
    axes [1]`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t", "mesh shape">:$mesh,
                        ArrayRefParameter<"int64_t", "spanned mesh axes">:$axes);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of ranks in each group.
    int64_t getGroupSize() const;
    /// The group of every axis of `mesh`.
    static GroupAttr get(::mlir::MLIRContext *context,
                         ::llvm::ArrayRef<int64_t> mesh);
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXENUMS_TD
