"""Training steps built by rlx-autodiff (optimizer=sgd|adam) against
torch.optim on examples/mlp_train.mlir and examples/transformer_train.mlir.

For each example and optimizer the test runs `rlx-opt --rlx-autodiff=
"func=... optimizer=..."` and then the @..._train_step function 20 times
with rlx-run, feeding every result marked {rlx.param = name} back as the
argument of that name (optimizer state starts at zeros), and trains the same
model from the same initial weights with torch.optim.SGD (momentum 0 and
0.9) and torch.optim.Adam (two settings), in f32. Each step's loss must
match PyTorch's within 1e-4 relative (atol 1e-6, f32's resolution of a
nearly fitted loss); the MLP's final parameters within 1e-4 relative (atol
1e-5). The step function is compiled once (--emit-shared-lib) and run with
--load.
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
from torch_reference import attention  # noqa: E402

RLX_OPT, RLX_RUN, EXAMPLES = sys.argv[1], sys.argv[2], sys.argv[3]
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


def weights(shape, scale):
    return (check.rng.standard_normal(shape) * scale).astype(np.float32)


def mlp_setup():
    data = {"x": check.rng.standard_normal((16, 8)).astype(np.float32),
            "labels": check.rng.integers(0, 4, (16,)).astype(np.int64)}
    init = {"w1": weights((8, 32), 0.4), "b1": weights((32,), 0.1),
            "w2": weights((32, 4), 0.4), "b2": weights((4,), 0.1)}
    return data, init


def encoder_setup():
    data = {"x": check.rng.standard_normal((2, 4, 8)).astype(np.float32),
            "labels": check.rng.integers(0, 3, (8,)).astype(np.int64)}
    init = {"qkv_w": weights((8, 24), 0.3), "qkv_b": weights((24,), 0.1),
            "out_w": weights((8, 8), 0.3), "out_b": weights((8,), 0.1),
            "ln1_g": 1 + weights((8,), 0.1), "ln1_b": weights((8,), 0.1),
            "fc1_w": weights((8, 16), 0.3), "fc1_b": weights((16,), 0.1),
            "fc2_w": weights((16, 8), 0.3), "fc2_b": weights((8,), 0.1),
            "ln2_g": 1 + weights((8,), 0.1), "ln2_b": weights((8,), 0.1),
            "cls_w": weights((8, 3), 0.3), "cls_b": weights((3,), 0.1)}
    return data, init


def torch_losses(loss_fn, init, data, make_optimizer):
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}
    optimizer = make_optimizer(list(params.values()))
    inputs = {k: torch.from_numpy(v) for k, v in data.items()}
    losses = []
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = loss_fn(params, **inputs)
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    return losses, {k: v.detach().numpy() for k, v in params.items()}


def rlx_losses(example, func, option, init, data):
    proc = subprocess.run(
        [RLX_OPT, example, f"--rlx-autodiff=func={func} {option}"],
        capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: rlx-opt {option}:\n{proc.stderr}")
        check.failed += 1
        return None, None
    mlir = proc.stdout
    entry = f"{func}_train_step"
    step = re.search(rf"func\.func @{entry}\((.*?)\) -> \((.*?)\) \{{", mlir,
                     re.S)
    shapes = {}
    for arg in re.finditer(r"tensor<([^>]*)> \{rlx\.(input|param) = "
                           r"\"([^\"]+)\"\}", step.group(1)):
        dims = arg.group(1).split("x")[:-1]
        shapes[arg.group(3)] = tuple(int(d) for d in dims)
    state = dict(init)
    for name, shape in shapes.items():
        if name not in state and name not in data:
            state[name] = np.zeros(shape, np.float32)  # optimizer state
    result_names = re.findall(r"rlx\.param = \"([^\"]+)\"", step.group(2))
    # Compiled once ahead of time, then run once per step.
    check.cases += 1
    case = os.path.join(check.workdir, f"case{check.cases}")
    os.makedirs(case)
    graph, library = os.path.join(case, "graph.mlir"), os.path.join(
        case, "train_step.so")
    with open(graph, "w") as f:
        f.write(mlir)
    if not run_or_fail([RLX_RUN, graph, "--entry", entry, "--emit-shared-lib",
                        library]):
        return None, None
    losses = []
    for i in range(STEPS):
        cmd = [RLX_RUN, "--load", library, "--output",
               os.path.join(case, f"out{i}")]
        for name, value in dict(state, **data).items():
            path = os.path.join(case, f"{name}.npy")
            np.save(path, value)
            cmd += ["--input", f"{name}={path}"]
        if not run_or_fail(cmd):
            return None, None
        outs = [np.load(os.path.join(case, f"out{i}", f"output_{j}.npy"))
                for j in range(1 + len(result_names))]
        losses.append(float(outs[0]))
        for name, value in zip(result_names, outs[1:]):
            state[name] = value
    return losses, state


def run_or_fail(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode == 0:
        return True
    print(f"FAIL: {' '.join(cmd)}:\n{proc.stderr}")
    check.failed += 1
    return False


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
        got, got_state = rlx_losses(os.path.join(EXAMPLES, file), func,
                                    option, init, data)
        check.close(f"{what}: losses of {STEPS} steps",
                    np.array(got, np.float64) if got else None,
                    np.array(want, np.float64), 1e-4, LOSS_ATOL)
        if got:
            print(f"{what}: loss {want[0]:.4f} -> {want[-1]:.4f} (torch), "
                  f"{got[0]:.4f} -> {got[-1]:.4f} (rlx)")
        if not compare_params:
            continue
        for k in init:
            check.close(f"{what}: {k} after {STEPS} steps",
                        got_state[k] if got_state else None, want_params[k],
                        1e-4, 1e-5)
check.finish()
