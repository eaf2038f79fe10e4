# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Exports a model with torch.onnx.export (a symbolic batch dim), imports
the file with rlx.onnx, compiles it once and runs it at two batch sizes,
comparing every output with eager PyTorch (f32, CPU).

Models: resnet18 and mobilenet_v2 (torchvision, random weights, batch norm
statistics calibrated as in torchvision_models.py so that activations stay
near unit scale; the export folds batch norm into the convolutions),
bert (a BERT encoder layer written as BERT is: separate Q, K, V
projections, an additive attention mask, exact GELU, post-norm), encoder
(nn.TransformerEncoderLayer, GELU, norm first), lstm (a 2-layer
bidirectional nn.LSTM with a linear head), gru (a bidirectional nn.GRU
with a given initial state, then an nn.RNN with relu; sequence first). resnet18 is saved with its
initializers in an external data file.

Tolerance: every output element within 2e-5 of the output's largest
magnitude plus 1e-5 relative (the translated graphs accumulate in a
different order than PyTorch; deep convolution chains lose about 1e-6 of
the scale). Fresh random weights and inputs each run; the seed is
printed, RLX_TEST_SEED=<seed> replays it.

Usage: onnx_models.py WORKDIR MODEL... (a name above, or any torchvision
classifier's, at the model suite's input size: 299x299 for inception_v3;
scripts/onnx-models.sh runs the whole suite through ONNX)
"""

import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn

import rlx
import rlx.onnx
from pychecks import check, finish, test_seed

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "Models"))
import models  # noqa: E402 (the model suite's registry)

workdir, names = sys.argv[1], sys.argv[2:]
seed = test_seed()
torch.manual_seed(seed)


def calibrated(model, example):
    """Random batch norm affines and statistics from a random batch."""
    for norm in model.modules():
        if isinstance(norm, nn.BatchNorm2d):
            norm.momentum = None
            norm.weight.data.uniform_(0.5, 1.5)
            norm.bias.data.uniform_(-0.2, 0.2)
    model.train()
    with torch.no_grad():
        model(example)
    return model.eval()


def torchvision_model(name):
    import torchvision
    # The model suite's input size (inception_v3's is 299x299).
    spec = models.REGISTRY.get(name)
    size = spec.inputs(1, torch.Generator())[0].shape[-1] if spec else 224
    model = getattr(torchvision.models, name)(weights=None)
    for linear in model.modules():
        # vit's head starts at zero: the logits would be too.
        if isinstance(linear, nn.Linear) and not linear.weight.any():
            linear.weight.data.normal_(0, 0.05)
    model = calibrated(model, torch.randn(4, 3, size, size))
    return model, [torch.randn(1, 3, size, size)], \
        [torch.randn(3, 3, size, size)]


class BertLayer(nn.Module):
    def __init__(self, hidden=64, heads=4, ffn=128):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.output = nn.Linear(hidden, hidden)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.out = nn.Linear(ffn, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def split(self, x):
        b, s, h = x.shape
        return x.view(b, s, self.heads, h // self.heads).permute(0, 2, 1, 3)

    def forward(self, x, mask):
        q, k, v = (self.split(f(x)) for f in (self.query, self.key,
                                               self.value))
        scores = q @ k.transpose(-1, -2) / (q.shape[-1] ** 0.5)
        # mask [B, S]: 1 keeps a key, 0 masks it.
        scores = scores + (1.0 - mask[:, None, None, :]) * -10000.0
        context = torch.softmax(scores, dim=-1) @ v
        b, _, s, _ = context.shape
        context = context.permute(0, 2, 1, 3).reshape(b, s, -1)
        x = self.norm1(x + self.output(context))
        hidden = self.intermediate(x)
        hidden = hidden * 0.5 * (1.0 + torch.erf(hidden / 2 ** 0.5))
        return self.norm2(x + self.out(hidden))


def mask(batch, seq):
    m = torch.ones(batch, seq)
    for i in range(batch):
        m[i, torch.randint(1, seq, ()).item():] = 0
    return m


def bert():
    return BertLayer().eval(), [torch.randn(2, 16, 64), mask(2, 16)], \
        [torch.randn(5, 16, 64), mask(5, 16)]


def encoder():
    layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0,
                                       activation="gelu", batch_first=True,
                                       norm_first=True).eval()
    return layer, [torch.randn(2, 12, 64)], [torch.randn(3, 12, 64)]


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, bidirectional=True,
                            batch_first=True)
        self.head = nn.Linear(64, 8)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out), h, c


def lstm():
    return Tagger().eval(), [torch.randn(2, 10, 16)], [torch.randn(4, 10, 16)]


class GruEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(16, 24, bidirectional=True)
        self.rnn = nn.RNN(48, 12, nonlinearity="relu")

    def forward(self, x, h0):
        out, h = self.gru(x, h0)
        return self.rnn(out)[0], h


def gru():
    # Sequence-first; the batch is dim 1.
    return GruEncoder().eval(), \
        [torch.randn(7, 2, 16), torch.randn(2, 2, 24)], \
        [torch.randn(7, 3, 16), torch.randn(2, 3, 24)]


MODELS = {"resnet18": lambda: torchvision_model("resnet18"),
          "mobilenet_v2": lambda: torchvision_model("mobilenet_v2"),
          "bert": bert, "encoder": encoder, "lstm": lstm, "gru": gru}


def compare(name, graph, model, inputs, input_names):
    batch = inputs[0].shape[name == "gru"]
    with torch.no_grad():
        want = model(*inputs)
    want = [want] if isinstance(want, torch.Tensor) else list(want)
    got = graph(**{n: x.numpy() for n, x in zip(input_names, inputs)})
    got = [got] if isinstance(got, np.ndarray) else list(got)
    check(len(got) == len(want), f"{name}: {len(want)} outputs")
    for i, (g, w) in enumerate(zip(got, want)):
        w = w.numpy()
        scale = float(np.max(np.abs(w)))
        error = float(np.max(np.abs(g - w))) if g.shape == w.shape \
            else float("inf")
        check(g.shape == w.shape and np.allclose(
            g, w, rtol=1e-5, atol=2e-5 * scale) and scale > 1e-3,
            f"{name} batch {batch} output {i} {list(w.shape)}: max abs "
            f"error {error:.2e} ({error / max(scale, 1e-30):.1e} of the "
            f"scale {scale:.2e})")


for name in names:
    # Any other torchvision classifier by name (not run by the lit test).
    model, example, other = MODELS.get(
        name, lambda: torchvision_model(name))()
    input_names = [f"input{i}" for i in range(len(example))]
    with torch.no_grad():
        outputs = model(*example)
    count = 1 if isinstance(outputs, torch.Tensor) else len(outputs)
    output_names = [f"output{i}" for i in range(count)]
    path = os.path.join(workdir, f"{name}.onnx")
    # Batch dim 0 of every input and output is symbolic (the LSTM's states
    # have the batch in dim 1).
    axes = {n: {0: "batch"} for n in input_names + output_names}
    if name == "lstm":
        axes["output1"] = axes["output2"] = {1: "batch"}
    if name == "gru":
        axes = {n: {1: "batch"} for n in input_names + output_names}
    torch.onnx.export(model, tuple(example), path, opset_version=17 if
                      name != "mobilenet_v2" else 13,
                      input_names=input_names, output_names=output_names,
                      dynamic_axes=axes)
    if name == "resnet18":
        proto = onnx.load(path)
        onnx.save_model(proto, path, save_as_external_data=True,
                        all_tensors_to_one_file=True,
                        location="resnet18.data", size_threshold=1024)
        check(os.path.exists(os.path.join(workdir, "resnet18.data")),
              "resnet18: initializers saved as external data")
    if name in ("lstm", "gru"):
        # rlx.scan loops take static shapes: one import per batch size,
        # the symbolic dim given its size.
        for inputs in (example, other):
            mlir, params = rlx.onnx.import_model(
                path, dims={"batch": inputs[0].shape[name == "gru"]})
            compare(name, rlx.compile(mlir, params=params), model, inputs,
                    input_names)
        continue
    mlir, params = rlx.onnx.import_model(path)
    check("tensor<?x" in mlir.split("->")[0], f"{name}: a `?` batch dim")
    graph = rlx.compile(mlir, params=params)
    compare(name, graph, model, example, input_names)
    compare(name, graph, model, other, input_names)
finish()
