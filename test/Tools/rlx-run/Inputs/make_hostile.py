"""Writes malformed .npy and .safetensors files, each a case the loaders
must reject with a message naming the file, before allocating anything."""
import json
import struct
import sys

out = sys.argv[1]


def npy(name, header, data=b"", version=1):
    header = header.encode()
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    with open(f"{out}/{name}", "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]) + size + header + data)


def npy_dict(shape, descr="<f4", extra=""):
    return ("{'descr': '%s', 'fortran_order': False, 'shape': %s, %s}\n"
            % (descr, shape, extra))


# Shapes that are not tuples of non-negative integers.
npy("shape_letter.npy", npy_dict("(2x, 3)"), bytes(24))
npy("shape_negative.npy", npy_dict("(-2, 3)"), bytes(24))
npy("shape_not_tuple.npy", npy_dict("(6)"), bytes(24))
npy("shape_float.npy", npy_dict("(2.0, 3)"), bytes(24))
# Dims whose product overflows, and a dim past int64.
npy("overflow.npy", npy_dict("(4294967296, 4294967296, 2)"), bytes(8))
npy("dim_too_big.npy", npy_dict("(99999999999999999999,)"), bytes(8))
# A valid header asking for far more than the file holds: refused before any
# allocation (it used to allocate 4 TiB and crash on the null pointer).
npy("huge.npy", npy_dict("(1099511627776,)"), bytes(8))
# Header fields: duplicated, unknown, not a dict, length past the end.
npy("dup_key.npy", "{'descr': '<f4', 'descr': '<f8', 'fortran_order': "
    "False, 'shape': (2, 3), }\n", bytes(24))
npy("extra_key.npy", npy_dict("(2, 3)", extra="'x': 1, "), bytes(24))
npy("not_dict.npy", "[1, 2, 3]\n")
with open(f"{out}/header_len.npy", "wb") as f:
    f.write(b"\x93NUMPY\x02\x00" + struct.pack("<I", 0xFFFFFFF0) + b"{}")


def safetensors(name, header, data=b"", length=None):
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    size = len(text) if length is None else length
    with open(f"{out}/{name}", "wb") as f:
        f.write(struct.pack("<Q", size) + text + data)


def entry(begin, end, shape=(3, 4), dtype="F32"):
    return {"dtype": dtype, "shape": list(shape), "data_offsets": [begin, end]}


w = bytes(48)
safetensors("st_overlap.safetensors",
            {"w": entry(0, 48), "v": entry(16, 64)}, bytes(64))
safetensors("st_gap.safetensors",
            {"w": entry(8, 56)}, bytes(56))
safetensors("st_trailing.safetensors", {"w": entry(0, 48)}, w + b"junk")
safetensors("st_out_of_range.safetensors",
            {"w": entry(2**62, 2**62 + 48)}, w)
safetensors("st_header_len.safetensors", {"w": entry(0, 48)}, w,
            length=2**63)
safetensors("st_not_json.safetensors", b"not json at all", w)
safetensors("st_not_object.safetensors", b"[1, 2]", w)
safetensors("st_duplicate.safetensors",
            b'{"w": {"dtype": "F32", "shape": [3, 4], "data_offsets": '
            b'[0, 48]}, "w": {"dtype": "F32", "shape": [3, 4], '
            b'"data_offsets": [48, 96]}}', w + w)
safetensors("st_overflow.safetensors",
            {"w": entry(0, 48, shape=(2**32, 2**32, 2))}, w)
safetensors("st_nan_dim.safetensors",
            b'{"w": {"dtype": "F32", "shape": [NaN, 4], "data_offsets": '
            b'[0, 48]}}', w)
safetensors("st_float_dim.safetensors",
            b'{"w": {"dtype": "F32", "shape": [3.5, 4], "data_offsets": '
            b'[0, 48]}}', w)
safetensors("st_huge_dim.safetensors",
            b'{"w": {"dtype": "F32", "shape": [1e300, 4], "data_offsets": '
            b'[0, 48]}}', w)
# Valid, with metadata and an escaped name: accepted.
safetensors("st_good.safetensors",
            {"__metadata__": {"format": "pt"}, "w": entry(0, 48),
             "a\"b": entry(48, 48, shape=(0,))}, w)
