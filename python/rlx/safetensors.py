# Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
# Exceptions. See the LICENSE file for license information.
"""Reading and writing .safetensors files with NumPy.

The format: an 8-byte little-endian header size, a JSON header mapping each
tensor name to its dtype, shape and byte range, then the data. bf16 has no
NumPy dtype: it is read into float32 and written from float32 (rounded to
nearest even) when asked for with `bf16=[names]`.
"""

import errno
import json
import os
import struct
import tempfile
import threading

import numpy as np

from ._capi import RLXError

_DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16,
    "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8,
    "U8": np.uint8, "U32": np.uint32, "BOOL": np.bool_, "C64": np.complex64,
}
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}


def bf16_to_f32(bits):
    """float32 values of bf16 bit patterns (a uint16 array)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values):
    """bf16 bit patterns (uint16) of float32 values, rounded to nearest even;
    NaN stays NaN."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    rounded = ((bits + rounding) >> 16).astype(np.uint16)
    nan = np.isnan(values)
    return np.where(nan, np.uint16(0x7FC0), rounded)


def read_safetensors(path):
    """Every tensor of the file, by name, as NumPy arrays (bf16 as
    float32)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise RLXError(f"cannot read '{path}': {error.strerror}") from None
    if len(data) < 8:
        raise RLXError(f"'{path}' is not a .safetensors file (too short)")
    (size,) = struct.unpack("<Q", data[:8])
    if 8 + size > len(data):
        raise RLXError(f"'{path}': header of {size} bytes is truncated")
    try:
        header = json.loads(data[8:8 + size])
    except ValueError as error:
        raise RLXError(f"'{path}': bad JSON header: {error}") from None
    body = memoryview(data)[8 + size:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = entry["dtype"]
        begin, end = entry["data_offsets"]
        shape = tuple(entry["shape"])
        if end > len(body) or begin > end:
            raise RLXError(f"'{path}': tensor '{name}' lies past the data")
        raw = body[begin:end]
        if dtype == "BF16":
            array = bf16_to_f32(np.frombuffer(raw, dtype="<u2"))
        elif dtype in _DTYPES:
            array = np.frombuffer(raw, dtype=np.dtype(_DTYPES[dtype])
                                  .newbyteorder("<"))
        else:
            raise RLXError(f"'{path}': tensor '{name}' has dtype {dtype}, "
                           "which rlx does not read")
        count = int(np.prod(shape, dtype=np.int64))
        if array.size != count:
            raise RLXError(f"'{path}': tensor '{name}' of shape {list(shape)} "
                           f"has {array.size} elements")
        tensors[name] = array.reshape(shape).copy()
    return tensors


def _umask():
    """The process's umask, read without setting it (os.umask cannot read
    it alone, and setting it for a moment races with other threads)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _hook_count(name):
    """The count a test hook's environment variable holds (a decimal
    integer from 0), or -1."""
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() else -1


# The test hook RLX_TEST_FAIL_WRITE_AFTER=N, as the library's
# (docs/security.md): N more writes of this package succeed and the next one
# fails, once, as a full disk would. The library counts its own writes.
_writes_before_failure = _hook_count("RLX_TEST_FAIL_WRITE_AFTER")
_hook_lock = threading.Lock()


def _injected_write_failure():
    global _writes_before_failure
    with _hook_lock:
        left = _writes_before_failure
        if left >= 0:
            _writes_before_failure -= 1
    if left == 0:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC) + " (injected "
                      "by the test hook RLX_TEST_FAIL_WRITE_AFTER)")


def write_atomically(path, write):
    """Calls write(file) on a new temporary file in the folder of `path`,
    flushes it to disk and renames it over `path`: a failure (a full disk)
    raises RLXError naming `path` and leaves it as it was, with no partial
    or temporary file."""
    path = os.fspath(path)
    folder, base = os.path.split(os.path.abspath(path))
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{base}.tmp-", dir=folder)
    except OSError as error:
        raise RLXError(f"cannot write '{path}': {error.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as file:
            write(file)
            file.flush()
            _injected_write_failure()
            os.fchmod(file.fileno(), 0o666 & ~_umask())
            os.fsync(file.fileno())
        os.replace(temp, path)
    except BaseException as error:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise RLXError(f"cannot write '{path}': {error.strerror}") \
                from None
        raise


def write_safetensors(path, tensors, bf16=()):
    """Writes a name -> array mapping; the names in `bf16` are stored as
    bf16 from float32 values. The file is written atomically
    (write_atomically)."""
    header = {}
    chunks = []
    offset = 0
    for name in sorted(tensors):
        array = np.asarray(tensors[name])
        if name in bf16:
            blob = f32_to_bf16(array.astype(np.float32)).astype("<u2")
            dtype = "BF16"
        else:
            if array.dtype not in _NAMES:
                raise RLXError(f"tensor '{name}' has dtype {array.dtype}, "
                               "which .safetensors files of rlx do not hold")
            dtype = _NAMES[array.dtype]
            blob = array.astype(array.dtype.newbyteorder("<"))
        # tobytes() is C order whatever the array's layout; the shape comes
        # from `array`, as ascontiguousarray makes a 0-d array 1-d.
        raw = blob.tobytes(order="C")
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # The data starts 8-byte aligned.

    def write(file):
        file.write(struct.pack("<Q", len(text)))
        file.write(text)
        for raw in chunks:
            file.write(raw)

    write_atomically(path, write)
