# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.onnx's If, Loop and Scan on models built with onnx.helper, against
NumPy implementations of ONNX's definitions (the onnx package here has no
reference evaluator): an If on a graph condition (rlx.if, both values of
the condition, branches reading the graph's values and initializers) and
on an initializer (its taken branch only); Scan with two states, scan
inputs and outputs along other axes and in reverse, a body reading the
graph's values and initializers, and an If inside the body; Loop with a
trip count known at import time reading the iteration number, and one
whose body's condition is a false constant (one step); Loops without
scan outputs whose steps are known at run time only (rlx.while): a trip
count the graph gives, run with two values of it, and an exit the body
computes, run with three limits. Fresh random inputs each run (seed
printed, RLX_TEST_SEED=<seed> replays it), f32 within rtol 1e-5 and atol
1e-6. Then the errors of what is refused, each naming the node.

Usage: onnx-control-flow.py"""


import numpy as np
from onnx import TensorProto, helper, numpy_helper

import rlx
import rlx.onnx
from pychecks import check, expect_error, finish, test_seed

seed = test_seed()
rng = np.random.default_rng(seed)

TYPES = {np.dtype(np.float32): TensorProto.FLOAT,
         np.dtype(np.int64): TensorProto.INT64,
         np.dtype(np.bool_): TensorProto.BOOL}


def info(name, array=None):
    if array is None:
        return helper.make_tensor_value_info(name, TensorProto.UNDEFINED,
                                             None)
    return helper.make_tensor_value_info(name, TYPES[array.dtype],
                                         array.shape)


def model(nodes, inputs, outputs, initializers=None):
    graph = helper.make_graph(
        nodes, "g", [info(n, a) for n, a in inputs.items()],
        [info(n) for n in outputs],
        [numpy_helper.from_array(a, n)
         for n, a in (initializers or {}).items()])
    return helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 16)])


def body(nodes, inputs, outputs, name="body"):
    """A subgraph: `inputs` and `outputs` are names (their types come from
    the enclosing node)."""
    return helper.make_graph(nodes, name, [info(n) for n in inputs],
                             [info(n) for n in outputs])


def compiled(m):
    text, params = rlx.onnx.import_model(m)
    return text, rlx.compile(text, params=params)


def results(graph, inputs):
    out = graph(**inputs)
    return out if isinstance(out, tuple) else (out,)


def close(got, want, what):
    same = got.shape == want.shape and np.allclose(got, want, rtol=1e-5,
                                                   atol=1e-6)
    error = float(np.max(np.abs(got - want), initial=0)) \
        if got.shape == want.shape else float("inf")
    check(same, f"{what}: max abs error {error:.2e}")


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# -- If on a graph condition: an rlx.if. The then branch reads the graph
# input x; the else branch x and the initializer w; two results each.
x, w = f32(3, 4), f32(4)
then_branch = body(
    [helper.make_node("Relu", ["x"], ["t0"]),
     helper.make_node("Mul", ["x", "x"], ["t1"])], [], ["t0", "t1"], "then")
else_branch = body(
    [helper.make_node("Sigmoid", ["x"], ["s"]),
     helper.make_node("Add", ["s", "w"], ["e0"]),
     helper.make_node("Sub", ["x", "w"], ["e1"])], [], ["e0", "e1"], "else")
m = model([helper.make_node("If", ["cond"], ["y0", "y1"],
                            then_branch=then_branch,
                            else_branch=else_branch)],
          {"cond": np.array(True), "x": x}, ["y0", "y1"], {"w": w})
text, graph = compiled(m)
check("rlx.if" in text, "If on a graph condition: an rlx.if")
for value in (True, False):
    y0, y1 = results(graph, {"cond": np.array(value), "x": x})
    close(y0, np.maximum(x, 0) if value else sigmoid(x) + w,
          f"If cond {value}: output 0")
    close(y1, x * x if value else x - w, f"If cond {value}: output 1")

# -- If on an initializer: the taken branch in place (the other one holds
# an operator rlx does not translate).
untranslated = body([helper.make_node("NonZero", ["x"], ["n"])], [], ["n"])
for value in (True, False):
    taken = body([helper.make_node("Tanh" if value else "Neg", ["x"],
                                   ["t"])], [], ["t"])
    m = model([helper.make_node(
        "If", ["flag"], ["y"], then_branch=taken if value else untranslated,
        else_branch=untranslated if value else taken)],
        {"x": x}, ["y"], {"flag": np.array(value)})
    text, graph = compiled(m)
    check("rlx.if" not in text, f"If on an initializer {value}: folded")
    close(results(graph, {"x": x})[0], np.tanh(x) if value else -x,
          f"If on an initializer {value}")


# -- Scan: states h [B, H] and total [H]; scan inputs u [B, T, H] along
# axis 1 and v [T, H] reversed; scan outputs h along axis 1 and h * v_t
# reversed. The body reads the initializer r [H, H] and the graph input
# g [H], and holds an If on the sum of its step's input.
B, T, H = 2, 5, 3
h0, total0, u, v = f32(B, H), f32(H), f32(B, T, H), f32(T, H)
r, g = (f32(H, H) * 0.5), f32(H)
positive = body([helper.make_node("Add", ["total", "v_t"], ["p"])], [],
                ["p"], "positive")
negative = body([helper.make_node("Sub", ["total", "v_t"], ["q"])], [],
                ["q"], "negative")
scan_body = body(
    [helper.make_node("MatMul", ["h", "r"], ["hr"]),
     helper.make_node("Add", ["hr", "u_t"], ["pre"]),
     helper.make_node("Add", ["pre", "g"], ["pre_g"]),
     helper.make_node("Tanh", ["pre_g"], ["h_next"]),
     helper.make_node("ReduceSum", ["v_t"], ["sum"], keepdims=0),
     helper.make_node("Constant", [], ["zero"],
                      value=numpy_helper.from_array(np.float32(0))),
     helper.make_node("Greater", ["sum", "zero"], ["up"]),
     helper.make_node("If", ["up"], ["total_next"], then_branch=positive,
                      else_branch=negative),
     helper.make_node("Identity", ["h_next"], ["out_h"]),
     helper.make_node("Mul", ["h_next", "v_t"], ["out_hv"])],
    ["h", "total", "u_t", "v_t"], ["h_next", "total_next", "out_h", "out_hv"])
m = model([helper.make_node(
    "Scan", ["h0", "total0", "u", "v"], ["h_T", "total_T", "hs", "hvs"],
    body=scan_body, num_scan_inputs=2, scan_input_axes=[1, 0],
    scan_input_directions=[0, 1], scan_output_axes=[1, 0],
    scan_output_directions=[0, 1])],
    {"h0": h0, "total0": total0, "u": u, "v": v, "g": g},
    ["h_T", "total_T", "hs", "hvs"], {"r": r})
text, graph = compiled(m)
check(text.count("rlx.scan") == 1 and "rlx.if" in text,
      "Scan: one rlx.scan, an rlx.if in its body")
h, total, hs, hvs = h0, total0, [], []
for t in range(T):
    v_t = v[T - 1 - t]
    h = np.tanh(h @ r + u[:, t] + g)
    total = total + v_t if v_t.sum() > 0 else total - v_t
    hs.append(h)
    hvs.append(h * v_t)
want = (h, total, np.stack(hs, 1), np.stack(hvs[::-1], 0))
got = results(graph, {"h0": h0, "total0": total0, "u": u, "v": v, "g": g})
for i, what in enumerate(("final h", "final total", "scan output h",
                          "scan output h * v")):
    close(got[i], want[i], f"Scan: {what}")

# -- Loop of 4 steps (an initializer): the state y, the scan output of
# y * i (the iteration number, cast), the graph input x read by the body.
loop_body = body(
    [helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["y", "x"], ["yx"]),
     helper.make_node("Sin", ["yx"], ["y_next"]),
     helper.make_node("Mul", ["y_next", "i_f"], ["scan"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"])],
    ["i", "cond_in", "y"], ["cond_out", "y_next", "scan"])
y0 = f32(3, 4)
m = model([helper.make_node("Loop", ["M", "", "y0"], ["y_N", "ys"],
                            body=loop_body)],
          {"y0": y0, "x": x}, ["y_N", "ys"], {"M": np.array(4, np.int64)})
text, graph = compiled(m)
check("rlx.scan" in text, "Loop of a known trip count: an rlx.scan")
y, ys = y0, []
for i in range(4):
    y = np.sin(y * x)
    ys.append(y * i)
got = results(graph, {"y0": y0, "x": x})
close(got[0], y, "Loop: final state")
close(got[1], np.stack(ys), "Loop: scan output")

# A body whose condition is a false constant runs once.
once = body([helper.make_node("Neg", ["y"], ["y_next"]),
             helper.make_node("Constant", [], ["stop"],
                              value=numpy_helper.from_array(np.array(False)))],
            ["i", "cond_in", "y"], ["stop", "y_next"])
m = model([helper.make_node("Loop", ["M", "c", "y0"], ["y_N"], body=once)],
          {"y0": y0}, ["y_N"],
          {"M": np.array(5, np.int64), "c": np.array(True)})
close(results(compiled(m)[1], {"y0": y0})[0], -y0,
      "Loop whose body stops after one step")

# -- Loops whose steps are only known at run time, without scan outputs:
# an rlx.while. A trip count the graph gives (run with two values of it,
# 0 included), the body reading the iteration number and the graph input
# x; and an exit the body computes (the state doubled while its sum stays
# under a limit, at most 6 steps).
counting = body(
    [helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["x", "i_f"], ["xi"]),
     helper.make_node("Add", ["y", "xi"], ["y_next"]),
     helper.make_node("Identity", ["cond_in"], ["cond_out"])],
    ["i", "cond_in", "y"], ["cond_out", "y_next"])
m = model([helper.make_node("Loop", ["n", "", "y0"], ["y_N"],
                            body=counting)],
          {"n": np.array(3, np.int64), "y0": y0, "x": x}, ["y_N"])
text, graph = compiled(m)
check("rlx.while" in text, "Loop of a graph trip count: an rlx.while")
for n in (3, 0):
    close(results(graph, {"n": np.array(n, np.int64), "y0": y0, "x": x})[0],
          y0 + x * sum(range(n)), f"Loop of a graph trip count {n}")
doubling = body(
    [helper.make_node("Add", ["y", "y"], ["y_next"]),
     helper.make_node("ReduceSum", ["y_next"], ["s"], keepdims=0),
     helper.make_node("Less", ["s", "limit"], ["more"])],
    ["i", "cond_in", "y"], ["more", "y_next"])
m = model([helper.make_node("Loop", ["M", "", "v0"], ["v_N"],
                            body=doubling)],
          {"v0": np.abs(f32(5)) + 0.1, "limit": np.array(0, np.float32)},
          ["v_N"], {"M": np.array(6, np.int64)})
text, graph = compiled(m)
check("rlx.while" in text and "max_iterations = 6" in text,
      "Loop with a data-dependent exit: an rlx.while of at most 6 steps")
for limit in (1.0, 30.0, 1e6):
    v0 = np.abs(f32(5)) + 0.1
    v, steps = v0, 0
    while steps < 6:
        v, steps = v + v, steps + 1
        if not v.sum() < limit:
            break
    close(results(graph, {"v0": v0, "limit": np.array(limit, np.float32)})
          [0], v, f"Loop with a data-dependent exit, limit {limit} "
          f"({steps} steps)")

# -- What is refused, each naming the node.
scanning = body([helper.make_node("Neg", ["y"], ["y_next"]),
                 helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                 helper.make_node("Identity", ["y_next"], ["scan"])],
                ["i", "cond_in", "y"], ["cond_out", "y_next", "scan"])
m = model([helper.make_node("Loop", ["n", "", "y0"], ["y_N", "ys"],
                            body=scanning, name="loop")],
          {"n": np.array(3, np.int64), "y0": y0}, ["y_N", "ys"])
expect_error(lambda: rlx.onnx.import_model(m),
             "node 0 'loop' (op_type Loop, domain ai.onnx, opset 16): Loop "
             "with a trip count the graph computes and scan outputs",
             "Loop with a graph trip count and scan outputs")
until = body([helper.make_node("Neg", ["y"], ["y_next"]),
              helper.make_node("ReduceSum", ["y_next"], ["s"], keepdims=0),
              helper.make_node("Less", ["s", "zero"], ["more"]),
              helper.make_node("Identity", ["y_next"], ["scan"])],
             ["i", "cond_in", "y"], ["more", "y_next", "scan"])
m = model([helper.make_node("Loop", ["M", "", "y0"], ["y_N", "ys"],
                            body=until, name="until")],
          {"y0": y0}, ["y_N", "ys"], {"M": np.array(5, np.int64),
                                      "zero": np.array(0, np.float32)})
expect_error(lambda: rlx.onnx.import_model(m),
             "Loop with a body that computes its condition from graph "
             "values and scan outputs",
             "Loop with a data-dependent exit and scan outputs")
mixed = body([helper.make_node("Add", ["a", "x_t"], ["a2"]),
              helper.make_node("Identity", ["k"], ["k2"])],
             ["a", "k", "x_t"], ["a2", "k2"])
m = model([helper.make_node("Scan", ["a0", "k0", "xs"], ["a", "k"],
                            body=mixed, num_scan_inputs=1, name="mixed")],
          {"a0": f32(4), "k0": np.zeros(2, np.int64), "xs": f32(3, 4)},
          ["a", "k"])
expect_error(lambda: rlx.onnx.import_model(m),
             "state variables and scan outputs of element types f32, i64",
             "Scan with states of two element types")
nonzero = body([helper.make_node("NonZero", ["x_t"], ["nz"], name="nz"),
                helper.make_node("Identity", ["a"], ["a2"])],
               ["a", "x_t"], ["a2", "nz"])
m = model([helper.make_node("Scan", ["a0", "xs"], ["a", "n"],
                            body=nonzero, num_scan_inputs=1, name="outer")],
          {"a0": f32(4), "xs": f32(3, 4)}, ["a", "n"])
expect_error(lambda: rlx.onnx.import_model(m),
             "node 0 'outer' (op_type Scan, domain ai.onnx, opset 16): body: "
             "node 0 'nz' (op_type NonZero, domain ai.onnx, opset 16): no "
             "rlx translation", "an untranslated operator in a Scan body")
shapes = body([helper.make_node("Identity", ["x"], ["a"])], [], ["a"])
other = body([helper.make_node("ReduceSum", ["x"], ["b"], keepdims=0)], [],
             ["b"])
m = model([helper.make_node("If", ["cond"], ["y"], then_branch=shapes,
                            else_branch=other, name="if")],
          {"cond": np.array(True), "x": x}, ["y"])
expect_error(lambda: rlx.onnx.import_model(m),
             "node 0 'if' (op_type If, domain ai.onnx, opset 16): If's "
             "branches give tensor<3x4xf32> and tensor<f32>",
             "If whose branches give different types")

finish()
