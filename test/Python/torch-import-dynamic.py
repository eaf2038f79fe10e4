# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.torch.import_module(..., dynamic=...): whole models imported once
with a symbolic batch (and sequence), compiled once and run at several
sizes against eager PyTorch, and the shapes a `?` dim cannot express
refused with an error naming the node.

Models: an MLP that flattens with x.view(x.size(0), -1); torchvision's
resnet18 (random weights, batch norm calibrated as
torchvision_models.py does, 64x64 images); nn.TransformerEncoder
(batch_first, 2 layers; make_fx) with a symbolic batch and sequence; a
GPT-2-style block that reads `b, t, c = x.size()` and views
x.view(b, t, heads, d) (make_fx); nn.MultiheadAttention with a key
padding mask (rlx.attention); constants over the batch (torch.zeros of
x.size(0), new_zeros); the first row of a symbolic sequence; mixed
precision (dtype="bf16"); the command line's --dynamic and
--dynamic-dim. Each run at 2 or 3 sizes, none of them the
example's, on fresh random inputs: f32 within rtol 1e-5 and atol 1e-5 of
the output's largest magnitude (bf16: 2e-2). The seed is printed;
RLX_TEST_SEED=<seed> replays it.

Usage: torch-import-dynamic.py SCRATCH_DIR"""

import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision

import rlx
import rlx.torch
from pychecks import check, expect_error, finish, test_seed

scratch = sys.argv[1]
os.makedirs(scratch, exist_ok=True)
seed = test_seed()
torch.manual_seed(seed)


def run_at(name, graph, module, make_inputs, sizes, rtol=1e-5, atol=1e-5):
    """Runs `graph` at each of `sizes` (make_inputs(*size) -> inputs) and
    compares with eager PyTorch: within rtol and atol times the output's
    largest magnitude."""
    for size in sizes:
        inputs = make_inputs(*size)
        with torch.no_grad():
            want = module(*inputs).float().numpy()
        got = graph(*[x.numpy() for x in inputs])
        scale = max(1.0, float(np.max(np.abs(want))))
        error = float(np.max(np.abs(got - want))) \
            if got.shape == want.shape else float("inf")
        check(got.shape == want.shape and
              np.allclose(got, want, rtol=rtol, atol=atol * scale),
              f"{name} at {size}: shape {got.shape}, max abs error "
              f"{error:.2e} (scale {scale:.2f})")


def symbolic_types(name, mlir, *types):
    for t in types:
        check(t in mlir, f"{name}: the graph has {t}")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3 * 6 * 6, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        x = x.view(x.size(0), -1)
        return self.fc2(torch.relu(self.fc1(x)))


# The MLP, its batch symbolic (dynamic=True: dim 0 of every input).
mlp = MLP().eval()
mlir, params = rlx.torch.import_module(mlp, torch.randn(2, 3, 6, 6),
                                       dynamic=True)
symbolic_types("mlp", mlir, 'tensor<?x3x6x6xf32> {rlx.input = "x"}',
               "new_shape = [-1, 108]", "-> tensor<?x5xf32>")
run_at("mlp", rlx.compile(mlir, params=params), mlp,
       lambda b: (torch.randn(b, 3, 6, 6),), [(1,), (3,), (8,)])

# resnet18 at a symbolic batch, imported at batch 2.
resnet = torchvision.models.resnet18(weights=None)
for norm in resnet.modules():
    if isinstance(norm, nn.BatchNorm2d):
        norm.momentum = None  # a cumulative average over the batch below
        norm.weight.data.uniform_(0.5, 1.5)
        norm.bias.data.uniform_(-0.2, 0.2)
resnet.train()
with torch.no_grad():
    resnet(torch.randn(8, 3, 64, 64))
resnet.eval()
mlir, params = rlx.torch.import_module(resnet, torch.randn(2, 3, 64, 64),
                                       dynamic=True)
symbolic_types("resnet18", mlir, 'tensor<?x3x64x64xf32> {rlx.input = "x"}',
               "-> tensor<?x1000xf32>")
run_at("resnet18", rlx.compile(mlir, params=params), resnet,
       lambda b: (torch.randn(b, 3, 64, 64),), [(1,), (3,), (5,)])

# nn.TransformerEncoder (make_fx: its fast-path checks defeat symbolic
# tracing) with a symbolic batch and sequence: aten's linear layers
# flatten [seq, batch, d] to [seq * batch, d] and back, its attention
# views [seq, batch, d] as [seq, batch * heads, d / heads].
layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
encoder = nn.TransformerEncoder(layer, 2).eval()
mlir, params = rlx.torch.import_module(
    encoder, torch.randn(2, 5, 16),
    dynamic={"src": {0: "batch", 1: "seq"}})
symbolic_types("TransformerEncoder", mlir,
               'tensor<?x?x16xf32> {rlx.input = "src"}',
               "-> tensor<?x?x16xf32>")
check("rlx.reshape" not in mlir,
      "TransformerEncoder: no reshape (the merged dims stay unmerged)")
encoder_graph = rlx.compile(mlir, params=params)
run_at("TransformerEncoder", encoder_graph, encoder,
       lambda b, s: (torch.randn(b, s, 16),), [(1, 3), (3, 7), (4, 2)])


class GPTBlock(nn.Module):
    """Causal-free GPT-2-style attention, its sizes read from x.size()."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (y.view(b, t, 4, c // 4).transpose(1, 2)
                   for y in (q, k, v))
        att = (q @ k.transpose(-2, -1) * 0.5).softmax(-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


block = GPTBlock().eval()
mlir, params = rlx.torch.import_module(block, torch.randn(2, 5, 16),
                                       dynamic={"x": {0: "b", 1: "t"}})
symbolic_types("GPT block", mlir, 'tensor<?x?x16xf32> {rlx.input = "x"}')
run_at("GPT block", rlx.compile(mlir, params=params), block,
       lambda b, t: (torch.randn(b, t, 16),), [(1, 4), (3, 9)])


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, padding):
        return self.attention(x, x, x, key_padding_mask=padding,
                              need_weights=False)[0]


def padded(b, s):
    padding = torch.rand(b, s) < 0.3
    padding[:, 0] = False  # a key of each row not masked
    return torch.randn(b, s, 16), padding


attention = Attention().eval()
mlir, params = rlx.torch.import_module(
    attention, *padded(2, 5),
    dynamic={"x": {0: "batch", 1: "seq"}, "padding": {0: "batch",
                                                      1: "seq"}})
symbolic_types("MultiheadAttention", mlir,
               'tensor<?x?xi1> {rlx.input = "padding"}', "rlx.attention")
run_at("MultiheadAttention", rlx.compile(mlir, params=params), attention,
       padded, [(1, 3), (3, 6)])


class Fn(nn.Module):
    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, x):
        return self.function(x)


# Constants made in forward over the batch: splats over the `?` dim.
splats = Fn(lambda x: torch.cat([x + torch.ones(x.size(0), 4),
                                 x.new_zeros(x.size(0) * 2, 4)], 0))
mlir, params = rlx.torch.import_module(splats.eval(), torch.randn(2, 4),
                                       dynamic=True)
symbolic_types("splats", mlir, "-> tensor<?x4xf32>")
run_at("splats", rlx.compile(mlir, params=params), splats,
       lambda b: (torch.randn(b, 4),), [(1,), (5,)])

# A slice of the first row of the sequence (a class token), beside the
# whole input: the slice at both sizes, the reduction over all rows.
first = Fn(lambda x: x[:, 0] * 2 + x.mean(1))
mlir, params = rlx.torch.import_module(first.eval(), torch.randn(2, 4, 3),
                                       dynamic={"x": {0: "b", 1: "s"}})
symbolic_types("first row", mlir, "rlx.narrow", "-> tensor<?x3xf32>")
run_at("first row", rlx.compile(mlir, params=params), first,
       lambda b, s: (torch.randn(b, s, 3),), [(1, 1), (3, 6)])

# Mixed precision: the parameters' casts at the top of the body.
small = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16),
                      nn.Linear(16, 4)).eval()
mlir, params = rlx.torch.import_module(small, torch.randn(3, 8),
                                       dynamic=True, dtype="bf16")
symbolic_types("bf16", mlir, 'tensor<?x8xf32> {rlx.input = "input"}')
run_at("bf16", rlx.compile(mlir, params=params), small,
       lambda b: (torch.randn(b, 8),), [(1,), (6,)], rtol=2e-2, atol=2e-2)

# The command line: --dynamic, and --dynamic-dim for each dim.
factory = os.path.join(scratch, "factory.py")
with open(factory, "w") as file:
    file.write("import torch\n"
               "def make():\n"
               "    torch.manual_seed(3)\n"
               "    return torch.nn.Linear(4, 3), (torch.randn(2, 5, 4),)\n")
mlir_path = os.path.join(scratch, "model.mlir")
weights = os.path.join(scratch, "model.safetensors")
for flags, want in ((["--dynamic"], "tensor<?x5x4xf32>"),
                    (["--dynamic-dim", "input:0=batch", "--dynamic-dim",
                      "input:-2=seq"], "tensor<?x?x4xf32>")):
    run = subprocess.run([sys.executable, "-m", "rlx.torch",
                          factory + ":make", "-o", mlir_path, "--params",
                          weights] + flags, capture_output=True, text=True)
    ok = run.returncode == 0
    check(ok and want in open(mlir_path).read(),
          f"python3 -m rlx.torch {' '.join(flags)}: {want} "
          f"{run.stderr.strip()}")
    if ok:
        torch.manual_seed(3)
        linear = nn.Linear(4, 3).eval()
        run_at(f"command line {flags[0]}",
               rlx.compile(mlir_path, params=weights), linear,
               lambda b: (torch.randn(b, 5, 4),), [(1,), (3,)])
bad = subprocess.run([sys.executable, "-m", "rlx.torch", factory + ":make",
                      "-o", mlir_path, "--dynamic-dim", "input=batch"],
                     capture_output=True, text=True)
check(bad.returncode == 1 and "INPUT:DIM=NAME" in bad.stderr,
      f"command line error: {bad.stderr.strip()}")


# What a `?` dim cannot express: errors naming the node and the dim.
def refused(function, x, dynamic, needles, what):
    def imported():
        rlx.torch.import_module(Fn(function).eval(), x, dynamic=dynamic)
    for needle in needles:
        expect_error(imported, needle, what)


batch_seq = {"x": {0: "batch", 1: "seq"}}
refused(lambda x: x / x.size(0), torch.randn(2, 4), True,
        ["node 'truediv'", "2 at batch=2; 5 at batch=5",
         "depends on the size of a symbolic dim"],
        "a number computed from the batch size")
refused(lambda x: x[:, :x.size(1) - 1], torch.randn(2, 5, 4), batch_seq,
        ["node 'getitem'", "rlx.narrow's length",
         "4 at batch=2, seq=5", "10 at batch=2, seq=11",
         "not a product of the symbolic dims"],
        "a slice of seq - 1 rows")
refused(lambda x: x[:4] * 2, torch.randn(2, 3), True,
        ["node 'getitem'", "rlx.narrow's length", "4 at batch=5"],
        "a slice the batch fills below its bound (x[:4])")
refused(lambda x: x[:, :4] + 1, torch.randn(2, 5, 3), batch_seq,
        ["node 'getitem'", "the whole dim or its first row"],
        "a slice of the first rows of a `?` dim")
refused(lambda x: x @ x.transpose(1, 2) + torch.triu(
            torch.ones(x.size(1), x.size(1)), 1), torch.randn(2, 5, 4),
        batch_seq,
        ["node 'add'", "[5, 5] at batch=2, seq=5",
         "[11, 11] at batch=2, seq=11", "not one value repeated"],
        "a mask over the sequence computed at import time")
refused(lambda x: torch.cumsum(x.reshape(-1, 4), 0).view(
            x.size(0), x.size(1), 4), torch.randn(2, 5, 4), batch_seq,
        ["node 'view'", "[batch*seq, 4] to [batch, seq, 4]",
         "rlx.reshape infers one `?` dim"],
        "a merged `?` dim split again")
refused(lambda x: torch.relu(x) if x.size(0) > 3 else torch.sigmoid(x),
        torch.randn(2, 4), True,
        ["node 'sigmoid' at batch=2, 'relu' at batch=5",
         "Python control flow on a size"],
        "Python control flow on the batch size (make_fx)")


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 3, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


expect_error(lambda: rlx.torch.import_module(
    Recurrent().eval(), torch.randn(2, 5, 4), dynamic=True),
    "rlx.scan takes static shapes", "an LSTM over a symbolic batch")
expect_error(lambda: rlx.torch.import_module(
    nn.Conv1d(3, 4, 3).eval(), torch.randn(2, 3, 10),
    dynamic={"input": {2: "length"}}),
    "computed from static sizes", "a convolution over a symbolic length")

# Requests import_module refuses.
linear = nn.Linear(4, 3).eval()
for dynamic, x, needle in (
        ({"x": {0: "batch"}}, torch.randn(2, 4), "not an input of forward"),
        ({"input": {2: "batch"}}, torch.randn(2, 4), "dim 2 of a rank-2"),
        ({"input": {0: "2b"}}, torch.randn(2, 4), "named by an identifier"),
        ({"input": [0]}, torch.randn(2, 4), "give {dim: symbol name}"),
        ("batch", torch.randn(2, 4), "give True"),
        (True, torch.randn(1, 4), "a size of at least 2")):
    expect_error(lambda: rlx.torch.import_module(linear, x, dynamic=dynamic),
                 needle, f"dynamic={dynamic!r}")
expect_error(lambda: rlx.torch.import_module(
    Fn(lambda x: x).eval(), torch.randn(2, 4),
    dynamic={"x": {0: "b", 1: "b"}}),
    "dims of one symbol are one size", "one symbol of two sizes")

finish()
