#!/usr/bin/env python3
"""Writes the seed corpora of the loader fuzz targets.

make_corpus.py DIR writes DIR/npy/*, DIR/npz/*, DIR/safetensors/* and
DIR/gguf/*: valid files of every dtype the loaders take, rank 0 to 3, empty
tensors, several tensors and metadata (GGUF: of every value type, nested
arrays, block-quantized tensors, another alignment), archives of one,
several or no arrays (with and without Zip64 end records), so that mutations start from inputs that reach the data
checks. Plain Python (no NumPy), so the corpus needs nothing installed.
"""

import json
import os
import struct
import sys
import zlib

NPY_DTYPES = {"<f4": 4, "<f8": 8, "<f2": 2, "|i1": 1, "<i2": 2, "<i4": 4,
              "<i8": 8, "|u1": 1, "<u4": 4, "|b1": 1, "<c8": 8}
ST_DTYPES = {"F32": 4, "F64": 8, "F16": 2, "BF16": 2, "I8": 1, "I16": 2,
             "I32": 4, "I64": 8, "U8": 1, "U32": 4, "BOOL": 1, "C64": 8}
SHAPES = [(), (3,), (2, 3), (1, 2, 2), (0,), (2, 0, 3)]


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def npy(descr, shape, version=1):
    dims = "".join(f"{d}, " if len(shape) > 1 else f"{d}," for d in shape)
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims.rstrip(' ')}), }}"
    prefix = 10 if version == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack(
        "<I", len(header))
    data = bytes((i * 37) & 0xFF for i in range(count(shape) *
                                                  NPY_DTYPES[descr]))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + data


def safetensors(tensors, metadata=None):
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        size = count(shape) * ST_DTYPES[dtype]
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(data), len(data) + size]}
        data += bytes((i * 11) & 0xFF for i in range(size))
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def npz(arrays, zip64=False):
    """A zip of stored NAME.npy entries, as np.savez writes it."""
    body, directory = b"", b""
    for name, data in arrays:
        name = (name + ".npy").encode()
        fields = (0, 0, 0, 0x21, zlib.crc32(data), len(data), len(data),
                  len(name))
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20,
                                 *fields, 0, 0, 0, 0, 0, len(body)) + name
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, *fields,
                            0) + name + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(arrays),
                      len(arrays), len(directory), len(body), 0)
    if zip64:
        record = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0,
                             len(arrays), len(arrays), len(directory),
                             len(body))
        locator = struct.pack("<IIQI", 0x07064B50, 0,
                              len(body) + len(directory), 1)
        end = record + locator + struct.pack(
            "<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
            0xFFFFFFFF, 0)
    return body + directory + end
# GGUF type codes with (block elements, block bytes).
GGML_TYPES = {"f32": (0, 1, 4), "f16": (1, 1, 2), "q4_0": (2, 32, 18),
              "q8_0": (8, 32, 34), "q4_k": (12, 256, 144),
              "q6_k": (14, 256, 210), "i8": (24, 1, 1), "i16": (25, 1, 2),
              "i32": (26, 1, 4), "i64": (27, 1, 8), "f64": (28, 1, 8),
              "bf16": (30, 1, 2)}


def gguf_string(text):
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def gguf(tensors, metadata=(), alignment=32):
    """A GGUF v3 file; `tensors` are (name, type, dims innermost first),
    `metadata` (key, value type, packed value bytes)."""
    kv = list(metadata)
    if alignment != 32:
        kv.append(("general.alignment", 4, struct.pack("<I", alignment)))
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
    for key, vtype, value in kv:
        out += gguf_string(key) + struct.pack("<I", vtype) + value
    data = b""
    for name, ggml, dims in tensors:
        code, block, size = GGML_TYPES[ggml]
        nbytes = count(dims) // block * size
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", code, len(data))
        data += bytes((i * 13) & 0xFF for i in range(nbytes))
        data += b"\0" * (-len(data) % alignment)
    out += b"\0" * (-len(out) % alignment)
    return out + data


GGUF_METADATA = [
    ("u8", 0, b"\x07"), ("i8", 1, b"\xff"), ("u16", 2, b"\x01\x02"),
    ("i16", 3, b"\xfe\xff"), ("u32", 4, b"\x01\0\0\0"),
    ("i32", 5, b"\xff\xff\xff\xff"), ("f32", 6, struct.pack("<f", 1.5)),
    ("bool", 7, b"\x01"), ("string", 8, gguf_string("llama")),
    ("u64", 10, struct.pack("<Q", 1 << 40)),
    ("i64", 11, struct.pack("<q", -5)), ("f64", 12, struct.pack("<d", 0.25)),
    ("array.u32", 9, struct.pack("<IQ", 4, 3) + struct.pack("<3I", 1, 2, 3)),
    ("array.string", 9, struct.pack("<IQ", 8, 2) + gguf_string("a") +
     gguf_string("")),
    ("array.nested", 9, struct.pack("<IQ", 9, 2) +
     struct.pack("<IQ", 0, 2) + b"\x01\x02" + struct.pack("<IQ", 8, 1) +
     gguf_string("x")),
]


def main():
    root = sys.argv[1]
    files = {}
    for descr in NPY_DTYPES:
        for shape in SHAPES:
            name = descr.strip("<|") + "_" + "x".join(map(str, shape))
            files[f"npy/{name}.npy"] = npy(descr, shape)
    files["npy/v2.npy"] = npy("<f4", (2, 2), version=2)
    files["npy/v3.npy"] = npy("<i8", (4,), version=3)
    for dtype in ST_DTYPES:
        for shape in SHAPES:
            name = dtype.lower() + "_" + "x".join(map(str, shape))
            files[f"safetensors/{name}.safetensors"] = safetensors(
                [("t", dtype, shape)])
    files["safetensors/several.safetensors"] = safetensors(
        [("a.weight", "F32", (2, 3)), ("a.bias", "F32", (3,)),
         ("step", "I64", ()), ("mask", "BOOL", (4,))])
    files["safetensors/metadata.safetensors"] = safetensors(
        [("w", "F16", (2, 2))], {"format": "pt", "note": "a\"b\u00e9"})
    files["safetensors/empty.safetensors"] = safetensors([])
    files["npz/one.npz"] = npz([("x", npy("<f4", (2, 3)))])
    files["npz/several.npz"] = npz(
        [("a", npy("<f8", (3,))), ("b", npy("<i4", (2, 2))),
         ("mask", npy("|b1", (4,))), ("empty", npy("<f4", (0,)))])
    files["npz/zip64.npz"] = npz([("x", npy("<i8", (2,))),
                                  ("y", npy("<f2", ()))], zip64=True)
    files["npz/empty.npz"] = npz([])
    for ggml, (code, block, _) in GGML_TYPES.items():
        for dims in ([block], [block, 2], [block, 1, 2], [0]):
            name = ggml + "_" + "x".join(map(str, dims))
            files[f"gguf/{name}.gguf"] = gguf([("t", ggml, dims)])
    files["gguf/several.gguf"] = gguf(
        [("blk.0.attn_q.weight", "q4_0", [64, 4]),
         ("blk.0.attn_q.bias", "f32", [4]), ("token_embd", "q8_0", [32, 3]),
         ("norm", "f16", [5])], GGUF_METADATA)
    files["gguf/metadata-only.gguf"] = gguf([], GGUF_METADATA)
    files["gguf/aligned64.gguf"] = gguf(
        [("a", "f32", [3]), ("b", "i8", [5])], alignment=64)
    for path, data in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
