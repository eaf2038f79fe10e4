# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""LSTM, GRU and RNN as rlx.scan loops over time, one per direction, with
the torch translation's steps (python/rlx/torch/_ops/recurrent.py): the
input projection of every step is one matmul before the loop, and the
reverse direction runs over the time-reversed sequence. ONNX orders the
gates differently from PyTorch (LSTM i, o, f, c; GRU z, r, h): the weight
blocks are reordered by a gather of the parameters."""

import numpy as np

from ..._capi import RLXError
from ...torch._ops import recurrent as torch_recurrent
from .common import is_const, op

# Each op's default activations, and its gate blocks in PyTorch's order.
_KINDS = {
    "LSTM": (["Sigmoid", "Tanh", "Tanh"], [0, 2, 3, 1]),
    "GRU": (["Sigmoid", "Tanh"], [1, 0, 2]),
    "RNN": (["Tanh"], [0]),
}


def _reordered(c, w, direction, order, hidden):
    """Direction `direction` of a [dirs, gates * H, ...] weight, its gate
    blocks in PyTorch's order."""
    w = c.e.reshape(c.e.narrow(w, 0, direction, 1), w.shape[1:])
    if order == list(range(len(order))):
        return w
    rows = np.concatenate([np.arange(g * hidden, (g + 1) * hidden)
                           for g in order])
    return c.e.gather(w, c.e.constant(rows.astype(np.int64), "i64"), 0)


def _check(c, op_type, inputs, attrs, x):
    defaults, _ = _KINDS[op_type]
    directions = 2 if attrs.get("direction") == "bidirectional" else 1
    activations = attrs.get("activations", defaults * directions)
    if op_type == "RNN":
        if any(a not in ("Tanh", "Relu") for a in activations) or \
                len(set(activations)) != 1:
            raise RLXError(f"RNN activations {activations} (Tanh or Relu, "
                           "the same in both directions)")
    elif activations != defaults * directions:
        raise RLXError(f"{op_type} activations {activations} (only the "
                       f"defaults {defaults})")
    if attrs.get("clip") is not None:
        raise RLXError(f"{op_type} with clip")
    if attrs.get("input_forget", 0):
        raise RLXError("LSTM with input_forget")
    if op_type == "GRU" and not attrs.get("linear_before_reset", 0):
        raise RLXError("GRU with linear_before_reset 0 (PyTorch's GRU, "
                       "what rlx translates, resets after the linear map)")
    if op_type == "LSTM" and len(inputs) > 7 and inputs[7] is not None:
        raise RLXError("LSTM with peepholes (P)")
    lengths = inputs[4] if len(inputs) > 4 else None
    if lengths is not None:
        steps = x.shape[0]
        if not is_const(lengths) or (np.asarray(lengths) != steps).any():
            raise RLXError(f"{op_type} with sequence_lens other than the "
                           "whole sequence")
    return directions, activations[0]


def recurrent(op_type):
    def handler(c, inputs, attrs):
        x = c.value(inputs[0])
        layout = attrs.get("layout", 0)
        if layout:
            x = c.e.transpose(x, [1, 0, 2])
        directions, activation = _check(c, op_type, inputs, attrs, x)
        hidden = attrs["hidden_size"]
        _, order = _KINDS[op_type]
        gates = len(order)
        w, r = c.value(inputs[1]), c.value(inputs[2])
        b = c.value(inputs[3]) if len(inputs) > 3 else None
        h0 = c.value(inputs[5]) if len(inputs) > 5 else None
        c0 = c.value(inputs[6]) if len(inputs) > 6 else None
        steps, batch = x.shape[:2]
        if layout:
            h0 = c.e.transpose(h0, [1, 0, 2]) if h0 is not None else None
            c0 = c.e.transpose(c0, [1, 0, 2]) if c0 is not None else None

        def initial(state, d):
            if state is None:
                return c.e.constant(0.0, x.dtype, (batch, hidden))
            return c.e.reshape(c.e.narrow(state, 0, d, 1), (batch, hidden))
        outputs, h_finals, c_finals = [], [], []
        for d in range(directions):
            reverse = d == 1 or attrs.get("direction") == "reverse"
            w_d = _reordered(c, w, d, order, hidden)
            r_t = c.e.transpose(_reordered(c, r, d, order, hidden), [1, 0])
            if b is not None:
                b_d = c.e.reshape(c.e.narrow(b, 0, d, 1), b.shape[1:])
                b_d = c.e.reshape(b_d, (2, gates * hidden))
                b_w = _reordered(c, c.e.reshape(c.e.narrow(b_d, 0, 0, 1),
                                                (1, gates * hidden)),
                                 0, order, hidden)
                b_r = _reordered(c, c.e.reshape(c.e.narrow(b_d, 0, 1, 1),
                                                (1, gates * hidden)),
                                 0, order, hidden)
            else:
                b_w = b_r = c.e.constant(0.0, x.dtype, (gates * hidden,))
            sequence = torch_recurrent._reverse_time(c, x) if reverse else x
            if op_type == "GRU":
                projected = torch_recurrent.linear(c, sequence, w_d, b_w)
                out, h_n, c_n = torch_recurrent._run(
                    c, torch_recurrent._gru_step, initial(h0, d),
                    [r_t, b_r], projected, hidden)
            else:
                projected = torch_recurrent.linear(
                    c, sequence, w_d, c.e.binary("add", b_w, b_r))
                if op_type == "LSTM":
                    out, h_n, c_n = torch_recurrent._run(
                        c, torch_recurrent._lstm_step,
                        c.e.concat([initial(h0, d), initial(c0, d)], 1),
                        [r_t], projected, hidden, hidden)
                else:
                    out, h_n, c_n = torch_recurrent._run(
                        c, torch_recurrent._rnn_step(activation.lower()),
                        initial(h0, d), [r_t], projected, hidden)
            if reverse:
                out = torch_recurrent._reverse_time(c, out)
            outputs.append(c.e.reshape(out, (steps, 1, batch, hidden)))
            h_finals.append(c.e.reshape(h_n, (1, batch, hidden)))
            if c_n is not None:
                c_finals.append(c.e.reshape(c_n, (1, batch, hidden)))
        y = c.e.concat(outputs, 1)
        y_h = c.e.concat(h_finals, 0)
        if layout:
            y = c.e.transpose(y, [2, 0, 1, 3])
            y_h = c.e.transpose(y_h, [1, 0, 2])
        if op_type != "LSTM":
            return y, y_h
        y_c = c.e.concat(c_finals, 0)
        if layout:
            y_c = c.e.transpose(y_c, [1, 0, 2])
        return y, y_h, y_c
    return handler


for _op_type in _KINDS:
    op(_op_type)(recurrent(_op_type))
