# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""What every tokenizer of rlx.tokenizers shares: the vocabulary and its
token types, the BOS/EOS conventions, the splitting of text around
special tokens, decoding through each token's bytes, and streaming
decode."""

import codecs
import re

from .._capi import RLXError

# GGUF's token types (llama.cpp's llama_token_type, SentencePiece's
# ModelProto.SentencePiece.Type).
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


class StreamDecoder:
    """Text of tokens given one at a time: `push(id)` returns the text
    that is complete so far, holding back the bytes of a UTF-8 character
    split across tokens until its last byte comes; `flush()` returns what
    is held (an incomplete character as U+FFFD)."""

    def __init__(self, tokenizer, skip_special=True):
        self._tokenizer = tokenizer
        self._skip_special = skip_special
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def push(self, token):
        return self._utf8.decode(
            self._tokenizer.token_bytes(token, self._skip_special))

    def flush(self):
        return self._utf8.decode(b"", final=True)


class Tokenizer:
    """A vocabulary `tokens` (id -> text) with `types` (id -> one of the
    token types above), `bos_id`/`eos_id` (None if absent) and whether
    encode adds them. Subclasses give `_encode_text(text, at_start)` (the
    ids of text without special tokens; `at_start` when it begins the
    input) and `token_bytes(id)`."""

    def __init__(self, tokens, types, bos_id=None, eos_id=None,
                 add_bos=False, add_eos=False, unk_id=None):
        if len(types) != len(tokens):
            raise RLXError(f"the vocabulary has {len(tokens)} tokens and "
                           f"{len(types)} token types")
        self.tokens = list(tokens)
        self.types = [int(t) for t in types]
        for name, value in (("bos", bos_id), ("eos", eos_id),
                            ("unknown", unk_id)):
            if value is not None and not 0 <= value < len(self.tokens):
                raise RLXError(f"the {name} token id {value} is outside the "
                               f"vocabulary of {len(self.tokens)} tokens")
        self.bos_id, self.eos_id, self.unk_id = bos_id, eos_id, unk_id
        self.add_bos, self.add_eos = bool(add_bos), bool(add_eos)
        self.ids = {}
        for index, token in enumerate(self.tokens):
            # The first of duplicate texts wins, as in llama.cpp.
            self.ids.setdefault(token, index)
        self._special_patterns = {}

    @property
    def vocab_size(self):
        return len(self.tokens)

    def _check_id(self, token):
        if not 0 <= token < len(self.tokens):
            raise RLXError(f"token id {token} is outside the vocabulary of "
                           f"{len(self.tokens)} tokens")

    def _special_pattern(self, parse_special):
        """A regex finding the tokens encode keeps whole: user-defined
        tokens always, control tokens too when `parse_special`; longest
        first, so that one containing another wins."""
        if parse_special not in self._special_patterns:
            kinds = {USER_DEFINED, CONTROL} if parse_special else \
                {USER_DEFINED}
            texts = sorted({t for t, k in zip(self.tokens, self.types)
                            if k in kinds and t}, key=len, reverse=True)
            self._special_patterns[parse_special] = (
                re.compile("|".join(map(re.escape, texts))) if texts
                else None)
        return self._special_patterns[parse_special]

    def encode(self, text, add_special=True, parse_special=False):
        """Token ids of `text`: BOS first and EOS last when the vocabulary
        adds them (and `add_special`); user-defined tokens, and with
        `parse_special` control tokens (`<s>`, `<|eot_id|>`) written in
        the text, become their ids."""
        ids = [self.bos_id] if (add_special and self.add_bos
                                and self.bos_id is not None) else []
        pattern = self._special_pattern(parse_special)
        last = 0
        for match in (pattern.finditer(text) if pattern else ()):
            if match.start() > last:
                ids += self._encode_text(text[last:match.start()],
                                         at_start=last == 0)
            ids.append(self.ids[match.group()])
            last = match.end()
        if last < len(text):
            ids += self._encode_text(text[last:], at_start=last == 0)
        if add_special and self.add_eos and self.eos_id is not None:
            ids.append(self.eos_id)
        return ids

    def token_bytes(self, token, skip_special=True):
        """The bytes token `token` stands for (control tokens: none when
        `skip_special`, else their text)."""
        raise NotImplementedError

    def decode(self, ids, skip_special=True):
        """The text of `ids` (bytes that are not UTF-8 as U+FFFD)."""
        return b"".join(self.token_bytes(int(t), skip_special)
                        for t in ids).decode("utf-8", errors="replace")

    def stream(self, skip_special=True):
        """A StreamDecoder of this vocabulary."""
        return StreamDecoder(self, skip_special)
