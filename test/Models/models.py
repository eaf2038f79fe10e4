#!/usr/bin/python3
# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The model suite: whole PyTorch models imported with rlx.torch, compiled,
run, and compared with eager PyTorch.

For each (model, batch) it imports `model.eval()` on an example input of
that batch (`rlx.torch.import_module` with static shapes, so batch 1 and
batch 2 are separate imports), compiles it (`rlx.compile(mlir,
params=params)`), runs it on that input and compares with eager PyTorch in
f32 under torch.no_grad():

    error = max|rlx - eager| / max|eager|   must be <= 1e-4 (TOLERANCE)

or, where it is not (deep networks accumulate f32 rounding past 1e-4 in
eager PyTorch itself: resnet152), rlx must be as close to the model's f64
result as eager's f32 output is: max|rlx - f64| <= 2 max(max|eager - f64|,
1e-6 max|f64|) (f64_errors; the status then says so).

Weights are random (nothing is downloaded) and made non-degenerate, so that
every layer is exercised and a wrong translation shows in the output:
- batch norm affine parameters are drawn at random (weight U(0.5, 1.5),
  bias U(-0.2, 0.2)) and the running statistics calibrated by three
  train-mode forward passes on random batches of 4 under torch.no_grad()
  with momentum=None (a cumulative average), then .eval(); with
  torchvision's initial statistics batch norm is the identity, and the
  activations of deep networks shrink towards subnormals;
- layer norm affine parameters are drawn the same way (torchvision
  initialises them to the identity);
- an nn.Linear/Conv whose weight is all zeros (torchvision's ViT head,
  zero-initialised residual branches) is re-initialised by its own
  reset_parameters(), and an all-zero bias of a Linear/Conv/
  MultiheadAttention is drawn from U(-0.1, 0.1) (a dropped bias would
  otherwise go unnoticed);
- ConvNeXt's layer scales (1e-6 at initialisation, which hides every
  block behind its residual connection) are drawn from U(0.5, 1.5).
The eager output on a batch-2 input must then vary across the batch
(max|out[0] - out[1]| > 1e-3 max|out|) and not be tiny (max|out| >= 1e-3);
otherwise the model FAILS as degenerate, without importing it.

Status of each (model, batch), one line each:
  pass
  pass (f32 rounding: X from the f64 result, eager's Y)
                                      error > tolerance, as eager's own
  FAIL (wrong answer: error X)        imports, runs, error > tolerance: never
                                      expected, even for a listed model
  XFAIL (STAGE: first error line)     import/compile/run raised and the model
                                      is in EXPECTED_FAILURES
  FAIL (unexpected STAGE error: ...)  it raised and is not listed
  FAIL (unexpectedly imports; remove it from the expected failures)
  FAIL (degenerate reference: ...)    the check itself would prove nothing
  FAIL (timed out after N s), FAIL (its process exited ... before reporting)
                                      isolated runs: the model's process died
  SKIP (table-only: reason)           in TABLE_ONLY, not run
STAGE is import (tracing and translation), compile or run. The exit status
is non-zero iff some line is a FAIL.

Seeds: each model is built after torch.manual_seed(seed) and each input is
drawn from a generator seeded with seed + batch, so one seed replays every
model on its own. The seed is fresh on each run and printed;
RLX_TEST_SEED=<seed> replays it.

Usage:
  models.py MODEL [MODEL...] [--batch 1 2] [--timing] [--table FILE]
  models.py --all ...      every model in the registry
  models.py --list         the registry, with expected failures and
                           table-only models
With several models each runs in a fresh subprocess (memory stays bounded
by the largest model; --in-process runs them in this one). --timing adds
rlx's median time of --runs runs (Graph.bench) and eager PyTorch's, timed in
a fresh process with torch.set_num_threads(1) and (2) (the faster is
reported, with its setting). --table writes the markdown results table
(docs/models.md), keeping the rows of models not run this time.
"""

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

TOLERANCE = 1e-4
ROUNDING_FACTOR = 2  # see f64_errors
ROUNDING_FLOOR = 1e-6  # eager's error counts as at least this
VARIATION = 1e-3  # max|out[0] - out[1]| must exceed VARIATION * max|out|
MIN_SCALE = 1e-3  # max|out| must be at least this (alexnet: ~3e-2)

warnings.filterwarnings("ignore", category=UserWarning)


# --------------------------------------------------------------------------
# The registry.

class Model:
    """A model of the suite: `build()` returns the nn.Module (random weights,
    drawn from torch's global generator), `inputs(batch, generator)` the
    tuple of example inputs of that batch."""

    def __init__(self, name, build, inputs, family):
        self.name, self.build, self.inputs, self.family = (
            name, build, inputs, family)


def image_input(size):
    def inputs(batch, generator):
        return (torch.randn(batch, 3, size, size, generator=generator),)
    return inputs


REGISTRY = {}


def register(name, build, inputs, family):
    REGISTRY[name] = Model(name, build, inputs, family)


def _torchvision(name, **kwargs):
    import torchvision
    return lambda: getattr(torchvision.models, name)(weights=None, **kwargs)


CLASSIFICATION = (
    ["alexnet"]
    + [f"vgg{d}{bn}" for d in (11, 13, 16, 19) for bn in ("", "_bn")]
    + ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
       "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
       "wide_resnet50_2", "wide_resnet101_2"]
    + ["densenet121", "densenet161", "densenet169", "densenet201"]
    + ["squeezenet1_0", "squeezenet1_1", "googlenet", "inception_v3"]
    + ["mobilenet_v2", "mobilenet_v3_small", "mobilenet_v3_large"]
    + [f"shufflenet_v2_x{w}" for w in ("0_5", "1_0", "1_5", "2_0")]
    + [f"mnasnet{w}" for w in ("0_5", "0_75", "1_0", "1_3")]
    + [f"efficientnet_b{i}" for i in range(8)]
    + ["efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]
    + [f"regnet_{k}_{s}" for k in ("x", "y")
       for s in ("400mf", "800mf", "1_6gf", "3_2gf", "8gf", "16gf", "32gf")]
    + ["regnet_y_128gf"]
    + ["convnext_tiny", "convnext_small", "convnext_base", "convnext_large"]
    + ["vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14"]
    + ["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]
    + ["maxvit_t"])

for _name in CLASSIFICATION:
    if _name in ("googlenet", "inception_v3"):
        # Eval-mode models without the auxiliary classifiers (which only
        # training uses); init_weights=True is torchvision's init.
        _build = _torchvision(_name, aux_logits=False, init_weights=True)
    else:
        _build = _torchvision(_name)
    # inception_v3 needs 299x299; everything else runs at 224x224
    # (efficientnet too, though b1-b7 were trained larger: it bounds time).
    register(_name, _build, image_input(299 if _name == "inception_v3"
                                        else 224), "classification")


class SegmentationOut(nn.Module):
    """A torchvision segmentation model returning its 'out' tensor (the
    model returns a dict)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def _segmentation(name):
    def build():
        import torchvision
        return SegmentationOut(getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, aux_loss=False))
    return build


for _name in ["fcn_resnet50", "deeplabv3_resnet50",
              "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]:
    register(_name, _segmentation(_name), image_input(224), "segmentation")


# Sequence models: d_model 64, 4 heads, sequences of 12 (16 for RNNs).
D_MODEL, HEADS, SEQ = 64, 4, 12


def _encoder():
    # enable_nested_tensor=False: with a key padding mask, eager PyTorch's
    # nested-tensor fast path returns zeros at padded positions, where the
    # plain computation (and so the imported graph) has values; that is a
    # convention, not an answer to check.
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, 2 * D_MODEL,
                                       batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


class EncoderCausal(nn.Module):
    """nn.TransformerEncoder with a causal mask built in forward."""

    def __init__(self):
        super().__init__()
        self.encoder = _encoder()

    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.encoder(x, mask=mask)


class EncoderPadding(nn.Module):
    """nn.TransformerEncoder with a key padding mask (an input: True marks
    padding)."""

    def __init__(self):
        super().__init__()
        self.encoder = _encoder()

    def forward(self, x, padding_mask):
        return self.encoder(x, src_key_padding_mask=padding_mask)


def padding_inputs(batch, generator):
    x = torch.randn(batch, SEQ, D_MODEL, generator=generator)
    lengths = [SEQ - 3 - 4 * (i % 2) for i in range(batch)]  # 9, 5, 9, ...
    mask = torch.arange(SEQ)[None, :] >= torch.tensor(lengths)[:, None]
    return x, mask


class Seq2Seq(nn.Module):
    """A small nn.Transformer with the target's causal mask from
    generate_square_subsequent_mask."""

    def __init__(self):
        super().__init__()
        self.transformer = nn.Transformer(
            D_MODEL, HEADS, num_encoder_layers=2, num_decoder_layers=2,
            dim_feedforward=2 * D_MODEL, batch_first=True)

    def forward(self, src, tgt):
        mask = self.transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.transformer(src, tgt, tgt_mask=mask)


def seq2seq_inputs(batch, generator):
    return (torch.randn(batch, SEQ, D_MODEL, generator=generator),
            torch.randn(batch, SEQ - 4, D_MODEL, generator=generator))


def sequence_input(length, features):
    def inputs(batch, generator):
        return (torch.randn(batch, length, features, generator=generator),)
    return inputs


register("transformer_encoder_causal", EncoderCausal, sequence_input(
    SEQ, D_MODEL), "sequence")
register("transformer_encoder_padding", EncoderPadding, padding_inputs,
         "sequence")
register("transformer", Seq2Seq, seq2seq_inputs, "sequence")


class RNN(nn.Module):
    """An nn.LSTM or nn.GRU (batch first) returning its output sequence."""

    def __init__(self, kind, layers, bidirectional):
        super().__init__()
        self.rnn = getattr(nn, kind)(32, 64, num_layers=layers,
                                     batch_first=True,
                                     bidirectional=bidirectional)

    def forward(self, x):
        return self.rnn(x)[0]


for _kind in ("LSTM", "GRU"):
    for _layers, _bidirectional, _suffix in [
            (1, False, ""), (2, False, "_2layer"),
            (1, True, "_bidirectional"), (2, True, "_2layer_bidirectional")]:
        register(_kind.lower() + _suffix,
                 (lambda k=_kind, n=_layers, b=_bidirectional: RNN(k, n, b)),
                 sequence_input(16, 32), "sequence")


class AudioConv1d(nn.Module):
    """A raw-waveform classifier (M5-like): Conv1d + BatchNorm1d + ReLU +
    MaxPool1d stacks, global average pool, Linear; [B, 1, 16000] -> [B, 10].
    """

    def __init__(self, classes=10, width=32):
        super().__init__()
        layers, channels = [], 1
        for i, (out, kernel, stride) in enumerate(
                [(width, 80, 4), (width, 3, 1), (2 * width, 3, 1),
                 (2 * width, 3, 1)]):
            layers += [nn.Conv1d(channels, out, kernel, stride),
                       nn.BatchNorm1d(out), nn.ReLU(), nn.MaxPool1d(4)]
            channels = out
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=-1))


register("audio_conv1d", AudioConv1d,
         lambda batch, generator: (torch.randn(batch, 1, 16000,
                                               generator=generator),),
         "audio")


# Models that are too large to run here: listed in the table, not run.
TABLE_ONLY = {
    "regnet_y_128gf": "645 M parameters (2.6 GB in f32): over the 2 GB the "
                      "suite allows per model",
    "vit_h_14": "632 M parameters (2.5 GB in f32): over the 2 GB the suite "
                "allows per model",
}

# Models whose import (or compile, or run) is expected to raise: model ->
# short reason naming the first untranslated op. A model that imports but
# gives a wrong answer is never expected: that is always a FAIL.
EXPECTED_FAILURES = {}


# --------------------------------------------------------------------------
# Making the weights non-degenerate.

_LINEAR_CONV = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d,
                nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
_BATCH_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)


def prepare(model, spec):
    """Draws the degenerate parameters at random and calibrates batch norm
    (see the module docstring). Returns the model in eval mode."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, _LINEAR_CONV):
                if not module.weight.any():
                    module.reset_parameters()
                if module.bias is not None and not module.bias.any():
                    module.bias.uniform_(-0.1, 0.1)
            if isinstance(module, nn.MultiheadAttention):
                for bias in (module.in_proj_bias, module.bias_k,
                             module.bias_v):
                    if bias is not None and not bias.any():
                        bias.uniform_(-0.1, 0.1)
            if isinstance(module, (nn.LayerNorm, nn.GroupNorm) +
                          _BATCH_NORMS) and module.weight is not None:
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
            scale = getattr(module, "layer_scale", None)
            if isinstance(scale, nn.Parameter):
                scale.uniform_(0.5, 1.5)
    norms = [m for m in model.modules() if isinstance(m, _BATCH_NORMS)]
    if norms:
        for norm in norms:
            norm.momentum = None  # cumulative average over the passes
            norm.reset_running_stats()
        model.train()
        generator = torch.Generator().manual_seed(torch.initial_seed() + 4)
        with torch.no_grad():
            for _ in range(3):
                model(*spec.inputs(4, generator))
    return model.eval()


def degenerate(reference):
    """Why a batch-2 eager output proves nothing, or None."""
    out = reference.detach().float()
    scale = float(out.abs().max())
    if not np.isfinite(scale):
        return f"max |out| is {scale}"
    if scale < MIN_SCALE:
        return f"max |out| {scale:.2e} < {MIN_SCALE:g}"
    spread = float((out[0] - out[1]).abs().max())
    if spread <= VARIATION * scale:
        return (f"the output does not vary across the batch "
                f"(max |out[0] - out[1]| {spread:.2e}, max |out| "
                f"{scale:.2e})")
    return None


# --------------------------------------------------------------------------
# The check.

def first_line(error):
    text = str(error).strip()
    line = text.splitlines()[0] if text else ""
    import rlx
    if not isinstance(error, rlx.RLXError):
        line = f"{type(error).__name__}: {line}" if line else \
            type(error).__name__
    return line[:300]


def torch_worker(model_path, inputs_path, threads, runs):
    """Times the saved model on the saved inputs in this (fresh) process
    with `threads` threads; prints the median in ms."""
    torch.set_num_threads(threads)
    model = torch.load(model_path)
    inputs = torch.load(inputs_path)
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        for _ in range(runs):
            start = time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - start) * 1e3)
    print(f"{statistics.median(times):.6f}")


def time_torch(model, inputs, runs):
    """(best median ms, its thread count), each setting in a fresh
    process, with the OpenBLAS kernels rlx's runtime picks."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from openblas_env import openblas_env
    with tempfile.TemporaryDirectory(prefix="rlx-models-") as work:
        model_path = os.path.join(work, "model.pt")
        inputs_path = os.path.join(work, "inputs.pt")
        torch.save(model, model_path)
        torch.save(tuple(inputs), inputs_path)
        best = None
        for threads in (1, 2):
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--torch-worker",
                 model_path, inputs_path, str(threads), str(runs)],
                capture_output=True, text=True, env=openblas_env())
            if proc.returncode != 0:
                raise RuntimeError("PyTorch timing failed: " +
                                   proc.stderr.strip()[-500:])
            ms = float(proc.stdout.strip().splitlines()[-1])
            if best is None or ms < best[0]:
                best = (ms, threads)
    return best


def check_model(name, batches, seed, timing=False, runs=10):
    """Runs the check of one model at each batch; returns a row (dict) per
    batch and prints its line."""
    import rlx
    import rlx.torch

    rows = [dict(model=name, batch=b, status=None, error=None,
                 import_s=None, compile_s=None, rlx_ms=None, torch_ms=None,
                 torch_threads=None) for b in batches]
    if name in TABLE_ONLY:
        for row in rows:
            row["status"] = f"SKIP (table-only: {TABLE_ONLY[name]})"
            report(row)
        return rows
    spec = REGISTRY[name]
    expected = EXPECTED_FAILURES.get(name)
    torch.manual_seed(seed)
    model = prepare(spec.build(), spec)

    def inputs_of(batch):
        return spec.inputs(batch, torch.Generator().manual_seed(seed + batch))

    with torch.no_grad():
        reason = degenerate(model(*inputs_of(2)))
    for row in rows:
        batch = row["batch"]
        if reason is not None:
            row["status"] = f"FAIL (degenerate reference: {reason})"
            report(row)
            continue
        inputs = inputs_of(batch)
        with torch.no_grad():
            want = model(*inputs)
        stage = "import"
        try:
            start = time.perf_counter()
            mlir, params = rlx.torch.import_module(model, *inputs)
            row["import_s"] = time.perf_counter() - start
            stage = "compile"
            start = time.perf_counter()
            graph = rlx.compile(mlir, params=params)
            row["compile_s"] = time.perf_counter() - start
            del mlir, params
            stage = "run"
            got = graph(*[t.numpy() for t in inputs])
        except Exception as error:  # noqa: BLE001 (any failure is reported)
            line = first_line(error)
            row["status"] = (f"XFAIL ({stage}: {line})" if expected else
                             f"FAIL (unexpected {stage} error: {line})")
            report(row)
            continue
        want = want.numpy()
        if isinstance(got, tuple) or got.shape != want.shape:
            shape = ([g.shape for g in got] if isinstance(got, tuple)
                     else got.shape)
            row["status"] = (f"FAIL (wrong answer: output shape {shape}, "
                             f"expected {want.shape})")
            report(row)
            continue
        error = float(np.max(np.abs(got.astype(np.float64) - want)) /
                      np.max(np.abs(want)))
        row["error"] = error
        rounding = (f64_errors(model, inputs, got)
                    if not error <= TOLERANCE else None)
        if rounding and rounding[0] <= ROUNDING_FACTOR * max(
                rounding[1], ROUNDING_FLOOR):
            # As close to the exact answer as eager PyTorch's own f32.
            row["status"] = (f"pass (f32 rounding: {rounding[0]:.1e} from "
                             f"the f64 result, eager's {rounding[1]:.1e})")
        elif not error <= TOLERANCE:  # NaN fails too
            row["status"] = f"FAIL (wrong answer: error {error:.2e})"
        elif expected:
            row["status"] = ("FAIL (unexpectedly imports; remove it from the "
                             "expected failures)")
        else:
            row["status"] = "pass"
        if timing:
            row["rlx_ms"] = graph.bench(runs, 2,
                                        *[t.numpy() for t in inputs]).median_ms
            row["torch_ms"], row["torch_threads"] = time_torch(
                model, inputs, runs)
            row["load"] = os.getloadavg()[0]
        del graph
        report(row)
    return rows


def f64_errors(model, inputs, got):
    """(rlx's error, eager f32's error), each max|out - exact| / max|exact|
    against the model run in f64 on the same inputs; None where f64 does
    not run. Deep networks (resnet152) accumulate f32 rounding past
    TOLERANCE in eager PyTorch itself: rlx then passes when it is as close
    to the f64 result as eager's f32 output is (ROUNDING_FACTOR)."""
    try:
        with torch.no_grad():
            exact = model.double()(*[t.double() if t.is_floating_point()
                                     else t for t in inputs])
            model.float()
            eager = model(*inputs)
    except Exception:  # noqa: BLE001 (an op without an f64 kernel)
        model.float()
        return None
    exact = exact.numpy()
    scale = np.max(np.abs(exact))
    return (float(np.max(np.abs(got.astype(np.float64) - exact)) / scale),
            float(np.max(np.abs(eager.numpy().astype(np.float64) - exact)) /
                  scale))


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


_REPORTED = []  # every row reported, for --json
_JSON_PATH = None


def report(row):
    _REPORTED.append(row)
    if _JSON_PATH:  # after each row: a crash later keeps the rows before it
        with open(_JSON_PATH, "w") as f:
            json.dump(_REPORTED, f)
    line = f"{row['model']} batch {row['batch']}: {row['status']}"
    if row["error"] is not None:
        line += f"; error {row['error']:.2e}"
    if row["import_s"] is not None:
        line += f", import {row['import_s']:.1f} s"
    if row["compile_s"] is not None:
        line += f", compile {row['compile_s']:.1f} s"
    if row["rlx_ms"] is not None:
        line += (f", rlx {row['rlx_ms']:.2f} ms, PyTorch {row['torch_ms']:.2f}"
                 f" ms ({row['torch_threads']} thread"
                 f"{'s' if row['torch_threads'] != 1 else ''})")
    print(line, flush=True)


def run_isolated(names, args, seed):
    """Each model in a fresh process of this script; returns the rows."""
    rows, start = [], time.perf_counter()
    env = dict(os.environ, RLX_TEST_SEED=str(seed))
    for i, name in enumerate(names, 1):
        print(f"[{i}/{len(names)}] {name} (elapsed "
              f"{time.perf_counter() - start:.0f} s)", flush=True)
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            command = [sys.executable, os.path.abspath(__file__), name,
                       "--in-process", "--json", out.name, "--runs",
                       str(args.runs), "--tolerance", str(args.tolerance),
                       "--batch",
                       *map(str, args.batch)] + (
                           ["--timing"] if args.timing else [])
            try:
                proc = subprocess.run(command, env=env, timeout=args.timeout)
                why = (f"its process exited with status {proc.returncode} "
                       "before reporting")
            except subprocess.TimeoutExpired:
                why = f"timed out after {args.timeout:.0f} s"
            got = json.load(open(out.name)) if os.path.getsize(
                out.name) else []
        done = {row["batch"] for row in got}
        for b in args.batch:
            if b not in done:
                row = dict(model=name, batch=b, status=f"FAIL ({why})",
                           error=None, import_s=None, compile_s=None,
                           rlx_ms=None, torch_ms=None, torch_threads=None)
                report(row)
                got.append(row)
        rows += got
    print(f"done: {len(names)} models in {time.perf_counter() - start:.0f} s",
          flush=True)
    return rows


# --------------------------------------------------------------------------
# The results table (docs/models.md).

COLUMNS = ["model", "batch", "import s", "compile s", "rlx ms",
           "PyTorch ms", "max error", "status"]


_LOG_LINE = re.compile(
    r"^(\S+) batch (\d+): (.*?)(?:; error ([0-9.e+-]+))?"
    r"(?:, import ([0-9.]+) s)?(?:, compile ([0-9.]+) s)?"
    r"(?:, rlx ([0-9.]+) ms, PyTorch ([0-9.]+) ms \((\d+) threads?\))?$")


def rows_from_logs(paths):
    """The rows the lines of `paths` (runs of this script, in order) report,
    later lines replacing earlier ones of the same (model, batch), and the
    runs' seeds as text. Dropped: rows of a process stopped by SIGTERM (an
    interrupted run, not a result), and XFAIL rows of a model that is no
    longer an expected failure (the importer has learned its op since; the
    table then lists it as not run yet)."""
    rows, seeds = {}, []
    for path in paths:
        text = open(path).read()
        seed = re.search(r"^seed (\d+)", text, re.M)
        if seed and seed.group(1) not in seeds:
            seeds.append(seed.group(1))
        for line in text.splitlines():
            match = _LOG_LINE.match(line.strip())
            if not match or match.group(1) not in REGISTRY:
                continue

            def number(i):
                return float(match.group(i)) if match.group(i) else None
            row = dict(model=match.group(1), batch=int(match.group(2)),
                       status=match.group(3), error=number(4),
                       import_s=number(5), compile_s=number(6),
                       rlx_ms=number(7), torch_ms=number(8),
                       torch_threads=int(match.group(9))
                       if match.group(9) else None)
            if "exited with status -15" in row["status"]:
                continue
            if row["status"].startswith("XFAIL") and \
                    row["model"] not in EXPECTED_FAILURES:
                rows.pop((row["model"], row["batch"]), None)
                continue
            rows[(row["model"], row["batch"])] = row
    text = " and ".join(seeds) + (
        " (one per run: RLX_TEST_SEED replays a model with either)"
        if len(seeds) > 1 else "")
    return list(rows.values()), text


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _row_cells(row):
    torch_ms = "-" if row["torch_ms"] is None else (
        f"{row['torch_ms']:.2f} ({row['torch_threads']} "
        f"thread{'s' if row['torch_threads'] != 1 else ''})")
    status = row["status"].replace("|", "\\|")
    return [row["model"], str(row["batch"]), fmt(row["import_s"], ".1f"),
            fmt(row["compile_s"], ".1f"), fmt(row["rlx_ms"], ".2f"), torch_ms,
            fmt(row["error"], ".1e"), status]


def _old_rows(path):
    """The rows of an existing table, as {(model, batch): cells}."""
    rows = {}
    if not os.path.exists(path):
        return rows
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if (line.startswith("| ") and len(cells) == len(COLUMNS) and
                cells[0] in REGISTRY):
            rows[(cells[0], cells[1])] = cells
    return rows


def write_table(path, rows, seed):
    old = _old_rows(path)
    new = {(r["model"], str(r["batch"])): _row_cells(r) for r in rows}
    merged = dict(old)
    merged.update(new)
    ran = {r["model"] for r in rows}
    kept = sorted({m for m, _ in old} - ran, key=list(REGISTRY).index)
    order = list(REGISTRY)
    keys = sorted(merged, key=lambda k: (order.index(k[0]), int(k[1])))
    missing = [m for m in REGISTRY if m not in {k[0] for k in keys} and
               m not in TABLE_ONLY]
    counts = {}
    for key in keys:
        word = merged[key][-1].split(" ")[0]
        counts[word] = counts.get(word, 0) + 1
    today = datetime.date.today().isoformat()
    loads = [r["load"] for r in rows if r.get("load") is not None]
    load = (f" The 1-minute load average after the timed rows of this run "
            f"ranged from {min(loads):.1f} to {max(loads):.1f} (above "
            f"{os.cpu_count()}, other processes shared the cores and the "
            "times moved with them: compare rlx and PyTorch within a row, "
            "measured minutes apart, with care)." if loads else "")
    lines = [
        "# Model suite results", "",
        "<!-- Generated by scripts/models.sh (test/Models/models.py --table);"
        " do not edit by hand. -->", "",
        "Every model of `test/Models/models.py`: random weights, made "
        "non-degenerate (batch norm affine parameters random and its "
        "statistics calibrated by three train-mode passes, layer norm "
        "affine parameters random, all-zero Linear/Conv weights and biases "
        "redrawn, ConvNeXt layer scales redrawn), imported with "
        "`rlx.torch.import_module(model.eval(), x)` at each batch (1 and 2: "
        "separate imports with static shapes; one import with "
        "`dynamic=True` serving every batch is tested in "
        "`test/Python/torch-import-dynamic.test`), compiled with "
        "`rlx.compile(mlir, params=params)` for the CPU, run, and compared "
        "with eager PyTorch in f32: the status is `pass` when "
        f"max\\|rlx - eager\\| / max\\|eager\\| <= {TOLERANCE:g}, or, "
        "where eager's own f32 output is that far from the exact answer "
        "(deep networks), when rlx is as close to the model's f64 result "
        f"as eager's f32 output is (within {ROUNDING_FACTOR}x; the status "
        "says `pass (f32 rounding: ...)`). A model "
        "whose import, compile or run raises is `XFAIL` when it is listed "
        "in the suite's expected failures (the first error is shown), a "
        "`FAIL` otherwise; a wrong answer is always a `FAIL`. Inputs are "
        "224x224 images (299x299 for inception_v3), [B, 12, 64] sequences "
        "for the transformers, [B, 16, 32] for the RNNs, [B, 1, 16000] "
        "waveforms for audio_conv1d.", "",
        "Times: import s is `import_module` (tracing, translation, printing "
        "the IR), compile s is `rlx.compile` (parse, pipelines, LLVM, JIT). "
        "rlx ms is the median of 10 runs of the compiled graph "
        "(`Graph.bench`; OpenMP and OpenBLAS use every core). PyTorch ms is "
        "eager PyTorch 1.13 under `torch.no_grad()`, the median of 10 runs "
        "in a fresh process with `torch.set_num_threads(1)` and with `(2)`; "
        "the faster is reported with its setting. Times are only measured "
        "for models that run (pass or wrong answer). The machine is "
        "shared: builds and other runs may share its cores while the suite "
        "runs, and the times move with them; rlx and PyTorch are timed "
        "seconds apart, so compare within a row." + load, "",
        f"Command: `scripts/models.sh` (`test/Models/models.py --all "
        f"--batch 1 2 --timing --table docs/models.md`, each model in a "
        f"fresh process). Machine: {os.cpu_count()} cores (nproc), "
        f"{_cpu_model()}; PyTorch {torch.__version__}. Last updated "
        f"{today} (seed {seed}"
        + (f"; the rows of {', '.join(kept)} are from an earlier run"
           if kept else "") + ").", "",
        "Summary: " + ", ".join(f"{n} {w}" for w, n in sorted(
            counts.items())) + f" (rows: (model, batch) pairs).", "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(merged[k]) + " |" for k in keys]
    if missing:
        lines += ["", "Not run yet (no row above): " +
                  ", ".join(f"`{m}`" for m in missing) + "."]
    lines += ["", "Table-only models (never run by the suite):", ""]
    lines += [f"- `{m}`: {why}." for m, why in TABLE_ONLY.items()]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path} ({len(keys)} rows)")


# --------------------------------------------------------------------------

def main():
    global _JSON_PATH, TOLERANCE
    if len(sys.argv) == 6 and sys.argv[1] == "--torch-worker":
        torch_worker(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                     int(sys.argv[5]))
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL")
    parser.add_argument("--all", action="store_true",
                        help="every model of the registry")
    parser.add_argument("--list", action="store_true",
                        help="print the registry and exit")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--timing", action="store_true",
                        help="time rlx and eager PyTorch")
    parser.add_argument("--runs", type=int, default=10,
                        help="timed runs per measurement (at least 10)")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE,
                        help="the largest error against eager f32 that "
                             "passes without the f64 comparison (tests "
                             "set it below any error to exercise that)")
    parser.add_argument("--table", metavar="FILE",
                        help="write the results table (markdown) here")
    parser.add_argument("--in-process", action="store_true",
                        help="run every model in this process")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per model (isolated runs)")
    parser.add_argument("--from-logs", nargs="+", metavar="LOG",
                        help="with --table: rebuild the rows from the "
                             "printed lines of earlier runs (later logs "
                             "win) instead of running models, for a run "
                             "that was stopped before it wrote its table")
    parser.add_argument("--json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.list:
        for name, spec in REGISTRY.items():
            note = (f"  table-only: {TABLE_ONLY[name]}" if name in TABLE_ONLY
                    else f"  expected failure: {EXPECTED_FAILURES[name]}"
                    if name in EXPECTED_FAILURES else "")
            print(f"{name} ({spec.family}){note}")
        return 0
    if args.from_logs:
        if not args.table:
            parser.error("--from-logs writes a table: give --table")
        rows, seeds = rows_from_logs(args.from_logs)
        write_table(args.table, rows, seeds)
        return 0
    names = list(REGISTRY) if args.all else args.models
    unknown = [n for n in names if n not in REGISTRY]
    if unknown or not names:
        parser.error(f"unknown models {unknown} (--list names them)"
                     if unknown else "name a model, or --all")
    if args.runs < 10:
        parser.error("--runs must be at least 10")

    _JSON_PATH = args.json
    TOLERANCE = args.tolerance
    seed = int(os.environ.get("RLX_TEST_SEED", "0")) or int.from_bytes(
        os.urandom(3), "little")
    if not args.json:  # an isolated model's process: its parent printed it
        print(f"seed {seed} (replay with RLX_TEST_SEED={seed})", flush=True)
    if len(names) == 1 or args.in_process:
        rows = []
        for name in names:
            rows += check_model(name, args.batch, seed, args.timing,
                                args.runs)
    else:
        rows = run_isolated(names, args, seed)
    if args.table:
        write_table(args.table, rows, seed)
    failed = [r for r in rows if r["status"].startswith("FAIL")]
    if len(rows) > 1 and not args.json:
        counts = {}
        for row in rows:
            word = row["status"].split(" ")[0]
            counts[word] = counts.get(word, 0) + 1
        print("summary: " + ", ".join(f"{n} {w}"
                                      for w, n in sorted(counts.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
