# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.tokenizers against references: tokenizers.py SCRATCH_DIR.

- SentencePiece-style BPE (spm.py) against Debian's python3-sentencepiece:
  a BPE model with byte fallback trained here on a text written here;
  rlx's ids equal SentencePiece's on random strings of its characters
  and of characters it never saw (byte fallback), spaces, tabs and line
  breaks; decode gives the text back. The same vocabulary through GGUF
  metadata (written and read back) and through a tokenizer.json with
  merges derived from the scores, as transformers' converter derives
  them.
- Byte-level BPE (bpe.py) against the original GPT-2 encoder's merge
  loop, written out below: a merge list trained here on a text; the
  vocabulary through GGUF metadata and through tokenizer.json (ByteLevel
  and a Split of Llama 3's pattern), equal ids on random strings and
  lossless decode.
- The pre-tokenizer scanners against the `regex` module (python3-regex)
  on the patterns of GPT-2, Llama 3 and Qwen2.
- Streaming decode: characters split over byte tokens come whole, and the
  pieces join to decode's text.
- Errors: unknown tokenizer models and pre-tokenizers, ids outside the
  vocabulary, inconsistent arrays.

transformers and tokenizers are not installed here, so Hugging Face's own
tokenizers are not run. Random strings are seeded by RLX_TEST_SEED (fixed
when unset; printed)."""

import collections
import json
import os
import random
import sys

import regex
import sentencepiece

import rlx
from rlx import tokenizers
from rlx.gguf import read_gguf, write_gguf
from rlx.tokenizers import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED
from rlx.tokenizers import pretokenize
from rlx.tokenizers.bpe import BYTE_TO_UNICODE
from pychecks import check, expect_error, finish

scratch = sys.argv[1]
seed = int(os.environ.get("RLX_TEST_SEED", "20240611"))
print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
rng = random.Random(seed)

CORPUS = """The quick brown fox jumps over the lazy dog. A quick brown dog
jumps over the lazy fox; the fox was not amused, and the dog said so.
Language models predict the next token. Tokenizers split text into pieces,
and pieces back into text: encode, then decode.
Über große Flüsse fährt die Fähre. Café, naïve, résumé: déjà vu!
Numbers like 12345, 3.14159 and 2024-06-11 appear in text too.
It's what we've said: they'll go, you'd see, I'm sure, they're here.
東京は日本の首都です。 Москва — столица России.
"""
# Characters of the random strings: the corpus's, some it lacks (byte
# fallback), and whitespace runs.
ALPHABET = (list(CORPUS) + list("ßЖ😀\u00a0\u3000\t") + ["  ", "\n\n",
            " the", "'s", "'LL"])
STRINGS = [""] + ["".join(rng.choice(ALPHABET)
                          for _ in range(rng.randint(1, 40)))
                  for _ in range(1500)]
corpus_path = os.path.join(scratch, "corpus.txt")
with open(corpus_path, "w", encoding="utf-8") as file:
    file.write(CORPUS * 4)


def first_mismatch(name, encode, reference):
    """Compares encode with reference on STRINGS; checks and returns
    the number that differ."""
    bad = [s for s in STRINGS if encode(s) != reference(s)]
    example = (f"; first {bad[0]!r}: {encode(bad[0])} vs "
               f"{reference(bad[0])}" if bad else "")
    check(not bad, f"{name}: ids equal on {len(STRINGS) - len(bad)} of "
          f"{len(STRINGS)} strings{example}")


# SentencePiece-style BPE against sentencepiece.

sentencepiece.SentencePieceTrainer.train(
    input=corpus_path, model_prefix=os.path.join(scratch, "spm"),
    vocab_size=400, model_type="bpe", byte_fallback=True,
    normalization_rule_name="identity", remove_extra_whitespaces=False,
    character_coverage=1.0, minloglevel=2)
sp = sentencepiece.SentencePieceProcessor(
    model_file=os.path.join(scratch, "spm.model"))
size = sp.get_piece_size()
sp_tokens = [sp.id_to_piece(i) for i in range(size)]
sp_scores = [sp.get_score(i) for i in range(size)]
sp_types = [UNKNOWN if sp.is_unknown(i) else CONTROL if sp.is_control(i)
            else UNUSED if sp.is_unused(i) else BYTE if sp.is_byte(i)
            else NORMAL for i in range(size)]
print(f"sentencepiece {sentencepiece.__version__}: {size} pieces, "
      f"{sp_types.count(BYTE)} byte pieces")

spm = tokenizers.SentencePieceBPE(
    sp_tokens, sp_types, scores=sp_scores, bos_id=sp.bos_id(),
    eos_id=sp.eos_id(), unk_id=sp.unk_id())
first_mismatch("SentencePiece BPE (scores)",
               lambda s: spm.encode(s, add_special=False), sp.encode)
check(spm.encode("fox") == [sp.bos_id()] + sp.encode("fox"),
      "encode puts BOS first")
roundtrip = [s for s in STRINGS if spm.decode(spm.encode(s)) != s]
check(not roundtrip, f"SentencePiece BPE decode(encode(s)) == s on "
      f"{len(STRINGS) - len(roundtrip)} of {len(STRINGS)} strings "
      f"{roundtrip[:1]}")
check(all(spm.decode(sp.encode(s)) == sp.decode(sp.encode(s))
          for s in STRINGS[:300]), "decode equals sentencepiece's decode")
uses_bytes = sum(any(sp_types[t] == BYTE for t in sp.encode(s))
                 for s in STRINGS)
check(uses_bytes > 100, f"{uses_bytes} strings go through byte fallback")

# The same vocabulary through a GGUF file's metadata.
gguf_path = os.path.join(scratch, "spm-vocab.gguf")
write_gguf(gguf_path, {
    "general.architecture": "llama",
    "tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": sp_tokens,
    "tokenizer.ggml.scores": sp_scores,
    "tokenizer.ggml.token_type": sp_types,
    "tokenizer.ggml.bos_token_id": ("u32", sp.bos_id()),
    "tokenizer.ggml.eos_token_id": ("u32", sp.eos_id()),
    "tokenizer.ggml.unknown_token_id": ("u32", sp.unk_id())}, {})
from_gguf = tokenizers.from_gguf(read_gguf(gguf_path).metadata)
first_mismatch("SentencePiece BPE from GGUF metadata",
               lambda s: from_gguf.encode(s)[1:], sp.encode)

# And through a tokenizer.json as transformers converts a SentencePiece
# BPE model: merges of every split of a piece into two pieces, ranked by
# the piece's score (then the left piece's id), a Metaspace
# pre-tokenizer, byte fallback.
vocab = {t: i for i, t in enumerate(sp_tokens)}
merges = []
for piece in sorted(vocab, key=lambda p: -sp_scores[vocab[p]]):
    if sp_types[vocab[piece]] != NORMAL:
        continue
    splits = [(piece[:k], piece[k:]) for k in range(1, len(piece))
              if piece[:k] in vocab and piece[k:] in vocab]
    merges += sorted(splits, key=lambda p: (vocab[p[0]], vocab[p[1]]))
spec = {
    "added_tokens": [{"id": i, "content": sp_tokens[i], "special": True}
                     for i in range(size) if sp_types[i] in (CONTROL,
                                                             UNKNOWN)],
    "normalizer": None,
    "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581",
                      "prepend_scheme": "first", "split": False},
    "post_processor": {"type": "TemplateProcessing", "single": [
        {"SpecialToken": {"id": "<s>", "type_id": 0}},
        {"Sequence": {"id": "A", "type_id": 0}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [sp.bos_id()],
                                   "tokens": ["<s>"]}}},
    "model": {"type": "BPE", "byte_fallback": True, "unk_token": "<unk>",
              "vocab": vocab, "merges": [" ".join(m) for m in merges]}}
json_dir = os.path.join(scratch, "spm-json")
os.makedirs(json_dir, exist_ok=True)
with open(os.path.join(json_dir, "tokenizer.json"), "w") as file:
    json.dump(spec, file)
from_json = tokenizers.from_directory(json_dir)
first_mismatch("SentencePiece-style tokenizer.json (merge ranks)",
               lambda s: from_json.encode(s)[1:], sp.encode)
check(from_json.encode("x")[0] == sp.bos_id(),
      "tokenizer.json's TemplateProcessing puts BOS first")


# Byte-level BPE against the original GPT-2 encoder's loop.

def train_byte_bpe(text, count):
    """`count` merges learnt from `text`'s GPT-2 pre-tokenized words: the
    most frequent adjacent pair each time (ties: the first seen)."""
    words = collections.Counter(
        tuple(BYTE_TO_UNICODE[b] for b in w.encode())
        for w in pretokenize.split(text, "gpt2"))
    learnt = []
    for _ in range(count):
        pairs = collections.Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        learnt.append(best)
        merged = collections.Counter()
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i:i + 2] == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += n
        words = merged
    return learnt


def gpt2_reference_bpe(word, ranks):
    """encoder.py's `bpe` of GPT-2: merge the lowest-ranked pair
    everywhere in the word, repeat."""
    word = tuple(word)
    while len(word) > 1:
        pairs = set(zip(word, word[1:]))
        best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        out, i = [], 0
        while i < len(word):
            if i < len(word) - 1 and (word[i], word[i + 1]) == best:
                out.append(word[i] + word[i + 1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        word = tuple(out)
    return list(word)


learnt = train_byte_bpe(CORPUS * 4, 300)
bpe_tokens = [BYTE_TO_UNICODE[b] for b in range(256)]
for left, right in learnt:
    if left + right not in bpe_tokens:
        bpe_tokens.append(left + right)
bpe_tokens.append("<|endoftext|>")
bpe_types = [NORMAL] * (len(bpe_tokens) - 1) + [CONTROL]
bpe_ids = {t: i for i, t in enumerate(bpe_tokens)}
bpe_ranks = {pair: rank for rank, pair in enumerate(learnt)}


def gpt2_reference(text, scheme="gpt2"):
    ids = []
    for word in pretokenize.split(text, scheme):
        mapped = "".join(BYTE_TO_UNICODE[b] for b in word.encode())
        ids += [bpe_ids[s] for s in gpt2_reference_bpe(mapped, bpe_ranks)]
    return ids


print(f"byte-level BPE: {len(learnt)} merges, {len(bpe_tokens)} tokens")
gguf_path = os.path.join(scratch, "gpt2-vocab.gguf")
write_gguf(gguf_path, {
    "tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2",
    "tokenizer.ggml.tokens": bpe_tokens,
    "tokenizer.ggml.token_type": bpe_types,
    "tokenizer.ggml.merges": [f"{a} {b}" for a, b in learnt],
    "tokenizer.ggml.eos_token_id": ("u32", len(bpe_tokens) - 1)}, {})
gpt2_gguf = tokenizers.from_gguf(read_gguf(gguf_path).metadata)
first_mismatch("byte-level BPE from GGUF metadata", gpt2_gguf.encode,
               gpt2_reference)
lossy = [s for s in STRINGS if gpt2_gguf.decode(gpt2_gguf.encode(s)) != s]
check(not lossy, f"byte-level decode(encode(s)) == s on "
      f"{len(STRINGS) - len(lossy)} of {len(STRINGS)} strings")
check(gpt2_gguf.encode("fox<|endoftext|>", parse_special=True)[-1]
      == len(bpe_tokens) - 1 and gpt2_gguf.encode("<|endoftext|>")
      != [len(bpe_tokens) - 1],
      "control tokens in text: their id with parse_special, text without")
merged, raw = len(gpt2_gguf.encode(CORPUS)), len(CORPUS.encode())
check(merged < 0.5 * raw, f"merges shorten the training text: {merged} "
      f"tokens for {raw} bytes")

for label, pre, scheme in (
        ("ByteLevel", {"type": "ByteLevel", "add_prefix_space": False,
                       "use_regex": True}, "gpt2"),
        ("Split(Llama 3) + ByteLevel", {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "behavior": "Isolated", "invert": False,
             "pattern": {"Regex": next(p for p, s in
                                       pretokenize.PATTERNS.items()
                                       if s == "llama3")}},
            {"type": "ByteLevel", "add_prefix_space": False,
             "use_regex": False}]}, "llama3")):
    spec = {"added_tokens": [{"id": len(bpe_tokens) - 1,
                              "content": "<|endoftext|>", "special": True}],
            "pre_tokenizer": pre,
            "model": {"type": "BPE", "vocab": bpe_ids,
                      "merges": [list(m) for m in learnt]}}
    path = os.path.join(scratch, f"bpe-{scheme}.json")
    with open(path, "w") as file:
        json.dump(spec, file)
    from_json = tokenizers.from_tokenizer_json(path)
    first_mismatch(f"byte-level tokenizer.json, {label}", from_json.encode,
                   lambda s: gpt2_reference(s, scheme))

# The pre-tokenizer scanners against the regex module.
for pattern, scheme in pretokenize.PATTERNS.items():
    compiled = regex.compile(pattern)
    bad = [s for s in STRINGS if pretokenize.split(s, scheme)
           != compiled.findall(s)]
    check(not bad, f"pre-tokenizer {scheme}: the regex module's words on "
          f"{len(STRINGS) - len(bad)} of {len(STRINGS)} strings "
          f"{bad[:1]}")


# Streaming decode.

def streamed(tokenizer, ids):
    stream = tokenizer.stream()
    pieces = [stream.push(t) for t in ids]
    return pieces, "".join(pieces) + stream.flush()


emoji = spm.encode("😀", add_special=False)
pieces, _ = streamed(spm, emoji)
check(len(emoji) == 5 and pieces == [" ", "", "", "", "😀"],
      f"the prefix space, then a 4-byte character over byte tokens comes "
      f"whole with its last: {emoji} -> {pieces}")
bad = []
for s in STRINGS:
    for tok in (spm, gpt2_gguf):
        ids = tok.encode(s, add_special=False)
        pieces, text = streamed(tok, ids)
        # Stream text is the continuation form: SentencePiece's prefix
        # space stays.
        want = (" " + s) if tok is spm and s else s
        if text != want or any("\ufffd" in p for p in pieces):
            bad.append(s)
check(not bad, f"streamed pieces join to the text, no U+FFFD, on "
      f"{2 * len(STRINGS) - len(bad)} of {2 * len(STRINGS)} {bad[:1]}")
stream = spm.stream()
stream.push(emoji[1])
check(stream.flush() == "\ufffd", "flush gives an incomplete character as "
      "U+FFFD")


# Errors.
meta = read_gguf(os.path.join(scratch, "spm-vocab.gguf")).metadata
expect_error(lambda: tokenizers.from_gguf(
    dict(meta, **{"tokenizer.ggml.model": "bert"})),
    "tokenizer.ggml.model 'bert'", "an unknown tokenizer model")
expect_error(lambda: tokenizers.from_gguf(
    dict(meta, **{"tokenizer.ggml.eos_token_id": size + 5})),
    f"eos_token_id {size + 5} is outside", "an EOS id past the vocabulary")
expect_error(lambda: tokenizers.from_gguf(
    dict(meta, **{"tokenizer.ggml.token_type": sp_types[:-1]})),
    f"{size - 1} token types for {size} tokens", "too few token types")
gmeta = read_gguf(os.path.join(scratch, "gpt2-vocab.gguf")).metadata
expect_error(lambda: tokenizers.from_gguf(
    dict(gmeta, **{"tokenizer.ggml.pre": "falcon"})),
    "tokenizer.ggml.pre 'falcon'", "an unknown pre-tokenizer")
expect_error(lambda: tokenizers.from_gguf(
    dict(gmeta, **{"tokenizer.ggml.merges": ["ab"]})),
    "merge 0 'ab'", "a malformed merge")
expect_error(lambda: spm.decode([size]), f"token id {size} is outside",
             "decoding an id past the vocabulary")
finish()
