# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Reading and writing GGUF files (llama.cpp's model format) with NumPy.

    gguf = rlx.gguf.read_gguf("model.gguf")
    gguf.metadata["llama.block_count"]          # metadata, as Python values
    gguf.tensor("blk.0.attn_q.weight")          # ndarray or QuantizedTensor

The layout (versions 2 and 3; little-endian): the magic "GGUF", a u32
version, u64 tensor and metadata counts; metadata key/value pairs (a
string key, a u32 value type, the value); per tensor its name, u32 rank,
u64 dims innermost first, u32 GGML type and u64 offset; then the tensor
data, starting at the next multiple of `general.alignment` (default 32),
each tensor at its offset from there.

Every length, count and offset is checked against the file's size before
anything is allocated or read, so a truncated or hostile file raises
RLXError naming what is wrong, never a crash or a huge allocation. The
file is memory-mapped: tensors are read when asked for.

Dims are given outermost first here, NumPy's order (the reverse of the
file's): a llama.cpp linear weight of GGUF dims [in, out] is [out, in],
torch.nn.Linear's layout. Block-quantized tensors are `QuantizedTensor`s:
their packed bytes unchanged, `rows` rows of `row_length` elements each
quantized in blocks along the row, the layout rlx.dequant_matmul's gguf_*
schemes decode (docs/quantization.md)."""

import dataclasses
import mmap
import os
import struct

import numpy as np

from ._capi import RLXError
from .safetensors import bf16_to_f32, write_atomically

__all__ = ["GGMLType", "QuantizedTensor", "GGUFFile", "read_gguf",
           "write_gguf", "quantize", "dequantize"]

_MAGIC = b"GGUF"
_DEFAULT_ALIGNMENT = 32
# ggml's GGML_MAX_DIMS: no tensor of a GGUF file has more dims.
_MAX_DIMS = 4
# Nesting of metadata arrays (an array of arrays); the format allows any,
# llama.cpp writes at most one level.
_MAX_ARRAY_DEPTH = 3


@dataclasses.dataclass(frozen=True)
class GGMLType:
    """A GGML tensor type: its id in GGUF files, name, elements per block
    and bytes per block (1 element of the itemsize for plain types)."""
    id: int
    name: str
    block_elements: int
    block_bytes: int

    @property
    def quantized(self):
        return self.block_elements > 1


# ggml's type ids (ggml.h) with the block geometry of ggml-common.h. The
# quantized ones are the gguf_* schemes of rlx.dequant_matmul.
_TYPE_LIST = [
    GGMLType(0, "f32", 1, 4), GGMLType(1, "f16", 1, 2),
    GGMLType(2, "q4_0", 32, 18), GGMLType(3, "q4_1", 32, 20),
    GGMLType(6, "q5_0", 32, 22), GGMLType(7, "q5_1", 32, 24),
    GGMLType(8, "q8_0", 32, 34), GGMLType(9, "q8_1", 32, 36),
    GGMLType(10, "q2_k", 256, 84), GGMLType(11, "q3_k", 256, 110),
    GGMLType(12, "q4_k", 256, 144), GGMLType(13, "q5_k", 256, 176),
    GGMLType(14, "q6_k", 256, 210), GGMLType(15, "q8_k", 256, 292),
    GGMLType(16, "iq2_xxs", 256, 66), GGMLType(17, "iq2_xs", 256, 74),
    GGMLType(18, "iq3_xxs", 256, 98), GGMLType(19, "iq1_s", 256, 50),
    GGMLType(20, "iq4_nl", 32, 18), GGMLType(21, "iq3_s", 256, 110),
    GGMLType(22, "iq2_s", 256, 82), GGMLType(23, "iq4_xs", 256, 136),
    GGMLType(24, "i8", 1, 1), GGMLType(25, "i16", 1, 2),
    GGMLType(26, "i32", 1, 4), GGMLType(27, "i64", 1, 8),
    GGMLType(28, "f64", 1, 8), GGMLType(29, "iq1_m", 256, 56),
    GGMLType(30, "bf16", 1, 2), GGMLType(34, "tq1_0", 256, 54),
    GGMLType(35, "tq2_0", 256, 66), GGMLType(39, "mxfp4", 32, 17),
]
TYPES = {t.id: t for t in _TYPE_LIST}
TYPES_BY_NAME = {t.name: t for t in _TYPE_LIST}

# NumPy dtypes of the plain types (bf16 is read as its bits, then widened).
_PLAIN = {"f32": "<f4", "f16": "<f2", "bf16": "<u2", "f64": "<f8",
          "i8": "i1", "i16": "<i2", "i32": "<i4", "i64": "<i8"}

# Metadata value types: id -> (name, struct format or None).
_UINT8, _INT8, _UINT16, _INT16, _UINT32, _INT32, _FLOAT32, _BOOL, \
    _STRING, _ARRAY, _UINT64, _INT64, _FLOAT64 = range(13)
_SCALARS = {_UINT8: "<B", _INT8: "<b", _UINT16: "<H", _INT16: "<h",
            _UINT32: "<I", _INT32: "<i", _FLOAT32: "<f", _BOOL: "<?",
            _UINT64: "<Q", _INT64: "<q", _FLOAT64: "<d"}
_SCALAR_DTYPES = {_UINT8: "u1", _INT8: "i1", _UINT16: "<u2", _INT16: "<i2",
                  _UINT32: "<u4", _INT32: "<i4", _FLOAT32: "<f4",
                  _BOOL: "?", _UINT64: "<u8", _INT64: "<i8",
                  _FLOAT64: "<f8"}


@dataclasses.dataclass
class QuantizedTensor:
    """A block-quantized tensor: `data`, its packed bytes (uint8), hold
    `rows` rows of `row_length` elements, each row `row_length /
    block_elements` blocks of GGML type `type` (a GGMLType). `shape` is
    the tensor's shape outermost first (rows may span several outer
    dims)."""
    type: GGMLType
    shape: tuple
    data: np.ndarray

    @property
    def row_length(self):
        return self.shape[-1]

    @property
    def rows(self):
        return int(np.prod(self.shape[:-1], dtype=np.int64))

    @property
    def row_bytes(self):
        return self.row_length // self.type.block_elements * \
            self.type.block_bytes

    def row_view(self):
        """The packed bytes as [rows, row_bytes]."""
        return self.data.reshape(self.rows, self.row_bytes)


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    """Where a tensor of a GGUF file lies: its shape (outermost first),
    GGML type, and byte range in the file."""
    name: str
    shape: tuple
    type: GGMLType
    offset: int
    nbytes: int


class _Reader:
    """Bounds-checked little-endian reads from a buffer; every failure is
    an RLXError naming the file and what was being read."""

    def __init__(self, buffer, path):
        self.buffer = buffer
        self.size = len(buffer)
        self.path = path
        self.pos = 0

    def fail(self, what):
        raise RLXError(f"'{self.path}': {what}")

    def need(self, count, what):
        if count < 0 or count > self.size - self.pos:
            self.fail(f"truncated: {what} needs {count} bytes at offset "
                      f"{self.pos}, the file has {self.size - self.pos} "
                      "left")

    def unpack(self, fmt, what):
        size = struct.calcsize(fmt)
        self.need(size, what)
        (value,) = struct.unpack_from(fmt, self.buffer, self.pos)
        self.pos += size
        return value

    def string(self, what):
        length = self.unpack("<Q", what)
        self.need(length, what)
        raw = bytes(self.buffer[self.pos:self.pos + length])
        self.pos += length
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self.fail(f"{what} is not UTF-8")

    def value(self, kind, what, depth=0):
        if kind in _SCALARS:
            value = self.unpack(_SCALARS[kind], what)
            return value
        if kind == _STRING:
            return self.string(what)
        if kind != _ARRAY:
            self.fail(f"{what} has an unknown value type {kind}")
        if depth >= _MAX_ARRAY_DEPTH:
            self.fail(f"{what}: arrays nested deeper than "
                      f"{_MAX_ARRAY_DEPTH}")
        element = self.unpack("<I", what + " (array type)")
        count = self.unpack("<Q", what + " (array length)")
        if element in _SCALAR_DTYPES:
            itemsize = np.dtype(_SCALAR_DTYPES[element]).itemsize
            if count > (self.size - self.pos) // itemsize:
                self.fail(f"truncated: {what} holds {count} elements of "
                          f"{itemsize} bytes, the file has "
                          f"{self.size - self.pos} left")
            array = np.frombuffer(self.buffer, _SCALAR_DTYPES[element],
                                  count, self.pos).copy()
            self.pos += count * itemsize
            return array
        # Strings and arrays take at least 8 bytes (their length) each:
        # a count past that is refused before the list is built.
        if element not in (_STRING, _ARRAY):
            self.fail(f"{what} is an array of unknown type {element}")
        if count > (self.size - self.pos) // 8:
            self.fail(f"truncated: {what} holds {count} elements, more "
                      "than the rest of the file can")
        if element == _STRING:
            return self._strings(count, what)
        return [self.value(_ARRAY, f"{what}[{i}]", depth + 1)
                for i in range(count)]

    def _strings(self, count, what):
        """`count` strings (the vocabularies of tokenizers: 10^5 of them,
        read without a call per field)."""
        buffer, pos, size = self.buffer, self.pos, self.size
        unpack = struct.Struct("<Q").unpack_from
        strings = []
        for index in range(count):
            if size - pos < 8:
                self.pos = pos
                self.need(8, f"{what}[{index}]")
            (length,) = unpack(buffer, pos)
            pos += 8
            if length > size - pos:
                self.pos = pos
                self.need(length, f"{what}[{index}]")
            try:
                strings.append(str(buffer[pos:pos + length], "utf-8"))
            except UnicodeDecodeError:
                self.fail(f"{what}[{index}] is not UTF-8")
            pos += length
        self.pos = pos
        return strings


class GGUFFile:
    """A GGUF file read: `version`, `metadata` (key -> int, float, bool,
    str, a NumPy array for numeric arrays, a list for string arrays),
    `tensors` (name -> TensorInfo, in file order) and `alignment`.
    `tensor(name)` reads one tensor. Keep the object alive while arrays
    it returned are used: they may view its memory map."""

    def __init__(self, path):
        self.path = os.fspath(path)
        try:
            with open(self.path, "rb") as file:
                size = os.fstat(file.fileno()).st_size
                self._map = (mmap.mmap(file.fileno(), 0,
                                       access=mmap.ACCESS_READ)
                             if size else b"")
        except OSError as error:
            raise RLXError(f"cannot read '{self.path}': "
                           f"{error.strerror}") from None
        self._parse(_Reader(self._map, self.path))

    def _parse(self, r):
        r.need(4, "the magic")
        if bytes(r.buffer[0:4]) != _MAGIC:
            r.fail("not a GGUF file (no magic 'GGUF')")
        r.pos = 4
        self.version = r.unpack("<I", "the version")
        if self.version not in (2, 3):
            r.fail(f"GGUF version {self.version} is not read (2 and 3 "
                   "are)")
        tensor_count = r.unpack("<Q", "the tensor count")
        kv_count = r.unpack("<Q", "the metadata count")
        # Each key/value pair takes at least 12 bytes and each tensor info
        # at least 28: larger counts cannot fit in the file.
        if kv_count > r.size // 12:
            r.fail(f"{kv_count} metadata entries cannot fit in "
                   f"{r.size} bytes")
        if tensor_count > r.size // 28:
            r.fail(f"{tensor_count} tensors cannot fit in {r.size} bytes")
        self.metadata = {}
        for index in range(kv_count):
            key = r.string(f"metadata key {index}")
            kind = r.unpack("<I", f"the type of '{key}'")
            if key in self.metadata:
                r.fail(f"metadata key '{key}' appears twice")
            self.metadata[key] = r.value(kind, f"metadata '{key}'")
        alignment = self.metadata.get("general.alignment",
                                      _DEFAULT_ALIGNMENT)
        if (not isinstance(alignment, int) or isinstance(alignment, bool)
                or alignment <= 0 or alignment & (alignment - 1)):
            r.fail(f"general.alignment {alignment!r} is not a power of 2")
        self.alignment = alignment

        infos = []
        for index in range(tensor_count):
            name = r.string(f"tensor name {index}")
            rank = r.unpack("<I", f"the rank of tensor '{name}'")
            if rank > _MAX_DIMS:
                r.fail(f"tensor '{name}' has {rank} dims (at most "
                       f"{_MAX_DIMS})")
            dims = [r.unpack("<Q", f"a dim of tensor '{name}'")
                    for _ in range(rank)]
            type_id = r.unpack("<I", f"the type of tensor '{name}'")
            offset = r.unpack("<Q", f"the offset of tensor '{name}'")
            infos.append((name, dims, type_id, offset))
        data_start = -(-r.pos // alignment) * alignment

        self.tensors = {}
        for name, dims, type_id, offset in infos:
            if name in self.tensors:
                r.fail(f"tensor '{name}' appears twice")
            kind = TYPES.get(type_id)
            if kind is None:
                r.fail(f"tensor '{name}' has GGML type {type_id}, which "
                       "rlx does not know")
            elements = 1
            for d in dims:
                # Past the file's size in elements of one bit the product
                # is hostile; stopping there keeps it small.
                if d == 0 or elements > r.size * 8:
                    break
                elements *= d
            if any(d == 0 for d in dims):
                elements = 0
            if dims and dims[0] % kind.block_elements:
                r.fail(f"tensor '{name}' ({kind.name}) has rows of "
                       f"{dims[0]} elements, not a multiple of its block "
                       f"of {kind.block_elements}")
            nbytes = elements // kind.block_elements * kind.block_bytes
            if offset % alignment:
                r.fail(f"tensor '{name}' is at offset {offset}, not a "
                       f"multiple of the alignment {alignment}")
            if offset > r.size or nbytes > r.size - data_start - offset:
                r.fail(f"tensor '{name}' ({kind.name}, dims {dims}) needs "
                       f"{nbytes} bytes at offset {offset} of the data; "
                       "the file ends before")
            self.tensors[name] = TensorInfo(
                name, tuple(reversed(dims)), kind, data_start + offset,
                nbytes)

    def tensor(self, name):
        """Tensor `name`: a NumPy array for the plain types (f16 and bf16
        widened to float32), a QuantizedTensor for the block-quantized
        ones. Raises RLXError if the file has no such tensor."""
        info = self.tensors.get(name)
        if info is None:
            raise RLXError(f"'{self.path}' has no tensor '{name}'")
        raw = np.frombuffer(self._map, np.uint8, info.nbytes, info.offset)
        kind = info.type
        if kind.quantized:
            return QuantizedTensor(kind, info.shape, raw)
        array = raw.view(_PLAIN[kind.name]).reshape(info.shape)
        if kind.name == "bf16":
            return bf16_to_f32(array)
        if kind.name == "f16":
            return array.astype(np.float32)
        return array

    def float_tensor(self, name):
        """Tensor `name` as float32, a quantized one dequantized
        (`dequantize`)."""
        value = self.tensor(name)
        if isinstance(value, QuantizedTensor):
            return dequantize(value, name)
        return np.asarray(value, np.float32)


def read_gguf(path):
    """The GGUFFile of `path`: metadata and tensor infos read and checked,
    tensors read on demand."""
    return GGUFFile(path)


# Writing.

def _value_bytes(value, key):
    """(type id, encoded bytes) of a metadata value. Python ints are
    written as i32 when they fit (u64 past that), floats as f32, NumPy
    scalars and arrays as their dtype; a (type name, value) pair forces a
    type: ("u32", 5), ("f64", 0.1)."""
    names = {"u8": _UINT8, "i8": _INT8, "u16": _UINT16, "i16": _INT16,
             "u32": _UINT32, "i32": _INT32, "f32": _FLOAT32,
             "bool": _BOOL, "u64": _UINT64, "i64": _INT64, "f64": _FLOAT64}
    if isinstance(value, tuple) and len(value) == 2 and value[0] in names:
        kind = names[value[0]]
        return kind, struct.pack(_SCALARS[kind], value[1])
    if isinstance(value, bool):
        return _BOOL, struct.pack("<?", value)
    if isinstance(value, (int, np.integer)) and not isinstance(
            value, np.ndarray):
        value = int(value)
        if -2**31 <= value < 2**31:
            return _INT32, struct.pack("<i", value)
        return _UINT64, struct.pack("<Q", value)
    if isinstance(value, (float, np.floating)):
        return _FLOAT32, struct.pack("<f", float(value))
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _STRING, struct.pack("<Q", len(raw)) + raw
    if isinstance(value, np.ndarray):
        for kind, dtype in _SCALAR_DTYPES.items():
            if np.dtype(dtype) == value.dtype.newbyteorder("<"):
                return _ARRAY, (struct.pack("<IQ", kind, value.size)
                                + value.astype(dtype).tobytes())
        raise RLXError(f"metadata '{key}': arrays of {value.dtype} are not "
                       "written")
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value):
            return _ARRAY, struct.pack("<IQ", _STRING, len(value)) + b"".join(
                _value_bytes(v, key)[1] for v in value)
        if all(isinstance(v, (list, tuple, np.ndarray)) for v in value):
            return _ARRAY, struct.pack("<IQ", _ARRAY, len(value)) + b"".join(
                _value_bytes(v, key)[1] for v in value)
        array = np.asarray(value)
        if array.dtype.kind == "f":
            array = array.astype(np.float32)
        elif array.dtype.kind in "iu":
            array = array.astype(np.int32)
        return _value_bytes(array, key)
    raise RLXError(f"metadata '{key}': a {type(value).__name__} is not "
                   "written")


def write_gguf(path, metadata, tensors, alignment=_DEFAULT_ALIGNMENT):
    """Writes a GGUF v3 file: `metadata` (key -> value, see _value_bytes)
    and `tensors` (name -> a NumPy array of a plain type — float32,
    float16, int8..int64, float64 — or a QuantizedTensor), in their
    order. `general.alignment` is written when `alignment` is not the
    default."""
    metadata = dict(metadata)
    if alignment != _DEFAULT_ALIGNMENT:
        metadata["general.alignment"] = ("u32", alignment)
    dtype_names = {np.dtype(v): k for k, v in _PLAIN.items() if k != "bf16"}
    header = [_MAGIC, struct.pack("<IQQ", 3, len(tensors), len(metadata))]
    for key, value in metadata.items():
        kind, raw = _value_bytes(value, key)
        name = key.encode("utf-8")
        header += [struct.pack("<Q", len(name)), name,
                   struct.pack("<I", kind), raw]
    blobs, offset = [], 0
    for name, value in tensors.items():
        if isinstance(value, QuantizedTensor):
            kind, shape = value.type, value.shape
            raw = np.ascontiguousarray(value.data, np.uint8).tobytes()
        else:
            array = np.asarray(value)
            kind = TYPES_BY_NAME.get(dtype_names.get(
                array.dtype.newbyteorder("<")))
            if kind is None:
                raise RLXError(f"tensor '{name}': {array.dtype} has no GGML "
                               "type")
            shape = array.shape
            raw = np.ascontiguousarray(array, _PLAIN[kind.name]).tobytes()
        encoded = name.encode("utf-8")
        header += [struct.pack("<Q", len(encoded)), encoded,
                   struct.pack("<I", len(shape)),
                   struct.pack(f"<{len(shape)}Q", *reversed(shape)),
                   struct.pack("<IQ", kind.id, offset)]
        padding = -len(raw) % alignment
        blobs.append(raw + b"\0" * padding)
        offset += len(raw) + padding
    head = b"".join(header)
    head += b"\0" * (-len(head) % alignment)

    def write(file):
        file.write(head)
        for blob in blobs:
            file.write(blob)
    write_atomically(path, write)


# Block formats in NumPy (docs/quantization.md#gguf-block-formats).

def _f16(raw):
    """float32 of little-endian f16 fields: [..., 2] uint8."""
    return np.ascontiguousarray(raw).view("<f2")[..., 0].astype(np.float32)


def _blocks(tensor):
    """The packed bytes as [rows, blocks per row, block bytes]."""
    kind = tensor.type
    return tensor.data.reshape(tensor.rows, -1, kind.block_bytes)


def _nibbles(qs):
    """q4_0-style nibbles of [..., 16] bytes: [..., 32], the low nibbles
    (elements 0..15) then the high ones (16..31)."""
    return np.concatenate([qs & 15, qs >> 4], axis=-1)


def _k_scales(s):
    """The 8 6-bit scales and mins of a q4_k/q5_k block's 12 bytes."""
    s = s.astype(np.uint8)
    sc = np.empty(s.shape[:-1] + (8,), np.uint8)
    mn = np.empty_like(sc)
    sc[..., :4] = s[..., 0:4] & 63
    mn[..., :4] = s[..., 4:8] & 63
    sc[..., 4:] = (s[..., 8:12] & 15) | ((s[..., 0:4] >> 6) << 4)
    mn[..., 4:] = (s[..., 8:12] >> 4) | ((s[..., 4:8] >> 6) << 4)
    return sc.astype(np.float32), mn.astype(np.float32)


def _decode_q4_0(b):
    d = _f16(b[..., 0:2])
    q = _nibbles(b[..., 2:18]).astype(np.float32) - 8
    return q * d[..., None]


def _decode_q4_1(b):
    d, m = _f16(b[..., 0:2]), _f16(b[..., 2:4])
    q = _nibbles(b[..., 4:20]).astype(np.float32)
    return q * d[..., None] + m[..., None]


def _fifth_bits(qh):
    """Bit j of the u32 `qh` (bytes [..., 4]) for j in 0..31: [..., 32]."""
    bits = np.ascontiguousarray(qh).view("<u4")[..., 0]
    return ((bits[..., None] >> np.arange(32, dtype=np.uint32)) & 1) \
        .astype(np.uint8)


def _decode_q5_0(b):
    d = _f16(b[..., 0:2])
    q = _nibbles(b[..., 6:22]) | (_fifth_bits(b[..., 2:6]) << 4)
    return (q.astype(np.float32) - 16) * d[..., None]


def _decode_q5_1(b):
    d, m = _f16(b[..., 0:2]), _f16(b[..., 2:4])
    q = _nibbles(b[..., 8:24]) | (_fifth_bits(b[..., 4:8]) << 4)
    return q.astype(np.float32) * d[..., None] + m[..., None]


def _decode_q8_0(b):
    d = _f16(b[..., 0:2])
    q = np.ascontiguousarray(b[..., 2:34]).view(np.int8).astype(np.float32)
    return q * d[..., None]


def _k_quant_nibbles(qs, qh=None):
    """q4_k/q5_k values [..., 256]: element 64 g + 32 u + l is nibble u of
    qs[32 g + l] (plus, for q5_k, bit 2 g + u of qh[l] as bit 4)."""
    qs = qs.reshape(qs.shape[:-1] + (4, 1, 32))
    shifts = np.array([0, 4], np.uint8).reshape(1, 2, 1)
    q = (qs >> shifts) & 15                      # [..., g, u, l]
    if qh is not None:
        bit = (2 * np.arange(4)[:, None] + np.arange(2)[None, :]) \
            .astype(np.uint8)[..., None]           # [g, u, 1]
        q = q | (((qh[..., None, None, :] >> bit) & 1) << 4)
    return q.reshape(q.shape[:-3] + (256,)).astype(np.float32)


def _decode_k4_5(b, q):
    d, dmin = _f16(b[..., 0:2]), _f16(b[..., 2:4])
    sc, mn = _k_scales(b[..., 4:16])
    # Sub-block i = j / 32 of 8.
    scale = np.repeat(d[..., None] * sc, 32, axis=-1)
    shift = np.repeat(dmin[..., None] * mn, 32, axis=-1)
    return scale * q - shift


def _decode_q4_k(b):
    return _decode_k4_5(b, _k_quant_nibbles(b[..., 16:144]))


def _decode_q5_k(b):
    return _decode_k4_5(b, _k_quant_nibbles(b[..., 48:176], b[..., 16:48]))


def _decode_q6_k(b):
    ql, qh = b[..., 0:128], b[..., 128:192]
    sc = np.ascontiguousarray(b[..., 192:208]).view(np.int8) \
        .astype(np.float32)
    d = _f16(b[..., 208:210])
    # Element 128 h + 32 c + l.
    h = np.arange(2)[:, None, None]
    c = np.arange(4)[None, :, None]
    lane = np.arange(32)[None, None, :]
    low = (ql[..., 64 * h + lane + 32 * (c % 2)] >> (4 * (c // 2))
           .astype(np.uint8)) & 15
    high = (qh[..., 32 * h + lane] >> (2 * c).astype(np.uint8)) & 3
    q = (low | (high << 4)).astype(np.float32) - 32
    scale = sc[..., 8 * h + lane // 16 + 2 * c]
    w = (d[..., None, None, None] * scale) * q
    return w.reshape(w.shape[:-3] + (256,))


_DECODERS = {"q4_0": _decode_q4_0, "q4_1": _decode_q4_1,
             "q5_0": _decode_q5_0, "q5_1": _decode_q5_1,
             "q8_0": _decode_q8_0, "q4_k": _decode_q4_k,
             "q5_k": _decode_q5_k, "q6_k": _decode_q6_k}
DEQUANTIZED_TYPES = tuple(_DECODERS)


def dequantize(tensor, name="tensor"):
    """float32 values of a QuantizedTensor, of its shape: the formulas of
    docs/quantization.md, each step one f32 operation, as the CPU lowering
    decodes. Raises RLXError, naming `name`, for a type not decoded here
    (DEQUANTIZED_TYPES)."""
    decoder = _DECODERS.get(tensor.type.name)
    if decoder is None:
        raise RLXError(f"tensor '{name}' is {tensor.type.name}, which rlx "
                       "does not dequantize in NumPy (it does "
                       f"{', '.join(DEQUANTIZED_TYPES)})")
    return decoder(_blocks(tensor)).reshape(tensor.shape) \
        .astype(np.float32, copy=False)


def quantize(array, type_name):
    """A QuantizedTensor of float `array` (rows along its last dim) in
    q8_0 or q4_0, as ggml's reference quantizers (quantize_row_q8_0_ref,
    quantize_row_q4_0_ref) compute them."""
    x = np.asarray(array, np.float32)
    kind = TYPES_BY_NAME.get(type_name)
    if type_name not in ("q8_0", "q4_0"):
        raise RLXError(f"quantize writes q8_0 and q4_0, not {type_name}")
    if x.ndim == 0 or x.shape[-1] % 32:
        raise RLXError(f"rows of {x.shape[-1:]} elements are not whole "
                       "blocks of 32")
    blocks = x.reshape(-1, 32)
    if type_name == "q8_0":
        amax = np.abs(blocks).max(axis=1)
        d = amax / 127
        inverse = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
        scaled = blocks * inverse[:, None]
        # roundf: halves away from zero.
        q = (np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)).astype(np.int8)
        packed = np.concatenate(
            [d.astype("<f2")[:, None].view(np.uint8), q.view(np.uint8)], 1)
    else:
        # The signed value of the largest magnitude maps to -8.
        index = np.abs(blocks).argmax(axis=1)
        peak = blocks[np.arange(len(blocks)), index]
        d = peak / -8
        inverse = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
        shifted = blocks * inverse[:, None] + np.float32(8.5)
        q = np.minimum(15, shifted.astype(np.int8)).astype(np.uint8)
        qs = q[:, :16] | (q[:, 16:] << 4)
        packed = np.concatenate(
            [d.astype("<f2")[:, None].view(np.uint8), qs], 1)
    return QuantizedTensor(kind, x.shape, packed.reshape(-1).copy())
