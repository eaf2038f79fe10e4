#!/usr/bin/python3
# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""The model suite through ONNX: each model of test/Models/models.py
exported by torch.onnx.export with a symbolic batch, imported back with
rlx.onnx, compiled, run at two batch sizes and compared with eager PyTorch.

Each model is built, given its random non-degenerate weights and checked
for a degenerate reference exactly as models.py does (its registry, input
shapes, prepare() and degenerate(), with one seed for everything), then
exported (opset 17, every input's and the output's dim 0 a dim_param
`batch`, at an example batch of EXPORT_BATCH), imported with
rlx.onnx.import_model, compiled once and run at each batch of --batch (1
and 3 by default: neither is the export's batch, so a batch size the
export baked into the graph shows as a wrong shape or answer). A model
whose graph holds LSTM, GRU, RNN, Scan or Loop nodes is imported once per
batch with dims={"batch": B} instead: their rlx.scan takes static shapes
(docs/onnx.md).

The check is the suite's: error = max|rlx - eager| / max|eager| must be
<= TOLERANCE (models.py's 1e-4), or, where it is not (deep networks
accumulate f32 rounding past it in eager PyTorch itself), rlx must be as
close to the model's f64 result as eager's own f32 output is (models.py's
f64_errors: within ROUNDING_FACTOR of eager's error).

Status of each model (all its batches; the error shown is the largest):
  pass
  pass (f32 rounding: batch B: X from the f64 result, eager's Y; ...)
  FAIL (STAGE: first error line)   STAGE is export (torch.onnx.export),
                                   import (rlx.onnx), compile or run
  FAIL (wrong answer at batch B: error X), FAIL (wrong answer at batch B:
      output shape S, expected T)
  FAIL (degenerate reference: ...), FAIL (timed out after N s),
  FAIL (its process exited with status N before reporting)
  not run (reason)                 table-only models of the suite, and
                                   models over --max-weights-mb
The exit status is non-zero iff some model FAILs.

Seeds: one per run, printed (and in each row of the table);
RLX_TEST_SEED=<seed> replays it (a model's weights and inputs are those
models.py makes with that seed).

Usage:
  onnx_roundtrip.py MODEL [MODEL...] [--batch 1 3] [--table FILE]
  onnx_roundtrip.py --all ...   every model of the suite, in its order
Each model runs in a fresh process (--timeout seconds each). Result lines
go to stdout, progress lines to stderr. --table rewrites the generated
part of FILE (docs/onnx.md, between the onnx-models markers) after each
model, keeping the rows of models not run this time.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import models  # noqa: E402 (the suite, next to this file)

EXPORT_BATCH = 2
OPSET = 17
# Nodes translated to an rlx.scan (a Loop: where its trip count is known),
# which takes static shapes.
STATIC_OPS = {"LSTM", "GRU", "RNN", "Scan", "Loop"}
BEGIN, END = "<!-- onnx-models:begin -->", "<!-- onnx-models:end -->"
NOT_MEASURED = "not run (not measured yet)"
COLUMNS = ["model", "weights MB", "batch dim", "batches", "export s",
           "import s", "compile s", "max error", "seed", "status"]


def log(text):
    print(text, file=sys.stderr, flush=True)


def first_line(error):
    text = str(error).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(error).__name__}: {line}"[:300] if line else \
        type(error).__name__


def weights_mb(model):
    """The model's parameters and buffers (what the ONNX file holds) in
    MB."""
    tensors = list(model.parameters()) + list(model.buffers())
    return sum(t.numel() * t.element_size() for t in tensors) / 1e6


def _zero(g, self):
    from torch.onnx import symbolic_opset9
    return symbolic_opset9.zeros_like(g, self)


def export(model, example, path):
    """torch.onnx.export with dim 0 of every input and the output named
    `batch`; returns the input names."""
    # PyTorch 1.13's exporter has no symbolic for aten::zero, which
    # swin_v2's `qkv_bias[length:2 * length].zero_()` traces to: it is
    # zeros_like (exactly).
    torch.onnx.register_custom_op_symbolic("aten::zero", _zero, OPSET)
    names = [f"input{i}" for i in range(len(example))]
    axes = {n: {0: "batch"} for n in names + ["output"]}
    torch.onnx.export(model, tuple(example), path, opset_version=OPSET,
                      input_names=names, output_names=["output"],
                      dynamic_axes=axes)
    return names


def has_static_ops(path):
    import onnx
    proto = onnx.load(path, load_external_data=False)
    return any(node.op_type in STATIC_OPS for node in proto.graph.node)


def compare(model, inputs, got, tolerance):
    """(error, rounding, wrong) of rlx's output `got` against eager PyTorch
    on `inputs` (the suite's rule): rounding says how far each is from the
    f64 result where the f64 comparison passed it, wrong what is wrong
    where it failed (both None for a plain pass)."""
    with torch.no_grad():
        want = model(*inputs).numpy()
    if isinstance(got, tuple) or got.shape != want.shape:
        shape = [g.shape for g in got] if isinstance(got, tuple) \
            else got.shape
        return None, None, f"output shape {shape}, expected {want.shape}"
    error = float(np.max(np.abs(got.astype(np.float64) - want)) /
                  np.max(np.abs(want)))
    if error <= tolerance:
        return error, None, None
    rounding = models.f64_errors(model, inputs, got)
    if rounding and rounding[0] <= models.ROUNDING_FACTOR * max(
            rounding[1], models.ROUNDING_FLOOR):
        return error, (f"{rounding[0]:.1e} from the f64 result, eager's "
                       f"{rounding[1]:.1e}"), None
    return error, None, f"error {error:.2e}"  # NaN fails too


def check_model(name, batches, seed, tolerance, max_mb, workdir):
    """The round trip of one model; returns its row (a dict)."""
    import rlx
    import rlx.onnx

    row = dict(model=name, weights_mb=None, batch_dim=None,
               batches=list(batches), export_s=None, import_s=None,
               compile_s=None, error=None, seed=seed, status=None)
    if name in models.TABLE_ONLY:
        row["status"] = (f"not run (table-only in the suite: "
                         f"{models.TABLE_ONLY[name]})")
        return row
    spec = models.REGISTRY[name]
    torch.manual_seed(seed)
    model = models.prepare(spec.build(), spec)
    row["weights_mb"] = weights_mb(model)
    if max_mb is not None and row["weights_mb"] > max_mb:
        row["status"] = (f"not run ({row['weights_mb']:.0f} MB of weights, "
                         f"over this run's limit of {max_mb:g} MB)")
        return row

    def inputs_of(batch):
        return spec.inputs(batch, torch.Generator().manual_seed(seed + batch))

    with torch.no_grad():
        reason = models.degenerate(model(*inputs_of(2)))
    if reason is not None:
        row["status"] = f"FAIL (degenerate reference: {reason})"
        return row
    path = os.path.join(workdir, f"{name}.onnx")
    stage = "export"
    try:
        log(f"  {name}: export")
        start = time.perf_counter()
        names = export(model, inputs_of(EXPORT_BATCH), path)
        row["export_s"] = time.perf_counter() - start
        static = has_static_ops(path)
        row["batch_dim"] = "static" if static else "?"
        graphs = {}
        row["import_s"] = row["compile_s"] = 0.0
        for batch in batches if static else [None]:
            stage = "import"
            log(f"  {name}: import" + (f" (batch {batch})" if batch else ""))
            start = time.perf_counter()
            mlir, params = rlx.onnx.import_model(
                path, dims={"batch": batch} if batch else None)
            row["import_s"] += time.perf_counter() - start
            stage = "compile"
            log(f"  {name}: compile")
            start = time.perf_counter()
            # Not from the compile cache: the time is the compile's.
            graphs[batch] = rlx.compile(mlir, params=params, cache=False)
            row["compile_s"] += time.perf_counter() - start
            del mlir, params
        notes, errors = [], []
        for batch in batches:
            stage = "run"
            log(f"  {name}: run at batch {batch}")
            inputs = inputs_of(batch)
            graph = graphs[batch if static else None]
            got = graph(**{n: t.numpy() for n, t in zip(names, inputs)})
            error, rounding, wrong = compare(model, inputs, got, tolerance)
            if error is not None:
                errors.append(error)
            if rounding:
                notes.append(f"batch {batch}: {rounding}")
            if wrong:
                row["error"] = max(errors) if errors else None
                row["status"] = f"FAIL (wrong answer at batch {batch}: " \
                    f"{wrong})"
                return row
    except Exception as error:  # noqa: BLE001 (any failure is reported)
        row["status"] = f"FAIL ({stage}: {first_line(error)})"
        return row
    row["error"] = max(errors)
    row["status"] = "pass" + (f" (f32 rounding: {'; '.join(notes)})"
                              if notes else "")
    return row


def result_line(row):
    line = f"{row['model']}: {row['status']}"
    if row["error"] is not None:
        line += f"; error {row['error']:.2e}"
    for key, what in (("export_s", "export"), ("import_s", "import"),
                      ("compile_s", "compile")):
        if row[key] is not None:
            line += f", {what} {row[key]:.1f} s"
    return line


def run_isolated(names, args, seed, table):
    """Each model in a fresh process of this script; returns the rows."""
    rows, start = [], time.perf_counter()
    env = dict(os.environ, RLX_TEST_SEED=str(seed))
    for i, name in enumerate(names, 1):
        log(f"[{i}/{len(names)}] {name} (elapsed "
            f"{time.perf_counter() - start:.0f} s)")
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            command = [sys.executable, os.path.abspath(__file__), name,
                       "--json", out.name, "--tolerance",
                       str(args.tolerance), "--batch",
                       *map(str, args.batch)]
            if args.max_weights_mb is not None:
                command += ["--max-weights-mb", str(args.max_weights_mb)]
            try:
                proc = subprocess.run(command, env=env, timeout=args.timeout,
                                      stdout=subprocess.DEVNULL)
                why = (f"its process exited with status {proc.returncode} "
                       "before reporting")
            except subprocess.TimeoutExpired:
                why = f"timed out after {args.timeout:.0f} s"
            got = json.load(open(out.name)) if os.path.getsize(
                out.name) else None
        row = got or dict(model=name, weights_mb=None, batch_dim=None,
                          batches=list(args.batch), export_s=None,
                          import_s=None, compile_s=None, error=None,
                          seed=seed, status=f"FAIL ({why})")
        print(result_line(row), flush=True)
        rows.append(row)
        if table:
            write_table(table, rows)
    log(f"done: {len(names)} models in {time.perf_counter() - start:.0f} s")
    return rows


# --------------------------------------------------------------------------
# The results table (a generated part of docs/onnx.md).

def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def row_cells(row):
    mb = row["weights_mb"]
    return [row["model"], fmt(mb, ".1f" if mb is not None and mb < 10
                              else ".0f"),
            row["batch_dim"] or "-", ", ".join(map(str, row["batches"])),
            fmt(row["export_s"], ".1f"), fmt(row["import_s"], ".1f"),
            fmt(row["compile_s"], ".1f"), fmt(row["error"], ".1e"),
            "-" if row["status"].startswith("not run") else
            str(row["seed"]), row["status"].replace("|", "\\|")]


def old_rows(text):
    """The rows of the generated table in `text`: {model: cells}."""
    rows = {}
    if BEGIN not in text:
        return rows
    part = text.split(BEGIN, 1)[1].split(END, 1)[0]
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| ") and len(cells) == len(COLUMNS) and \
                cells[0] in models.REGISTRY:
            rows[cells[0]] = cells
    return rows


def summary(counts):
    """`counts` (status word -> models) as text, passes first."""
    order = ["pass", "FAIL", "not run"]
    return ", ".join(f"{counts[w]} {w}" for w in sorted(
        counts, key=lambda w: order.index(w) if w in order else 3))


def write_table(path, rows):
    text = open(path).read() if os.path.exists(path) else ""
    if text and (BEGIN not in text or END not in text):
        raise SystemExit(f"{path} has no {BEGIN} ... {END} part to write")
    merged = {m: cells for m, cells in old_rows(text).items()
              if cells[-1] != NOT_MEASURED}
    merged.update({r["model"]: row_cells(r) for r in rows})
    for name in models.REGISTRY:
        if name not in merged:
            merged[name] = [name] + ["-"] * (len(COLUMNS) - 2) + [
                NOT_MEASURED]
    counts = {}
    for cells in merged.values():
        word = cells[-1].split(" (")[0]
        counts[word] = counts.get(word, 0) + 1
    lines = [
        BEGIN, "",
        "<!-- Generated by scripts/onnx-models.sh "
        "(test/Models/onnx_roundtrip.py --table); do not edit by hand. -->",
        "",
        f"Last updated {datetime.date.today().isoformat()}; PyTorch "
        f"{torch.__version__}. A row's seed replays it: "
        "`RLX_TEST_SEED=<seed> test/Models/onnx_roundtrip.py MODEL`.", "",
        f"Summary: {summary(counts)} (of {len(merged)} models).", "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(merged[m]) + " |" for m in models.REGISTRY]
    lines += ["", END]
    if text:
        head, rest = text.split(BEGIN, 1)
        text = head + "\n".join(lines) + rest.split(END, 1)[1]
    else:
        text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)


# --------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="*", metavar="MODEL")
    parser.add_argument("--all", action="store_true",
                        help="every model of the suite")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--tolerance", type=float, default=models.TOLERANCE,
                        help="the largest error against eager f32 that "
                             "passes without the f64 comparison (tests "
                             "set it below any error to exercise that)")
    parser.add_argument("--max-weights-mb", type=float, default=None,
                        help="models with more weights are not run")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per model")
    parser.add_argument("--table", metavar="FILE",
                        help="write the results table into FILE's "
                             "onnx-models part")
    parser.add_argument("--json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = list(models.REGISTRY) if args.all else args.models
    unknown = [n for n in names if n not in models.REGISTRY]
    if unknown or not names:
        parser.error(f"unknown models {unknown} (models.py --list names "
                     "them)" if unknown else "name a model, or --all")
    seed = int(os.environ.get("RLX_TEST_SEED", "0")) or int.from_bytes(
        os.urandom(3), "little")
    if args.json:  # one model, in the process run_isolated started
        with tempfile.TemporaryDirectory(prefix="rlx-onnx-") as work:
            row = check_model(names[0], args.batch, seed, args.tolerance,
                              args.max_weights_mb, work)
        with open(args.json, "w") as f:
            json.dump(row, f)
        return 0
    print(f"seed {seed} (replay with RLX_TEST_SEED={seed})", flush=True)
    rows = run_isolated(names, args, seed, args.table)
    counts = {}
    for row in rows:
        word = row["status"].split(" (")[0]
        counts[word] = counts.get(word, 0) + 1
    print(f"summary: {summary(counts)}")
    return 1 if any(r["status"].startswith("FAIL") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
