"""Writes good and malformed input files for the rlx-run error tests."""
import json
import struct
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng()
np.save(f"{out}/x.npy", rng.uniform(-1, 1, (2, 3)).astype(np.float32))
np.save(f"{out}/x_f64.npy", rng.uniform(-1, 1, (2, 3)))
np.save(f"{out}/x_shape.npy", rng.uniform(-1, 1, (3, 2)).astype(np.float32))
np.save(f"{out}/x_fortran.npy", np.asfortranarray(rng.uniform(-1, 1, (2, 3)).astype(np.float32)))
good = open(f"{out}/x.npy", "rb").read()
open(f"{out}/x_truncated.npy", "wb").write(good[:-5])
open(f"{out}/x_trailing.npy", "wb").write(good + b"\0\0")
open(f"{out}/not_npy.npy", "wb").write(b"hello, world")


def safetensors(path, tensors, cut=0):
    header, data, offset = {}, b"", 0
    for name, value in tensors.items():
        raw = value.tobytes()
        header[name] = {"dtype": {"float32": "F32"}[str(value.dtype)],
                        "shape": list(value.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header).encode()
    blob = struct.pack("<Q", len(text)) + text + data
    open(path, "wb").write(blob[:len(blob) - cut])


w = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
safetensors(f"{out}/params.safetensors", {"w": w, "unused": w})
safetensors(f"{out}/params_truncated.safetensors", {"w": w}, cut=8)
safetensors(f"{out}/params_shape.safetensors", {"w": w.T.copy()})
open(f"{out}/params_json.safetensors", "wb").write(struct.pack("<Q", 5) + b"{oops")
np.save(f"{out}/w.npy", w)
np.save(f"{out}/expected.npy", np.maximum(np.load(f"{out}/x.npy") @ w, 0))
np.save(f"{out}/wrong.npy", np.maximum(np.load(f"{out}/x.npy") @ w, 0) + 1)
