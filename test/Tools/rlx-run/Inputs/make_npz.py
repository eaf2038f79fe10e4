"""Writes good and malformed .npz archives for io-npz.test: archives from
np.savez, and zips built here byte by byte (stored entries, optional Zip64
end records) with one thing wrong each."""
import io
import struct
import sys
import zlib

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng()

# dtypes.mlir's inputs, and what it returns for them.
a = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
b = rng.integers(-50, 50, 5).astype(np.int32)
c = np.array(rng.uniform(-1, 1))
empty = np.zeros((0, 4), np.float32)
np.savez(f"{out}/in.npz", a=a, b=b, c=c, empty=empty)
np.savez(f"{out}/expected.npz", output_0=a + a, output_1=b * b, output_2=c,
         output_3=b * b > b, output_4=empty)
np.savez(f"{out}/in_extra.npz", a=a, b=b, c=c, empty=empty, z=a)
np.savez(f"{out}/in_partial.npz", a=a, b=b)
np.savez(f"{out}/c_wrong_dtype.npz", c=np.float32(1))
np.savez_compressed(f"{out}/compressed.npz", a=a, b=b, c=c, empty=empty)

# graph.mlir's x and w, for NAME=FILE.npz:ARRAY and --params.
x = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
w = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
np.savez(f"{out}/xw.npz", x=x, w=w, unused=np.ones(3))
np.save(f"{out}/graph_expected.npy", np.maximum(x @ w, 0))


def npy(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def local(name, data, method=0, crc=None):
    name = name.encode()
    crc = zlib.crc32(data) if crc is None else crc
    return struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, method, 0, 0x21, crc,
                       len(data), len(data), len(name), 0) + name


def central(name, data, offset, method=0, crc=None, size=None, extra=b""):
    name = name.encode()
    crc = zlib.crc32(data) if crc is None else crc
    size = len(data) if size is None else size
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, method, 0,
                       0x21, crc, size, size, len(name), len(extra), 0, 0, 0,
                       0, offset) + name + extra


def end(count, directory_size, directory_offset):
    return struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, count, count,
                       directory_size, directory_offset, 0)


def archive(entries, zip64=False, end_record=None):
    """entries: (name, data) pairs, stored one after the other; end_record
    (count, directory size, directory offset) makes the end record."""
    body, directory = b"", b""
    for name, data in entries:
        directory += central(name, data, len(body))
        body += local(name, data) + data
    blob = body + directory
    if zip64:
        record = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0,
                             len(entries), len(entries), len(directory),
                             len(body))
        locator = struct.pack("<IIQI", 0x07064b50, 0, len(blob), 1)
        return blob + record + locator + end(0xffff, 0xffffffff, 0xffffffff)
    return blob + (end_record or end)(len(entries), len(directory), len(body))


def write(name, blob):
    with open(f"{out}/{name}", "wb") as file:
        file.write(blob)


good = [("x.npy", npy(x)), ("w.npy", npy(w))]
write("zip64.npz", archive(good, zip64=True))
whole = archive(good)
write("truncated.npz", whole[:-7])
write("truncated_data.npz", whole[:40])
write("not_zip.npz", b"hello, world, this is not a zip archive")
write("empty.npz", b"")
corrupt = bytearray(whole)
corrupt[len(local("x.npy", good[0][1])) + 130] ^= 0xff  # a byte of x's data
write("bad_crc.npz", bytes(corrupt))
write("not_array.npz", archive([("readme.txt", b"hi")]))
write("bad_npy.npz", archive([("x.npy", b"\x93NUMPY but not really")]))
write("dup.npz", archive([("x.npy", npy(x)), ("x.npy", npy(x))]))
write("bad_dir_offset.npz", archive(
    good, end_record=lambda n, size, offset: end(n, size, 1 << 31)))
write("too_many.npz", archive(
    good, end_record=lambda n, size, offset: end(60000, size, offset)))
write("zip64_missing.npz", archive(
    good, end_record=lambda n, size, offset: end(n, size, 0xffffffff)))

# Two entries sharing bytes: a's local header and data lie inside b's data,
# so one file would yield arrays larger than itself.
a_entry = local("a.npy", npy(x)) + npy(x)
b_header = local("b.npy", a_entry)
body = b_header + a_entry
directory = (central("b.npy", a_entry, 0) +
             central("a.npy", npy(x), len(b_header)))
write("overlap.npz", body + directory + end(2, len(directory), len(body)))

# A central entry whose size runs past the central directory's start.
data = npy(x)
body = local("x.npy", data) + data
directory = central("x.npy", data, 0, size=len(data) + 1000)
write("overrun.npz", body + directory + end(1, len(directory), len(body)))

# The local header names another entry.
body = local("y.npy", data) + data
directory = central("x.npy", data, 0)
write("name_mismatch.npz", body + directory + end(1, len(directory),
                                                  len(body)))
