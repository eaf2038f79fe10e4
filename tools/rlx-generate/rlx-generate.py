#!/usr/bin/env python3
# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx-generate -m MODEL (-p TEXT | --prompt-ids 1,2,3) [-n 64] [--temp 0]
                [--top-k 0] [--top-p 1] [--repeat-penalty 1] [--seed 0]
                [-c CAPACITY] [--target cpu] [--print-ids] [--ignore-eos]

Generates text with a model of rlx.models (docs/llm.md), a GGUF file or a
Hugging Face directory, llama.cpp's flags where they exist: streams the
new text as it comes (or, with --print-ids or a model without a
tokenizer, the new token ids on one line), then the prefill and decode
rates. Stops at the model's end-of-sequence token unless --ignore-eos. A
thin front end over rlx.models.load and rlx.generate; it runs with the
rlx package on PYTHONPATH (build/python)."""

import argparse
import sys

import rlx
import rlx.models
from rlx.generation import GenerationStats, encode_prompt


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
                        help="a GGUF file or a Hugging Face model directory "
                             "(config.json, *.safetensors, tokenizer.json)")
    prompt = parser.add_mutually_exclusive_group(required=True)
    prompt.add_argument("-p", "--prompt",
                        help="the prompt as text, encoded by the model's "
                             "tokenizer")
    prompt.add_argument("--prompt-ids", type=_ids,
                        help="the prompt as token ids: 1,2,3")
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
                        help="token ids that end generation: 2 or 2,32000 "
                             "(default: the tokenizer's end-of-sequence "
                             "token)")
    parser.add_argument("--ignore-eos", action="store_true",
                        help="generate all -n tokens, past end-of-sequence")
    parser.add_argument("--print-ids", action="store_true",
                        help="print the generated token ids on one line "
                             "instead of the text")
    args = parser.parse_args(argv)

    try:
        model = rlx.models.load(args.model, capacity=args.ctx_size,
                                target=args.target)
        tokenizer = model.tokenizer
        prompt = args.prompt_ids
        if prompt is None:
            prompt = encode_prompt(model, args.prompt)
        eos = args.eos
        if eos is None and tokenizer is not None:
            eos = tokenizer.eos_id
        if args.ignore_eos:
            eos = None
        stream = None if args.print_ids or tokenizer is None \
            else tokenizer.stream()
        stats = GenerationStats()
        for token in rlx.generate(
                model, prompt, args.n_predict,
                temperature=args.temp, top_k=args.top_k, top_p=args.top_p,
                repetition_penalty=args.repeat_penalty, seed=args.seed,
                eos_token_id=eos, stats=stats):
            if stream is None:
                print(token, end=" ", flush=True)
            else:
                print(stream.push(token), end="", flush=True)
        print(stream.flush() if stream is not None else "")
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
