"""rlx-autodiff and rlx-jvp of control flow (rlx.if, rlx.while, rlx.scan,
rlx.custom_fn), the state-space scans, im2col, conv_transpose2d and prod
pooling on the CPU against torch.autograd, and second derivatives (reverse
over reverse, forward over reverse) through the backward ops. The harness
and its tolerances are described in `test/Execution/lib/autodiffcheck.py`.
"""

import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from autodiffcheck import (CASES, Case, case, close, init,  # noqa: E402
                           mlp_case, rlx_opt, run_cases, uniform)
from torch_reference import attention  # noqa: E402

check = init(sys.argv[1], sys.argv[2])


def dims(shape):
    return "".join(f"{d}x" for d in shape)


# --------------------------------------------------------------------------
# rlx.if: the branch taken is decided by the sign of the input s (not
# differentiated); each branch reads x and the captured w.
def if_graph(F_, t):
    return [
        f"%zero = rlx.constant dense<0.0> : {t(())}",
        f"%p = rlx.compare gt %s, %zero : {t(())}, {t(())}",
        f"%y = rlx.if %p : tensor<i1> -> {t((3, 4))} {{",
        f"  %a = rlx.binary mul %x, %w : {t((3, 4))}, {t((4,))}",
        f"  %b = rlx.activation tanh %a : {t((3, 4))}",
        f"  rlx.yield %b : {t((3, 4))}",
        "} else {",
        f"  %c = rlx.activation sin %x : {t((3, 4))}",
        f"  %d = rlx.binary add %c, %w : {t((3, 4))}, {t((4,))}",
        f"  rlx.yield %d : {t((3, 4))}",
        "}",
        f"%loss = rlx.binary mul %y, %y : {t((3, 4))}, {t((3, 4))}"]


def if_fn(s, x, w):
    y = torch.tanh(x * w) if s > 0 else torch.sin(x) + w
    return y * y


for branch, (low, high) in (("then", (0.1, 1.0)), ("else", (-1.0, -0.1))):
    case(f"if {branch}",
         [("s", "input", uniform((), low, high)),
          ("x", "param", uniform((3, 4))), ("w", "param", uniform((4,)))],
         if_graph, (3, 4), if_fn, ["x", "w"], n=3)


# --------------------------------------------------------------------------
# rlx.while with max_iterations: a float counter i and the state x; the
# loop runs min(trips, bound) times: trips 0, 1, below and at the bound.
def while_graph(trips, bound):
    def body(F_, t):
        v = t((3,))
        s = t(())
        return [
            f"%i0 = rlx.constant dense<0.0> : {s}",
            f"%n = rlx.constant dense<{float(trips)}> : {s}",
            f"%r:2 = rlx.while %i0, %x : {s}, {v} max_iterations = {bound}"
            " cond {",
            f"^bb0(%i: {s}, %c: {v}):",
            f"  %p = rlx.compare lt %i, %n : {s}, {s}",
            f"  rlx.yield %p, %i, %c : tensor<i1>, {s}, {v}",
            "} do {",
            f"^bb0(%i: {s}, %c: {v}):",
            f"  %one = rlx.constant dense<1.0> : {s}",
            f"  %j = rlx.binary add %i, %one : {s}, {s}",
            f"  %m = rlx.binary mul %c, %w : {v}, {v}",
            f"  %a = rlx.binary add %m, %b : {v}, {v}",
            f"  %y = rlx.activation tanh %a : {v}",
            f"  rlx.yield %j, %y : {s}, {v}",
            "}",
            f"%loss = rlx.binary mul %r#1, %x : {v}, {v}"]
    return body


def while_fn(trips, bound):
    def fn(x, w, b):
        c = x
        for _ in range(min(trips, bound)):
            c = torch.tanh(c * w + b)
        return c * x
    return fn


for trips, bound in ((0, 3), (1, 3), (2, 4), (4, 4), (6, 4)):
    case(f"while trips={trips} max_iterations={bound}",
         [("x", "param", uniform((3,))), ("w", "param", uniform((3,))),
          ("b", "param", uniform((3,)))],
         while_graph(trips, bound), (3,), while_fn(trips, bound),
         ["x", "w", "b"])


# --------------------------------------------------------------------------
# rlx.scan: c' = tanh(c * w + u_t) * v_t with a broadcast w and per-step
# u [L, n], v [L] (a per-step scalar); with and without the trajectory,
# with checkpoints, a single step.
def scan_graph(length, trajectory, checkpoints):
    n = 3
    rows = checkpoints if 0 < checkpoints < length else length

    def body(F_, t):
        c, s = t((n,)), t(())
        attrs = ""
        if trajectory:
            attrs += " save_trajectory"
        if checkpoints:
            attrs += f" num_checkpoints = {checkpoints}"
        result = t((rows, n)) if trajectory else c
        return [
            f"%r = rlx.scan %h : {c} bcast(%w : {c}) xs(%u, %v : "
            f"{t((length, n))}, {t((length,))}) length = {length}{attrs} "
            "body {",
            f"^bb0(%ci: {c}, %wb: {c}, %ut: {c}, %vt: {s}):",
            f"  %m = rlx.binary mul %ci, %wb : {c}, {c}",
            f"  %a = rlx.binary add %m, %ut : {c}, {c}",
            f"  %y = rlx.activation tanh %a : {c}",
            f"  %z = rlx.binary mul %y, %vt : {c}, {s}",
            f"  rlx.yield %z : {c}",
            "}",
            f"%loss = rlx.activation sin %r : {result}"]
    return body


def scan_fn(length, trajectory, checkpoints):
    def fn(h, w, u, v):
        c, rows = h, []
        for step in range(length):
            c = torch.tanh(c * w + u[step]) * v[step]
            rows.append(c)
        if not trajectory:
            return torch.sin(c)
        if 0 < checkpoints < length:
            rows = [rows[t * length // checkpoints]
                    for t in range(checkpoints)]
        return torch.sin(torch.stack(rows))
    return fn


for length, trajectory, checkpoints in ((1, False, 0), (1, True, 0),
                                        (4, False, 0), (4, True, 0),
                                        (5, True, 2), (7, True, 3),
                                        (6, True, 6)):
    rows = checkpoints if 0 < checkpoints < length else length
    case(f"scan length={length} trajectory={trajectory} "
         f"checkpoints={checkpoints}",
         [("h", "param", uniform((3,))), ("w", "param", uniform((3,))),
          ("u", "param", uniform((length, 3))),
          ("v", "param", uniform((length,), 0.5, 1.5))],
         scan_graph(length, trajectory, checkpoints),
         (rows, 3) if trajectory else (3,),
         scan_fn(length, trajectory, checkpoints), ["h", "w", "u", "v"],
         n=length)


# --------------------------------------------------------------------------
# rlx.custom_fn: y = sin(a) * b with its own vjp and/or jvp bodies (the
# true derivative, so torch agrees), or none (the forward body is
# differentiated). Inside an MLP-like chain so that the rules compose.
def custom_fn_graph(vjp, jvp):
    def body(F_, t):
        v = t((4,))
        lines = [
            f"%x2 = rlx.activation tanh %x : {v}",
            f"%y = rlx.custom_fn(%x2, %w) : ({v}, {v}) -> {v} fwd {{",
            f"^bb0(%a: {v}, %b: {v}):",
            f"  %s = rlx.activation sin %a : {v}",
            f"  %m = rlx.binary mul %s, %b : {v}, {v}",
            f"  rlx.yield %m : {v}",
            "}"]
        if vjp:
            lines += [
                "vjp {",
                f"^bb0(%a: {v}, %b: {v}, %y0: {v}, %g: {v}):",
                f"  %c = rlx.activation cos %a : {v}",
                f"  %cb = rlx.binary mul %c, %b : {v}, {v}",
                f"  %da = rlx.binary mul %cb, %g : {v}, {v}",
                f"  %s = rlx.activation sin %a : {v}",
                f"  %db = rlx.binary mul %s, %g : {v}, {v}",
                f"  rlx.yield %da, %db : {v}, {v}",
                "}"]
        if jvp:
            lines += [
                "jvp {",
                f"^bb0(%a: {v}, %b: {v}, %ta: {v}, %tb: {v}, %y0: {v}):",
                f"  %c = rlx.activation cos %a : {v}",
                f"  %cb = rlx.binary mul %c, %b : {v}, {v}",
                f"  %t1 = rlx.binary mul %cb, %ta : {v}, {v}",
                f"  %s = rlx.activation sin %a : {v}",
                f"  %t2 = rlx.binary mul %s, %tb : {v}, {v}",
                f"  %t = rlx.binary add %t1, %t2 : {v}, {v}",
                f"  rlx.yield %t : {v}",
                "}"]
        lines.append(f"%loss = rlx.binary mul %y, %x : {v}, {v}")
        return lines
    return body


for vjp, jvp in ((True, True), (True, False), (False, True),
                 (False, False)):
    case(f"custom_fn vjp={vjp} jvp={jvp}",
         [("x", "param", uniform((4,))), ("w", "param", uniform((4,)))],
         custom_fn_graph(vjp, jvp), (4,),
         lambda x, w: torch.sin(torch.tanh(x)) * w * x, ["x", "w"])


# --------------------------------------------------------------------------
# rlx.selective_scan and rlx.gated_delta_net (decomposed into a scan over the
# sequence), also with a carried initial state; the native op is checked
# against the same reference, so the decomposition computes the op.
def selective_scan(x, delta, a, b, c):
    batch, length, hidden = x.shape
    h = torch.zeros(batch, hidden, a.shape[1], dtype=x.dtype)
    ys = []
    for t in range(length):
        h = torch.exp(delta[:, t, :, None] * a) * h + \
            (delta[:, t] * x[:, t])[:, :, None] * b[:, t, None, :]
        ys.append((h * c[:, t, None, :]).sum(-1))
    return torch.stack(ys, 1)


def gated_delta_net(q, k, v, g, beta, state=None):
    batch, length, heads, n = q.shape
    s = state if state is not None else torch.zeros(batch, heads, n, n,
                                                     dtype=q.dtype)
    outs = []
    for t in range(length):
        s = torch.exp(g[:, t])[:, :, None, None] * s
        read = torch.einsum("bhij,bhi->bhj", s, k[:, t])
        d = (v[:, t] - read) * beta[:, t][:, :, None]
        s = s + k[:, t][:, :, :, None] * d[:, :, None, :]
        outs.append(torch.einsum("bhij,bhi->bhj", s, q[:, t]) / math.sqrt(n))
    return torch.stack(outs, 1), s


NATIVE = []
for length in (1, 4):
    B, H, N = 2, 3, 2
    NATIVE.append(Case(
        f"selective_scan length={length}",
        [("x", "param", uniform((B, length, H))),
         ("delta", "param", uniform((B, length, H), 0.1, 0.5)),
         ("a", "param", uniform((H, N), -1.0, -0.1)),
         ("b", "param", uniform((B, length, N))),
         ("c", "param", uniform((B, length, N)))],
        lambda F_, t, length=length, B=B, H=H, N=N: [
            f"%loss = rlx.selective_scan %x, %delta, %a, %b, %c "
            f"state_size = {N} : {t((B, length, H))}, {t((B, length, H))}, "
            f"{t((H, N))}, {t((B, length, N))}, {t((B, length, N))}"],
        (B, length, H), selective_scan, ["x", "delta", "a", "b", "c"],
        n=length * N))
for length, carry in ((1, False), (3, False), (3, True)):
    B, H, N = 1, 2, 3
    qs, gs = (B, length, H, N), (B, length, H)
    args = [("q", "param", uniform(qs)),
            ("k", "param", uniform(qs, -0.5, 0.5)),
            ("v", "param", uniform(qs)),
            ("g", "param", uniform(gs, -0.5, 0.0)),
            ("beta", "param", uniform(gs, 0.1, 0.9))]
    if carry:
        args.append(("s0", "param", uniform((B, H, N, N))))

    def body(F_, t, qs=qs, gs=gs, carry=carry, B=B, H=H, N=N):
        operands = (f"%q, %k, %v, %g, %beta state_size = {N}"
                    + (f" carry_state state %s0 : {t((B, H, N, N))}"
                       if carry else "")
                    + f" : {t(qs)}, {t(qs)}, {t(qs)}, {t(gs)}, {t(gs)}")
        if not carry:
            return [f"%loss = rlx.gated_delta_net {operands}"]
        return [
            f"%o, %s1 = rlx.gated_delta_net {operands}",
            f"%fs = rlx.reduce sum %s1 axes = [2, 3] : {t((B, H, N, N))}",
            f"%fr = rlx.reshape %fs new_shape = [{B}, 1, {H}, 1] : "
            f"{t((B, H))}",
            f"%loss = rlx.binary mul %o, %fr : {t(qs)}, {t((B, 1, H, 1))}"]

    def fn(q, k, v, g, beta, s0=None, carry=carry):
        o, s1 = gated_delta_net(q, k, v, g, beta, s0)
        return o * s1.sum((2, 3))[:, None, :, None] if carry else o
    NATIVE.append(Case(
        f"gated_delta_net length={length} carry_state={carry}", args, body,
        qs, fn, [name for name, _, _ in args], n=length * N * N * 3))
CASES.extend(NATIVE)


def check_native(c, dtype):
    """The op as the CPU runs it natively against the reference."""
    values = {name: make(dtype) for name, _, make in c.args}
    outs = check.run(c.mlir(dtype, values), values, entry="f")
    want = c.fn(*[torch.from_numpy(values[name].astype(np.float64))
                  for name, _, _ in c.args])
    close(f"{c.name} {np.dtype(dtype)} native", dtype, outs and outs[0],
          want.numpy(), c.n)


# --------------------------------------------------------------------------
# im2col: every geometry entry; the rows are F.unfold's columns.
IM2COL = [
    # kernel, stride, padding, dilation
    ((3, 3), (1, 1), (1, 1), (1, 1)),
    ((2, 3), (2, 1), (0, 1), (1, 1)),
    ((3, 2), (2, 3), (2, 1), (2, 1)),
]
for k, s, p, d in IM2COL:
    xs = (2, 3, 7, 8)

    def im2col_fn(x, k=k, s=s, p=p, d=d):
        cols = F.unfold(x, k, d, p, s)
        return cols.transpose(1, 2).reshape(-1, cols.shape[1])
    out = tuple(im2col_fn(torch.zeros(xs)).shape)
    case(f"im2col kernel={k} stride={s} pad={p} dilation={d}",
         [("x", "param", uniform(xs))],
         lambda F_, t, k=k, s=s, p=p, d=d: [
             f"%loss = rlx.im2col %x kernel_size = {list(k)}, stride = "
             f"{list(s)}, padding = {list(p)}, dilation = {list(d)} : "
             f"{t((2, 3, 7, 8))}"],
         out, im2col_fn, ["x"], n=4)


# --------------------------------------------------------------------------
# conv_transpose2d: stride, padding, output padding (also one of at least
# the stride, allowed below the dilation), dilation, groups.
CONV_T = [
    # x shape, w shape, stride, padding, dilation, output padding, groups
    ((2, 4, 5, 6), (4, 3, 3, 3), (1, 1), (0, 0), (1, 1), (0, 0), 1),
    ((2, 4, 5, 4), (4, 3, 3, 2), (2, 2), (1, 0), (1, 1), (1, 1), 1),
    ((1, 6, 4, 5), (6, 2, 2, 3), (2, 1), (0, 1), (2, 1), (1, 0), 3),
    ((2, 2, 4, 4), (2, 3, 3, 3), (1, 1), (1, 1), (2, 2), (1, 1), 1),
]
for xs, ws, s, p, d, op, g in CONV_T:
    def conv_t_fn(x, w, s=s, p=p, d=d, op=op, g=g):
        return F.conv_transpose2d(x, w, None, s, p, op, g, d)
    out = tuple(conv_t_fn(torch.zeros(xs), torch.zeros(ws)).shape)
    case(f"conv_transpose2d x={xs} w={ws} stride={s} pad={p} dilation={d} "
         f"output_padding={op} groups={g}",
         [("x", "param", uniform(xs)), ("w", "param", uniform(ws))],
         lambda F_, t, xs=xs, ws=ws, s=s, p=p, d=d, op=op, g=g: [
             f"%loss = rlx.conv_transpose2d %x, %w kernel_size = "
             f"{list(ws[2:])}, stride = {list(s)}, padding = {list(p)}, "
             f"dilation = {list(d)}, output_padding = {list(op)}, "
             f"groups = {g} : {t(xs)}, {t(ws)}"],
         out, conv_t_fn, ["x", "w"], n=int(np.prod(ws[1:])) * 4)


# --------------------------------------------------------------------------
# pool prod in both modes (max and min pooling, forward mode included, are
# in autodiff.py), also through exact zeros (x times a 0/1 mask: one zero in
# a window, several).
def window_prod(x, k, s, p):
    # F.unfold pads with 0; prod pooling pads with 1.
    cols = F.unfold(x - 1, k, 1, p, s) + 1
    n, c = x.shape[:2]
    cols = cols.reshape(n, c, k[0] * k[1], -1).prod(2)
    ho = (x.shape[2] + 2 * p[0] - k[0]) // s[0] + 1
    return cols.reshape(n, c, ho, -1)


for k, s, p in (((2, 2), (2, 2), (0, 0)), ((3, 2), (1, 2), (1, 1))):
    xs = (2, 3, 6, 7)
    case(f"pool prod kernel={k} stride={s} pad={p}",
         [("x", "param", uniform(xs, 0.5, 1.5))],
         lambda F_, t, k=k, s=s, p=p: [
             f"%loss = rlx.pool prod %x kernel_size = {list(k)}, "
             f"stride = {list(s)}, padding = {list(p)} : {t((2, 3, 6, 7))}"],
         tuple(window_prod(torch.zeros(xs), k, s, p).shape),
         lambda x, k=k, s=s, p=p: window_prod(x, k, s, p), ["x"], n=9)
for k, s, p in (((2, 2), (2, 2), (0, 0)), ((3, 3), (1, 1), (1, 1))):
    xs = (1, 2, 6, 6)
    case(f"pool prod with zeros kernel={k} stride={s} pad={p}",
         [("x", "param", uniform(xs, 0.5, 1.5)),
          ("m", "index", lambda dtype: (check.uniform(xs, np.float64) > -0.4)
           .astype(np.int64))],
         lambda F_, t, k=k, s=s, p=p: [
             f"%mf = rlx.cast %m : tensor<1x2x6x6xi64> to {F_}",
             f"%xm = rlx.binary mul %x, %mf : {t((1, 2, 6, 6))}, "
             f"{t((1, 2, 6, 6))}",
             f"%loss = rlx.pool prod %xm kernel_size = {list(k)}, "
             f"stride = {list(s)}, padding = {list(p)} : {t((1, 2, 6, 6))}"],
         tuple(window_prod(torch.zeros(xs), k, s, p).shape),
         lambda x, m, k=k, s=s, p=p: window_prod(x * m, k, s, p), ["x"],
         n=9, smooth=False)


# --------------------------------------------------------------------------
# Second order. @f_grad holds the backward ops; differentiating it again
# decomposes them (or uses their own rules). Reverse over reverse: the loss
# of @f_grad is replaced by half the squared norm of its gradients, whose
# gradient is `H g`, against torch.autograd with create_graph=True. Forward
# over reverse: Hessian-vector products (check_hvp).
def gradient_norm_module(module, count):
    """@f_grad of `module` returning `0.5 * sum of its last `count` results
    squared` as its first result (the loss's type is kept)."""
    lines = module.split("\n")
    start = next(i for i, line in enumerate(lines)
                 if "func.func @f_grad(" in line)
    ret = next(i for i in range(start, len(lines))
               if lines[i].strip().startswith("return "))
    head, types = lines[ret].split(" : ")
    indent = head[:len(head) - len(head.lstrip())]
    operands = [o.strip() for o in head.strip()[len("return "):].split(",")]
    types = [ty.strip() for ty in types.split(",")]
    loss_type = types[0]
    new = [f"{indent}%gn_half = rlx.constant dense<0.5> : {loss_type}"]
    total = None
    for i, (g, ty) in enumerate(zip(operands[-count:], types[-count:])):
        axes = ", ".join(str(a) for a in range(ty.count("x")))
        new += [f"{indent}%gn_sq{i} = rlx.binary mul {g}, {g} : {ty}, {ty}",
                f"{indent}%gn_s{i} = rlx.reduce sum %gn_sq{i} axes = "
                f"[{axes}] : {ty}"]
        if total:
            new.append(f"{indent}%gn_t{i} = rlx.binary add {total}, "
                       f"%gn_s{i} : {loss_type}, {loss_type}")
            total = f"%gn_t{i}"
        else:
            total = f"%gn_s{i}"
    new.append(f"{indent}%gn = rlx.binary mul {total}, %gn_half : "
               f"{loss_type}, {loss_type}")
    operands[0] = "%gn"
    lines[ret] = f"{indent}return {', '.join(operands)} : {', '.join(types)}"
    return "\n".join(lines[:ret] + new + lines[ret:])


def check_gradient_norm(c, dtype):
    values = {name: make(dtype) for name, _, make in c.args}
    wrt = ",".join(c.wrt)
    grad = rlx_opt(c.mlir(dtype, values), f"rlx-autodiff=func=f wrt={wrt}")
    module = grad and rlx_opt(gradient_norm_module(grad, len(c.wrt)),
                              f"rlx-autodiff=func=f_grad wrt={wrt}")
    outs = check.run(module, values, entry="f_grad_grad") if module else None
    torch_in = {k: torch.from_numpy(v.astype(np.float64)
                                    if v.dtype.kind == "f" else v)
                for k, v in values.items()}
    leaves = {k: torch_in[k].clone().requires_grad_(True) for k in c.wrt}
    ins = dict(torch_in, **leaves)
    loss = c.fn(*[ins[name] for name, _, _ in c.args])
    grads = torch.autograd.grad(loss, list(leaves.values()),
                                create_graph=True)
    norm = 0.5 * sum((g * g).sum() for g in grads)
    want = torch.autograd.grad(norm, list(leaves.values()))
    what = f"reverse over reverse {c.name} {np.dtype(dtype)}"
    close(f"{what} 0.5 |g|^2", dtype, outs and outs[0],
          norm.detach().numpy(), c.n)
    for i, k in enumerate(c.wrt):
        close(f"{what} H g ({k})", dtype, outs and outs[-len(c.wrt) + i],
              want[i].numpy(), c.n)


SECOND_ORDER = [mlp_case("gelu", F.gelu), mlp_case("tanh", torch.tanh)]
LN_EPS = float(np.float32(1e-5))


def layer_norm_mlp(x, g, b, w):
    y = F.layer_norm(x, (6,), g, b, LN_EPS)
    z = torch.tanh(y) @ w
    return (z * z).mean()


SECOND_ORDER.append(Case(
    "layer_norm tanh matmul",
    [("x", "param", uniform((4, 6), -2, 2)),
     ("g", "param", uniform((6,), 0.5, 1.5)), ("b", "param", uniform((6,))),
     ("w", "param", uniform((6, 3)))],
    lambda F_, t: [
        f"%h = rlx.layer_norm %x, %g, %b {{axis = -1 : i64, "
        f"eps = 1.0e-05 : f32}} : {t((4, 6))}, {t((6,))}, {t((6,))}",
        f"%a = rlx.activation tanh %h : {t((4, 6))}",
        f"%z = rlx.matmul %a, %w : {t((4, 6))}, {t((6, 3))}",
        f"%zz = rlx.binary mul %z, %z : {t((4, 3))}, {t((4, 3))}",
        f"%loss = rlx.reduce mean %zz axes = [0, 1] : {t((4, 3))}"],
    (), layer_norm_mlp, ["x", "g", "b", "w"], n=24))


def attention_block(x, wq, wk, wv):
    o = attention(x @ wq, x @ wk, x @ wv, 2, 2, "causal", None, None, None,
                  None, True)
    return (o * o).mean()


SECOND_ORDER.append(Case(
    "attention causal projections",
    [("x", "input", uniform((2, 4, 4))), ("wq", "param", uniform((4, 4))),
     ("wk", "param", uniform((4, 4))), ("wv", "param", uniform((4, 4)))],
    lambda F_, t: [
        f"%q = rlx.matmul %x, %wq : {t((2, 4, 4))}, {t((4, 4))}",
        f"%k = rlx.matmul %x, %wk : {t((2, 4, 4))}, {t((4, 4))}",
        f"%v = rlx.matmul %x, %wv : {t((2, 4, 4))}, {t((4, 4))}",
        f"%o = rlx.attention %q, %k, %v {{head_dim = 2 : i64, mask_kind = "
        f"#rlx.mask<causal>, num_heads = 2 : i64}} : {t((2, 4, 4))}, "
        f"{t((2, 4, 4))}, {t((2, 4, 4))}",
        f"%oo = rlx.binary mul %o, %o : {t((2, 4, 4))}, {t((2, 4, 4))}",
        f"%loss = rlx.reduce mean %oo axes = [0, 1, 2] : {t((2, 4, 4))}"],
    (), attention_block, ["wq", "wk", "wv"], n=64))


def conv_pool(x, w):
    y = F.max_pool2d(torch.tanh(F.conv2d(x, w, None, 1, 1)), 2, 2)
    return (y * y).mean()


SECOND_ORDER.append(Case(
    "conv tanh max pool",
    [("x", "param", uniform((2, 2, 6, 6))),
     ("w", "param", uniform((3, 2, 3, 3)))],
    lambda F_, t: [
        f"%y = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], "
        f"padding = [1, 1], dilation = [1, 1], groups = 1 : "
        f"{t((2, 2, 6, 6))}, {t((3, 2, 3, 3))}",
        f"%a = rlx.activation tanh %y : {t((2, 3, 6, 6))}",
        f"%p = rlx.pool max %a kernel_size = [2, 2], stride = [2, 2], "
        f"padding = [0, 0] : {t((2, 3, 6, 6))}",
        f"%pp = rlx.binary mul %p, %p : {t((2, 3, 3, 3))}, {t((2, 3, 3, 3))}",
        f"%loss = rlx.reduce mean %pp axes = [0, 1, 2, 3] : "
        f"{t((2, 3, 3, 3))}"],
    (), conv_pool, ["x", "w"], n=200))


# The other backward ops with decompositions, each between parameters and a
# nonlinear loss `mean(tanh(op(...))^2)`, so that @f_grad holds the op.
def squashed(F_, t, shape, lines):
    return lines + [
        f"%sq = rlx.activation tanh %y : {t(shape)}",
        f"%sq2 = rlx.binary mul %sq, %sq : {t(shape)}, {t(shape)}",
        f"%loss = rlx.reduce mean %sq2 axes = "
        f"[{', '.join(str(a) for a in range(len(shape)))}] : {t(shape)}"]


def squashed_fn(fn):
    return lambda *args: (torch.tanh(fn(*args)) ** 2).mean()


def rope(x, cos, sin):
    r = cos.shape[1]
    x1, x2 = x[..., :r], x[..., r:2 * r]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


SECOND_ORDER += [
    Case("rms_norm",
         [("x", "param", uniform((3, 6), -2, 2)),
          ("g", "param", uniform((6,), 0.5, 1.5)),
          ("b", "param", uniform((6,)))],
         lambda F_, t: squashed(F_, t, (3, 6), [
             f"%y = rlx.rms_norm %x, %g, %b {{axis = -1 : i64, eps = "
             f"1.0e-05 : f32}} : {t((3, 6))}, {t((6,))}, {t((6,))}"]),
         (), squashed_fn(lambda x, g, b: x * torch.rsqrt(
             (x * x).mean(-1, keepdim=True) + LN_EPS) * g + b),
         ["x", "g", "b"], n=24),
    Case("group_norm",
         [("x", "param", uniform((2, 4, 3, 3), -2, 2)),
          ("g", "param", uniform((4,), 0.5, 1.5)),
          ("b", "param", uniform((4,)))],
         lambda F_, t: squashed(F_, t, (2, 4, 3, 3), [
             f"%y = rlx.group_norm %x, %g, %b {{num_groups = 2 : i64, "
             f"eps = 1.0e-05 : f32}} : {t((2, 4, 3, 3))}, {t((4,))}, "
             f"{t((4,))}"]),
         (), squashed_fn(lambda x, g, b: F.group_norm(x, 2, g, b, LN_EPS)),
         ["x", "g", "b"], n=72),
    Case("batch_norm_inference",
         [("x", "param", uniform((3, 2, 4))), ("g", "param", uniform((4,))),
          ("b", "param", uniform((4,))), ("m", "input", uniform((4,))),
          ("v", "input", uniform((4,), 0.5, 2))],
         lambda F_, t: squashed(F_, t, (3, 2, 4), [
             f"%y = rlx.batch_norm_inference %x, %g, %b, %m, %v "
             f"{{eps = 1.0e-05 : f32}} : {t((3, 2, 4))}, {t((4,))}, "
             f"{t((4,))}, {t((4,))}, {t((4,))}"]),
         (), squashed_fn(lambda x, g, b, m, v: (x - m) / torch.sqrt(
             v + LN_EPS) * g + b), ["x", "g", "b"], n=24),
    Case("rope",
         [("x", "param", uniform((1, 2, 3, 4))),
          ("cos", "input", uniform((3, 2))), ("sin", "input", uniform((3, 2)))],
         lambda F_, t: squashed(F_, t, (1, 2, 3, 4), [
             f"%y = rlx.rope %x, %cos, %sin {{head_dim = 4 : i64, n_rot = 4 "
             f": i64}} : {t((1, 2, 3, 4))}, {t((3, 2))}, {t((3, 2))}"]),
         (), squashed_fn(rope), ["x"], n=24),
    Case("cumsum",
         [("x", "param", uniform((3, 5)))],
         lambda F_, t: squashed(F_, t, (3, 5), [
             f"%y = rlx.cumsum %x {{axis = 1 : i64}} : {t((3, 5))}"]),
         (), squashed_fn(lambda x: x.cumsum(1)), ["x"], n=15),
    Case("gather axis=1",
         [("w", "param", uniform((2, 5, 3))),
          ("ids", "index", lambda d: np.array([3, 0, 3, 1], np.int64))],
         lambda F_, t: squashed(F_, t, (2, 4, 3), [
             f"%y = rlx.gather %w, %ids axis = 1 : {t((2, 5, 3))}, "
             "tensor<4xi64>"]),
         (), squashed_fn(lambda w, ids: w[:, ids]), ["w"], n=24),
    Case("conv stride 2 groups 2 dilation 2",
         [("x", "param", uniform((1, 4, 7, 7))),
          ("w", "param", uniform((4, 2, 2, 2)))],
         lambda F_, t: squashed(F_, t, (1, 4, 4, 4), [
             f"%y = rlx.conv %x, %w kernel_size = [2, 2], stride = [2, 2], "
             f"padding = [1, 1], dilation = [2, 2], groups = 2 : "
             f"{t((1, 4, 7, 7))}, {t((4, 2, 2, 2))}"]),
         (), squashed_fn(lambda x, w: F.conv2d(x, w, None, 2, 1, 2, 2)),
         ["x", "w"], n=72),
]


run_cases()
only = os.environ.get("RLX_AUTODIFF_CASE")
for c in NATIVE:
    if only and only not in c.name:
        continue
    for dtype in (np.float32, np.float64):
        check_native(c, dtype)
for c in SECOND_ORDER:
    if only and only not in c.name:
        continue
    for dtype in (np.float32, np.float64):
        check_gradient_norm(c, dtype)
run_cases([], hvp_cases=SECOND_ORDER)
check.finish()
