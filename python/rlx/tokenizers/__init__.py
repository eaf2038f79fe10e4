# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Tokenizers of language models (docs/llm.md#tokenizers): text to token
ids and back, from the vocabulary a GGUF file embeds or a Hugging Face
`tokenizer.json`.

    tok = rlx.tokenizers.from_gguf(rlx.gguf.read_gguf("m.gguf").metadata)
    tok = rlx.tokenizers.from_directory("hf-model-dir")   # tokenizer.json
    ids = tok.encode("Hello world")      # BOS first when the model adds it
    tok.decode(ids)                      # "Hello world"
    stream = tok.stream()                # text of tokens one at a time,
    text = stream.push(ids[0])           # whole UTF-8 characters only

Two algorithms: SentencePiece-style BPE by piece score or merge rank over
`▁`-marked text with byte fallback (spm.py: Llama 1/2, Mistral), and
GPT-2's byte-level BPE by merge rank after a regex pre-tokenizer (bpe.py:
GPT-2, Llama 3, Qwen2)."""

import json
import os
import unicodedata

from .._capi import RLXError
from ._base import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED, \
    StreamDecoder, Tokenizer
from .bpe import ByteLevelBPE, parse_merges
from .pretokenize import GGUF_PRE, split, splitter
from .spm import SPACE, SentencePieceBPE, byte_types

__all__ = ["Tokenizer", "StreamDecoder", "SentencePieceBPE", "ByteLevelBPE",
           "from_gguf", "from_tokenizer_json", "from_directory", "NORMAL",
           "UNKNOWN", "CONTROL", "USER_DEFINED", "UNUSED", "BYTE"]


def _id(meta, key, size, where):
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RLXError(f"{where}: {key} is {value!r}, not a token id")
    if not 0 <= value < size:
        raise RLXError(f"{where}: {key} {value} is outside the vocabulary "
                       f"of {size} tokens")
    return value


def from_gguf(metadata, where="GGUF"):
    """The tokenizer of a GGUF file's metadata (`tokenizer.ggml.*`):
    model "llama" (SentencePiece-style: tokens, scores, token_type) or
    "gpt2" (byte-level BPE: tokens, merges, the pre-tokenizer named by
    `tokenizer.ggml.pre`). `where` names the file in errors."""
    model = metadata.get("tokenizer.ggml.model")
    tokens = metadata.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, list) or not tokens:
        raise RLXError(f"{where}: tokenizer.ggml.tokens is missing or not a "
                       "list of strings")
    size = len(tokens)
    types = metadata.get("tokenizer.ggml.token_type")
    types = [NORMAL] * size if types is None else [int(t) for t in types]
    if len(types) != size:
        raise RLXError(f"{where}: {len(types)} token types for {size} "
                       "tokens")

    def flag(key, default):
        value = metadata.get(f"tokenizer.ggml.{key}", default)
        return bool(value)

    ids = {name: _id(metadata, f"tokenizer.ggml.{name}_token_id", size,
                     where) for name in ("bos", "eos", "unknown")}
    if model == "llama":
        scores = metadata.get("tokenizer.ggml.scores")
        if scores is None:
            raise RLXError(f"{where}: tokenizer.ggml.scores is missing")
        return SentencePieceBPE(
            tokens, types, scores=list(scores), bos_id=ids["bos"],
            eos_id=ids["eos"], unk_id=ids["unknown"],
            add_bos=flag("add_bos_token", True),
            add_eos=flag("add_eos_token", False),
            add_space_prefix=flag("add_space_prefix", True))
    if model == "gpt2":
        merges = metadata.get("tokenizer.ggml.merges")
        if merges is None:
            raise RLXError(f"{where}: tokenizer.ggml.merges is missing")
        pre = metadata.get("tokenizer.ggml.pre", "default")
        if pre not in GGUF_PRE:
            known = ", ".join(sorted(GGUF_PRE))
            raise RLXError(f"{where}: tokenizer.ggml.pre {pre!r} is not a "
                           f"pre-tokenizer rlx has ({known})")
        scheme = GGUF_PRE[pre]
        return ByteLevelBPE(
            tokens, types, merges, lambda text: split(text, scheme),
            bos_id=ids["bos"], eos_id=ids["eos"], unk_id=ids["unknown"],
            add_bos=flag("add_bos_token", False),
            add_eos=flag("add_eos_token", False),
            ignore_merges=scheme == "llama3",
            add_prefix_space=flag("add_space_prefix", False))
    raise RLXError(f"{where}: tokenizer.ggml.model {model!r} is not one rlx "
                   "reads (llama, gpt2)")


# tokenizer.json.

def _steps(node):
    """The steps of a tokenizer.json normalizer, pre-tokenizer, decoder
    or post-processor: a Sequence's list, one step, or none."""
    if node is None:
        return []
    if node.get("type") == "Sequence":
        key = next((k for k in ("normalizers", "pretokenizers", "decoders",
                                "processors") if k in node), None)
        return [step for child in node.get(key, [])
                for step in _steps(child)]
    return [node]


def _special_ids(processor, ids, where):
    """(BOS id or None, EOS id or None) that a TemplateProcessing
    post-processor puts around a single sequence."""
    bos = eos = None
    for step in _steps(processor):
        kind = step.get("type")
        if kind == "ByteLevel":
            continue
        if kind != "TemplateProcessing":
            raise RLXError(f"{where}: post_processor {kind!r} is not read "
                           "(TemplateProcessing, ByteLevel)")
        single = step.get("single", [])
        names = [item["SpecialToken"]["id"] if "SpecialToken" in item
                 else None for item in single]
        specials = step.get("special_tokens", {})

        def token_id(name):
            entry = specials.get(name, {})
            found = entry.get("ids") or [ids.get(name)]
            if found[0] is None:
                raise RLXError(f"{where}: special token {name!r} of the "
                               "post_processor is not in the vocabulary")
            return found[0]
        if names and names[0] is not None:
            bos = token_id(names[0])
        if len(names) > 1 and names[-1] is not None:
            eos = token_id(names[-1])
    return bos, eos


def _token_name(value):
    """A tokenizer_config.json token entry: a string or {"content": ...}."""
    if isinstance(value, dict):
        return value.get("content")
    return value


def from_tokenizer_json(path, config=None):
    """The tokenizer of a Hugging Face tokenizer.json (a BPE model, with
    a ByteLevel pre-tokenizer or SentencePiece-style `▁` handling).
    `config`, the dict of tokenizer_config.json if any, names the EOS
    token when the post-processor does not."""
    try:
        with open(path, encoding="utf-8") as file:
            spec = json.load(file)
    except (OSError, ValueError) as error:
        raise RLXError(f"cannot read '{path}': {error}") from None
    model = spec.get("model") or {}
    if model.get("type", "BPE") != "BPE":
        raise RLXError(f"'{path}': model type {model.get('type')!r} is not "
                       "read (BPE)")
    for option in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(option):
            raise RLXError(f"'{path}': BPE option {option} is not supported")
    if model.get("dropout"):
        raise RLXError(f"'{path}': BPE dropout {model['dropout']} is not "
                       "supported")
    vocab = dict(model.get("vocab") or {})
    added = spec.get("added_tokens") or []
    for entry in added:
        vocab.setdefault(entry["content"], entry["id"])
    if not vocab:
        raise RLXError(f"'{path}' has an empty vocabulary")
    size = max(vocab.values()) + 1
    if size > 4 * len(vocab) + 1024:
        raise RLXError(f"'{path}': token ids reach {size - 1} for "
                       f"{len(vocab)} tokens")
    tokens = [""] * size
    types = [UNUSED] * size
    for token, index in vocab.items():
        if not 0 <= index < size:
            raise RLXError(f"'{path}': token {token!r} has id {index}")
        tokens[index], types[index] = token, NORMAL
    for entry in added:
        types[entry["id"]] = CONTROL if entry.get("special") else \
            USER_DEFINED
    merges = parse_merges(model.get("merges") or [])
    bos, eos = _special_ids(spec.get("post_processor"), vocab, path)
    config = config or {}
    if eos is None and _token_name(config.get("eos_token")) in vocab:
        eos_id = vocab[_token_name(config["eos_token"])]
    else:
        eos_id = eos
    if bos is None and _token_name(config.get("bos_token")) in vocab:
        bos_id = vocab[_token_name(config["bos_token"])]
    else:
        bos_id = bos
    unk_id = vocab.get(model.get("unk_token")) if model.get("unk_token") \
        else None

    normalizers = _steps(spec.get("normalizer"))
    pre_tokenizers = _steps(spec.get("pre_tokenizer"))
    kinds = [step.get("type") for step in pre_tokenizers]
    if "ByteLevel" in kinds:
        return _byte_level(path, tokens, types, merges, normalizers,
                           pre_tokenizers, model, bos_id, eos_id, unk_id,
                           bos is not None, eos is not None)
    return _sentencepiece_style(path, tokens, types, merges, normalizers,
                                pre_tokenizers, model, bos_id, eos_id,
                                unk_id, bos is not None, eos is not None)


def _normalize_nfc(path, normalizers, allowed):
    """Checks that the normalizers are among `allowed` (or NFC, which is
    applied); returns whether NFC is."""
    nfc = False
    for step in normalizers:
        kind = step.get("type")
        if kind == "NFC":
            nfc = True
        elif kind not in allowed:
            raise RLXError(f"'{path}': normalizer {kind!r} is not supported")
    return nfc


def _byte_level(path, tokens, types, merges, normalizers, pre_tokenizers,
                model, bos_id, eos_id, unk_id, add_bos, add_eos):
    nfc = _normalize_nfc(path, normalizers, ())
    words = None
    prefix_space = False
    for step in pre_tokenizers:
        kind = step.get("type")
        if kind == "Split":
            pattern = step.get("pattern", {})
            if "Regex" not in pattern or step.get("invert") or \
                    step.get("behavior", "Isolated") != "Isolated":
                raise RLXError(f"'{path}': Split pre-tokenizer {step} is "
                               "not supported (an Isolated Regex)")
            if words is not None:
                raise RLXError(f"'{path}': two Split pre-tokenizers")
            words = splitter(pattern["Regex"])
        elif kind == "ByteLevel":
            prefix_space = bool(step.get("add_prefix_space", False))
            if step.get("use_regex", True):
                if words is not None:
                    raise RLXError(f"'{path}': a Split and a ByteLevel "
                                   "regex both")
                words = lambda text: split(text, "gpt2")  # noqa: E731
        else:
            raise RLXError(f"'{path}': pre-tokenizer {kind!r} is not "
                           "supported with ByteLevel")
    words = words or (lambda text: [text])
    pre = (lambda text: words(unicodedata.normalize("NFC", text))) if nfc \
        else words
    return ByteLevelBPE(tokens, types, merges, pre, bos_id=bos_id,
                        eos_id=eos_id, add_bos=add_bos, add_eos=add_eos,
                        ignore_merges=bool(model.get("ignore_merges")),
                        add_prefix_space=prefix_space, unk_id=unk_id)


def _sentencepiece_style(path, tokens, types, merges, normalizers,
                         pre_tokenizers, model, bos_id, eos_id, unk_id,
                         add_bos, add_eos):
    """Llama 2's tokenizer.json: `▁` put before the text and for spaces
    (by a Prepend + Replace normalizer or a Metaspace pre-tokenizer), BPE
    by merge rank, byte fallback."""
    prefix, split_words = False, False
    for step in normalizers:
        kind = step.get("type")
        if kind == "Prepend" and step.get("prepend") == SPACE:
            prefix = True
        elif kind == "Replace" and step.get("content") == SPACE and \
                step.get("pattern", {}).get("String") == " ":
            pass
        elif kind != "NFC":
            raise RLXError(f"'{path}': normalizer {step} is not supported "
                           "(Prepend '▁', Replace ' ' -> '▁', NFC)")
    if _normalize_nfc(path, normalizers, ("Prepend", "Replace")):
        raise RLXError(f"'{path}': NFC with a SentencePiece-style "
                       "vocabulary is not supported")
    for step in pre_tokenizers:
        if step.get("type") != "Metaspace" or \
                step.get("replacement", SPACE) != SPACE:
            raise RLXError(f"'{path}': pre-tokenizer {step} is not supported "
                           "(Metaspace with '▁', or ByteLevel)")
        scheme = step.get("prepend_scheme")
        if scheme is None:
            scheme = "always" if step.get("add_prefix_space", True) \
                else "never"
        # "always" also puts a prefix after each special token in the
        # text; encode puts one at the start only, as "first" does.
        prefix = prefix or scheme in ("first", "always")
        split_words = bool(step.get("split", True))
    if not model.get("byte_fallback"):
        types = list(types)
    else:
        types = byte_types(tokens, types)
    return SentencePieceBPE(tokens, types, merges=merges, bos_id=bos_id,
                            eos_id=eos_id, unk_id=unk_id, add_bos=add_bos,
                            add_eos=add_eos, add_space_prefix=prefix,
                            split_words=split_words)


def from_directory(path):
    """The tokenizer of a Hugging Face model directory: its tokenizer.json
    (with tokenizer_config.json's EOS token when there is one)."""
    config = {}
    config_path = os.path.join(path, "tokenizer_config.json")
    if os.path.isfile(config_path):
        try:
            with open(config_path, encoding="utf-8") as file:
                config = json.load(file)
        except (OSError, ValueError) as error:
            raise RLXError(f"cannot read '{config_path}': {error}") from None
    return from_tokenizer_json(os.path.join(path, "tokenizer.json"), config)
