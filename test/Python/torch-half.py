# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""f16 and bf16 import (docs/torch-importer.md, "Half precision"): a model
in .half() / .bfloat16(), and an f32 model imported with dtype="f16" /
"bf16" (mixed precision), compiled for the CPU and run, against PyTorch in
f32.

Models: torchvision's resnet50 (3x64x64, batch 1), a BERT encoder layer
(nn.TransformerEncoderLayer, GELU, through make_fx on fake tensors when in
f16 / bf16) and a GPT-2 block (causal self-attention and a GELU MLP,
pre-norm). Random weights after torch.manual_seed(seed); resnet50's batch
norm statistics are calibrated by two train-mode passes, then eval. Its
affine parameters are drawn at random, the last batch norm of each residual
branch with a scale in [0, 0.2] (as zero_init_residual training starts
them): with scales near 1 the random network is chaotic, and PyTorch's own
f32 forward with each layer's output rounded to f16 differs from f32 by 5%
of the logits' scale (bf16: 25%), which no tolerance can tell from a bug.

References: for a model in f16 / bf16, PyTorch f32 of the same (rounded)
weights and input; for mixed precision, the f32 model itself.
Error: max |rlx - reference| / max |reference|, which must stay within
TOLERANCE, 16 units of roundoff of the dtype (f16: 16 * 2^-11 = 7.8e-3,
bf16: 16 * 2^-8 = 6.3e-2); the largest errors measured over several seeds
are in docs/torch-importer.md (at most 0.3 of it, resnet50 in bf16).

Usage: torch-half.py MODEL[,MODEL...] MODE[,MODE...] [SEED]
  MODEL: resnet50, bert, gpt2; MODE: f16, bf16 (the model converted),
  mixed-f16, mixed-bf16 (dtype= from f32). The seed is random unless given
  (or RLX_TEST_SEED, which overrides SEED); it is printed.
"""

import copy
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn

import rlx
import rlx.torch
from pychecks import check, expect_error, finish

LOWER_MODULES = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d,
                 nn.MultiheadAttention, nn.LSTM, nn.GRU)
NORM_MODULES = (nn.LayerNorm, nn.GroupNorm, nn.BatchNorm2d)
TORCH_DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
# 16 units of roundoff (half the dtype's epsilon).
TOLERANCE = {"f16": 16 * 2.0 ** -11, "bf16": 16 * 2.0 ** -8}


def resnet50():
    import torchvision
    model = torchvision.models.resnet50(weights=None)
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.momentum = None  # cumulative average over calibration
            module.weight.data.uniform_(0.5, 1.5)
            module.bias.data.uniform_(-0.2, 0.2)
    for block in model.modules():
        if isinstance(block, torchvision.models.resnet.Bottleneck):
            block.bn3.weight.data.uniform_(0.0, 0.2)
    model.train()
    with torch.no_grad():
        for _ in range(2):
            model(torch.randn(8, 3, 64, 64))
    return model.eval(), (torch.randn(1, 3, 64, 64),)


def bert():
    layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0,
                                       activation="gelu", batch_first=True)
    return layer.eval(), (torch.randn(2, 16, 128),)


class GPT2Block(nn.Module):
    """GPT-2's block: x + attn(ln_1(x)), then + mlp(ln_2(x)); causal
    self-attention with a fused qkv projection, a 4x MLP with GELU (tanh
    form)."""

    def __init__(self, embed=128, heads=4):
        super().__init__()
        self.heads, self.head_dim = heads, embed // heads
        self.ln_1, self.ln_2 = nn.LayerNorm(embed), nn.LayerNorm(embed)
        self.c_attn = nn.Linear(embed, 3 * embed)
        self.c_proj = nn.Linear(embed, embed)
        self.mlp = nn.Sequential(nn.Linear(embed, 4 * embed),
                                 nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * embed, embed))

    def attention(self, x):
        batch, length, embed = x.size()
        q, k, v = self.c_attn(x).split(embed, dim=2)
        shape = (batch, length, self.heads, embed // self.heads)
        q = q.view(shape).transpose(1, 2)
        k = k.view(shape).transpose(1, 2)
        v = v.view(shape).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        causal = scores.new_ones(length, length).tril()
        scores = scores.masked_fill(causal == 0, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(batch, length, embed)
        return self.c_proj(y)

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


def gpt2():
    return GPT2Block().eval(), (torch.randn(2, 24, 128),)


class Attention(nn.Module):
    """nn.MultiheadAttention as one rlx.attention, with a causal mask."""

    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(64, 4, batch_first=True)

    def forward(self, x):
        mask = torch.triu(torch.full((12, 12), float("-inf")), diagonal=1)
        return self.attention(x, x, x, attn_mask=mask,
                              need_weights=False)[0]


class Recurrent(nn.Module):
    """The output sequence of an LSTM or GRU (rlx.scan)."""

    def __init__(self, kind):
        super().__init__()
        self.rnn = kind(32, 24, num_layers=2, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


class Head(nn.Module):
    """An embedding, a 1-d convolution, cumsum and log_softmax."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(40, 32)
        self.conv = nn.Conv1d(32, 16, 3, padding=1)

    def forward(self, ids):
        y = self.conv(self.embedding(ids).transpose(1, 2))
        return torch.log_softmax(y.cumsum(-1), dim=1)


class Decoder(nn.Module):
    """Transposed convolution, group norm, average pooling (ceil_mode)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1)
        self.norm = nn.GroupNorm(4, 8)
        self.pool = nn.AvgPool2d(3, 2, ceil_mode=True,
                                 count_include_pad=False)

    def forward(self, x):
        return self.pool(torch.nn.functional.silu(self.norm(self.up(x))))


# Ops the three models do not use, one small module each.
OPS = {
    "attention": lambda: (Attention().eval(), (torch.randn(2, 12, 64),)),
    "lstm": lambda: (Recurrent(nn.LSTM).eval(), (torch.randn(2, 10, 32),)),
    "gru": lambda: (Recurrent(nn.GRU).eval(), (torch.randn(2, 10, 32),)),
    "head": lambda: (Head().eval(), (torch.randint(0, 40, (2, 20)),)),
    "decoder": lambda: (Decoder().eval(), (torch.randn(1, 16, 9, 9),)),
}
MODELS = {"resnet50": resnet50, "bert": bert, "gpt2": gpt2, **OPS}


def as_numpy(tensor):
    """An input as rlx takes it: f16 as float16, bf16 (which NumPy lacks)
    as float32 of the bf16 values."""
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.float()
    return tensor.detach().numpy()


def run(name, mode, model, inputs):
    low = mode.replace("mixed-", "")
    dtype = TORCH_DTYPES[low]
    if mode.startswith("mixed-"):
        imported, args = model, inputs
        mlir, params = rlx.torch.import_module(model, *inputs, dtype=low)
        with torch.no_grad():
            want = model(*inputs).float().numpy()
        # Parameters of linear layers, convolutions, attention and
        # recurrences are stored low, those of norms in f32.
        expected = {}
        for path, module in model.named_modules():
            kind = low if isinstance(module, LOWER_MODULES) else "f32" \
                if isinstance(module, NORM_MODULES) else None
            tensors = list(module.named_parameters(recurse=False)) + [
                (n, b) for n, b in module.named_buffers(recurse=False)
                if b.is_floating_point()]
            for tensor_name, _ in tensors if kind else ():
                expected[f"{path}.{tensor_name}".lstrip(".")] = kind
        stored = [n for n, kind in expected.items()
                  if f'x{kind}> {{rlx.param = "{n}"' in mlir]
        counts = [sum(1 for k in expected.values() if k == kind)
                  for kind in (low, "f32")]
        check(len(stored) == len(expected),
              f"{name} {mode}: {counts[0]} parameters of matmuls, "
              f"convolutions, attention and recurrences stored in {low}, "
              f"{counts[1]} of norms in f32"
              + "".join(f"; '{n}' not in {k}" for n, k in expected.items()
                        if n not in stored))
    else:
        imported = copy.deepcopy(model).to(dtype)
        args = tuple(x.to(dtype) if x.is_floating_point() else x
                     for x in inputs)
        mlir, params = rlx.torch.import_module(imported, *args)
        with torch.no_grad():
            want = copy.deepcopy(imported).float()(
                *[x.float() if x.is_floating_point() else x
                  for x in args]).numpy()
        floats = [line for line in mlir.splitlines() if "rlx.param" in line
                  and any(f"x{t}>" in line for t in ("f16", "bf16", "f32"))]
        check(floats and all(f"x{low}>" in line for line in floats),
              f"{name} {mode}: every floating parameter in {low}")
    graph = rlx.compile(mlir, params=params)
    got = graph(*[as_numpy(x) for x in args])
    got = np.asarray(got, dtype=np.float32)
    scale = float(np.max(np.abs(want)))
    error = float(np.max(np.abs(got - want))) / scale
    check(got.shape == want.shape and error <= TOLERANCE[low] and
          scale > 1e-2,
          f"{name} {mode}: max error {error:.2e} of max |ref| {scale:.3g} "
          f"(tolerance {TOLERANCE[low]:.1e})")


class TiedLM(nn.Module):
    """An embedding whose table is also the output projection: in mixed
    precision the table is read in f32 (the gather) and in the low dtype
    (the matmul)."""

    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(50, 32)
        self.ln = nn.LayerNorm(32)

    def forward(self, ids):
        return self.ln(self.wte(ids)) @ self.wte.weight.t()


def tied_and_errors():
    model, ids = TiedLM().eval(), torch.randint(0, 50, (2, 7))
    mlir, params = rlx.torch.import_module(model, ids, dtype="bf16")
    with torch.no_grad():
        want = model(ids).numpy()
    got = np.asarray(rlx.compile(mlir, params=params)(ids.numpy()),
                     dtype=np.float32)
    error = float(np.max(np.abs(got - want))) / float(np.max(np.abs(want)))
    check(mlir.count('rlx.param = "wte.weight"') == 1 and
          'tensor<50x32xf32> {rlx.param = "wte.weight"' in mlir and
          "to bf16" in mlir and params["wte.weight"].dtype == np.float32 and
          error <= TOLERANCE["bf16"],
          f"tied table: one f32 argument cast to bf16 for the matmul, max "
          f"error {error:.2e}")
    expect_error(lambda: rlx.torch.import_module(model, ids, dtype="f64"),
                 "mixed precision takes 'f16' or 'bf16'", "dtype='f64'")
    expect_error(lambda: rlx.torch.import_module(
        copy.deepcopy(model).half(), ids, dtype="f16"),
        "'wte.weight' is torch.float16", "dtype= of an f16 model")


def command_line():
    """python3 -m rlx.torch --dtype bf16 and a model in bf16: the bf16
    parameters are written as bf16 and bind to the graph from the file."""
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "model.py"), "w") as file:
            file.write(
                "import torch\n"
                "def make(dtype=torch.float32):\n"
                "    torch.manual_seed(0)\n"
                "    m = torch.nn.Sequential(torch.nn.Linear(8, 16),\n"
                "        torch.nn.LayerNorm(16), torch.nn.Linear(16, 4))\n"
                "    return m.to(dtype), (torch.randn(3, 8).to(dtype),)\n"
                "def make_bf16():\n"
                "    return make(torch.bfloat16)\n")
        for factory, options, low in (("make", ["--dtype", "bf16"], False),
                                      ("make_bf16", [], True)):
            mlir = os.path.join(folder, factory + ".mlir")
            weights = os.path.join(folder, factory + ".safetensors")
            subprocess.run(
                [sys.executable, "-m", "rlx.torch",
                 f"{folder}/model.py:{factory}", "-o", mlir, "--params",
                 weights] + options, check=True)
            stored = rlx.read_safetensors(weights)
            graph = rlx.compile(mlir, params=weights)
            sys.path.insert(0, folder)
            import model as factories
            module, (x,) = getattr(factories, factory)()
            sys.path.pop(0)
            with torch.no_grad():
                want = copy.deepcopy(module).float()(x.float()).numpy()
            got = np.asarray(graph(x.float().numpy()), dtype=np.float32)
            error = float(np.max(np.abs(got - want))) / \
                float(np.max(np.abs(want)))
            check(error <= TOLERANCE["bf16"] and
                  ('tensor<16xbf16> {rlx.param = "0.bias"' in
                   open(mlir).read()) and
                  ('tensor<16xbf16> {rlx.param = "1.weight"' in
                   open(mlir).read()) == low and len(stored) == 6,
                  f"python3 -m rlx.torch {factory} {' '.join(options)}: "
                  f"bf16 parameters from the file, max error {error:.2e}")


def main():
    names, modes = sys.argv[1].split(","), sys.argv[2].split(",")
    seed = int(os.environ.get("RLX_TEST_SEED", "0")) or \
        (int(sys.argv[3]) if len(sys.argv) > 3 else
         int.from_bytes(os.urandom(4), "little"))
    print(f"seed {seed} (replay with RLX_TEST_SEED={seed})")
    for name in names:
        torch.manual_seed(seed)
        model, inputs = MODELS[name]()
        for mode in modes:
            run(name, mode, model, inputs)
    if "gpt2" in names:
        tied_and_errors()
        command_line()
    finish()


if __name__ == "__main__":
    main()
