"""rlx.softmax_cross_entropy_with_logits and
rlx.softmax_cross_entropy_backward on the CPU against PyTorch
(torch.nn.functional.cross_entropy(reduction='none') and its autograd).

Tolerances: f32 rtol 1e-5 (atol 1e-6), f64 rtol 1e-12 (atol 1e-14); the
loss, a difference of terms of the logits' size, gets atol 4 * rtol * range.
"""

import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/Execution/lib")
from rlxcheck import Checker, tensor_type  # noqa: E402

check = Checker(sys.argv[1])

TOL = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-14)}


def graph(n, c, dtype, ltype):
    lg = tensor_type((n, c), dtype)
    lb = tensor_type((n,), ltype)
    v = tensor_type((n,), dtype)
    return "\n".join([
        f"func.func @main(%x: {lg} {{rlx.input = \"x\"}}, %l: {lb} {{rlx.input = \"l\"}}, "
        f"%g: {v} {{rlx.input = \"g\"}}) -> ({v}, {lg}) {{",
        f"  %0 = rlx.softmax_cross_entropy_with_logits %x, %l : {lg}, {lb}",
        f"  %1 = rlx.softmax_cross_entropy_backward %x, %l, %g : {lg}, {lb}, {v}",
        f"  return %0, %1 : {v}, {lg}",
        "}"])


def oracle(x, labels, g):
    t = torch.from_numpy(x).requires_grad_(True)
    loss = F.cross_entropy(t, torch.from_numpy(labels.astype(np.int64)),
                           reduction="none")
    loss.backward(torch.from_numpy(g))
    return loss.detach().numpy(), t.grad.numpy()


for dtype in (np.float32, np.float64):
    for ltype in (np.int64, np.int32):
        for n, c, scale in ((4, 10, 3), (7, 3, 3), (1, 5, 3), (5, 1, 3),
                            (33, 17, 3), (6, 9, 400)):
            # scale 400: logits far beyond exp's range (needs the max shift).
            x = check.uniform((n, c), dtype, -scale, scale)
            labels = check.integers((n,), ltype, 0, c)
            g = check.uniform((n,), dtype, -2, 2)
            outs = check.run(graph(n, c, dtype, ltype),
                             {"x": x, "l": labels, "g": g})
            loss, grad = oracle(x, labels, g)
            name = f"{n}x{c} scale={scale} {np.dtype(dtype)} {np.dtype(ltype)}"
            # loss = max + log(sum) - picked cancels: the absolute error is
            # a few ulps of the logits' magnitude.
            rtol, atol = TOL[dtype]
            check.close(f"cross_entropy {name}", outs[0] if outs else None,
                        loss, rtol, max(atol, 4 * rtol * scale))
            check.close(f"cross_entropy_backward {name}",
                        outs[1] if outs and len(outs) > 1 else None, grad,
                        *TOL[dtype])

# Labels outside [0, C) (PyTorch's ignore_index -100 among them) ignore
# their row: loss 0 and gradient 0, never NaN; other rows are unaffected.
# The reference is PyTorch's cross_entropy with ignore_index on the same
# rows, one ignored label at a time.
for dtype in (np.float32, np.float64):
    n, c = 6, 4
    x = check.uniform((n, c), dtype, -3, 3)
    labels = np.array([0, -1, 3, 4, 100, -100], np.int64)
    g = check.uniform((n,), dtype, -2, 2)
    outs = check.run(graph(n, c, dtype, np.int64), {"x": x, "l": labels, "g": g})
    bad = (labels < 0) | (labels >= c)
    t = torch.from_numpy(x).requires_grad_()
    torch_labels = torch.from_numpy(np.where(bad, -100, labels))
    loss = F.cross_entropy(t, torch_labels, reduction="none",
                           ignore_index=-100)
    loss.backward(torch.from_numpy(g))
    want_loss = loss.detach().numpy()
    want_grad = t.grad.numpy()
    assert np.all(want_loss[bad] == 0) and np.any(want_loss[~bad] != 0)
    check.close(f"cross_entropy ignored labels {np.dtype(dtype)}",
                outs[0] if outs else None, want_loss, *TOL[dtype])
    check.close(f"cross_entropy_backward ignored labels {np.dtype(dtype)}",
                outs[1] if outs and len(outs) > 1 else None, want_grad,
                *TOL[dtype])

check.finish()
