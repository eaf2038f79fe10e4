# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""rlx.onnx's TopK, GatherND, ScatterND, ScatterElements, Einsum, 3-d
Conv, ConvTranspose (and of pads that differ, output_shape and auto_pad),
MaxPool and AveragePool, cubic Resize and the losses
(SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss) on models built with
onnx.helper, against NumPy (the onnx package here has no reference
evaluator; PyTorch's bicubic F.interpolate for Resize, its 3-d
transposed convolution and pools for those): fresh random inputs each
run (seed printed, RLX_TEST_SEED=<seed> replays it), f32 within rtol
1e-5 and atol 1e-6 (1e-5 for the convolutions), indices, integer results
and max pools exactly; and the variants that are refused, each an error
naming the node.

Usage: onnx-ops.py"""


import numpy as np
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

import rlx
import rlx.onnx
from pychecks import check, expect_error, finish, test_seed

seed = test_seed()
rng = np.random.default_rng(seed)

TYPES = {np.dtype(np.float32): TensorProto.FLOAT,
         np.dtype(np.int64): TensorProto.INT64}


def run(nodes, inputs, constants=None, outputs=1):
    """Imports a one-graph model of `nodes` over `inputs` (name -> array;
    `constants` become initializers read at import time) and runs it."""
    constants = constants or {}
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info(n, TYPES[a.dtype], a.shape)
         for n, a in inputs.items()],
        [helper.make_tensor_value_info(f"out{k}" if outputs > 1 else "out",
                                       TensorProto.UNDEFINED, None)
         for k in range(outputs)],
        [numpy_helper.from_array(a, n) for n, a in constants.items()])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 16)])
    text, params = rlx.onnx.import_model(model)
    result = rlx.compile(text, params=params)(**inputs)
    return result if outputs > 1 else (result,)


def close(got, want, what, exact=False, atol=1e-6):
    same = got.shape == want.shape and (
        np.array_equal(got, want) if exact else
        np.allclose(got, want, rtol=1e-5, atol=atol))
    error = float(np.max(np.abs(got - want), initial=0)) \
        if got.shape == want.shape else float("inf")
    check(same, f"{what}: max abs error {error:.2e}")


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# TopK: largest and smallest, along the last, a middle and a negative
# axis; planted ties go to the smaller index.
x = f32(3, 7, 5)
x[1, 2, 0] = x[1, 5, 0] = 9.0
x[0, 1, 3] = x[0, 4, 3] = -9.0
for axis, k, largest in ((-1, 3, 1), (1, 4, 1), (1, 2, 0), (0, 3, 0)):
    values, indices = run(
        [helper.make_node("TopK", ["x", "k"], ["out0", "out1"], axis=axis,
                          largest=largest)],
        {"x": x}, {"k": np.array([k], np.int64)}, outputs=2)
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    want_i = np.take(order, np.arange(k), axis=axis)
    close(indices, want_i, f"TopK axis {axis} k {k} largest {largest}: "
          "indices", exact=True)
    close(values, np.take_along_axis(x, want_i, axis),
          f"TopK axis {axis} k {k} largest {largest}: values", exact=True)
ix = rng.integers(-50, 50, (4, 9))
values, indices = run([helper.make_node("TopK", ["x", "k"], ["out0", "out1"],
                                        largest=0)],
                      {"x": ix}, {"k": np.array([3], np.int64)}, outputs=2)
order = np.argsort(ix, axis=-1, kind="stable")[:, :3]
close(values, np.take_along_axis(ix, order, -1), "TopK smallest of int64",
      exact=True)

# GatherND: whole slices, single elements, batch_dims 1, negative indices.
data = f32(4, 5, 6)
cases = [
    (rng.integers(-4, 4, (3, 1)), 0, lambda d, i: d[i[..., 0]]),
    (np.stack([rng.integers(-4, 4, (2, 3)), rng.integers(-5, 5, (2, 3)),
               rng.integers(0, 6, (2, 3))], -1), 0,
     lambda d, i: d[i[..., 0], i[..., 1], i[..., 2]]),
    (rng.integers(-5, 5, (4, 2, 1)), 1,
     lambda d, i: np.stack([d[b][i[b, :, 0]] for b in range(4)])),
]
for indices, batch_dims, reference in cases:
    (got,) = run([helper.make_node("GatherND", ["data", "indices"], ["out"],
                                   batch_dims=batch_dims)],
                 {"data": data, "indices": indices})
    close(got, reference(data, indices),
          f"GatherND of indices {list(indices.shape)} batch_dims "
          f"{batch_dims}", exact=True)

# ScatterND: rows and single elements (distinct positions, as ONNX
# requires without a reduction), reduction add with repeats.
rows = rng.permutation(4)[:3].reshape(3, 1)
updates = f32(3, 5, 6)
want = data.copy()
want[rows[:, 0]] = updates
(got,) = run([helper.make_node("ScatterND", ["data", "indices", "updates"],
                               ["out"])],
             {"data": data, "indices": rows, "updates": updates})
close(got, want, "ScatterND of rows", exact=True)
flat = rng.permutation(4 * 5 * 6)[:7]
points = np.stack(np.unravel_index(flat, (4, 5, 6)), -1)
points[0] -= [4, 5, 6]  # negative indices count from the end
values = f32(7)
want = data.copy()
want.reshape(-1)[flat] = values
(got,) = run([helper.make_node("ScatterND", ["data", "indices", "updates"],
                               ["out"])],
             {"data": data, "indices": points, "updates": values})
close(got, want, "ScatterND of elements", exact=True)
repeats = rng.integers(0, 4, (6, 2))
more = f32(6, 6)
want = data.copy()
np.add.at(want, (repeats[:, 0], repeats[:, 1]), more)
(got,) = run([helper.make_node("ScatterND", ["data", "indices", "updates"],
                               ["out"], reduction="add")],
             {"data": data, "indices": repeats, "updates": more})
close(got, want, "ScatterND reduction add with repeated indices")

# ScatterElements along each axis (distinct positions along the axis),
# and reduction add with repeats.
for axis in (0, 1, -1):
    size = data.shape[axis]
    shape = list(data.shape)
    shape[axis] = 3
    index = np.argsort(rng.random(data.shape), axis=axis).take(
        range(3), axis=axis) - size * rng.integers(0, 2, shape)
    src = f32(*shape)
    want = data.copy()
    np.put_along_axis(want, index % size, src, axis)
    (got,) = run([helper.make_node("ScatterElements",
                                   ["data", "indices", "updates"], ["out"],
                                   axis=axis)],
                 {"data": data, "indices": index, "updates": src})
    close(got, want, f"ScatterElements axis {axis}", exact=True)
index = rng.integers(0, 5, (4, 7, 6))
src = f32(4, 7, 6)
want = data.copy()
for i, j, k in np.ndindex(*index.shape):
    want[i, index[i, j, k], k] += src[i, j, k]
(got,) = run([helper.make_node("ScatterElements",
                               ["data", "indices", "updates"], ["out"],
                               axis=1, reduction="add")],
             {"data": data, "indices": index, "updates": src})
close(got, want, "ScatterElements reduction add with repeated indices")

# Einsum: matmuls, batches, a bilinear form, outer products, traces of
# summed indices, broadcast ellipses, implicit outputs, three operands,
# diagonals.
einsums = [
    ("ij,jk->ik", [(4, 5), (5, 3)]),
    ("bij,bjk->bik", [(2, 4, 5), (2, 5, 3)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 8), (2, 3, 6, 8)]),
    ("bn,anm,bm->ba", [(3, 4), (5, 4, 6), (3, 6)]),
    ("i,j->ij", [(4,), (5,)]),
    ("ij->", [(4, 5)]),
    ("ijk->kj", [(3, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 2)]),
    ("ij,jk", [(4, 5), (5, 3)]),
    ("ba,ca", [(3, 4), (5, 4)]),
    ("i,i->", [(6,), (6,)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("bij,jk->bik", [(1, 4, 5), (5, 3)]),
    ("ii->i", [(5, 5)]),
    ("ii", [(5, 5)]),
    ("...ii->...i", [(2, 3, 4, 4)]),
    ("bii,bij->bj", [(2, 4, 4), (2, 4, 3)]),
]
for equation, shapes in einsums:
    operands = {f"x{k}": f32(*s) for k, s in enumerate(shapes)}
    (got,) = run([helper.make_node("Einsum", list(operands), ["out"],
                                   equation=equation)], operands)
    close(got, np.einsum(equation, *operands.values()), f"Einsum {equation}")


# Einsum over a symbolic batch (maxvit's attention): compiled once, run
# at two batch sizes.
symbolic = helper.make_model(helper.make_graph(
    [helper.make_node("Einsum", ["q", "k"], ["out"],
                      equation="bhqd,bhkd->bhqk")], "g",
    [helper.make_tensor_value_info("q", TensorProto.FLOAT, ["N", 3, 4, 8]),
     helper.make_tensor_value_info("k", TensorProto.FLOAT, ["N", 3, 6, 8])],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)]),
    opset_imports=[helper.make_opsetid("", 16)])
graph = rlx.compile(rlx.onnx.import_model(symbolic)[0])
for n in (1, 3):
    q, k = f32(n, 3, 4, 8), f32(n, 3, 6, 8)
    close(graph(q=q, k=k), np.einsum("bhqd,bhkd->bhqk", q, k),
          f"Einsum over a symbolic batch, at batch {n}")


# A 3-d Conv (the torch importer's conv3d): pads symmetric and not,
# strides, dilations, groups, bias; against direct loops over the kernel.
def conv3d(x, w, b, strides, before, after, dilations, groups):
    x = np.pad(x, [(0, 0), (0, 0)] + list(zip(before, after)))
    out_c, per_group, *kernel = w.shape
    sizes = [(n - d * (k - 1) - 1) // s + 1 for n, k, s, d in zip(
        x.shape[2:], kernel, strides, dilations)]
    y = np.zeros((x.shape[0], out_c, *sizes), np.float64)
    outs = out_c // groups
    for g in range(groups):
        for k in np.ndindex(*kernel):
            patch = x[(slice(None), slice(g * per_group, (g + 1) *
                                          per_group)) + tuple(
                slice(i * d, i * d + s * (n - 1) + 1, s) for i, d, s, n in
                zip(k, dilations, strides, sizes))]
            y[:, g * outs:(g + 1) * outs] += np.einsum(
                "ncdhw,oc->nodhw", patch,
                w[(slice(g * outs, (g + 1) * outs), slice(None)) + k])
    return (y + b.reshape(-1, 1, 1, 1)).astype(np.float32)


for attrs, shape, w_shape in [
        ({}, (2, 3, 4, 5, 6), (4, 3, 3, 3, 3)),
        ({"strides": [2, 1, 2], "pads": [1, 0, 1, 1, 0, 1],
          "dilations": [1, 2, 1], "group": 2}, (1, 4, 7, 6, 5),
         (6, 2, 2, 2, 3)),
        ({"pads": [0, 1, 2, 1, 0, 0]}, (1, 2, 4, 4, 4), (3, 2, 2, 2, 2))]:
    x, w, b = f32(*shape), f32(*w_shape), f32(w_shape[0])
    (got,) = run([helper.make_node("Conv", ["x", "w", "b"], ["out"],
                                   **attrs)], {"x": x}, {"w": w, "b": b})
    pads = attrs.get("pads", [0] * 6)
    want = conv3d(x, w, b, attrs.get("strides", [1] * 3), pads[:3],
                  pads[3:], attrs.get("dilations", [1] * 3),
                  attrs.get("group", 1))
    error = float(np.max(np.abs(got - want))) if got.shape == want.shape \
        else float("inf")
    check(got.shape == want.shape and np.allclose(got, want, rtol=1e-5,
                                                  atol=1e-5),
          f"3-d Conv {attrs}: max abs error {error:.2e}")

# A 3-d ConvTranspose (the torch importer's conv_transpose3d): strides,
# pads, output_padding, dilations, groups, bias; against torch's.
for attrs, shape, w_shape in [
        ({}, (2, 3, 3, 4, 5), (3, 4, 2, 3, 2)),
        ({"strides": [2, 1, 3], "pads": [1, 0, 1, 1, 0, 1],
          "output_padding": [1, 0, 2], "dilations": [1, 2, 1], "group": 2},
         (1, 4, 4, 3, 3), (4, 3, 3, 2, 3))]:
    x, w, b = f32(*shape), f32(*w_shape), f32(w_shape[1] *
                                             attrs.get("group", 1))
    (got,) = run([helper.make_node("ConvTranspose", ["x", "w", "b"], ["out"],
                                   **attrs)], {"x": x}, {"w": w, "b": b})
    want = F.conv_transpose3d(
        torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
        attrs.get("strides", 1), attrs.get("pads", [0] * 6)[:3],
        attrs.get("output_padding", 0), attrs.get("group", 1),
        attrs.get("dilations", 1)).numpy()
    close(got, want, f"3-d ConvTranspose {attrs}", atol=1e-5)

# ConvTranspose with pads that differ, output_shape (past the natural
# size too) and auto_pad SAME_*, 2-d and 3-d: the whole transposed
# convolution cropped and extended, against torch's (pads 0) cropped by
# the pads ONNX defines (numpy; negative pads: zero rows, then the bias).
def transposed(x, w, b, strides, before, after, extra, group=1):
    full = (F.conv_transpose2d if x.ndim == 4 else F.conv_transpose3d)(
        torch.from_numpy(x), torch.from_numpy(w), None, strides,
        groups=group).numpy()
    for i in range(x.ndim - 2):
        end = extra[i] - after[i]
        full = np.take(full, range(max(0, before[i]), full.shape[2 + i] +
                                   min(0, end)), axis=2 + i)
        widths = [(0, 0)] * full.ndim
        widths[2 + i] = (max(0, -before[i]), max(0, end))
        full = np.pad(full, widths)
    return full + b.reshape((-1,) + (1,) * (x.ndim - 2))


for attrs, shape, w_shape, pads in [
        ({"strides": [2, 3], "pads": [1, 0, 0, 2]}, (2, 3, 4, 5),
         (3, 2, 3, 3), ([1, 0], [0, 2])),
        ({"strides": [3, 2], "output_shape": [12, 8]}, (1, 2, 3, 3),
         (2, 4, 3, 3), ([0, 0], [-3, -1])),
        ({"strides": [2, 2], "auto_pad": "SAME_UPPER"}, (1, 2, 3, 4),
         (2, 3, 3, 3), ([0, 0], [1, 1])),
        ({"strides": [2, 1], "auto_pad": "SAME_LOWER", "group": 2},
         (1, 4, 3, 3), (4, 1, 4, 2), ([1, 1], [1, 0])),
        ({"strides": [1, 2, 2], "pads": [0, 1, 0, 1, 1, 2],
          "output_padding": [0, 1, 1]}, (1, 2, 3, 4, 3), (2, 3, 2, 3, 3),
         ([0, 1, 0], [1, 1, 2]))]:
    x, w = f32(*shape), f32(*w_shape)
    b = f32(w_shape[1] * attrs.get("group", 1))
    (got,) = run([helper.make_node("ConvTranspose", ["x", "w", "b"], ["out"],
                                   **attrs)], {"x": x}, {"w": w, "b": b})
    want = transposed(x, w, b, attrs["strides"], *pads,
                      attrs.get("output_padding", [0] * (x.ndim - 2)),
                      attrs.get("group", 1))
    close(got, want, f"ConvTranspose {attrs}", atol=1e-5)

# 3-d MaxPool and AveragePool (the torch importer's, two 2-d rlx.pools):
# pads symmetric, asymmetric and wider than half the window (padded ahead
# of the pool), strides, ceil_mode, count_include_pad either way; against
# torch's pools of the input padded by F.pad (an average over the input
# elements of each window: a sum pool divided by a sum pool of ones).
volume = f32(2, 3, 6, 7, 5)


def padded(array, pads, value):
    pairs = []
    for before, after in zip(reversed(pads[:3]), reversed(pads[3:])):
        pairs += [before, after]
    return F.pad(torch.from_numpy(array), pairs, value=value)


for attrs in ({"kernel_shape": [3, 3, 3], "pads": [1] * 6,
               "strides": [2, 2, 2]},
              {"kernel_shape": [2, 3, 2], "pads": [0, 2, 1, 1, 0, 1],
               "strides": [1, 2, 2]},
              {"kernel_shape": [2, 2, 3], "pads": [1, 0, 1, 1, 0, 1],
               "strides": [2, 2, 1], "ceil_mode": 1}):
    kernel, strides = attrs["kernel_shape"], attrs["strides"]
    ceil = bool(attrs.get("ceil_mode", 0))
    (got,) = run([helper.make_node("MaxPool", ["x"], ["out"], **attrs)],
                 {"x": volume})
    want = F.max_pool3d(padded(volume, attrs["pads"], -np.inf), kernel,
                        strides, ceil_mode=ceil).numpy()
    close(got, want, f"3-d MaxPool {attrs}", exact=True)
    for include in (0, 1):
        (got,) = run([helper.make_node("AveragePool", ["x"], ["out"],
                                       count_include_pad=include, **attrs)],
                     {"x": volume})
        sums = F.avg_pool3d(padded(volume, attrs["pads"], 0.0), kernel,
                            strides, divisor_override=1)
        if ceil:
            # Symmetric pads: torch's own partial last windows.
            want = F.avg_pool3d(torch.from_numpy(volume), kernel, strides,
                                attrs["pads"][:3], ceil_mode=True,
                                count_include_pad=bool(include))
        elif include:
            want = sums / np.prod(kernel)
        else:
            want = sums / F.avg_pool3d(
                padded(np.ones_like(volume), attrs["pads"], 0.0), kernel,
                strides, divisor_override=1)
        close(got, want.numpy(), f"3-d AveragePool count_include_pad "
              f"{include} {attrs}")

# Resize cubic (cubic_coeff_a -0.75, exclude_outside 0: PyTorch's
# bicubic), half_pixel and align_corners, sizes and scales, against
# torch's F.interpolate.
image = f32(2, 3, 5, 6)
for coordinates, scales, sizes in (("half_pixel", [1, 1, 1.6, 2.0], None),
                                   ("align_corners", None, [2, 3, 9, 4]),
                                   ("half_pixel", None, [2, 3, 3, 11])):
    given = {"roi": np.zeros(0, np.float32)}
    given.update({"scales": np.array(scales, np.float32)} if scales else
                 {"scales": np.zeros(0, np.float32),
                  "sizes": np.array(sizes, np.int64)})
    (got,) = run([helper.make_node(
        "Resize", ["x", "roi", "scales"] + (["sizes"] if sizes else []),
        ["out"], mode="cubic", coordinate_transformation_mode=coordinates)],
        {"x": image}, given)
    reference = torch.from_numpy(image)
    want = (F.interpolate(reference, scale_factor=scales[2:], mode="bicubic")
            if scales else F.interpolate(
                reference, size=sizes[2:], mode="bicubic",
                align_corners=coordinates == "align_corners")).numpy()
    # 16 taps of inputs up to about 4 with weights up to 1.25 (Keys'
    # kernel, separable), summed in f32 in another order than torch's: an
    # output near zero carries a few 1e-6 of rounding whatever its size.
    close(got, want, f"Resize cubic {coordinates} "
          f"{'scales' if scales else 'sizes'}", atol=1e-5)

# SoftmaxCrossEntropyLoss and NegativeLogLikelihoodLoss: every
# reduction, class weights, an ignore_index (negative, and one that some
# targets hit), extra dims, the log-probabilities output.
def log_softmax(x):
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def nll(log_prob, target, weight, ignore, reduction):
    safe = np.where(target == ignore, 0, target)
    picked = -np.take_along_axis(log_prob, safe[:, None], 1)[:, 0]
    scale = np.ones(target.shape) if weight is None else weight[safe]
    scale = np.where(target == ignore, 0, scale)
    loss = picked * scale
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / scale.sum()


scores = f32(5, 4, 3)
labels = rng.integers(0, 4, (5, 3))
labels[0, 0] = labels[2, 1] = -1
class_weights = rng.uniform(0.5, 2, 4).astype(np.float32)
for reduction in ("none", "sum", "mean"):
    for weighted in (False, True):
        given = {"w": class_weights} if weighted else {}
        inputs = ["scores", "labels"] + (["w"] if weighted else [])
        loss, log_prob = run([helper.make_node(
            "SoftmaxCrossEntropyLoss", inputs, ["out0", "out1"],
            reduction=reduction, ignore_index=-1)],
            {"scores": scores, "labels": labels}, given, outputs=2)
        want_log_prob = log_softmax(scores.astype(np.float64))
        close(log_prob, want_log_prob.astype(np.float32),
              "SoftmaxCrossEntropyLoss log_prob")
        want = nll(want_log_prob, labels,
                   class_weights if weighted else None, -1, reduction)
        close(loss, np.asarray(want, np.float32),
              f"SoftmaxCrossEntropyLoss {reduction}"
              f"{' weighted' if weighted else ''} with ignore_index -1")
log_probs = log_softmax(f32(6, 3))
targets = rng.integers(0, 3, 6)
(got,) = run([helper.make_node("NegativeLogLikelihoodLoss",
                               ["x", "t", "w"], ["out"], ignore_index=1)],
             {"x": log_probs, "t": targets}, {"w": class_weights[:3]})
close(got, np.asarray(nll(log_probs, targets, class_weights[:3], 1,
                          "mean"), np.float32),
      "NegativeLogLikelihoodLoss mean, weighted, ignore_index 1")

# The variants that are refused, each naming the node.
graph = helper.make_graph(
    [helper.make_node("Einsum", ["x"], ["out"], equation="ij->ii",
                      name="twice")],
    "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, [3])])
expect_error(lambda: rlx.onnx.import_model(helper.make_model(
    graph, opset_imports=[helper.make_opsetid("", 16)])),
    "node 0 'twice' (op_type Einsum, domain ai.onnx, opset 16): einsum "
    "'ij->ii' with an output index repeated", "an Einsum output index twice")
graph = helper.make_graph(
    [helper.make_node("TopK", ["x", "k"], ["v", "i"], name="topk")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3]),
     helper.make_tensor_value_info("k", TensorProto.INT64, [1])],
    [helper.make_tensor_value_info("v", TensorProto.FLOAT, None)])
expect_error(lambda: rlx.onnx.import_model(helper.make_model(
    graph, opset_imports=[helper.make_opsetid("", 16)])),
    "'topk' (op_type TopK, domain ai.onnx, opset 16): TopK's K computed by "
    "the graph", "a TopK of a graph-computed K")
graph = helper.make_graph(
    [helper.make_node("ScatterND", ["x", "i", "u"], ["out"], name="mul",
                      reduction="mul")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3]),
     helper.make_tensor_value_info("i", TensorProto.INT64, [2, 1]),
     helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)])
expect_error(lambda: rlx.onnx.import_model(helper.make_model(
    graph, opset_imports=[helper.make_opsetid("", 16)])),
    "'mul' (op_type ScatterND, domain ai.onnx, opset 16): ScatterND with "
    "reduction mul", "a ScatterND with reduction mul")
finish()
