#!/usr/bin/python3
"""Rematerialisation benchmark: peak buffer bytes and time of the gradient
function (@f_grad of rlx-autodiff) with remat=none and remat=elementwise,
on a 12-layer MLP and a 4-layer transformer encoder stack, on the CPU.

For each graph and policy it runs

    rlx-opt GRAPH --rlx-autodiff="func=f remat=POLICY" -o grad.mlir
    rlx-run grad.mlir --entry f_grad --random-inputs --bench RUNS

and reads the `bench:` (median and min ms) and `memory:` (peak bytes of
the runtime's buffers) lines; the forward function (@f) is timed the same way
for reference. The cases of a graph run in turn, `--rounds` times, and the
table shows the round with each case's lowest median: on a machine shared
with other work that is the round least disturbed. Prints a Markdown table
(docs/perf/autodiff.md).

Usage: bench/autodiff_remat.py [--build build] [--runs 10] [--rounds 3]
                               [--threads N]
"""

import argparse
import os
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def t(*dims):
    return "tensor<" + "x".join(str(d) for d in dims) + "xf32>"


def mlp(layers=12, batch=256, width=512, classes=16):
    """`layers` linear layers, tanh between them, softmax cross-entropy."""
    args = [f"%x: {t(batch, width)} {{rlx.input = \"x\"}}",
            f"%labels: tensor<{batch}xi64> {{rlx.input = \"labels\"}}"]
    body, h = [], "%x"
    for i in range(layers):
        out = classes if i == layers - 1 else width
        args += [f"%w{i}: {t(width, out)} {{rlx.param = \"w{i}\"}}",
                 f"%b{i}: {t(out)} {{rlx.param = \"b{i}\"}}"]
        body += [f"%m{i} = rlx.matmul {h}, %w{i} : {t(batch, width)}, "
                 f"{t(width, out)}",
                 f"%a{i} = rlx.binary add %m{i}, %b{i} : {t(batch, out)}, "
                 f"{t(out)}"]
        h = f"%a{i}"
        if i < layers - 1:
            body.append(f"%h{i} = rlx.activation tanh %a{i} : "
                        f"{t(batch, width)}")
            h = f"%h{i}"
    body += [f"%l = rlx.softmax_cross_entropy_with_logits {h}, %labels : "
             f"{t(batch, classes)}, tensor<{batch}xi64>",
             f"%loss = rlx.reduce mean %l axes = [0] : tensor<{batch}xf32>"]
    return graph(args, body)


def encoder(layers=4, batch=4, seq=128, hidden=256, heads=4, ffn=1024,
            classes=16):
    """`layers` post-LN encoder blocks (as examples/transformer_train.mlir)
    and a per-token cross-entropy head."""
    d = hidden // heads
    tokens = batch * seq
    x3 = t(batch, seq, hidden)
    args = [f"%x: {x3} {{rlx.input = \"x\"}}",
            f"%labels: tensor<{tokens}xi64> {{rlx.input = \"labels\"}}"]
    body, h = [], "%x"

    def param(name, *dims):
        args.append(f"%{name}: {t(*dims)} {{rlx.param = \"{name}\"}}")
        return f"%{name}"

    for i in range(layers):
        p = f"l{i}_"
        qkv_w, qkv_b = param(p + "qkv_w", hidden, 3 * hidden), param(
            p + "qkv_b", 3 * hidden)
        out_w, out_b = param(p + "out_w", hidden, hidden), param(
            p + "out_b", hidden)
        ln1_g, ln1_b = param(p + "ln1_g", hidden), param(p + "ln1_b", hidden)
        fc1_w, fc1_b = param(p + "fc1_w", hidden, ffn), param(p + "fc1_b", ffn)
        fc2_w, fc2_b = param(p + "fc2_w", ffn, hidden), param(
            p + "fc2_b", hidden)
        ln2_g, ln2_b = param(p + "ln2_g", hidden), param(p + "ln2_b", hidden)
        v = f"%{p}"
        body += [
            f"{v}qkv0 = rlx.matmul {h}, {qkv_w} : {x3}, "
            f"{t(hidden, 3 * hidden)}",
            f"{v}qkv = rlx.binary add {v}qkv0, {qkv_b} : "
            f"{t(batch, seq, 3 * hidden)}, {t(3 * hidden)}"]
        for j, name in enumerate("qkv"):
            body += [
                f"{v}{name}0 = rlx.narrow {v}qkv axis = 2 start = "
                f"{j * hidden} len = {hidden} : {t(batch, seq, 3 * hidden)}",
                f"{v}{name}1 = rlx.reshape {v}{name}0 new_shape = "
                f"[{batch}, {seq}, {heads}, {d}] : {x3}",
                f"{v}{name} = rlx.transpose {v}{name}1 perm = [0, 2, 1, 3] : "
                f"{t(batch, seq, heads, d)}"]
        a4 = t(batch, heads, seq, d)
        body += [
            f"{v}o0 = rlx.attention {v}q, {v}k, {v}v {{head_dim = {d} : i64, "
            f"num_heads = {heads} : i64, mask_kind = #rlx.mask<none>}} : "
            f"{a4}, {a4}, {a4}",
            f"{v}o1 = rlx.transpose {v}o0 perm = [0, 2, 1, 3] : {a4}",
            f"{v}o2 = rlx.reshape {v}o1 new_shape = [{batch}, {seq}, "
            f"{hidden}] : {t(batch, seq, heads, d)}",
            f"{v}a0 = rlx.matmul {v}o2, {out_w} : {x3}, {t(hidden, hidden)}",
            f"{v}a = rlx.binary add {v}a0, {out_b} : {x3}, {t(hidden)}",
            f"{v}r1 = rlx.binary add {h}, {v}a : {x3}, {x3}",
            f"{v}h1 = rlx.layer_norm {v}r1, {ln1_g}, {ln1_b} {{axis = -1 : "
            f"i64, eps = 1.0e-05 : f32}} : {x3}, {t(hidden)}, {t(hidden)}",
            f"{v}f0 = rlx.matmul {v}h1, {fc1_w} : {x3}, {t(hidden, ffn)}",
            f"{v}f1 = rlx.binary add {v}f0, {fc1_b} : {t(batch, seq, ffn)}, "
            f"{t(ffn)}",
            f"{v}f2 = rlx.activation gelu {v}f1 : {t(batch, seq, ffn)}",
            f"{v}f3 = rlx.matmul {v}f2, {fc2_w} : {t(batch, seq, ffn)}, "
            f"{t(ffn, hidden)}",
            f"{v}f = rlx.binary add {v}f3, {fc2_b} : {x3}, {t(hidden)}",
            f"{v}r2 = rlx.binary add {v}h1, {v}f : {x3}, {x3}",
            f"{v}h2 = rlx.layer_norm {v}r2, {ln2_g}, {ln2_b} {{axis = -1 : "
            f"i64, eps = 1.0e-05 : f32}} : {x3}, {t(hidden)}, {t(hidden)}"]
        h = f"{v}h2"
    cls_w, cls_b = param("cls_w", hidden, classes), param("cls_b", classes)
    body += [
        f"%tok = rlx.reshape {h} new_shape = [{tokens}, {hidden}] : {x3}",
        f"%z0 = rlx.matmul %tok, {cls_w} : {t(tokens, hidden)}, "
        f"{t(hidden, classes)}",
        f"%z = rlx.binary add %z0, {cls_b} : {t(tokens, classes)}, "
        f"{t(classes)}",
        f"%l = rlx.softmax_cross_entropy_with_logits %z, %labels : "
        f"{t(tokens, classes)}, tensor<{tokens}xi64>",
        f"%loss = rlx.reduce mean %l axes = [0] : tensor<{tokens}xf32>"]
    return graph(args, body)


def graph(args, body):
    return ("func.func @f(" + ",\n    ".join(args) + ") -> tensor<f32> {\n" +
            "".join(f"  {line}\n" for line in body) +
            "  return %loss : tensor<f32>\n}\n")


def bench(build, path, entry, runs, threads):
    env = dict(os.environ)
    if threads:
        env.update(OMP_NUM_THREADS=str(threads),
                   OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run(
        [os.path.join(build, "bin", "rlx-run"), path, "--entry", entry,
         "--random-inputs", "--bench", str(runs)],
        capture_output=True, text=True, check=True, env=env).stdout
    times = re.search(r"bench: median ([0-9.]+) ms, .* min ([0-9.]+) ms", out)
    peak = int(re.search(r"memory: peak ([0-9]+) bytes", out).group(1))
    return float(times.group(1)), float(times.group(2)), peak


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0,
                        help="OpenMP and OpenBLAS threads (0: their default)")
    opts = parser.parse_args()
    work = tempfile.mkdtemp(prefix="rlx-remat-")
    print("| graph | function | remat | median ms | min ms | peak buffers "
          "(MiB) |")
    print("|---|---|---|---:|---:|---:|")
    for name, text in [("MLP, 12 layers, 256 x 512", mlp()),
                       ("encoder, 4 layers, 4 x 128 x 256", encoder())]:
        source = os.path.join(work, "f.mlir")
        with open(source, "w") as f:
            f.write(text)
        cases = [("forward `@f`", "", source, "f")]
        for remat in ["none", "elementwise"]:
            grad = os.path.join(work, f"grad-{remat}.mlir")
            subprocess.run(
                [os.path.join(opts.build, "bin", "rlx-opt"), source,
                 f"--rlx-autodiff=func=f remat={remat}", "-o", grad],
                check=True)
            cases.append(("`@f_grad`", remat, grad, "f_grad"))
        best = {}
        for _ in range(opts.rounds):
            for case in cases:
                result = bench(opts.build, case[2], case[3], opts.runs,
                               opts.threads)
                best[case] = min(best.get(case, result), result)
        for case in cases:
            median, fastest, peak = best[case]
            print(f"| {name} | {case[0]} | {case[1]} | {median:.2f} | "
                  f"{fastest:.2f} | {peak / 2**20:.2f} |")


if __name__ == "__main__":
    main()
