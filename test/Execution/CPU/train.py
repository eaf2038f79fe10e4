"""Training steps built by rlx-autodiff (optimizer=sgd|adam) and run by
`rlx-run --steps` against torch.optim on examples/mlp_train.mlir and
examples/transformer_train.mlir.

For each example and optimizer the test runs

    rlx-opt EXAMPLE --rlx-autodiff="func=... optimizer=..." \\
      | rlx-run - --steps 20 --params init.safetensors --input x=... \\
          --input labels=... --output DIR

(rlx-run picks @..._train_step, feeds every result marked {rlx.param =
name} back into that argument and starts the optimizer state at zeros) and
trains the same model from the same initial weights with torch.optim.SGD
(momentum 0 and 0.9) and torch.optim.Adam (two settings), in f32. Each
printed step loss must match PyTorch's within 1e-4 relative (atol 1e-6,
f32's resolution of a nearly fitted loss), or be at most twice as far from
PyTorch's f64 run as PyTorch's f32 run is (Adam turns a gradient that is
rounding noise into steps of about lr, which for some seeds moves the f32
trajectories by more than 1e-4); the MLP's final parameters, read
from DIR/params.safetensors, within 1e-4 relative (atol 1e-5; with Adam
2e-3 * lr: Adam moves a parameter by about lr per step whatever the
gradient's size, so f32 rounding of a nearly zero gradient shows up at
that scale).

Both examples also train with remat=elementwise (Adam). On the MLP:
--batched (SGD on a different batch each step, from one .npy whose leading
axis indexes the step) against torch fed the same batches; and the
--output / --params round trip: 12 Adam steps written to
params.safetensors, then 8 more from it (optimizer state included) through
a library compiled ahead of time and run by rlx-run-aot (rlx-run --load
where rlx-run-aot is not built) continue the 20-step curve.
"""

import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
sys.path.insert(0, __file__.rsplit("/", 4)[0] + "/scripts")
from rlxcheck import Checker, read_safetensors, write_safetensors  # noqa
from train_inputs import example_inputs  # noqa: E402
from torch_reference import attention  # noqa: E402

RLX_OPT, RLX_RUN, EXAMPLES = sys.argv[1], sys.argv[2], sys.argv[3]
RLX_RUN_AOT = os.path.join(os.path.dirname(RLX_RUN), "rlx-run-aot")
check = Checker(RLX_RUN)
STEPS = 20
EPS = float(np.float32(1e-5))  # layer_norm stores eps as f32
# A nearly fitted cross-entropy is a difference of O(1) numbers, which f32
# resolves to about 1e-6: the floor of the per-step loss comparison.
LOSS_ATOL = 1e-6


def mlp_loss(p, x, labels):
    h = torch.tanh(x @ p["w1"] + p["b1"])
    return F.cross_entropy(h @ p["w2"] + p["b2"], labels)


def encoder_loss(p, x, labels):
    qkv = x @ p["qkv_w"] + p["qkv_b"]

    def heads(t):
        return t.reshape(2, 4, 2, 4).transpose(1, 2)
    o = attention(heads(qkv[..., :8]), heads(qkv[..., 8:16]),
                  heads(qkv[..., 16:]), 2, 4, "none", None, None, None, None,
                  False)
    a = o.transpose(1, 2).reshape(2, 4, 8) @ p["out_w"] + p["out_b"]
    h1 = F.layer_norm(x + a, (8,), p["ln1_g"], p["ln1_b"], EPS)
    f = F.gelu(h1 @ p["fc1_w"] + p["fc1_b"]) @ p["fc2_w"] + p["fc2_b"]
    h2 = F.layer_norm(h1 + f, (8,), p["ln2_g"], p["ln2_b"], EPS)
    return F.cross_entropy(h2.reshape(8, 8) @ p["cls_w"] + p["cls_b"], labels)


def mlp_setup():
    return example_inputs("mlp_train", check.rng)


def encoder_setup():
    return example_inputs("transformer_train", check.rng)


def torch_losses(loss_fn, init, data, make_optimizer, batched=()):
    """PyTorch's loss per step; an input in `batched` takes slice s in
    step s."""
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    optimizer = make_optimizer(list(params.values()))
    inputs = {k: torch.from_numpy(v) for k, v in data.items()}
    losses = []
    for step in range(STEPS):
        optimizer.zero_grad()
        loss = loss_fn(params, **{
            k: v[step] if k in batched else v for k, v in inputs.items()})
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    return losses, {k: v.detach().numpy() for k, v in params.items()}


def f64(arrays):
    """`arrays` with its f32 arrays widened to f64."""
    return {k: v.astype(np.float64) if v.dtype == np.float32 else v
            for k, v in arrays.items()}


def close_losses(what, got, want, want64):
    """Each step's loss `got` within 1e-4 relative (atol LOSS_ATOL) of
    PyTorch's f32 loss `want`, or at most twice as far from PyTorch's f64
    loss `want64` as PyTorch's own f32 loss is: a gradient that is rounding
    noise (the encoder's key bias, which softmax ignores) is scaled by Adam
    to steps of about lr, so for some seeds f32 rounding alone moves the
    trajectory by more than 1e-4, in PyTorch as in rlx."""
    got = None if not got else np.array(got, np.float64)
    want, want64 = np.array(want, np.float64), np.array(want64, np.float64)
    excess = None if got is None else np.minimum(
        np.abs(got - want) / (1e-4 * np.abs(want) + LOSS_ATOL),
        np.abs(got - want64) / (2 * np.abs(want - want64) + LOSS_ATOL))
    check.close(f"{what}: losses of {STEPS} steps (1 is the larger of 1e-4 "
                "of the f32 loss and twice f32's distance from f64)", excess,
                np.zeros_like(want), 0, 1.0)


def new_case():
    check.cases += 1
    case = os.path.join(check.workdir, f"case{check.cases}")
    os.makedirs(case)
    return case


def inputs_flags(case, data, batched=()):
    """The rlx-run flags giving `data` as inputs, as .npy files in `case`."""
    flags = []
    for name, value in data.items():
        path = os.path.join(case, f"{name}.npy")
        np.save(path, value)
        flags += ["--input", f"{name}={path}"]
        if name in batched:
            flags += ["--batched", name]
    return flags


def params_flags(case, init):
    path = os.path.join(case, "init.safetensors")
    write_safetensors(path, init)
    return ["--params", path]


def step_losses(cmd, steps, stdin=None):
    """Runs `cmd` and returns the losses it printed, or None (a failure)."""
    proc = subprocess.run(cmd, stdin=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: {' '.join(cmd)}:\n{proc.stderr}")
        check.failed += 1
        return None
    lines = re.findall(r"^step (\d+): loss (\S+)$", proc.stdout, re.M)
    if [int(s) for s, _ in lines] != list(range(1, steps + 1)):
        print(f"FAIL: {' '.join(cmd)} printed no loss line per step:\n"
              f"{proc.stdout}")
        check.failed += 1
        return None
    return [float(loss) for _, loss in lines]


def train_step_ir(example, func, option):
    proc = subprocess.run(
        [RLX_OPT, example, f"--rlx-autodiff=func={func} {option}"],
        capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: rlx-opt {option}:\n{proc.stderr}")
        check.failed += 1
        return None
    return proc.stdout


def rlx_losses(example, func, option, init, data, batched=()):
    """rlx-opt | rlx-run --steps: the losses and the trained parameters."""
    case = new_case()
    out = os.path.join(case, "out")
    opt = subprocess.Popen(
        [RLX_OPT, example, f"--rlx-autodiff=func={func} {option}"],
        stdout=subprocess.PIPE)
    losses = step_losses([RLX_RUN, "-", "--steps", str(STEPS), "--output",
                          out] + params_flags(case, init) +
                         inputs_flags(case, data, batched), STEPS,
                         stdin=opt.stdout)
    opt.stdout.close()
    if opt.wait() != 0:
        print(f"FAIL: rlx-opt {option} exited {opt.returncode}")
        check.failed += 1
        return None, None
    if losses is None:
        return None, None
    return losses, read_safetensors(os.path.join(out, "params.safetensors"))


def resumed_losses(example, func, option, init, data, first):
    """`first` steps written with --output, then the rest resumed from
    --params DIR/params.safetensors by a library compiled ahead of time."""
    mlir = train_step_ir(example, func, option)
    if mlir is None:
        return None
    case = new_case()
    graph = os.path.join(case, "graph.mlir")
    with open(graph, "w") as f:
        f.write(mlir)
    inputs = inputs_flags(case, data)
    head = step_losses([RLX_RUN, graph, "--steps", str(first), "--output",
                        os.path.join(case, "mid")] + params_flags(case, init) +
                       inputs, first)
    library = os.path.join(case, "step.so")
    proc = subprocess.run([RLX_RUN, graph, "--entry", f"{func}_train_step",
                           "--emit-shared-lib", library],
                          capture_output=True, text=True)
    if head is None or proc.returncode != 0:
        print(f"FAIL: --emit-shared-lib: {proc.stderr}")
        check.failed += 1
        return None
    runner = [RLX_RUN_AOT] if os.path.exists(RLX_RUN_AOT) else [RLX_RUN]
    tail = step_losses(runner + [
        "--load", library, "--steps", str(STEPS - first), "--params",
        os.path.join(case, "mid", "params.safetensors")] + inputs,
        STEPS - first)
    return None if tail is None else head + tail


OPTIMIZERS = [
    ("optimizer=sgd lr=0.1",
     lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("optimizer=sgd lr=0.1 momentum=0.9",
     lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    ("optimizer=adam lr=0.01",
     lambda ps: torch.optim.Adam(ps, lr=0.01)),
    ("optimizer=adam lr=0.05 beta1=0.8 beta2=0.99 eps=1e-6",
     lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6)),
]
# The MLP's parameters are compared too. The encoder's key bias has no
# effect on the loss (softmax ignores a shift shared by a row's scores), so
# its gradient is rounding noise that Adam amplifies: only losses there.
EXAMPLE_SETUPS = [
    ("mlp_train.mlir", "mlp", mlp_setup, mlp_loss, True),
    ("transformer_train.mlir", "encoder", encoder_setup, encoder_loss, False),
]
torch.set_default_dtype(torch.float32)
for file, func, setup, loss_fn, compare_params in EXAMPLE_SETUPS:
    data, init = setup()
    for option, make in OPTIMIZERS:
        what = f"{func} {option}"
        want, want_params = torch_losses(loss_fn, init, data, make)
        want64, _ = torch_losses(loss_fn, f64(init), f64(data), make)
        got, got_state = rlx_losses(os.path.join(EXAMPLES, file), func,
                                    option, init, data)
        close_losses(what, got, want, want64)
        if got:
            print(f"{what}: loss {want[0]:.4f} -> {want[-1]:.4f} (torch), "
                  f"{got[0]:.4f} -> {got[-1]:.4f} (rlx)")
        if not compare_params:
            continue
        param_atol = 1e-5
        if "adam" in option:
            lr = float(re.search(r"lr=([0-9.e-]+)", option).group(1))
            param_atol = max(param_atol, 2e-3 * lr)
        for k in init:
            check.close(f"{what}: {k} after {STEPS} steps",
                        got_state[k] if got_state else None, want_params[k],
                        1e-4, param_atol)

# remat=elementwise changes where values are computed, not the result.
for file, func, setup, loss_fn, _ in EXAMPLE_SETUPS:
    data, init = setup()
    option, make = OPTIMIZERS[2]
    want, _ = torch_losses(loss_fn, init, data, make)
    want64, _ = torch_losses(loss_fn, f64(init), f64(data), make)
    got, _ = rlx_losses(os.path.join(EXAMPLES, file), func,
                        option + " remat=elementwise", init, data)
    close_losses(f"{func} {option} remat=elementwise", got, want, want64)

# A different batch of the MLP's inputs each step.
data, init = mlp_setup()
data["x"] = check.rng.standard_normal((STEPS, 16, 8)).astype(np.float32)
option, make = OPTIMIZERS[1]
want, _ = torch_losses(mlp_loss, init, data, make, batched=("x",))
got, _ = rlx_losses(os.path.join(EXAMPLES, "mlp_train.mlir"), "mlp", option,
                    init, data, batched=("x",))
check.close(f"mlp {option}, --batched x: losses of {STEPS} steps",
            np.array(got, np.float64) if got else None,
            np.array(want, np.float64), 1e-4, LOSS_ATOL)

# 12 steps, then 8 from the written parameters and optimizer state.
data, init = mlp_setup()
option, make = OPTIMIZERS[2]
want, _ = torch_losses(mlp_loss, init, data, make)
got = resumed_losses(os.path.join(EXAMPLES, "mlp_train.mlir"), "mlp", option,
                     init, data, 12)
check.close(f"mlp {option}: 12 steps, --output, --params, 8 steps",
            np.array(got, np.float64) if got else None,
            np.array(want, np.float64), 1e-4, LOSS_ATOL)
check.finish()
