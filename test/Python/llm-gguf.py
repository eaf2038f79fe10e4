# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Llama-family models from GGUF files against NumPy references:
llm-gguf.py SCRATCH_DIR TOOL.

Tiny random models are written as GGUF files the way llama.cpp's
converter writes them (its tensor names and metadata, q and k rows
permuted for ggml's rotary pairing; llm_reference.write_gguf_model), and
loaded with rlx.models.load:

- a Llama (4 query heads, 2 KV heads, an output head) in f32, and with
  its linear layers and head in Q8_0 and in Q4_0 (quantized here with
  ggml's reference rounding, kept packed (the q, k and v projections'
  bytes stacked as one weight, the gate's and up's too) and multiplied by
  rlx.dequant_matmul): prefill and decode logits within 1e-4 of the
  largest logit of the float64 reference computed with the file's
  (dequantized) weights, greedy generation of 32 tokens identical;
- a Qwen2 (q/k/v biases, no permutation, tied embeddings) with f16 and
  bf16 tensors;
- a Llama whose linear layers are Q4_K and head Q6_K (random blocks);
- NumPy's dequantizers (rlx.gguf.dequantize) bit for bit against
  rlx.dequant_matmul's decoding, per block type;
- a vocabulary trained with sentencepiece embedded in the file: a text
  prompt through rlx.models.load's tokenizer, rlx.generate_text, and
  tools/rlx-generate -m FILE.gguf -p TEXT -n 16 --temp 0 --print-ids;
- hostile files (every truncation of a file, huge counts and lengths,
  bad offsets, alignment, types, ranks) and unsupported models are
  RLXErrors naming what is wrong.

Seeded by RLX_TEST_SEED (fixed when unset; printed)."""

import contextlib
import importlib.util
import io
import os
import struct
import sys

import numpy as np
import sentencepiece

import rlx
import rlx.models
from rlx.generation import generate_text
from rlx.gguf import (TYPES_BY_NAME, QuantizedTensor, dequantize, read_gguf,
                      write_gguf)
from rlx.tokenizers import BYTE, CONTROL, NORMAL, UNKNOWN
from llm_reference import (LLAMA, QWEN2, gguf_metadata, random_weights,
                           reference_greedy, reference_logits,
                           relative_error, write_gguf_model)
from pychecks import check, expect_error, finish

scratch, tool = sys.argv[1], sys.argv[2]
seed = int(os.environ.get("RLX_TEST_SEED", "20240611"))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = np.random.default_rng(seed)

PROMPT_LENGTH = 6
NEW_TOKENS = 32
CAPACITY = 48
TOLERANCE = 1e-4


def check_file(label, config, path, reference_weights, greedy=True):
    """Loads the GGUF model at `path` and compares it with the reference
    of `reference_weights` (transformers' names): prefill and decode
    logits, and greedy generation."""
    model = rlx.models.load(path, capacity=CAPACITY)
    vocab = config["vocab_size"]
    prompt = [int(t) for t in rng.integers(0, vocab, PROMPT_LENGTH)]
    want, margin = reference_greedy(config, reference_weights, prompt,
                                    NEW_TOKENS)
    full = reference_logits(config, reference_weights, prompt + want)
    cache = model.new_cache()
    error = relative_error(model.step(cache, [prompt])[0],
                           full[:PROMPT_LENGTH])
    for index, token in enumerate(want[:-1]):
        error = max(error, relative_error(
            model.step(cache, [[token]])[0, 0], full[PROMPT_LENGTH + index]))
    check(error <= TOLERANCE, f"{label}: prefill and {NEW_TOKENS - 1} "
          f"decode steps' logits, largest relative error {error:.3g} "
          f"(packed: {sorted({s for s, _ in model._packed.values()})})")
    if greedy:
        got = list(rlx.generate(model, prompt, NEW_TOKENS))
        matched = next((i for i, (a, b) in enumerate(zip(got, want))
                        if a != b), len(want))
        check(got == want, f"{label}: greedy {matched} of {NEW_TOKENS} "
              f"tokens match the reference (smallest margin {margin:.3g})")
    return model


# Llama in f32, Q8_0 and Q4_0.
weights = random_weights(LLAMA, rng)
for kind in (None, "q8_0", "q4_0"):
    path = os.path.join(scratch, f"llama-{kind or 'f32'}.gguf")
    effective = write_gguf_model(path, LLAMA, weights, kind, kind)
    if kind:
        drift = max(relative_error(effective[n], weights[n])
                    for n in effective if n.endswith("proj.weight"))
        print(f"{kind}: the quantized weights differ from the f32 ones by "
              f"up to {drift:.3g} of their largest")
    model = check_file(f"llama {kind or 'f32'}", LLAMA, path, effective)
    # Per layer q, k and v packed as one weight (their bytes stacked), gate
    # and up as one, o and down; and the head.
    packed = sorted(model._packed)
    fused = [n for n in packed if n.endswith(("qkv_proj.weight",
                                              "gate_up_proj.weight"))]
    check(len(packed) == (0 if kind is None else 4 * LLAMA[
        "num_hidden_layers"] + 1) and len(fused) == (
            0 if kind is None else 2 * LLAMA["num_hidden_layers"]),
          f"llama {kind or 'f32'}: {len(packed)} weights kept packed, "
          f"{len(fused)} of them stacked projections")

# Qwen2: biases, tied embeddings, no permutation; f16 and bf16 tensors.
qwen = random_weights(QWEN2, rng)
effective, tensors = {}, {}
for name, value in qwen.items():
    if "norm" in name:
        # bf16: the top half of the f32 bits (values rounded to it here).
        bits = (value.view(np.uint32) + 0x8000 >> 16).astype(np.uint16)
        tensors[name] = QuantizedTensor(TYPES_BY_NAME["bf16"], value.shape,
                                        bits.view(np.uint8).reshape(-1))
        effective[name] = (bits.astype(np.uint32) << 16).view(np.float32)
    else:
        tensors[name] = value.astype(np.float16)
        effective[name] = tensors[name].astype(np.float32)
path = os.path.join(scratch, "qwen2.gguf")
write_gguf_model(path, QWEN2, tensors)
check_file("qwen2 f16/bf16", QWEN2, path, effective)


# K-quants: random blocks with f16 scales of a chosen size.
def random_blocks(kind, shape, scale):
    """A QuantizedTensor of `shape` of random blocks of type `kind` whose
    f16 scale fields hold `scale` times a factor in [0.5, 1.5]."""
    t = TYPES_BY_NAME[kind]
    rows, blocks = shape[0], shape[1] // t.block_elements
    data = rng.integers(0, 256, (rows, blocks, t.block_bytes), np.uint8)
    fields = {"q4_0": [0], "q4_1": [0, 2], "q5_0": [0], "q5_1": [0, 2],
              "q8_0": [0], "q4_k": [0, 2], "q5_k": [0, 2],
              "q6_k": [208]}[kind]
    for offset in fields:
        d = (scale * rng.uniform(0.5, 1.5, (rows, blocks))).astype("<f2")
        data[:, :, offset:offset + 2] = d[..., None].view(np.uint8)
    return QuantizedTensor(t, tuple(shape), data.reshape(-1))


# NumPy's decoders against rlx.dequant_matmul's, bit for bit: x is the
# identity, so the product is the decoded weight.
K, N = 256, 8
for kind in ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q4_k", "q5_k",
             "q6_k"):
    t = random_blocks(kind, (N, K), 0.01)
    graph = rlx.compile(
        f"func.func @f(%x: tensor<{K}x{K}xf32> {{rlx.input = \"x\"}}, "
        f"%w: tensor<{t.data.size}xui8> {{rlx.input = \"w\"}}) -> "
        f"tensor<{K}x{N}xf32> {{\n  %y = rlx.dequant_matmul gguf_{kind} "
        f"%x, %w : tensor<{K}x{K}xf32>, tensor<{t.data.size}xui8>\n"
        f"  return %y : tensor<{K}x{N}xf32>\n}}\n")
    got = graph(x=np.eye(K, dtype=np.float32), w=t.data)
    want = dequantize(t).T
    check(np.array_equal(got, want), f"dequantize {kind} equals "
          f"rlx.dequant_matmul's decode bit for bit (largest difference "
          f"{np.abs(got - want).max():.3g})")

K_LLAMA = dict(LLAMA, vocab_size=61, hidden_size=256, intermediate_size=512,
               num_hidden_layers=1, num_attention_heads=4,
               num_key_value_heads=2)
k_weights = random_weights(K_LLAMA, rng)
for name, value in list(k_weights.items()):
    if name.endswith("proj.weight"):
        # Q4_K's values reach d * 63 * 15 (less the mins): weights of
        # about 1/sqrt(in).
        k_weights[name] = random_blocks(
            "q4_k", value.shape, 1.0 / (400 * np.sqrt(value.shape[1])))
    elif name == "lm_head.weight":
        k_weights[name] = random_blocks(
            "q6_k", value.shape, 3.0 / (1000 * np.sqrt(value.shape[1])))
path = os.path.join(scratch, "llama-k.gguf")
effective = write_gguf_model(path, K_LLAMA, k_weights)
check_file("llama q4_k/q6_k", K_LLAMA, path, effective, greedy=False)


# A vocabulary trained with sentencepiece, in the file.
corpus = os.path.join(scratch, "corpus.txt")
with open(corpus, "w") as file:
    file.write("the quick brown fox jumps over the lazy dog. " * 20
               + "a language model writes text one token at a time. " * 20)
sentencepiece.SentencePieceTrainer.train(
    input=corpus, model_prefix=os.path.join(scratch, "spm"), vocab_size=300,
    model_type="bpe", byte_fallback=True, normalization_rule_name="identity",
    remove_extra_whitespaces=False, minloglevel=2)
sp = sentencepiece.SentencePieceProcessor(
    model_file=os.path.join(scratch, "spm.model"))
size = sp.get_piece_size()
vocab_meta = {
    "tokenizer.ggml.model": "llama",
    "tokenizer.ggml.tokens": [sp.id_to_piece(i) for i in range(size)],
    "tokenizer.ggml.scores": [sp.get_score(i) for i in range(size)],
    "tokenizer.ggml.token_type": [
        UNKNOWN if sp.is_unknown(i) else CONTROL if sp.is_control(i)
        else BYTE if sp.is_byte(i) else NORMAL for i in range(size)],
    "tokenizer.ggml.bos_token_id": ("u32", sp.bos_id()),
    "tokenizer.ggml.eos_token_id": ("u32", sp.eos_id()),
    "tokenizer.ggml.unknown_token_id": ("u32", sp.unk_id())}
TEXT_LLAMA = dict(LLAMA, vocab_size=size)
text_weights = random_weights(TEXT_LLAMA, rng)
path = os.path.join(scratch, "llama-text.gguf")
effective = write_gguf_model(path, TEXT_LLAMA, text_weights, "q8_0", None,
                             metadata=vocab_meta)
model = rlx.models.load(path, capacity=CAPACITY)
text = "the lazy fox writes"
ids = [sp.bos_id()] + sp.encode(text)
check(model.tokenizer is not None and model.tokenizer.encode(text) == ids,
      f"the file's tokenizer encodes {text!r} as sentencepiece: {ids}")
want, _ = reference_greedy(TEXT_LLAMA, effective, ids, 16)
# Greedy stops after EOS, as generate_text does.
if sp.eos_id() in want:
    want = want[:want.index(sp.eos_id()) + 1]
got = list(rlx.generate(model, text, 16, eos_token_id=sp.eos_id()))
check(got == want, f"rlx.generate from text: {got} (reference {want})")
pieces = list(generate_text(model, text, 16))
want_text = b"".join(model.tokenizer.token_bytes(t) for t in want).decode(
    "utf-8", "replace")
check("".join(pieces) == want_text,
      f"generate_text streams the reference's text: {''.join(pieces)!r}")

spec = importlib.util.spec_from_file_location("rlx_generate", tool)
rlx_generate = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rlx_generate)


def run_tool(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = rlx_generate.main(list(argv))
    return status, out.getvalue(), err.getvalue()


status, out, err = run_tool("-m", path, "-p", text, "-n", "16", "--temp",
                            "0", "--print-ids", "-c", str(CAPACITY))
check(status == 0 and [int(t) for t in out.split()] == want,
      f"rlx-generate -m FILE.gguf -p TEXT --print-ids: {out.strip()} "
      f"{err.strip()}")
status, out, err = run_tool("-m", path, "-p", text, "-n", "16", "--temp",
                            "0", "-c", str(CAPACITY))
check(status == 0 and out.rstrip("\n") == "".join(pieces),
      f"rlx-generate streams text: {out.strip()!r}")


# Hostile and unsupported files.
small = os.path.join(scratch, "small.gguf")
write_gguf(small, dict(gguf_metadata(LLAMA), **vocab_meta),
           {"a": np.arange(64, dtype=np.float32),
            "b": random_blocks("q8_0", (2, 64), 0.1)})
data = open(small, "rb").read()
# The file may end with padding after the last tensor's bytes: a cut
# there loses nothing.
last = max(info.offset + info.nbytes
           for info in read_gguf(small).tensors.values())
crashes, silent = [], []
for length in list(range(0, last, 7)) + [last - 1]:
    with open(os.path.join(scratch, "cut.gguf"), "wb") as file:
        file.write(data[:length])
    try:
        read_gguf(os.path.join(scratch, "cut.gguf"))
        silent.append(length)
    except rlx.RLXError:
        pass
    except Exception as error:  # noqa: BLE001 - what the check is about
        crashes.append((length, repr(error)))
check(not crashes and not silent,
      f"every truncation of a {last}-byte file is an RLXError "
      f"(other errors: {crashes[:2]}, accepted: {silent[:3]})")


def hostile(label, blob, needle):
    path = os.path.join(scratch, "hostile.gguf")
    with open(path, "wb") as file:
        file.write(blob)
    expect_error(lambda: read_gguf(path), needle, label)


def header(tensors, kvs):
    return b"GGUF" + struct.pack("<IQQ", 3, tensors, kvs)


def string(text):
    return struct.pack("<Q", len(text)) + text.encode()


hostile("a bad magic", b"GGML" + data[4:], "no magic 'GGUF'")
hostile("version 1", b"GGUF" + struct.pack("<I", 1) + data[8:],
        "GGUF version 1 is not read")
hostile("2^60 tensors", header(1 << 60, 0), "tensors cannot fit")
hostile("2^60 metadata entries", header(0, 1 << 60),
        "metadata entries cannot fit")
hostile("a 2^62-byte key", header(0, 1) + struct.pack("<Q", 1 << 62),
        "truncated: metadata key 0 needs")
hostile("a 2^40-element array", header(0, 1) + string("k")
        + struct.pack("<IIQ", 9, 6, 1 << 40), "truncated: metadata 'k' holds")
hostile("a 2^40-string array", header(0, 1) + string("k")
        + struct.pack("<IIQ", 9, 8, 1 << 40), "holds 1099511627776 elements")
hostile("an unknown value type", header(0, 1) + string("k")
        + struct.pack("<I", 99), "unknown value type 99")


def tensor_file(dims, type_id=0, offset=0, alignment=None, body=b""):
    kvs = [] if alignment is None else [
        string("general.alignment") + struct.pack("<II", 4, alignment)]
    info = (string("t") + struct.pack("<I", len(dims))
            + struct.pack(f"<{len(dims)}Q", *dims)
            + struct.pack("<IQ", type_id, offset))
    head = header(1, len(kvs)) + b"".join(kvs) + info
    return head + b"\0" * (-len(head) % 32) + body


hostile("a tensor past the end", tensor_file([16], body=b"\0" * 32),
        "tensor 't' (f32, dims [16]) needs 64 bytes")
hostile("a tensor at a huge offset", tensor_file([4], offset=1 << 62,
                                                 body=b"\0" * 16),
        "needs 16 bytes at offset 4611686018427387904")
hostile("a misaligned offset", tensor_file([4], offset=4, body=b"\0" * 64),
        "offset 4, not a multiple of the alignment 32")
hostile("dims of 2^40 x 2^40", tensor_file([1 << 40, 1 << 40]),
        "the file ends before")
hostile("5 dims", tensor_file([1, 1, 1, 1, 1]), "has 5 dims")
hostile("an unknown tensor type", tensor_file([4], type_id=77),
        "GGML type 77")
hostile("q8_0 rows of 40", tensor_file([40], type_id=8),
        "rows of 40 elements, not a multiple of its block of 32")
hostile("alignment 3", tensor_file([4], alignment=3),
        "general.alignment 3 is not a power of 2")

# Models rlx does not build.
def model_error(label, metadata, tensors, needle):
    path = os.path.join(scratch, "refused.gguf")
    write_gguf(path, metadata, tensors)
    expect_error(lambda: rlx.models.load(path, capacity=8), needle, label)


meta = gguf_metadata(LLAMA)
embed = {"token_embd.weight": np.zeros((97, 64), np.float32)}
model_error("an unknown architecture", dict(meta, **{
    "general.architecture": "falcon"}), embed,
    "general.architecture 'falcon'")
model_error("a missing metadata key", {k: v for k, v in meta.items()
                                       if "block_count" not in k}, embed,
            "metadata 'llama.block_count' is missing")
model_error("rope scaling", dict(meta, **{"llama.rope.scaling.type":
                                          "yarn"}), embed, "rope_scaling")
model_error("a missing layer tensor", meta, embed,
            "no tensor 'output_norm.weight'")
model_error("an integer-typed weight", meta, {
    "token_embd.weight": np.zeros((97, 64), np.float32),
    "output_norm.weight": np.zeros(64, np.int32)},
    "tensor 'output_norm.weight' is i32")
model_error("a K-quant embedding NumPy does not decode", meta, {
    "token_embd.weight": QuantizedTensor(TYPES_BY_NAME["q2_k"], (97, 256),
                                         np.zeros(97 * 84, np.uint8))},
    "is q2_k, which rlx does not dequantize")
finish()
