"""The harness of the autodiff execution tests: a case is a small graph @f
whose first result is the loss, and the same function in torch.

For each case and dtype (f32, f64) `run_cases` runs
`rlx-opt --rlx-autodiff="func=f wrt=..."` and @f_grad with rlx-run, and
`rlx-opt --rlx-jvp="func=f wrt=..."` and @f_jvp, on fresh random inputs, and
compares:

- the loss and every gradient with `torch.autograd.grad` of the torch
  function, computed in f64 from the same (rounded) inputs; a loss with
  several elements is seeded with a random cotangent `d_loss`;
- every tangent with functorch's `jvp` (forward-mode AD);
- in f64, rlx's own VJP against its own JVP: `<d_loss, J t> = <J^T d_loss, t>`
  (rtol 1e-9);
- in f64, the oracle itself against central finite differences of
  `<f, d_loss>` along the tangent (rtol 1e-6), except for cases marked not
  smooth (kinks, where differences do not converge to the one-sided
  derivative).

`check_hvp` checks Hessian-vector products by forward over reverse (`rlx-jvp`
of `@f_grad`) against `torch.autograd.functional.hvp`.

Tolerances: f32 rtol 1e-5 with atol 1e-5 * scale * sqrt(n), where scale is
the largest magnitude of the expected value (at least 1) and n the number of
terms one element of it sums (stated per case); f64 rtol 1e-10 with atol
1e-10 * scale * sqrt(n).

Usage: `init(rlx_opt, rlx_run)` first; `case(...)` per case; then
`run_cases()` (filtered by the environment variable RLX_AUTODIFF_CASE, a
substring of the case names) and `check.finish()`.
"""

import math
import os
import subprocess

import functorch
import numpy as np
import torch

from rlxcheck import Checker

torch.set_default_dtype(torch.float64)

RLX_OPT = None
check = None


def init(rlx_opt, rlx_run):
    """Sets the tools; returns the Checker every comparison reports to."""
    global RLX_OPT, check
    RLX_OPT, check = rlx_opt, Checker(rlx_run)
    return check


MLIR_F = {np.float32: "f32", np.float64: "f64"}
TOL = {np.float32: 1e-5, np.float64: 1e-10}


def rlx_opt(mlir, option):
    """The module after one rlx-opt pass, or None (the failure recorded)."""
    proc = subprocess.run([RLX_OPT, f"--{option}"], input=mlir,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"FAIL: rlx-opt --{option}:\n{proc.stderr}")
        check.failed += 1
        return None
    return proc.stdout


def close(what, dtype, got, want, n, tol=None):
    want = np.asarray(want)
    tol = tol or TOL[dtype]
    scale = max(1.0, float(np.abs(want).max()) if want.size else 1.0)
    check.close(what, got, want.astype(dtype), tol,
                tol * scale * math.sqrt(n))


class Case:
    """A graph `@f(args) -> loss`.

    args: [(name, role, make)] with role "param", "input" or "index" (an
    integer input, never differentiated) and make(dtype) -> array;
    body(F, t) -> MLIR lines ending in `%loss = ...` (F the float type,
    t(shape) a tensor type of it); loss_shape the loss's shape; fn the same
    function in torch; wrt the differentiated names; n the terms per
    element (tolerances); jvp whether the forward mode is checked; smooth
    whether finite differences apply; tol {dtype: rtol} replaces the
    default tolerance of a dtype (an f64 graph that computes in f32 inside:
    the ops that take only f32 or complex<f32>), also for the VJP/JVP
    identity.
    """

    def __init__(self, name, args, body, loss_shape, fn, wrt, n=1, jvp=True,
                 smooth=True, tol=None):
        self.name, self.args, self.body = name, args, body
        self.loss_shape, self.fn, self.wrt = tuple(loss_shape), fn, wrt
        self.n, self.jvp, self.smooth = n, jvp, smooth
        self.tol = tol or {}

    def mlir(self, dtype, values):
        F = MLIR_F[dtype]

        def t(shape):
            return "tensor<" + "".join(f"{d}x" for d in shape) + F + ">"

        params = []
        for name, role, _ in self.args:
            v = values[name]
            et = F if v.dtype.kind == "f" else {
                "i": f"i{v.dtype.itemsize * 8}"}[v.dtype.kind]
            ty = "tensor<" + "".join(f"{d}x" for d in v.shape) + et + ">"
            kind = "rlx.param" if role == "param" else "rlx.input"
            params.append(f"%{name}: {ty} {{{kind} = \"{name}\"}}")
        lines = "\n  ".join(self.body(F, t))
        return (f"func.func @f({', '.join(params)}) -> {t(self.loss_shape)} "
                f"{{\n  {lines}\n  return %loss : {t(self.loss_shape)}\n}}\n")

    def run(self, dtype):
        values = {name: make(dtype) for name, _, make in self.args}
        mlir = self.mlir(dtype, values)
        what = f"{self.name} {np.dtype(dtype)}"
        wrt = ",".join(self.wrt)
        torch_in = {k: torch.from_numpy(v.astype(np.float64)
                                        if v.dtype.kind == "f" else v)
                    for k, v in values.items()}

        def call(**overrides):
            ins = dict(torch_in, **overrides)
            return self.fn(*[ins[name] for name, _, _ in self.args])

        # Reverse mode.
        scalar = math.prod(self.loss_shape) == 1
        d_loss = check.uniform(self.loss_shape, dtype)
        leaves = {k: torch_in[k].clone().requires_grad_(True)
                  for k in self.wrt}
        loss = call(**leaves)
        seed = torch.ones_like(loss) if scalar else torch.from_numpy(
            d_loss.astype(np.float64))
        want_grads = [g if g is not None else torch.zeros_like(leaves[k])
                      for g, k in zip(torch.autograd.grad(
                          loss, [leaves[k] for k in self.wrt], seed,
                          allow_unused=True), self.wrt)]
        grad_mlir = rlx_opt(mlir, f"rlx-autodiff=func=f wrt={wrt}")
        feed = dict(values)
        if not scalar:
            feed["d_loss"] = d_loss
        outs = check.run(grad_mlir, feed, entry="f_grad") if grad_mlir \
            else None
        if outs is not None and len(outs) != 1 + len(self.wrt):
            print(f"FAIL {what}: @f_grad returned {len(outs)} results")
            check.failed += 1
            outs = None
        tol = self.tol.get(dtype)
        close(f"{what} loss", dtype, outs and outs[0], loss.detach().numpy(),
              self.n, tol)
        for i, k in enumerate(self.wrt):
            close(f"{what} d/d{k}", dtype, outs and outs[1 + i],
                  want_grads[i].numpy(), self.n, tol)

        tangents = {k: check.uniform(values[k].shape, dtype)
                    for k in self.wrt}
        if dtype == np.float64 and self.smooth:
            # The oracle against central differences along the tangent.
            def objective(step, h=1e-6):
                moved = {k: torch_in[k] + step * h * torch.from_numpy(
                    tangents[k]) for k in self.wrt}
                return float((call(**moved) * seed).sum())
            fd = (objective(1) - objective(-1)) / 2e-6
            ad = sum(float((g * torch.from_numpy(tangents[k])).sum())
                     for g, k in zip(want_grads, self.wrt))
            check.close(f"{what} oracle vs finite differences",
                        np.float64(ad), np.float64(fd), 1e-6, 1e-7)
        if not self.jvp:
            return

        # Forward mode.
        primals = tuple(torch_in[k] for k in self.wrt)
        directions = tuple(torch.from_numpy(tangents[k].astype(np.float64))
                           for k in self.wrt)
        want_tangent = functorch.jvp(
            lambda *ws: call(**dict(zip(self.wrt, ws))), primals,
            directions)[1]
        jvp_mlir = rlx_opt(mlir, f"rlx-jvp=func=f wrt={wrt}")
        feed = dict(values)
        feed.update({f"t_{k}": v for k, v in tangents.items()})
        jouts = check.run(jvp_mlir, feed, entry="f_jvp") if jvp_mlir \
            else None
        close(f"{what} jvp", dtype, jouts and jouts[1],
              want_tangent.numpy(), self.n, tol)

        # rlx against itself: <v, J t> = <J^T v, t>.
        if dtype == np.float64 and outs and jouts:
            v = seed.numpy()
            lhs = float((v * jouts[1]).sum())
            rhs = sum(float((outs[1 + i] * tangents[k]).sum())
                      for i, k in enumerate(self.wrt))
            rtol = max(1e-9, tol or 0)
            check.close(f"{what} <v, Jt> = <J^T v, t>", np.float64(lhs),
                        np.float64(rhs), rtol, rtol * math.sqrt(self.n))



def uniform(shape, low=-1.0, high=1.0):
    return lambda dtype: check.uniform(shape, dtype, low, high)


def integers(shape, high):
    return lambda dtype: check.integers(shape, np.int64, 0, high)


CASES = []


def case(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


def mlp_case(act, fn, hidden=7):
    """A two-layer MLP `x @ w1 + b1 -> act -> @ w2 + b2` with a softmax
    cross-entropy head (mean over the batch), differentiated with respect
    to every parameter; `fn` is the activation in torch, `hidden` the width
    of the hidden layer."""
    h = hidden

    def body(F, t):
        return [
            f"%h = rlx.matmul %x, %w1 : {t((8, 5))}, {t((5, h))}",
            f"%hb = rlx.binary add %h, %b1 : {t((8, h))}, {t((h,))}",
            f"%a = rlx.activation {act} %hb : {t((8, h))}",
            f"%z = rlx.matmul %a, %w2 : {t((8, h))}, {t((h, 3))}",
            f"%zb = rlx.binary add %z, %b2 : {t((8, 3))}, {t((3,))}",
            f"%l = rlx.softmax_cross_entropy_with_logits %zb, %y : "
            f"{t((8, 3))}, tensor<8xi64>",
            f"%loss = rlx.reduce mean %l axes = [0] : {t((8,))}"]

    def torch_fn(x, w1, b1, w2, b2, y):
        return torch.nn.functional.cross_entropy(fn(x @ w1 + b1) @ w2 + b2, y)
    name = f"mlp {act}" if hidden == 7 else f"mlp {act} hidden={hidden}"
    return Case(
        name,
        [("x", "input", uniform((8, 5))), ("w1", "param", uniform((5, h))),
         ("b1", "param", uniform((h,))), ("w2", "param", uniform((h, 3))),
         ("b2", "param", uniform((3,))), ("y", "index", integers((8,), 3))],
        body, (), torch_fn, ["w1", "b1", "w2", "b2"], n=40)


# --------------------------------------------------------------------------


def check_hvp(c, dtype):
    """Hessian-vector products by forward over reverse: rlx-jvp of @f_grad
    (the tangents of its gradient results) against
    torch.autograd.functional.hvp."""
    values = {name: make(dtype) for name, _, make in c.args}
    wrt = ",".join(c.wrt)
    grad = rlx_opt(c.mlir(dtype, values), f"rlx-autodiff=func=f wrt={wrt}")
    hvp = grad and rlx_opt(grad, f"rlx-jvp=func=f_grad wrt={wrt}")
    tangents = {k: check.uniform(values[k].shape, dtype) for k in c.wrt}
    feed = dict(values)
    feed.update({f"t_{k}": v for k, v in tangents.items()})
    outs = check.run(hvp, feed, entry="f_grad_jvp") if hvp else None
    torch_in = {k: torch.from_numpy(v.astype(np.float64)
                                    if v.dtype.kind == "f" else v)
                for k, v in values.items()}

    def loss(*ws):
        ins = dict(torch_in, **dict(zip(c.wrt, ws)))
        return c.fn(*[ins[name] for name, _, _ in c.args])
    _, want = torch.autograd.functional.hvp(
        loss, tuple(torch_in[k] for k in c.wrt),
        tuple(torch.from_numpy(tangents[k].astype(np.float64))
              for k in c.wrt))
    n = len(c.wrt)
    for i, k in enumerate(c.wrt):
        close(f"hvp {c.name} {np.dtype(dtype)} H t ({k})", dtype,
              outs and outs[2 + n + i], want[i].numpy(), c.n)


def run_cases(cases=None, hvp_cases=()):
    """Runs every case (default: all registered with `case`) in f32 and f64,
    and the Hessian-vector products of `hvp_cases`."""
    only = os.environ.get("RLX_AUTODIFF_CASE")
    for c in CASES if cases is None else cases:
        if only and only not in c.name:
            continue
        for dtype in (np.float32, np.float64):
            c.run(dtype)
    for c in hvp_cases:
        if only and only not in c.name:
            continue
        for dtype in (np.float32, np.float64):
            check_hvp(c, dtype)
