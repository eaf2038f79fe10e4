# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The merge loop BPE tokenizers share: symbols of a word merged pair by
pair, the pair of the best priority first and, among equals, the
leftmost, until no adjacent pair has a priority (llama.cpp's
llm_tokenizer_spm and llm_tokenizer_bpe, SentencePiece's bpe_model.cc and
Hugging Face's BPE model all run this order).

A heap of candidate pairs over a linked list of symbols: O(n log n) in
the word's length, where rescanning the word for its best pair after each
merge would be O(n^2) on a long word without spaces."""

import heapq


def merge(symbols, priority):
    """The symbols (strings) of a word after merging: `priority(left,
    right)` is a sortable key of the pair (smaller merges first) or None
    when the two do not merge. Returns the final symbols and a dict from
    each merged text to the (left, right) texts it was merged from (to
    split a symbol again, as SentencePiece does with unused pieces)."""
    count = len(symbols)
    text = list(symbols)
    prev = list(range(-1, count - 1))
    nxt = list(range(1, count + 1))
    nxt[-1:] = [-1] if count else []
    alive = [True] * count
    heap = []
    parts = {}

    def push(left):
        right = nxt[left]
        if right < 0:
            return
        key = priority(text[left], text[right])
        if key is not None:
            heapq.heappush(heap, (key, left, text[left], text[right]))

    for i in range(count - 1):
        push(i)
    while heap:
        _, left, left_text, right_text = heapq.heappop(heap)
        right = nxt[left]
        # A pair whose symbols changed since it was pushed is stale.
        if (not alive[left] or right < 0 or text[left] != left_text
                or text[right] != right_text):
            continue
        text[left] = left_text + right_text
        parts[text[left]] = (left_text, right_text)
        alive[right] = False
        nxt[left] = nxt[right]
        if nxt[right] >= 0:
            prev[nxt[right]] = left
        if prev[left] >= 0:
            push(prev[left])
        push(left)
    return [text[i] for i in range(count) if alive[i]], parts
