# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""GPT-2-style byte-level BPE: the vocabularies of GPT-2, Llama 3, Qwen2
and their GGUF files (`tokenizer.ggml.model` = "gpt2") and of
tokenizer.json files with a ByteLevel pre-tokenizer.

Encoding: the pre-tokenizer cuts the text into words (pretokenize.py);
each word's UTF-8 bytes are written as characters of GPT-2's byte-to-
unicode map (printable bytes as themselves, the others moved past
U+00FF), and adjacent symbols are merged by the rank of their pair in
the merge list, lowest first, leftmost among equals (llama.cpp's
llm_tokenizer_bpe, Hugging Face's BPE model). With `ignore_merges` (Llama
3) a word that is a token is that token without merging."""

from .._capi import RLXError
from ._base import CONTROL, Tokenizer, USER_DEFINED, UNKNOWN
from ._merge import merge


def bytes_to_unicode():
    """GPT-2's map of the 256 byte values to printable characters: the
    printable Latin-1 ones to themselves, the rest to U+0100 onwards in
    byte order."""
    kept = (list(range(ord("!"), ord("~") + 1))
            + list(range(ord("\u00a1"), ord("\u00ac") + 1))
            + list(range(ord("\u00ae"), ord("\u00ff") + 1)))
    mapping, extra = {}, 0
    for byte in range(256):
        if byte in kept:
            mapping[byte] = chr(byte)
        else:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return mapping


BYTE_TO_UNICODE = bytes_to_unicode()
UNICODE_TO_BYTE = {c: b for b, c in BYTE_TO_UNICODE.items()}
_BYTE_CHARS = [BYTE_TO_UNICODE[b] for b in range(256)]


def parse_merges(merges):
    """(left, right) pairs of merges given as "left right" strings (GGUF,
    older tokenizer.json) or as pairs (newer tokenizer.json)."""
    pairs = []
    for index, merge_rule in enumerate(merges):
        if isinstance(merge_rule, str):
            left, space, right = merge_rule.partition(" ")
            if not space or not left or not right:
                raise RLXError(f"merge {index} {merge_rule!r} is not "
                               "'left right'")
            pairs.append((left, right))
        elif len(merge_rule) == 2:
            pairs.append((str(merge_rule[0]), str(merge_rule[1])))
        else:
            raise RLXError(f"merge {index} {merge_rule!r} is not a pair")
    return pairs


class ByteLevelBPE(Tokenizer):
    """`merges`: (left, right) pairs, rank by position. `pre_split`: text
    -> words (pretokenize.splitter or a scheme's split). `add_prefix_space`
    puts a space before the text (tokenizer.json's ByteLevel option)."""

    def __init__(self, tokens, types, merges, pre_split, bos_id=None,
                 eos_id=None, add_bos=False, add_eos=False,
                 ignore_merges=False, add_prefix_space=False, unk_id=None):
        super().__init__(tokens, types, bos_id, eos_id, add_bos, add_eos,
                         unk_id)
        self._ranks = {}
        for rank, pair in enumerate(parse_merges(merges)):
            self._ranks.setdefault(pair, rank)
        self._split = pre_split
        self.ignore_merges = ignore_merges
        self.add_prefix_space = add_prefix_space

    def _encode_text(self, text, at_start):
        if self.add_prefix_space and at_start and not text.startswith(" "):
            text = " " + text
        ranks, ids, out = self._ranks, self.ids, []
        for word in self._split(text):
            mapped = "".join(_BYTE_CHARS[b] for b in word.encode("utf-8"))
            if self.ignore_merges and mapped in ids:
                out.append(ids[mapped])
                continue
            symbols, _ = merge(list(mapped),
                               lambda a, b: ranks.get((a, b)))
            for symbol in symbols:
                token = ids.get(symbol)
                if token is not None:
                    out.append(token)
                    continue
                # A symbol no merge made a token: its bytes one by one.
                for char in symbol:
                    token = ids.get(char, self.unk_id)
                    if token is None:
                        raise RLXError(
                            f"byte 0x{UNICODE_TO_BYTE[char]:02X} of "
                            f"{word!r} has no token and the vocabulary no "
                            "unknown token")
                    out.append(token)
        return out

    def token_bytes(self, token, skip_special=True):
        self._check_id(token)
        kind, text = self.types[token], self.tokens[token]
        if kind == CONTROL:
            return b"" if skip_special else text.encode("utf-8")
        if kind in (USER_DEFINED, UNKNOWN):
            return text.encode("utf-8")
        # A character outside the byte map (which a well-formed vocabulary
        # has not) stands for its own UTF-8.
        return b"".join(bytes([UNICODE_TO_BYTE[c]]) if c in UNICODE_TO_BYTE
                        else c.encode("utf-8") for c in text)
