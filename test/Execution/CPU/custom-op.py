"""rlx.custom on the CPU through the example plugin
(examples/custom-op/swish_add.cpp, docs/custom-ops.md).

"example.swish_add"(x, y) attrs {beta} is z = x * sigmoid(beta x) + y with
y broadcast along x's rows. Compared with NumPy in float64 at rtol 1e-5,
atol 1e-6 (the kernel's f32 exp and division are within a few ulp): plain,
with a narrowed operand and the result feeding another op, two custom ops
in a row, and through a library compiled ahead of time and run with --load.

Errors, each one `rlx-run: error:` or `error:` line with exit code 1: the
op not registered when the graph runs, a missing plugin, a library without
rlx_plugin_init, a plugin registering an op twice, the shape function
rejecting the operands, a declared result type other than the shape
function's, a dynamic result, an element type the ABI does not carry.
"""

import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])
libs = sys.argv[2]
PLUGIN = os.path.join(libs, "libswish_add_plugin.so")
F32 = np.float32


def swish_add(x, y, beta):
    x = x.astype(np.float64)
    return x / (1 + np.exp(-beta * x)) + y.astype(np.float64)


def rlx_run(mlir, args):
    """rlx-run on `mlir` (none when empty, for --load) with `args`."""
    if not mlir:
        return subprocess.run([check.rlx_run] + args, capture_output=True,
                              text=True)
    path = os.path.join(check.workdir, f"graph{runs}-{check.cases}.mlir")
    with open(path, "w") as f:
        f.write(mlir)
    return subprocess.run([check.rlx_run, path] + args, capture_output=True,
                          text=True)


runs = 0


def run(what, mlir, inputs, extra=()):
    """Runs with the plugin and returns the outputs (or None)."""
    global runs
    runs += 1
    case = os.path.join(check.workdir, f"run{runs}")
    os.makedirs(case)
    args = ["--plugin", PLUGIN, "--output", case] + list(extra)
    for name, value in inputs.items():
        np.save(os.path.join(case, f"{name}.npy"), value)
        args += ["--input", f"{name}={os.path.join(case, name + '.npy')}"]
    proc = rlx_run(mlir, args)
    if not check.succeeded(what, proc):
        return None
    outs, i = [], 0
    while os.path.exists(os.path.join(case, f"output_{i}.npy")):
        outs.append(np.load(os.path.join(case, f"output_{i}.npy")))
        i += 1
    return outs


def expect_error(what, mlir, args, *needles):
    """rlx-run exits with 1, each needle in some line of its stderr."""
    check.failed_with(what, rlx_run(mlir, args), needles, one_line=False)


def graph(m, n, beta=None):
    xt, yt = tensor_type((m, n), F32), tensor_type((n,), F32)
    attrs = f" attrs {{beta = {beta!r} : f32}}" if beta is not None else ""
    return (f"func.func @f(%x: {xt} {{rlx.input = \"x\"}}, "
            f"%y: {yt} {{rlx.input = \"y\"}}) -> {xt} {{\n"
            f"  %z = rlx.custom \"example.swish_add\"(%x, %y) pure{attrs} : "
            f"({xt}, {yt}) -> {xt}\n  return %z : {xt}\n}}\n")


for m, n, beta in [(4, 8, 1.5), (1, 1, None), (3, 17, -0.75), (64, 33, 2.0)]:
    x = check.uniform((m, n), F32, -6, 6)
    y = check.uniform((n,), F32)
    outs = run(f"swish_add {m}x{n} beta={beta}", graph(m, n, beta),
               {"x": x, "y": y})
    if outs:
        check.close(f"swish_add {m}x{n} beta={beta}", outs[0].astype(
            np.float64), swish_add(x, y, 1.0 if beta is None else beta),
            1e-5, 1e-6)

# A narrowed operand (a strided view of x) and the result feeding another
# op; two custom ops in a row, the second on the first's result.
x = check.uniform((5, 12), F32, -4, 4)
y = check.uniform((6,), F32)
xt, nt, yt = (tensor_type(s, F32) for s in ((5, 12), (5, 6), (6,)))
mlir = (f"func.func @f(%x: {xt} {{rlx.input = \"x\"}}, "
        f"%y: {yt} {{rlx.input = \"y\"}}) -> ({nt}, {nt}) {{\n"
        f"  %n = rlx.narrow %x axis = 1 start = 3 len = 6 : {xt}\n"
        f"  %z = rlx.custom \"example.swish_add\"(%n, %y) pure : "
        f"({nt}, {yt}) -> {nt}\n"
        f"  %w = rlx.custom \"example.swish_add\"(%z, %y) pure "
        f"attrs {{beta = 0.5 : f32}} : ({nt}, {yt}) -> {nt}\n"
        f"  %s = rlx.binary mul %z, %z : {nt}, {nt}\n"
        f"  return %s, %w : {nt}, {nt}\n}}\n")
outs = run("narrowed operand, chained ops", mlir, {"x": x, "y": y})
if outs:
    z = swish_add(x[:, 3:9], y, 1.0)
    check.close("swish_add of a narrowed x, squared", outs[0].astype(
        np.float64), z * z, 1e-5, 1e-6)
    check.close("swish_add of swish_add", outs[1].astype(np.float64),
                swish_add(z.astype(F32), y, 0.5), 1e-5, 1e-6)

# Ahead of time: compiled without the plugin, run with it.
lib = os.path.join(check.workdir, "swish.so")
x = check.uniform((3, 8), F32, -3, 3)
y = check.uniform((8,), F32)
proc = rlx_run(graph(3, 8, 1.5), ["--emit-shared-lib", lib])
if check.succeeded("--emit-shared-lib", proc):
    case = os.path.join(check.workdir, "aot")
    os.makedirs(case)
    np.save(os.path.join(case, "x.npy"), x)
    np.save(os.path.join(case, "y.npy"), y)
    proc = subprocess.run(
        [check.rlx_run, "--load", lib, "--plugin", PLUGIN, "--input",
         f"x={case}/x.npy", "--input", f"y={case}/y.npy", "--output", case],
        capture_output=True, text=True)
    if check.succeeded("--load with --plugin", proc):
        check.close("swish_add ahead of time", np.load(os.path.join(
            case, "output_0.npy")).astype(np.float64), swish_add(x, y, 1.5),
            1e-5, 1e-6)
    expect_error("library run without the plugin", "", ["--load", lib,
                                                        "--random-inputs"],
                 "error: @f: custom op 'example.swish_add' is not registered",
                 "--plugin")

# --- Errors ----------------------------------------------------------------

expect_error("op not registered when the graph runs", graph(2, 4),
             ["--random-inputs"],
             "rlx-run: error: @f: custom op 'example.swish_add' is not "
             "registered: load the plugin that registers it",
             "registered ops: none")
expect_error("missing plugin", graph(2, 4),
             ["--plugin", os.path.join(libs, "no-such-plugin.so"),
              "--random-inputs"], "rlx-run: error: cannot load",
             "no-such-plugin.so")
expect_error("library without rlx_plugin_init", graph(2, 4),
             ["--plugin", os.path.join(libs, "librlx_custom_ops.so"),
              "--random-inputs"], "rlx-run: error:", "librlx_custom_ops.so' "
             "is not an rlx plugin: it exports no rlx_plugin_init")
expect_error("an op registered twice", graph(2, 4),
             ["--plugin", PLUGIN, "--plugin", PLUGIN, "--random-inputs"],
             "rlx-run: error: the rlx_plugin_init of plugin", "custom op "
             "'example.swish_add' is already registered")
expect_error("shape function rejects the operands",
             graph(2, 4).replace("tensor<4xf32>", "tensor<3xf32>"),
             ["--plugin", PLUGIN, "--random-inputs"],
             "error: 'rlx.custom' op 'example.swish_add': the registered "
             "shape function rejects the operands: y must be 1-D with x's "
             "last dim")
bad_result = graph(2, 4).replace(
    "-> tensor<2x4xf32>\n  return", "-> tensor<4x2xf32>\n  return").replace(
    "return %z : tensor<2x4xf32>", "return %z : tensor<4x2xf32>").replace(
    ") -> tensor<2x4xf32> {", ") -> tensor<4x2xf32> {")
expect_error("declared result other than the shape function's", bad_result,
             ["--plugin", PLUGIN, "--random-inputs"],
             "'example.swish_add': result #0 is declared [4, 2] dtype 0 but "
             "the registered shape function gives [2, 4] dtype 0")
expect_error("element type outside the ABI",
             "func.func @f(%x: tensor<4xui8> {rlx.input = \"x\"}) -> "
             "tensor<4xui8> {\n  %z = rlx.custom \"u\"(%x) pure : "
             "(tensor<4xui8>) -> tensor<4xui8>\n  return %z : tensor<4xui8>\n"
             "}\n", ["--random-inputs"], "'u': operand #0 has element type "
             "'ui8', which the CPU kernel ABI does not carry")
# --entry compiles only the function it names (and what that uses), so the
# op is in the entry.
expect_error("dynamic result",
             "func.func @g(%x: tensor<?xf32> {rlx.input = \"x\"}) -> "
             "tensor<?xf32> {\n"
             "  %z = rlx.custom \"d\"(%x) pure : (tensor<?xf32>) -> "
             "tensor<?xf32>\n  return %z : tensor<?xf32>\n}\n"
             "func.func @f(%x: tensor<4xf32> {rlx.input = \"x\"}) -> "
             "tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n",
             ["--entry", "g", "--random-inputs"],
             "'d': result #0 ('tensor<?xf32>') has dynamic dims")

check.finish()
