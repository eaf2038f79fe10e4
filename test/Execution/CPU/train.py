"""Training steps built by rlx-autodiff (optimizer=sgd|adam) against
torch.optim on examples/mlp_train.mlir.

The test runs `rlx-opt --rlx-autodiff="func=mlp optimizer=..."` and then
@mlp_train_step 20 times with rlx-run, feeding every result marked
{rlx.param = name} back as the argument of that name (optimizer state starts
at zeros), and trains the same model from the same initial weights with
torch.optim.SGD (lr 0.1, momentum 0 and 0.9) and torch.optim.Adam (lr 0.01),
in f32. Each step's loss must match PyTorch's within 1e-4 relative, and the
final parameters within 1e-4 relative (atol 1e-5).
"""

import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker  # noqa: E402

RLX_OPT, RLX_RUN, EXAMPLE = sys.argv[1], sys.argv[2], sys.argv[3]
check = Checker(RLX_RUN)
STEPS = 20
PARAMS = ["w1", "b1", "w2", "b2"]


def torch_losses(init, x, labels, make_optimizer):
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    optimizer = make_optimizer([params[k] for k in PARAMS])
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        h = torch.tanh(torch.from_numpy(x) @ params["w1"] + params["b1"])
        loss = F.cross_entropy(h @ params["w2"] + params["b2"],
                               torch.from_numpy(labels))
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    return losses, {k: v.detach().numpy() for k, v in params.items()}


def rlx_losses(option, init, x, labels):
    proc = subprocess.run(
        [RLX_OPT, EXAMPLE, f"--rlx-autodiff=func=mlp {option}"],
        capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: rlx-opt {option}:\n{proc.stderr}")
        check.failed += 1
        return None, None
    mlir = proc.stdout
    step = re.search(r"func\.func @mlp_train_step\((.*?)\) ->", mlir, re.S)
    shapes = {}
    for arg in re.finditer(r"tensor<([^>]*)> \{rlx\.(input|param) = "
                           r"\"([^\"]+)\"\}", step.group(1)):
        dims = arg.group(1).split("x")[:-1]
        shapes[arg.group(3)] = tuple(int(d) for d in dims)
    state = dict(init)
    for name, shape in shapes.items():
        if name not in state and name not in ("x", "labels"):
            state[name] = np.zeros(shape, np.float32)  # optimizer state
    results = re.search(r"func\.func @mlp_train_step\(.*?\) -> \((.*?)\) \{",
                        mlir, re.S).group(1)
    result_names = [None] + re.findall(r"rlx\.param = \"([^\"]+)\"", results)
    losses = []
    for _ in range(STEPS):
        feed = dict(state, x=x, labels=labels)
        outs = check.run(mlir, feed, entry="mlp_train_step")
        if outs is None:
            return None, None
        losses.append(float(outs[0]))
        for name, value in zip(result_names[1:], outs[1:]):
            state[name] = value
    return losses, state


rng = check.rng
x = rng.standard_normal((16, 8)).astype(np.float32)
labels = rng.integers(0, 4, (16,)).astype(np.int64)
init = {"w1": (rng.standard_normal((8, 32)) * 0.4).astype(np.float32),
        "b1": (rng.standard_normal((32,)) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((32, 4)) * 0.4).astype(np.float32),
        "b2": (rng.standard_normal((4,)) * 0.1).astype(np.float32)}
torch.set_default_dtype(torch.float32)

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
for option, make in OPTIMIZERS:
    want, want_params = torch_losses(init, x, labels, make)
    got, got_state = rlx_losses(option, init, x, labels)
    check.close(f"{option}: losses of {STEPS} steps",
                np.array(got, np.float64) if got else None,
                np.array(want, np.float64), 1e-4, 0.0)
    if got:
        print(f"{option}: loss {want[0]:.4f} -> {want[-1]:.4f} (torch), "
              f"{got[0]:.4f} -> {got[-1]:.4f} (rlx)")
    for k in PARAMS:
        check.close(f"{option}: {k} after {STEPS} steps",
                    got_state[k] if got_state else None, want_params[k],
                    1e-4, 1e-5)
check.finish()
