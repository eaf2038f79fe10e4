# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""nn.LSTM, nn.GRU and nn.RNN as rlx.scan loops over time.

Each layer and direction is one rlx.scan (differentiable, like any rlx
op): the input projection of every step is one matmul before the loop
(the xs of the scan), the step multiplies the carried hidden state by the
transposed hidden weights (a bcast) and applies the gates (an LSTM with
proj_size then multiplies h by the transposed projection, another bcast); the scan keeps
its trajectory, whose rows are the outputs of the steps. The reverse
direction runs the same scan over the time-reversed sequence (an
rlx.gather of constant indices) and reverses its outputs back."""

import numpy as np
import torch.nn as nn
import torch.nn.utils.rnn as rnn_utils

from ..._capi import RLXError
from .._emitter import Value
from .common import FUNCTIONS, MODULES
from .linalg import linear

_MODES = ("LSTM", "GRU", "RNN_TANH", "RNN_RELU")


def _lstm_step(e, carry, bcasts, x_ts):
    """carry [B, P + H] = (h, c); x_t [B, 4H] = x W_ih^T + b_ih + b_hh;
    bcasts W_hh^T [P, 4H] and, with proj_size, W_hr^T [H, P] (h is then
    the projection of o * tanh(c)); P = H without one."""
    (w_hh, *w_hr), (x_t,) = bcasts, x_ts
    out, hidden = w_hh.shape[0], w_hh.shape[1] // 4
    h, cell = e.narrow(carry, 1, 0, out), e.narrow(carry, 1, out, hidden)
    gates = e.binary("add", x_t, e.matmul(h, w_hh))

    def gate(i, kind):
        return e.activation(kind, e.narrow(gates, 1, i * hidden, hidden))
    i, f = gate(0, "sigmoid"), gate(1, "sigmoid")
    g, o = gate(2, "tanh"), gate(3, "sigmoid")
    cell = e.binary("add", e.binary("mul", f, cell), e.binary("mul", i, g))
    h = e.binary("mul", o, e.activation("tanh", cell))
    if w_hr:
        h = e.matmul(h, w_hr[0])
    return e.concat([h, cell], 1)


def _gru_step(e, carry, bcasts, x_ts):
    """carry h [B, H]; x_t [B, 3H] = x W_ih^T + b_ih. The hidden bias stays
    in the step: it is inside r * (W_hn h + b_hn)."""
    (w_hh, b_hh), (x_t,) = bcasts, x_ts
    hidden = carry.shape[1]
    hh = e.binary("add", e.matmul(carry, w_hh), b_hh)

    def part(v, i):
        return e.narrow(v, 1, i * hidden, hidden)
    r = e.activation("sigmoid", e.binary("add", part(x_t, 0), part(hh, 0)))
    z = e.activation("sigmoid", e.binary("add", part(x_t, 1), part(hh, 1)))
    n = e.activation("tanh", e.binary("add", part(x_t, 2),
                                      e.binary("mul", r, part(hh, 2))))
    # h' = (1 - z) * n + z * h = n + z * (h - n)
    return e.binary("add", n, e.binary("mul", z, e.binary("sub", carry, n)))


def _rnn_step(kind):
    def step(e, carry, bcasts, x_ts):
        """carry h [B, H]; x_t [B, H] = x W_ih^T + b_ih + b_hh."""
        (w_hh,), (x_t,) = bcasts, x_ts
        return e.activation(kind, e.binary("add", x_t,
                                           e.matmul(carry, w_hh)))
    return step


def _reverse_time(c, x):
    steps = x.shape[0]
    return c.e.gather(x, c.e.constant(np.arange(steps - 1, -1, -1),
                                      "i64"), 0)


def _direction(c, m, p, x, suffix, h0, c0):
    """One layer in one direction over x [T, B, I]: (outputs [T, B, P],
    final h [B, P], final c [B, H] or None); P is proj_size or H."""
    hidden = m.hidden_size
    w_ih = c.param(f"{p}.weight_ih{suffix}")
    w_hh_t = c.e.transpose(c.param(f"{p}.weight_hh{suffix}"), [1, 0])
    b_ih = c.param(f"{p}.bias_ih{suffix}") if m.bias else None
    b_hh = c.param(f"{p}.bias_hh{suffix}") if m.bias else None
    if m.mode == "GRU":
        if b_hh is None:
            b_hh = c.e.constant(0.0, x.dtype, (3 * hidden,))
        return _run(c, _gru_step, h0, [w_hh_t, b_hh],
                    linear(c, x, w_ih, b_ih), hidden)
    projected = linear(c, x, w_ih, c.e.binary("add", b_ih, b_hh)
                       if m.bias else None)
    if m.mode == "LSTM":
        bcasts = [w_hh_t]
        if getattr(m, "proj_size", 0):
            bcasts.append(c.e.transpose(c.param(f"{p}.weight_hr{suffix}"),
                                        [1, 0]))
        return _run(c, _lstm_step, c.e.concat([h0, c0], 1), bcasts,
                    projected, h0.shape[1], hidden)
    return _run(c, _rnn_step(m.nonlinearity), h0, [w_hh_t], projected,
                hidden)


def _run(c, step, init, bcasts, projected, out, cell=None):
    """The scan of `step` from `init` ([B, out], or [B, out + cell] of h
    and c): (its h at every step, the final h, the final c or None)."""
    trajectory = c.e.scan(init, bcasts, [projected], step,
                          save_trajectory=True)
    steps = trajectory.shape[0]
    last = c.e.reshape(c.e.narrow(trajectory, 0, steps - 1, 1), init.shape)
    outputs = c.e.narrow(trajectory, 2, 0, out)
    h_n = c.e.narrow(last, 1, 0, out)
    c_n = c.e.narrow(last, 1, out, cell) if cell else None
    return outputs, h_n, c_n


def recurrent(c, m, p, x, hx=None):
    """nn.LSTM / nn.GRU / nn.RNN: (output, h_n) or (output, (h_n, c_n)),
    as PyTorch returns them."""
    if not isinstance(x, Value):
        raise RLXError(f"{type(m).__name__} of a {type(x).__name__} (packed "
                       "sequences are not translated: pass the padded "
                       "tensor)")
    if m.mode not in _MODES:
        raise RLXError(f"recurrent mode {m.mode}")
    unbatched = x.rank == 2
    if unbatched:
        x = c.e.reshape(x, (x.shape[0], 1, x.shape[1]))
    elif m.batch_first:
        x = c.e.transpose(x, [1, 0, 2])
    steps, batch = x.shape[:2]
    directions = 2 if m.bidirectional else 1
    layers, hidden = m.num_layers, m.hidden_size
    # With proj_size, h (and the output) has proj_size features, c hidden.
    out = getattr(m, "proj_size", 0) or hidden
    h0 = c0 = None
    if hx is not None:
        h0, c0 = hx if m.mode == "LSTM" else (hx, None)
        h0 = c.e.reshape(h0, (layers * directions, batch, out))
        c0 = c.e.reshape(c0, (layers * directions, batch, hidden)) \
            if c0 is not None else None

    def initial(state, index, size):
        if state is None:
            return c.e.constant(0.0, x.dtype, (batch, size))
        return c.e.reshape(c.e.narrow(state, 0, index, 1), (batch, size))
    h_finals, c_finals = [], []
    for layer in range(layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            sequence = _reverse_time(c, x) if direction else x
            y, h_n, c_n = _direction(c, m, p, sequence, suffix,
                                     initial(h0, index, out),
                                     initial(c0, index, hidden))
            outputs.append(_reverse_time(c, y) if direction else y)
            h_finals.append(h_n)
            c_finals.append(c_n)
        # Dropout between layers is training-only.
        x = c.e.concat(outputs, 2)
    output = x
    if unbatched:
        output = c.e.reshape(output, (steps, output.shape[2]))
    elif m.batch_first:
        output = c.e.transpose(output, [1, 0, 2])

    def stacked(states, size):
        shape = (layers * directions,) + ((size,) if unbatched else
                                          (batch, size))
        return c.e.reshape(c.e.concat(
            [c.e.reshape(s, (1, batch, size)) for s in states], 0), shape)
    if m.mode == "LSTM":
        return output, (stacked(h_finals, out), stacked(c_finals, hidden))
    return output, stacked(h_finals, hidden)


MODULES[nn.LSTM] = MODULES[nn.GRU] = MODULES[nn.RNN] = recurrent


def packed_sequence(c, *args, **kwargs):
    raise RLXError("packed sequences are not translated (give the recurrent "
                   "layer the padded batch)")


# Traced as calls (the tracer wraps them), so that packing a sequence is an
# error at its line rather than a failure to trace its Python code.
PACKING = (rnn_utils.pack_padded_sequence, rnn_utils.pack_sequence)
for _function in PACKING:
    FUNCTIONS[_function] = packed_sequence
