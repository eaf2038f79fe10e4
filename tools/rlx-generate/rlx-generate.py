#!/usr/bin/env python3
# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx-generate -m MODEL_DIR --prompt-ids 1,2,3 [-n 64] [--temp 0]
                [--top-k 0] [--top-p 1] [--repeat-penalty 1] [--seed 0]
                [-c CAPACITY] [--target cpu]

Generates tokens with a model of rlx.models (docs/llm.md), llama.cpp's
flags where they exist: prints the new token ids as they come, then the
prefill and decode rates. A thin front end over rlx.models.load and
rlx.generate; it runs with the rlx package on PYTHONPATH (build/python)."""

import argparse
import sys

import rlx
import rlx.models
from rlx.generation import GenerationStats


def _ids(text):
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated token ids, got '{text}'") from None


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="rlx-generate",
        description="Generate tokens with an rlx language model.")
    parser.add_argument("-m", "--model", required=True,
                        help="Hugging Face model directory (config.json, "
                             "*.safetensors)")
    parser.add_argument("--prompt-ids", type=_ids, required=True,
                        help="the prompt as token ids: 1,2,3 (text prompts "
                             "need a tokenizer, which rlx has not yet)")
    parser.add_argument("-n", "--n-predict", type=int, default=64,
                        help="tokens to generate (default 64)")
    parser.add_argument("--temp", type=float, default=0.0,
                        help="sampling temperature; 0 is greedy (default)")
    parser.add_argument("--top-k", type=int, default=0,
                        help="sample from the k likeliest tokens (0: all)")
    parser.add_argument("--top-p", type=float, default=1.0,
                        help="nucleus sampling threshold (1: off)")
    parser.add_argument("--repeat-penalty", type=float, default=1.0,
                        help="repetition penalty (1: off)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-c", "--ctx-size", type=int, default=None,
                        help="KV cache positions (default: the model's "
                             "max_position_embeddings)")
    parser.add_argument("--target", default="cpu", choices=rlx.targets())
    parser.add_argument("--eos", type=_ids, default=None,
                        help="token ids that end generation: 2 or 2,32000")
    args = parser.parse_args(argv)

    try:
        model = rlx.models.load(args.model, capacity=args.ctx_size,
                                target=args.target)
        stats = GenerationStats()
        for token in rlx.generate(
                model, args.prompt_ids, args.n_predict,
                temperature=args.temp, top_k=args.top_k, top_p=args.top_p,
                repetition_penalty=args.repeat_penalty, seed=args.seed,
                eos_token_id=args.eos, stats=stats):
            print(token, end=" ", flush=True)
        print()
    except rlx.RLXError as error:
        print(f"rlx-generate: {error}", file=sys.stderr)
        return 1
    prefill, decode = stats.rates()
    print(f"prompt: {stats.prompt_tokens} tokens, prefill {prefill:.1f} "
          f"tokens/s; generated: {stats.generated_tokens} tokens, decode "
          f"{decode:.1f} tokens/s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
