# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Decoder-only language models built as rlx graphs (docs/llm.md).

    model = rlx.models.load("hf-model-dir", capacity=256)  # or "m.gguf"
    cache = model.new_cache(batch=1)
    logits = model.step(cache, [[1, 2, 3]])   # prefill: [1, 3, vocab]
    logits = model.step(cache, [[4]])         # decode:  [1, 1, vocab]

A family module (llama.py, gpt2.py) gives a config class read from
config.json (its weight_shapes, derived_params, check_capacity and,
optionally, checkpoint_names and fused_projections) and `step_graph`;
`CausalLM` compiles its graphs, binds the weights and runs steps over a
KVCache. GGUF files are
read by gguf_loader.py into the same config and tensor names; their
block-quantized linear weights stay packed (rlx.dequant_matmul)."""

import glob
import json
import os

import numpy as np

from .. import compile as _compile
from .._capi import RLXError
from ..generation import KVCache
from ..gguf import QuantizedTensor
from ..safetensors import read_safetensors, write_safetensors
from . import gpt2, llama
from .gguf_loader import read_gguf_model

__all__ = ["CausalLM", "is_gguf", "load", "read_hf_directory"]

# model_type of config.json -> the family that builds it.
_FAMILIES = {"llama": llama, "mistral": llama, "qwen2": llama,
             "gpt2": gpt2}
_CONFIGS = {llama: llama.LlamaConfig, gpt2: gpt2.GPT2Config}


def read_hf_directory(path):
    """The config.json dict and every tensor of the *.safetensors files of
    a Hugging Face model directory (one file or shards), as float32."""
    config_path = os.path.join(path, "config.json")
    try:
        with open(config_path) as file:
            config = json.load(file)
    except OSError as error:
        raise RLXError(f"cannot read '{config_path}': {error.strerror}") \
            from None
    files = sorted(glob.glob(os.path.join(path, "*.safetensors")))
    if not files:
        raise RLXError(f"'{path}' holds no *.safetensors file")
    tensors = {}
    for name in files:
        for key, array in read_safetensors(name).items():
            tensors[key] = array.astype(np.float32, copy=False)
    return config, tensors


class CausalLM:
    """A decoder-only model: its config, weights and the step graphs
    compiled for `target`, one per batch size and kind of step (prefill,
    a `?` token count; decode, one token). `tokenizer` (rlx.tokenizers)
    is the model's when its files have one, else None."""

    tokenizer = None

    def __init__(self, config, weights, capacity=None, target="cpu"):
        family = _FAMILIES[config.model_type]
        self.config = config
        self.capacity = capacity or config.max_position_embeddings
        config.check_capacity(self.capacity)
        self.target = target
        self._family = family
        if hasattr(config, "checkpoint_names"):
            weights = config.checkpoint_names(weights)
        self._checkpoint = _checked_weights(config, weights)
        self._weights, self._packed = self._graph_weights(0, 1)
        self._graphs = {}

    def _graph_weights(self, rank, ranks):
        """The step graph's parameters on rank `rank` of a tensor-parallel
        mesh of `ranks` (name -> array; packed weights as their ui8
        bytes), and the packed ones' (scheme, byte count)."""
        checkpoint = self._checkpoint
        if ranks > 1:
            if not hasattr(self.config, "rank_weights"):
                raise RLXError(f"{self.config.model_type}: tensor "
                               "parallelism is built for the Llama family "
                               "only")
            checkpoint = self.config.rank_weights(checkpoint, rank, ranks)
        # Quantized linear weights: their bytes are the graph's ui8
        # parameters, multiplied by rlx.dequant_matmul of their scheme.
        packed = {name: ("gguf_" + value.type.name, value.data.size)
                  for name, value in checkpoint.items()
                  if isinstance(value, QuantizedTensor)}
        weights = {name: (value.data if name in packed else value)
                   for name, value in checkpoint.items()}
        # Projections the graph multiplies as one (llama.py's
        # fused_projections): their tensors stacked along the rows; packed
        # weights' bytes concatenated (GGUF rows are independent).
        if hasattr(self.config, "fused_projections"):
            for name, parts in self.config.fused_projections(packed).items():
                weights[name] = np.concatenate(
                    [weights.pop(part) for part in parts])
                if parts[0] in packed:
                    scheme = packed[parts[0]][0]
                    packed[name] = (scheme, weights[name].size)
                    for part in parts:
                        del packed[part]
        weights.update(self.config.derived_params(self.capacity))
        return weights, packed

    @classmethod
    def from_config(cls, config_dict, weights, capacity=None, target="cpu"):
        """From a config.json dict and a name -> array mapping of
        checkpoint tensors."""
        family = _FAMILIES.get(config_dict.get("model_type"))
        if family is None:
            known = ", ".join(sorted(_FAMILIES))
            raise RLXError(f"config.json: model_type "
                           f"{config_dict.get('model_type')!r} is not one "
                           f"rlx.models builds ({known})")
        config = _CONFIGS[family].from_hf(config_dict)
        return cls(config, weights, capacity, target)

    def graph(self, batch, tokens):
        """The compiled step for `batch` sequences of `tokens` tokens each
        (None: any number), weights bound."""
        key = (batch, tokens)
        if key not in self._graphs:
            text = self._family.step_graph(self.config, batch, tokens,
                                           self.capacity, self._packed)
            self._graphs[key] = _compile(text, target=self.target,
                                         params=self._weights)
        return self._graphs[key]

    def _step_graph(self, batch, count):
        if count == 1:
            return self.graph(batch, 1)
        if self.target == "cpu":
            return self.graph(batch, None)
        # The cuda target compiles static shapes only (docs/abi.md): one
        # prefill graph per token count.
        return self.graph(batch, count)

    def prepare(self, batch, prompt_length):
        """Compiles the graphs a generation of `batch` sequences from
        prompts of `prompt_length` tokens runs, so that timing the steps
        leaves compilation out."""
        self._step_graph(batch, prompt_length)
        self._step_graph(batch, 1)

    def greedy_step(self, tokens, batch=1, dtype="f32", ranks=1):
        """Module text of the greedy step of `tokens` tokens per sequence
        (DecoderStep: tokens, positions and caches are `rlx.param`s that
        its results replace), whose parameters `write_weights` writes:
        `rlx-run --steps` repeats the one-token step on the device, the
        prompt's step (the prompt's length) starts it (docs/llm.md).
        `ranks` > 1: each rank's step of a tensor-parallel run over that
        many ranks (the Llama family; docs/llm.md, "Tensor
        parallelism")."""
        return self.step_text(tokens, batch, dtype, ranks, greedy=True)

    def step_text(self, tokens, batch=1, dtype="f32", ranks=1,
                  greedy=False):
        """Module text of the step of `tokens` tokens per sequence (None:
        a `?` count) returning the logits, or with `greedy` the chosen
        tokens (greedy_step); `ranks` as greedy_step's."""
        if ranks == 1:
            return self._family.step_graph(self.config, batch, tokens,
                                           self.capacity, self._packed,
                                           dtype, greedy=greedy)
        # The ranks' slices have the same shapes: rank 0's byte counts.
        packed = self._graph_weights(0, ranks)[1]
        return self._family.step_graph(self.config, batch, tokens,
                                       self.capacity, packed, dtype,
                                       greedy=greedy, ranks=ranks)

    def write_weights(self, path, dtype="f32", ranks=1):
        """The step graphs' parameters (the checkpoint's tensors and the
        derived tables) as one .safetensors file, floats in `dtype` (f32,
        bf16 or f16; quantized weights keep their packed bytes). `ranks` >
        1 writes each rank's slices (`rank_weights`) to its own file:
        `path` holds `{rank}`, as rlx-run's `--params` reads it."""
        if ranks > 1:
            if "{rank}" not in os.fspath(path):
                raise RLXError(f"write_weights: '{path}' has no {{rank}} "
                               f"to name the files of {ranks} ranks")
            for rank in range(ranks):
                weights, packed = self._graph_weights(rank, ranks)
                self._write_tensors(
                    os.fspath(path).replace("{rank}", str(rank)), weights,
                    packed, dtype)
            return
        self._write_tensors(path, self._weights, self._packed, dtype)

    @staticmethod
    def _write_tensors(path, weights, packed, dtype):
        floats = [n for n in weights if n not in packed]
        tensors = dict(weights)
        if dtype == "f16":
            tensors.update({n: tensors[n].astype(np.float16)
                            for n in floats})
        elif dtype not in ("f32", "bf16"):
            raise RLXError(f"write_weights: dtype {dtype!r} is not f32, "
                           "bf16 or f16")
        write_safetensors(path, tensors,
                          bf16=floats if dtype == "bf16" else ())

    def write_greedy_state(self, path, prompts, dtype="f32", ranks=1):
        """The arguments a greedy step over `prompts` ([batch, count] ids,
        all of one length) starts from, as one .safetensors file: the
        tokens, their positions 0 .. count - 1 and empty caches (of each
        rank's kv heads for `ranks` > 1; every rank starts from the same
        file)."""
        prompts = np.asarray(prompts, dtype=np.int64)
        if prompts.ndim != 2 or prompts.shape[1] > self.capacity:
            raise RLXError(f"prompts of shape {list(prompts.shape)}: want "
                           f"[batch, count] with count <= {self.capacity}")
        cache = self.new_cache(prompts.shape[0], ranks)
        state = {"tokens": prompts, "positions": cache.positions(
            prompts.shape[1])}
        for index, array in enumerate(cache.arrays):
            kind = "key" if index % 2 == 0 else "value"
            state[f"cache.{index // 2}.{kind}"] = (
                array.astype(np.float16) if dtype == "f16" else array)
        write_safetensors(path, state, bf16=[n for n in state
                                             if n.startswith("cache.")]
                          if dtype == "bf16" else ())

    def new_cache(self, batch=1, ranks=1):
        """An empty KV cache of `batch` sequences (of one rank's kv heads
        of a tensor-parallel mesh of `ranks`)."""
        c = self.config
        if hasattr(c, "check_ranks"):
            c.check_ranks(ranks)
        elif ranks != 1:
            raise RLXError(f"{c.model_type}: tensor parallelism is built "
                           "for the Llama family only")
        return KVCache(c.num_hidden_layers, batch,
                       c.num_key_value_heads // ranks, self.capacity,
                       c.head_dim)

    def step(self, cache, tokens):
        """Runs `tokens` ([batch, count] ids, the next `count` of each
        sequence of `cache`) through the model; writes their keys and
        values into `cache` and returns the logits [batch, count, vocab].
        One token per sequence runs the decode graph, more the prefill
        graph."""
        tokens = np.asarray(tokens, dtype=np.int64)
        if tokens.ndim != 2 or tokens.shape[0] != cache.batch:
            raise RLXError(f"tokens of shape {list(tokens.shape)} for a "
                           f"cache of {cache.batch} sequences: want "
                           f"[{cache.batch}, count]")
        count = tokens.shape[1]
        positions = cache.positions(count)
        graph = self._step_graph(cache.batch, count)
        names = [a.name for a in graph.inputs]
        feeds = dict(zip(names[2:], cache.arrays))
        results = graph(tokens=tokens, positions=positions, **feeds)
        cache.arrays = list(results[1:])
        cache.lengths += count
        return results[0]


def _checked_weights(config, weights):
    """The checkpoint tensors the graph reads, float32 (or, for a linear
    weight, a QuantizedTensor), each checked against its expected
    shape."""
    checked = {}
    for name, shape in config.weight_shapes().items():
        if name not in weights:
            raise RLXError(f"the checkpoint has no tensor '{name}' "
                           f"({list(shape)})")
        value = weights[name]
        if isinstance(value, QuantizedTensor):
            if tuple(value.shape) != shape:
                raise RLXError(f"tensor '{name}' is {list(value.shape)}, "
                               f"the config wants {list(shape)}")
            checked[name] = value
            continue
        array = np.asarray(value, dtype=np.float32)
        if array.shape != shape:
            raise RLXError(f"tensor '{name}' is {list(array.shape)}, the "
                           f"config wants {list(shape)}")
        checked[name] = array
    return checked


def is_gguf(path):
    """Whether `path` is a GGUF file: a file named *.gguf or starting with
    the magic "GGUF"."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        return False
    if path.endswith(".gguf"):
        return True
    with open(path, "rb") as file:
        return file.read(4) == b"GGUF"


def load(path, capacity=None, target="cpu"):
    """A CausalLM from a Hugging Face model directory (config.json and
    *.safetensors; its tokenizer.json, when there is one, becomes the
    model's tokenizer) or a GGUF file (llama.cpp's names and metadata; its
    embedded vocabulary becomes the tokenizer), whose KV caches hold
    `capacity` positions (default: the model's context length), compiled
    for `target`."""
    from .. import tokenizers
    if is_gguf(path):
        config, tensors, gguf = read_gguf_model(path)
        model = CausalLM.from_config(config, tensors, capacity, target)
        if "tokenizer.ggml.model" in gguf.metadata:
            model.tokenizer = tokenizers.from_gguf(gguf.metadata, gguf.path)
        return model
    config, tensors = read_hf_directory(path)
    model = CausalLM.from_config(config, tensors, capacity, target)
    if os.path.isfile(os.path.join(path, "tokenizer.json")):
        model.tokenizer = tokenizers.from_directory(path)
    return model
