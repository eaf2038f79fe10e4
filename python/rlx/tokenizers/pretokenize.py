# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The pre-tokenizers of byte-level BPE vocabularies: the regular
expressions that cut text into the words BPE merges within, as scanners
in plain Python (the expressions use \\p{L} and \\p{N}, which Python's
`re` lacks).

    split(text, "gpt2")    # GPT-2:     's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+|
                           #            ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|
                           #            \\s+(?!\\S)|\\s+
    split(text, "llama3")  # Llama 3:   (?i:'s|'t|'re|'ve|'m|'ll|'d)|
                           #            [^\\r\\n\\p{L}\\p{N}]?\\p{L}+|
                           #            \\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|
                           #            \\s*[\\r\\n]+|\\s+(?!\\S)|\\s+
    split(text, "qwen2")   # Qwen2: Llama 3's with \\p{N} one digit at a time

Each scanner tries the alternatives in the expression's order at each
position and takes the first that matches, as a backtracking regex engine
does; `\\s` is Unicode's White_Space, `\\p{L}` a letter (category L*),
`\\p{N}` a number (N*). test/Python/tokenizers.py compares them with the
`regex` module on random text. `PATTERNS` maps each expression, as
tokenizer.json spells it, to its scanner; other expressions run through
the `regex` module when it is installed."""

import unicodedata

from .._capi import RLXError

# Unicode's White_Space property (what `regex` matches with \s).
WHITESPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f"
                       "\u205f\u3000" + "".join(chr(c) for c in
                                                 range(0x2000, 0x200b)))
_CONTRACTIONS = ("s", "t", "re", "ve", "m", "ll", "d")


def _is_letter(c):
    return unicodedata.category(c)[0] == "L"


def _is_number(c):
    return unicodedata.category(c)[0] == "N"


def _is_other(c):
    """[^\\s\\p{L}\\p{N}]"""
    return not (c in WHITESPACE or _is_letter(c) or _is_number(c))


def _run(text, i, test, limit=None):
    """The end of the run of characters passing `test` from i (at most
    `limit` of them)."""
    end = len(text) if limit is None else min(len(text), i + limit)
    while i < end and test(text[i]):
        i += 1
    return i


def _contraction(text, i, fold):
    """The end of 's, 't, 're, 've, 'm, 'll or 'd at i (case-folded when
    `fold`), or None."""
    if text[i] != "'":
        return None
    for suffix in _CONTRACTIONS:
        piece = text[i + 1:i + 1 + len(suffix)]
        if len(piece) == len(suffix) and all(
                (c.casefold() if fold else c) == s
                for c, s in zip(piece, suffix)):
            return i + 1 + len(suffix)
    return None


def _whitespace(text, i):
    """\\s+(?!\\S)|\\s+ at i (a whitespace character): the run, less its
    last character when a non-space follows it and it is longer than
    one."""
    end = _run(text, i, WHITESPACE.__contains__)
    if end < len(text) and end - i > 1:
        end -= 1
    return end


def _gpt2_word(text, i):
    end = _contraction(text, i, fold=False)
    if end is not None:
        return end
    start = i + 1 if text[i] == " " and i + 1 < len(text) else i
    c = text[start]
    if start > i and c in WHITESPACE:
        return _whitespace(text, i)
    for test in (_is_letter, _is_number, _is_other):
        if test(c):
            return _run(text, start, test)
    return _whitespace(text, i)


def _llama3_word(text, i, digits):
    end = _contraction(text, i, fold=True)
    if end is not None:
        return end
    c = text[i]
    if _is_letter(c):
        return _run(text, i, _is_letter)
    if (c not in "\r\n" and not _is_number(c) and i + 1 < len(text)
            and _is_letter(text[i + 1])):
        return _run(text, i + 1, _is_letter)
    if _is_number(c):
        return _run(text, i, _is_number, digits)
    start = i + 1 if c == " " and i + 1 < len(text) and \
        _is_other(text[i + 1]) else i
    if _is_other(text[start]):
        end = _run(text, start, _is_other)
        return _run(text, end, "\r\n".__contains__)
    # \s*[\r\n]+: the whitespace run up to its last line break.
    end = _run(text, i, WHITESPACE.__contains__)
    last_break = max(text.rfind("\r", i, end), text.rfind("\n", i, end))
    if last_break >= 0:
        return last_break + 1
    return _whitespace(text, i)


_SCANNERS = {
    "gpt2": _gpt2_word,
    "llama3": lambda text, i: _llama3_word(text, i, 3),
    "qwen2": lambda text, i: _llama3_word(text, i, 1),
}

# tokenizer.json's Split patterns -> the scanner that computes them.
PATTERNS = {
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|"
    r"\s+(?!\S)|\s+": "gpt2",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+": "llama3",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+": "qwen2",
}

# llama.cpp's tokenizer.ggml.pre names -> scanners.
GGUF_PRE = {"default": "gpt2", "gpt-2": "gpt2", "gpt2": "gpt2",
            "llama3": "llama3", "llama-v3": "llama3", "llama-bpe": "llama3",
            "smaug-bpe": "llama3", "qwen2": "qwen2"}


def split(text, scheme):
    """The words of `text` under pre-tokenizer `scheme` (a key of
    _SCANNERS), in order; their concatenation is `text`."""
    scan = _SCANNERS[scheme]
    words, i = [], 0
    while i < len(text):
        end = scan(text, i)
        words.append(text[i:end])
        i = end
    return words


def splitter(pattern):
    """A function text -> words for a tokenizer.json Split pattern: a
    scanner for the patterns of PATTERNS, the `regex` module for others
    (RLXError when it is not installed)."""
    if pattern in PATTERNS:
        scheme = PATTERNS[pattern]
        return lambda text: split(text, scheme)
    try:
        import regex
    except ImportError:
        raise RLXError(f"the pre-tokenizer pattern {pattern!r} needs the "
                       "`regex` module (python3-regex), which is not "
                       "installed") from None
    try:
        compiled = regex.compile(pattern)
    except regex.error as error:
        raise RLXError(f"the pre-tokenizer pattern {pattern!r}: {error}") \
            from None

    def words(text):
        # Split(behavior=Isolated): matches are words, and so is the text
        # between them.
        out, last = [], 0
        for match in compiled.finditer(text):
            if match.start() > last:
                out.append(text[last:match.start()])
            if match.end() > match.start():
                out.append(match.group())
            last = match.end()
        if last < len(text):
            out.append(text[last:])
        return out
    return words
