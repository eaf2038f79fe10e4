# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""SentencePiece-style BPE: the vocabularies of Llama 1/2, Mistral and
their GGUF files (`tokenizer.ggml.model` = "llama") and of tokenizer.json
files with a Metaspace pre-tokenizer or a `▁` normalizer.

Encoding: spaces become `▁` (U+2581) and, when `add_space_prefix`, a `▁`
is put before the text; the text is split into characters and adjacent
symbols merged, the pair whose merged text has the highest score first
(GGUF's `tokenizer.ggml.scores`, SentencePiece's piece scores) or, for a
tokenizer.json, the pair of lowest merge rank, leftmost among equals.
Merges only form pieces of the vocabulary (normal, user-defined or
unused); an unused piece is split back into the two it was formed of. A
character that is no piece is written as the tokens of its UTF-8 bytes,
`<0x00>`..`<0xFF>` (byte fallback), or as the unknown token when the
vocabulary has no byte tokens. This is llama.cpp's llm_tokenizer_spm and
SentencePiece's BPE model (bpe_model.cc) without its normalizer: text is
taken as given (SentencePiece's `identity` normalization)."""

from .._capi import RLXError
from ._base import BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED, \
    Tokenizer
from ._merge import merge

SPACE = "\u2581"
# What SentencePiece decodes the unknown token to.
_UNKNOWN_TEXT = " \u2047 "


class SentencePieceBPE(Tokenizer):
    """`scores` (one per token) order merges by score; or `merges`, a list
    of (left, right) pairs, by rank (tokenizer.json). `split_words` cuts
    the text before each `▁` first (tokenizer.json's Metaspace with
    `split`)."""

    def __init__(self, tokens, types, scores=None, merges=None,
                 bos_id=None, eos_id=None, unk_id=None, add_bos=True,
                 add_eos=False, add_space_prefix=True, split_words=False):
        super().__init__(tokens, types, bos_id, eos_id, add_bos, add_eos,
                         unk_id)
        self.add_space_prefix = add_space_prefix
        self.split_words = split_words
        self._pieces = {t: i for i, t in reversed(list(enumerate(
            self.tokens))) if self.types[i] in (NORMAL, USER_DEFINED,
                                                UNUSED)}
        self._byte_ids = {}
        for index, (token, kind) in enumerate(zip(self.tokens, self.types)):
            if kind == BYTE:
                value = _byte_value(token)
                if value is None:
                    raise RLXError(f"byte token {index} is {token!r}, not "
                                   "<0xNN>")
                self._byte_ids.setdefault(value, index)
        if scores is not None:
            if len(scores) != len(self.tokens):
                raise RLXError(f"{len(scores)} scores for {len(self.tokens)} "
                               "tokens")
            negated = [-float(s) for s in scores]
            pieces = self._pieces
            self._priority = lambda a, b: (
                negated[pieces[a + b]] if a + b in pieces else None)
        elif merges is not None:
            ranks = {}
            for rank, pair in enumerate(merges):
                ranks.setdefault(tuple(pair), rank)
            self._priority = lambda a, b: ranks.get((a, b))
        else:
            raise RLXError("a SentencePiece vocabulary needs scores or "
                           "merges")

    def _encode_text(self, text, at_start):
        if not text:
            return []
        if self.add_space_prefix and at_start:
            text = " " + text
        text = text.replace(" ", SPACE)
        if self.split_words:
            words, start = [], 0
            for i in range(1, len(text) + 1):
                if i == len(text) or text[i] == SPACE:
                    words.append(text[start:i])
                    start = i
        else:
            words = [text]
        ids = []
        for word in words:
            symbols, parts = merge(list(word), self._priority)
            for symbol in symbols:
                self._emit(symbol, parts, ids)
        return ids

    def _emit(self, symbol, parts, ids):
        """The ids of a final symbol: its piece, the pieces it was merged
        from if it is an unused one, or its bytes."""
        token = self._pieces.get(symbol)
        if token is not None and self.types[token] != UNUSED:
            ids.append(token)
        elif symbol in parts:
            left, right = parts[symbol]
            self._emit(left, parts, ids)
            self._emit(right, parts, ids)
        elif self._byte_ids:
            for byte in symbol.encode("utf-8"):
                if byte not in self._byte_ids:
                    raise RLXError(f"the vocabulary has no byte token "
                                   f"<0x{byte:02X}> for {symbol!r}")
                ids.append(self._byte_ids[byte])
        elif self.unk_id is not None:
            ids.append(self.unk_id)
        else:
            raise RLXError(f"{symbol!r} is not in the vocabulary, which has "
                           "no byte tokens and no unknown token")

    def token_bytes(self, token, skip_special=True):
        self._check_id(token)
        kind, text = self.types[token], self.tokens[token]
        if kind == BYTE:
            return bytes([_byte_value(text)])
        if kind == CONTROL:
            return b"" if skip_special else text.encode("utf-8")
        if kind == UNKNOWN:
            return _UNKNOWN_TEXT.encode("utf-8")
        return text.replace(SPACE, " ").encode("utf-8")

    def decode(self, ids, skip_special=True):
        """The text of `ids`; with `add_space_prefix`, less the space the
        prefix put before the text."""
        text = super().decode(ids, skip_special)
        if self.add_space_prefix and text.startswith(" "):
            text = text[1:]
        return text


def _byte_value(token):
    """NN of a byte token `<0xNN>`, or None."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return int(token[3:5], 16)
        except ValueError:
            return None
    return None


def byte_types(tokens, types=None):
    """Token types where a vocabulary gives none (tokenizer.json): <0xNN>
    tokens are byte tokens, the others `types`' or normal."""
    types = list(types) if types is not None else [NORMAL] * len(tokens)
    for index, token in enumerate(tokens):
        if types[index] == NORMAL and _byte_value(token) is not None:
            types[index] = BYTE
    return types
