#!/usr/bin/python3
"""Fixed inputs and initial weights of the bundled training examples.

train_inputs.py EXAMPLE DIR [STEPS] writes DIR/x.npy, DIR/labels.npy and
DIR/init.safetensors for examples/EXAMPLE.mlir (mlp_train or
transformer_train), from a fixed seed, with the shapes those graphs take;
with STEPS also DIR/x-batches.npy and DIR/labels-batches.npy, a different
batch for each of STEPS steps (rlx-run --batched), stacked on a new
leading axis.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "test", "Execution", "lib"))
from rlxcheck import write_safetensors  # noqa: E402


def example_inputs(example, rng):
    """(data, init) of examples/EXAMPLE.mlir drawn from `rng`: the inputs
    `x` and `labels`, and the initial weights by parameter name."""

    def weights(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    if example == "mlp_train":
        data = {"x": rng.standard_normal((16, 8)).astype(np.float32),
                "labels": rng.integers(0, 4, (16,)).astype(np.int64)}
        init = {"w1": weights((8, 32), 0.4), "b1": weights((32,), 0.1),
                "w2": weights((32, 4), 0.4), "b2": weights((4,), 0.1)}
    elif example == "transformer_train":
        data = {"x": rng.standard_normal((2, 4, 8)).astype(np.float32),
                "labels": rng.integers(0, 3, (8,)).astype(np.int64)}
        init = {"qkv_w": weights((8, 24), 0.3), "qkv_b": weights((24,), 0.1),
                "out_w": weights((8, 8), 0.3), "out_b": weights((8,), 0.1),
                "ln1_g": 1 + weights((8,), 0.1), "ln1_b": weights((8,), 0.1),
                "fc1_w": weights((8, 16), 0.3), "fc1_b": weights((16,), 0.1),
                "fc2_w": weights((16, 8), 0.3), "fc2_b": weights((8,), 0.1),
                "ln2_g": 1 + weights((8,), 0.1), "ln2_b": weights((8,), 0.1),
                "cls_w": weights((8, 3), 0.3), "cls_b": weights((3,), 0.1)}
    else:
        raise ValueError(f"no inputs for example '{example}'")
    return data, init


def main():
    example, folder = sys.argv[1], sys.argv[2]
    try:
        data, init = example_inputs(example, np.random.default_rng(7))
    except ValueError as error:
        sys.exit(f"train_inputs.py: {error}")
    np.save(os.path.join(folder, "x.npy"), data["x"])
    np.save(os.path.join(folder, "labels.npy"), data["labels"])
    write_safetensors(os.path.join(folder, "init.safetensors"), init)
    if len(sys.argv) > 3:
        rng = np.random.default_rng(8)
        batches = [example_inputs(example, rng)[0]
                   for _ in range(int(sys.argv[3]))]
        for name in ("x", "labels"):
            np.save(os.path.join(folder, f"{name}-batches.npy"),
                    np.stack([batch[name] for batch in batches]))


if __name__ == "__main__":
    main()
