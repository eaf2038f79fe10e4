"""GGUF parameter files through rlx-run --params.

The files are written here from the published GGUF v3 layout (not with the
gguf package): u32 magic "GGUF", u32 version, u64 tensor count, u64
metadata count, the metadata (u64-length strings, u32 value types, arrays
of a u32 element type and a u64 count, nesting), the tensor infos (name,
u32 n_dims, u64 dims innermost first, u32 ggml type, u64 offset into the
data section), padding to general.alignment, the data.

- Plain tensors of every dtype rlx reads (f32 f16 bf16 f64 i8 i16 i32 i64)
  come back exactly, with GGUF's dims reversed: a tensor of dims [5, 3]
  binds to a [3, 5] parameter. bf16 is compared through a cast to f32.
- Q8_0 and Q4_0 weights bind as packed bytes to rlx.dequant_matmul and give
  x @ W within 1e-5 * (|x| @ |W|) of a float64 NumPy product of the weights
  a NumPy dequantizer written here from docs/quantization.md decodes; a
  Q8_0 expert stack of dims [K, N, E] decodes through
  rlx.dequant_moe_weights to exactly those weights.
- Metadata of every value type, nested arrays and a non-default alignment
  are accepted; malformed files (truncated, bad magic or version, huge
  counts and lengths, offsets out of range, misaligned, overlapping) and
  mismatches between a file's tensor and the graph are each one
  `rlx-run: error:` line naming the file (and the tensor) with exit code 1.
"""

import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
import ggml_ref  # noqa: E402
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
rng = check.rng
F32 = np.float32

# GGML type codes and value types of the format.
GGML = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 8, "iq2_xxs": 16,
        "iq2_xs": 17, "iq3_xxs": 18, "iq1_s": 19, "iq4_nl": 20, "iq3_s": 21,
        "iq2_s": 22, "iq4_xs": 23, "i8": 24, "i16": 25, "i32": 26, "i64": 27,
        "f64": 28, "iq1_m": 29, "bf16": 30, "tq1_0": 34, "tq2_0": 35,
        "mxfp4": 39, "nvfp4": 40}
U8, I8, U16, I16, U32, I32, F32T, BOOL, STRING, ARRAY, U64, I64, F64 = \
    range(13)
FIXED = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i",
         F32T: "<f", BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}


def gguf_string(text):
    raw = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(raw)) + raw


def gguf_value(vtype, value):
    """The bytes of a metadata value; an ARRAY value is (element type,
    [values])."""
    if vtype in FIXED:
        return struct.pack(FIXED[vtype], value)
    if vtype == STRING:
        return gguf_string(value)
    elem, items = value
    return (struct.pack("<IQ", elem, len(items)) +
            b"".join(gguf_value(elem, item) for item in items))


def gguf_file(tensors, metadata=(), alignment=None, version=3):
    """The bytes of a GGUF file. `tensors`: (name, type name, dims in GGUF
    order, raw bytes) in data order; `metadata`: (key, type, value)."""
    align = alignment or 32
    kv = list(metadata)
    if alignment:
        kv.append(("general.alignment", U32, alignment))
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kv))
    for key, vtype, value in kv:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(
            vtype, value)
    offset, data = 0, b""
    for name, type_name, dims, raw in tensors:
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", GGML[type_name], offset)
        pad = b"\0" * (-len(raw) % align)
        data += raw + pad
        offset += len(raw) + len(pad)
    out += b"\0" * (-len(out) % align)
    return out + data


def write(name, data):
    path = os.path.join(check.workdir, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def rlx_run(mlir, args, graph_name="graph.mlir"):
    path = write(graph_name, mlir.encode())
    return subprocess.run([check.rlx_run, path] + args, capture_output=True,
                          text=True)


def expect_error(what, mlir, args, *needles):
    """rlx-run fails with one error line holding every needle."""
    check.failed_with(what, rlx_run(mlir, args), needles)


def f16_bits(values):
    return np.asarray(values, np.float16).view(np.uint16)


# Every value type once, arrays of each, an array of strings, arrays of
# arrays (three deep) and an empty array.
EVERY_VALUE_TYPE = [
    ("general.architecture", STRING, "rlx-test"),
    ("t.u8", U8, 200), ("t.i8", I8, -100), ("t.u16", U16, 60000),
    ("t.i16", I16, -30000), ("t.u32", U32, 4000000000),
    ("t.i32", I32, -2000000000), ("t.f32", F32T, 1.5), ("t.bool", BOOL, True),
    ("t.u64", U64, 1 << 60), ("t.i64", I64, -(1 << 60)), ("t.f64", F64, 2.25),
    ("t.string.empty", STRING, ""),
    ("t.array.u8", ARRAY, (U8, [1, 2, 3])),
    ("t.array.f64", ARRAY, (F64, [0.5, -1.0])),
    ("t.array.bool", ARRAY, (BOOL, [True, False])),
    ("t.array.string", ARRAY, (STRING, ["a", "bc", ""])),
    ("t.array.empty", ARRAY, (I32, [])),
    ("t.array.nested", ARRAY, (ARRAY, [(U16, [1, 2]), (STRING, ["x"])])),
    ("t.array.deep", ARRAY, (ARRAY, [(ARRAY, [(I64, [7])])])),
] + [(f"t.array.{t}", ARRAY, (t, [1, 0])) for t in
     (I8, U16, I16, U32, I32, U64, I64)] + [("t.array.f32", ARRAY,
                                             (F32T, [3.0]))]

# --- Plain tensors: every dtype, dims reversed ----------------------------

PLAIN = [("a_f32", "f32", np.float32), ("a_f16", "f16", np.float16),
         ("a_f64", "f64", np.float64), ("a_i8", "i8", np.int8),
         ("a_i16", "i16", np.int16), ("a_i32", "i32", np.int32),
         ("a_i64", "i64", np.int64)]
arrays = {}
for name, _, dtype in PLAIN:
    if np.dtype(dtype).kind == "f":
        arrays[name] = check.uniform((3, 5), dtype, -4, 4)
    else:
        arrays[name] = check.integers((3, 5), dtype, -100, 100)
# bf16: the upper halves of random f32s, so f32(bf16) is exact.
bf16_f32 = (check.uniform((2, 4), F32).view(np.uint32) &
            np.uint32(0xFFFF0000)).view(F32)
bf16_bits = (bf16_f32.view(np.uint32) >> 16).astype(np.uint16)
# A rank-3 f32 tensor: dims [4, 3, 2] in the file are the row-major [2, 3, 4].
rank3 = check.uniform((2, 3, 4), F32)

tensors = [(name, t, list(arrays[name].shape[::-1]), arrays[name].tobytes())
           for name, t, _ in PLAIN]
tensors.append(("a_bf16", "bf16", [4, 2], bf16_bits.tobytes()))
tensors.append(("a_rank3", "f32", [4, 3, 2], rank3.tobytes()))
tensors.append(("unused", "f32", [7], np.zeros(7, F32).tobytes()))
plain_path = write("plain.gguf", gguf_file(tensors, EVERY_VALUE_TYPE,
                                           alignment=64))

args = [f"%{n}: {tensor_type(arrays[n].shape, arrays[n].dtype)} "
        f"{{rlx.param = \"{n}\"}}" for n, _, _ in PLAIN]
args += ["%a_bf16: tensor<2x4xbf16> {rlx.param = \"a_bf16\"}",
         "%a_rank3: tensor<2x3x4xf32> {rlx.param = \"a_rank3\"}"]
results = [tensor_type(arrays[n].shape, arrays[n].dtype) for n, _, _ in PLAIN]
results += ["tensor<2x4xf32>", "tensor<2x3x4xf32>"]
PLAIN_MLIR = (
    f"func.func @plain({', '.join(args)}) -> ({', '.join(results)}) {{\n"
    "  %b = rlx.cast %a_bf16 : tensor<2x4xbf16> to f32\n"
    f"  return {', '.join('%' + n for n, _, _ in PLAIN)}, %b, %a_rank3 : "
    f"{', '.join(results)}\n}}\n")
out_path = os.path.join(check.workdir, "plain-out")
proc = rlx_run(PLAIN_MLIR, ["--params", plain_path, "--output", out_path])
if check.succeeded("plain tensors", proc):
    outs = {f"output_{i}": np.load(os.path.join(out_path, f"output_{i}.npy"))
            for i in range(len(PLAIN) + 2)}
    for i, (name, _, _) in enumerate(PLAIN):
        check.close(f"GGUF {name} {list(arrays[name].shape[::-1])} -> "
                    f"{list(arrays[name].shape)}", outs[f"output_{i}"],
                    arrays[name], 0, 0)
    check.close("GGUF bf16 [4, 2] through a cast to f32",
                outs[f"output_{len(PLAIN)}"], bf16_f32, 0, 0)
    check.close("GGUF f32 dims [4, 3, 2] -> [2, 3, 4]",
                outs[f"output_{len(PLAIN) + 1}"], rank3, 0, 0)

# One tensor of a GGUF file through --input NAME=FILE.gguf:TENSOR.
one = rlx_run(
    "func.func @one(%x: tensor<3x5xf32> {rlx.input = \"x\"}) -> "
    "tensor<3x5xf32> {\n  return %x : tensor<3x5xf32>\n}\n",
    ["--input", f"x={plain_path}:a_f32", "--output",
     os.path.join(check.workdir, "one")])
if check.succeeded("--input FILE.gguf:TENSOR", one):
    check.close("--input x=FILE.gguf:a_f32", np.load(os.path.join(
        check.workdir, "one", "output_0.npy")), arrays["a_f32"], 0, 0)

# --- Q8_0 and Q4_0 weights through rlx.dequant_matmul ---------------------


def quant_blocks(scheme, n, k):
    """Random blocks of N rows of K elements: (bytes, W [K, N] f64)."""
    blocks = n * k // 32
    d = f16_bits(rng.uniform(-0.05, 0.05, blocks))
    if scheme == "q8_0":
        qs = rng.integers(-128, 128, (blocks, 32)).astype(np.int8)
        raw = np.concatenate([d.view(np.uint8).reshape(blocks, 2),
                              qs.view(np.uint8)], axis=1)
    else:
        qs = rng.integers(0, 256, (blocks, 16)).astype(np.uint8)
        raw = np.concatenate([d.view(np.uint8).reshape(blocks, 2), qs],
                             axis=1)
    return raw.tobytes(), dequantize(scheme, raw, n, k)


def dequantize(scheme, raw, n, k):
    """docs/quantization.md: q8_0 W = f32(q) * d; q4_0 W = f32(q - 8) * d
    with element j in byte j % 16, the low nibble for j < 16."""
    d = raw[:, :2].copy().view(np.float16).astype(F32)[:, 0]
    if scheme == "q8_0":
        q = raw[:, 2:].view(np.int8).astype(F32)
    else:
        qs = raw[:, 2:]
        q = np.concatenate([qs & 15, qs >> 4], axis=1).astype(F32) - 8
    w = (q * d[:, None]).astype(F32)  # one f32 product, as the lowering
    return w.reshape(n, k).T.astype(np.float64)  # rows of K are columns


for scheme, m, k, n in [("q8_0", 3, 64, 5), ("q8_0", 1, 96, 8),
                        ("q4_0", 4, 64, 6), ("q4_0", 2, 128, 3)]:
    raw, w = quant_blocks(scheme, n, k)
    bias = check.uniform((n,), F32)
    x = check.uniform((m, k), F32)
    path = write(f"{scheme}-{k}x{n}.gguf", gguf_file(
        [("blk.0.w", scheme, [k, n], raw),
         ("blk.0.b", "f32", [n], bias.tobytes())],
        [("general.architecture", STRING, "rlx-test")]))
    xt, ot = tensor_type((m, k), F32), tensor_type((m, n), F32)
    wt = f"tensor<{len(raw)}xui8>"
    mlir = (f"func.func @q(%x: {xt} {{rlx.input = \"x\"}}, "
            f"%w: {wt} {{rlx.param = \"blk.0.w\"}}, "
            f"%b: tensor<{n}xf32> {{rlx.param = \"blk.0.b\"}}) -> {ot} {{\n"
            f"  %0 = rlx.dequant_matmul gguf_{scheme} %x, %w : {xt}, {wt}\n"
            f"  %1 = rlx.binary add %0, %b : {ot}, tensor<{n}xf32>\n"
            f"  return %1 : {ot}\n}}\n")
    xpath = os.path.join(check.workdir, f"x-{scheme}-{k}.npy")
    np.save(xpath, x)
    outdir = os.path.join(check.workdir, f"out-{scheme}-{k}")
    proc = rlx_run(mlir, ["--params", path, "--input", f"x={xpath}",
                          "--output", outdir])
    if not check.succeeded(scheme, proc):
        continue
    got = np.load(os.path.join(outdir, "output_0.npy"))
    want = x.astype(np.float64) @ w + bias
    scale = np.abs(x.astype(np.float64)) @ np.abs(w) + np.abs(bias)
    # The error in units of the f32 rounding bound: at most 1.
    err = np.abs(got - want) / (1e-5 * scale + 1e-30)
    check.close(f"GGUF {scheme} [{k}, {n}] dequant_matmul M={m} (error / "
                "1e-5 (|x| @ |W| + |b|))", err.astype(F32),
                np.zeros_like(err, F32), 0, 1.0)

    # A quantized tensor binds only to packed bytes.
    expect_error(f"{scheme} weight bound to an f32 parameter",
                 f"func.func @f(%w: tensor<{len(raw)}xf32> "
                 f"{{rlx.param = \"blk.0.w\"}}) -> tensor<{len(raw)}xf32> {{\n"
                 f"  return %w : tensor<{len(raw)}xf32>\n}}\n",
                 ["--params", path], "'blk.0.w'", path,
                 f"GGUF {scheme} [{k}, {n}]", "binds only to a ui8 [bytes]")

# An expert stack of GGUF dims [K, N, E] through rlx.dequant_moe_weights:
# expert e is rows e * N .. e * N + N - 1, so W[e] is those rows
# transposed; decoded exactly (one f32 product per element).
E, K, N = 3, 64, 4
raw, w = quant_blocks("q8_0", E * N, K)  # w: [K, E * N]
path = write("moe-q8_0.gguf", gguf_file([("experts", "q8_0", [K, N, E], raw)]))
st = f"tensor<{len(raw)}xui8>"
MOE = (f"func.func @moe(%w: {st} {{rlx.param = \"experts\"}}) -> "
       f"tensor<{E}x{K}x{N}xf32> {{\n"
       f"  %0 = rlx.dequant_moe_weights gguf_q8_0 %w : {st} -> "
       f"tensor<{E}x{K}x{N}xf32>\n  return %0 : tensor<{E}x{K}x{N}xf32>\n}}\n")
outdir = os.path.join(check.workdir, "out-moe")
proc = rlx_run(MOE, ["--params", path, "--output", outdir])
if check.succeeded("dequant_moe_weights", proc):
    want = w.reshape(K, E, N).transpose(1, 0, 2).astype(F32)
    check.close(f"GGUF q8_0 [{K}, {N}, {E}] dequant_moe_weights exact",
                np.load(os.path.join(outdir, "output_0.npy")), want, 0, 0)
# The same stack read with another K (dims [128, 2, 3], the same bytes).
expect_error("expert stack with another K", MOE.replace(
    f"tensor<{E}x{K}x{N}xf32>", f"tensor<{E}x{2 * K}x{N // 2}xf32>"),
    ["--params", path], "tensor 'experts'", path, "rows of K = 128")

# The IQ, TQ and FP4 types, each a [K, 3] tensor under its GGML type id,
# decoded exactly through rlx.dequant_moe_weights (one expert).
for name, (elements, size) in ggml_ref.BLOCKS.items():
    scheme = name[len("gguf_"):]
    k, n = 2 * elements, 3
    blocks = ggml_ref.random_blocks(rng, name, n * 2)
    want = ggml_ref.dequant(name, blocks).reshape(n, k).T[None]
    path = write(f"{scheme}.gguf", gguf_file(
        [("w", scheme, [k, n], blocks.tobytes())]))
    st, ot = f"tensor<{blocks.size}xui8>", tensor_type((1, k, n), F32)
    mlir = (f"func.func @w(%w: {st} {{rlx.param = \"w\"}}) -> {ot} {{\n"
            f"  %0 = rlx.dequant_moe_weights {name} %w : {st} -> {ot}\n"
            f"  return %0 : {ot}\n}}\n")
    outdir = os.path.join(check.workdir, f"out-{scheme}")
    proc = rlx_run(mlir, ["--params", path, "--output", outdir])
    if check.succeeded(f"GGUF {scheme}", proc):
        check.close(f"GGUF {scheme} [{k}, {n}] (type {GGML[scheme]}) "
                    "dequant_moe_weights exact",
                    np.load(os.path.join(outdir, "output_0.npy")), want, 0, 0)

# A q4_0 tensor where the graph decodes gguf_q8_0 with the same byte count:
# q8_0 rows of K=64 are 68 bytes, q4_0 rows of K=128 are 72; 34 * 36 bytes
# = 1224 = 18 * 68 = 17 * 72.
raw, _ = quant_blocks("q4_0", 17, 128)
path = write("q4_0-as-q8_0.gguf", gguf_file([("w", "q4_0", [128, 17], raw)]))
MISMATCH = ("func.func @q(%x: tensor<1x64xf32> {rlx.input = \"x\"}, "
            "%w: tensor<1224xui8> {rlx.param = \"w\"}) -> tensor<1x18xf32> {\n"
            "  %0 = rlx.dequant_matmul gguf_q8_0 %x, %w : tensor<1x64xf32>, "
            "tensor<1224xui8>\n  return %0 : tensor<1x18xf32>\n}\n")
expect_error("q4_0 tensor decoded as q8_0", MISMATCH,
             ["--params", path, "--random-inputs"], "tensor 'w'", path,
             "GGUF q4_0 [128, 17]", "decodes it as gguf_q8_0")
# Same type, other row length: q8_0 [128, 9] (1224 bytes) read as K = 64.
raw, _ = quant_blocks("q8_0", 9, 128)
path = write("q8_0-k128.gguf", gguf_file([("w", "q8_0", [128, 9], raw)]))
expect_error("q8_0 tensor with another K", MISMATCH,
             ["--params", path, "--random-inputs"], "tensor 'w'", path,
             "rows of K = 64")
# A byte count the graph does not declare.
raw, _ = quant_blocks("q8_0", 8, 64)
path = write("q8_0-short.gguf", gguf_file([("w", "q8_0", [64, 8], raw)]))
expect_error("q8_0 tensor of another size", MISMATCH,
             ["--params", path, "--random-inputs"], "tensor 'w'", path,
             "the graph expects [1224] u8")
# A plain tensor of the wrong shape (GGUF dims [5, 3] are [3, 5]).
expect_error("plain tensor of another shape",
             "func.func @f(%w: tensor<5x3xf32> {rlx.param = \"a_f32\"}) -> "
             "tensor<5x3xf32> {\n  return %w : tensor<5x3xf32>\n}\n",
             ["--params", plain_path], "tensor 'a_f32'", plain_path,
             "is [3, 5] f32, the graph expects [5, 3] f32")

# --- Malformed files -------------------------------------------------------

GOOD = gguf_file([("w", "f32", [4], np.ones(4, F32).tobytes()),
                  ("v", "f32", [8], np.ones(8, F32).tobytes())],
                 [("general.architecture", STRING, "rlx-test")])
ONE_PARAM = ("func.func @f(%w: tensor<4xf32> {rlx.param = \"w\"}) -> "
             "tensor<4xf32> {\n  return %w : tensor<4xf32>\n}\n")
proc = rlx_run(ONE_PARAM, ["--params", write("good.gguf", GOOD)])
if check.succeeded("the valid file of the malformed cases", proc):
    check.cases += 1
    check.passed += 1


def header(tensors, kvs, version=3):
    return b"GGUF" + struct.pack("<IQQ", version, tensors, kvs)


def info(name, dims, ggml, offset):
    return (gguf_string(name) + struct.pack("<I", len(dims)) +
            b"".join(struct.pack("<Q", d) for d in dims) +
            struct.pack("<IQ", ggml, offset))


def with_infos(*infos, data=b"", kv=b"", kvs=0):
    body = header(len(infos), kvs) + kv + b"".join(infos)
    return body + b"\0" * (-len(body) % 32) + data


DATA = np.ones(16, F32).tobytes()
MALFORMED = [
    ("empty", b"", "shorter than the 4-byte magic"),
    ("bad magic", b"GGUG" + GOOD[4:], "bad magic"),
    ("version 1", header(0, 0, version=1), "unsupported version 1"),
    ("version 4", header(0, 0, version=4), "unsupported version 4"),
    ("truncated header", GOOD[:20], "truncated header"),
    ("truncated metadata", GOOD[:40], "truncated"),
    ("truncated tensor info", GOOD[:90], "truncated"),
    ("truncated data", GOOD[:-1], "truncated data: tensor 'v'"),
    ("huge tensor count", header(1 << 40, 0), "tensor count 1099511627776 "
     "exceeds the limit"),
    ("huge metadata count", header(0, 1 << 62), "metadata count"),
    ("counts beyond the file", header(1000, 0), "do not fit in the"),
    ("huge key length", header(0, 1) + struct.pack("<Q", 1 << 63) +
     b"\0" * 16,
     "metadata key 0 is longer than"),
    ("huge string value", header(0, 1) + gguf_string("k") +
     struct.pack("<IQ", STRING, 1 << 62), "metadata 'k': truncated in a "
     "string value"),
    ("huge array count", header(0, 1) + gguf_string("k") +
     struct.pack("<IIQ", ARRAY, U32, 1 << 61), "an array of 2305843009213693952"
     " elements"),
    ("unknown value type", header(0, 1) + gguf_string("k") +
     struct.pack("<I", 13) + b"\0" * 8, "unknown value type 13"),
    ("arrays nested too deep", header(0, 1) + gguf_string("k") +
     struct.pack("<I", ARRAY) + struct.pack("<IQ", ARRAY, 1) * 9 +
     struct.pack("<IQ", U8, 0), "nested more than 8 deep"),
    ("duplicate key", header(0, 2) + (gguf_string("k") +
                                      struct.pack("<IB", U8, 1)) * 2,
     "metadata key 'k' appears twice"),
    ("alignment not a power of two", header(0, 1) +
     gguf_string("general.alignment") + struct.pack("<II", U32, 48),
     "general.alignment 48 is not a power of two"),
    ("alignment of another type", header(0, 1) +
     gguf_string("general.alignment") + struct.pack("<IQ", U64, 32),
     "general.alignment has value type 10"),
    ("offset out of range", with_infos(info("w", [4], 0, 1 << 62), data=DATA),
     "truncated data: tensor 'w'"),
    ("misaligned offset", with_infos(info("w", [4], 0, 16), data=DATA),
     "tensor 'w' has offset 16, not a multiple of the alignment 32"),
    ("overlapping tensors", with_infos(info("w", [16], 0, 0),
                                       info("v", [4], 0, 32), data=DATA),
     "the data of tensors 'w' and 'v' overlap"),
    ("gap between tensors", with_infos(info("w", [4], 0, 0),
                                       info("v", [4], 0, 96),
                                       data=DATA * 2),
     "bytes 16 to 96 of the data section belong to no tensor"),
    ("trailing data", with_infos(info("w", [4], 0, 0), data=DATA * 3),
     "bytes after the last tensor's data belong to no tensor"),
    ("duplicate tensor", with_infos(info("w", [4], 0, 0),
                                    info("w", [4], 0, 32), data=DATA),
     "tensor 'w' appears twice"),
    ("five dims", with_infos(info("w", [1] * 5, 0, 0), data=DATA),
     "tensor 'w' has 5 dims; GGUF allows at most 4"),
    ("overflowing dims", with_infos(info("w", [1 << 40, 1 << 40], 0, 0),
                                    data=DATA), "overflows 64 bits"),
    ("dim beyond int64", with_infos(info("w", [1 << 63], 0, 0), data=DATA),
     "beyond the int64 range"),
    ("unknown type", with_infos(info("w", [4], 31, 0), data=DATA),
     "tensor 'w' has unknown type 31"),
    ("partial block", with_infos(info("w", [48, 2], GGML["q8_0"], 0),
                                 data=DATA), "tensor 'w' of type q8_0 has "
     "innermost dim 48, not a multiple of its block of 32 elements"),
    ("huge name length", header(1, 0) + struct.pack("<Q", 1 << 40) +
     b"\0" * 64, "the name of tensor 0 is longer than"),
]
for what, data, needle in MALFORMED:
    path = write("bad-" + what.replace(" ", "-") + ".gguf", data)
    expect_error(f"malformed GGUF: {what}", ONE_PARAM, ["--params", path],
                 f"'{path}' is not a valid", needle)

check.finish()
