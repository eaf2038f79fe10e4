"""Reference dequantizers of the IQ, TQ and FP4 GGUF block formats, written
from their published layouts (ggml's block structs and row dequantizers,
docs/quantization.md), block loop by block loop, independently of the
lowering's per-element form.

The lookup tables are parsed here from lib/Conversion/RLXToLinalg/
GgmlTables.inc, the verbatim copy of ggml's tables that the C++ lowering
compiles (scripts/import-ggml-tables.py writes it).

Every f32 operation is one NumPy float32 operation, in the order of the
published dequantizers, so the values are the exact f32 results.
"""

import os
import re

import numpy as np

F32 = np.float32

TABLES_PATH = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "lib",
    "Conversion", "RLXToLinalg", "GgmlTables.inc")

C_TYPES = {"uint8_t": "<u1", "int8_t": "<i1", "uint32_t": "<u4",
           "uint64_t": "<u8"}


def load_tables(path=TABLES_PATH):
    """name -> (NumPy array of the entries, C element type)."""
    text = open(path).read()
    defines = dict(re.findall(r"^#define (\w+) (\d+)$", text, re.M))
    tables = {}
    for ctype, name, size, body in re.findall(
            r"^GGML_TABLE_BEGIN\((\w+), (\w+), (\w+)\)\n(.*?)^GGML_TABLE_END",
            text, re.S | re.M):
        values = [int(v, 0) for v in re.findall(r"-?(?:0x[0-9a-fA-F]+|\d+)",
                                                body)]
        count = int(defines.get(size, size))
        if len(values) != count:
            raise ValueError(f"{path}: {name} has {len(values)} entries, "
                             f"declared {count}")
        dtype = np.dtype(C_TYPES[ctype])
        if dtype.kind == "u":
            values = [v % (1 << (8 * dtype.itemsize)) for v in values]
        tables[name] = np.array(values, dtype=dtype)
    return tables


TABLES = load_tables()


def grid_bytes(name, signed=False):
    """A grid table as [entries, bytes per entry], the little-endian bytes
    of each entry (the values the dequantizers read through a byte
    pointer)."""
    table = TABLES[name]
    raw = table.view(np.uint8).reshape(table.size, table.itemsize)
    return raw.view(np.int8) if signed else raw


KSIGNS = TABLES["ksigns_iq2xs"].astype(np.int64)
KVALUES_IQ4NL = TABLES["kvalues_iq4nl"].astype(np.int64)
KVALUES_FP4 = TABLES["kvalues_fp4"].astype(np.int64)
IQ2XXS = grid_bytes("iq2xxs_grid")
IQ2XS = grid_bytes("iq2xs_grid")
IQ2S = grid_bytes("iq2s_grid")
IQ3XXS = grid_bytes("iq3xxs_grid")
IQ3S = grid_bytes("iq3s_grid")
IQ1S = grid_bytes("iq1s_grid", signed=True)
IQ1S_DELTA = F32(0.125)

# Elements and bytes per block (ggml's block structs).
BLOCKS = {"gguf_iq4_nl": (32, 18), "gguf_iq4_xs": (256, 136),
          "gguf_iq2_xxs": (256, 66), "gguf_iq2_xs": (256, 74),
          "gguf_iq2_s": (256, 82), "gguf_iq3_xxs": (256, 98),
          "gguf_iq3_s": (256, 110), "gguf_iq1_s": (256, 50),
          "gguf_iq1_m": (256, 56), "gguf_tq1_0": (256, 54),
          "gguf_tq2_0": (256, 66), "gguf_mxfp4": (32, 17),
          "gguf_nvfp4": (64, 36)}

# Byte offsets of the f16 scale `d` (iq1_m spreads it over its scales;
# mxfp4 and nvfp4 have 8-bit scales).
F16_SCALE = {"gguf_iq4_nl": 0, "gguf_iq4_xs": 0, "gguf_iq2_xxs": 0,
             "gguf_iq2_xs": 0, "gguf_iq2_s": 0, "gguf_iq3_xxs": 0,
             "gguf_iq3_s": 0, "gguf_iq1_s": 0, "gguf_tq1_0": 52,
             "gguf_tq2_0": 64}


def f16(b, offset):
    raw = np.ascontiguousarray(b[:, offset:offset + 2])
    return raw.view("<f2").astype(F32).reshape(-1)


def u16(b, offset):
    return b[:, offset].astype(np.int64) | (b[:, offset + 1].astype(
        np.int64) << 8)


def u32(b, offset):
    return u16(b, offset) | (u16(b, offset + 2) << 16)


def f32s(v):
    return np.asarray(v).astype(F32)


def signed(values, sign_byte, bit):
    """values * (sign bit set ? -1 : 1)."""
    return np.where((sign_byte >> bit) & 1, -values, values)


def random_blocks(rng, scheme, count):
    """`count` blocks of random bytes [count, bytes] whose f16 scales are
    finite (an inf/NaN pattern has its lowest exponent bit cleared), with
    mxfp4 scales 2^-32 .. 2^32 so that products stay finite."""
    blocks = rng.integers(0, 256, (count, BLOCKS[scheme][1])).astype(np.uint8)
    if scheme in F16_SCALE:
        bits = rng.integers(0, 1 << 16, count).astype(np.uint16)
        bits[(bits & 0x7C00) == 0x7C00] ^= 0x0400
        offset = F16_SCALE[scheme]
        blocks[:, offset:offset + 2] = bits.view(np.uint8).reshape(count, 2)
    elif scheme == "gguf_iq1_m":
        # d's exponent bit 10 is bit 14 of the scale word at 52 (bit 6 of
        # byte 53).
        sc = [u16(blocks, 48 + 2 * i) for i in range(4)]
        bits = ((sc[0] >> 12) | ((sc[1] >> 8) & 0xF0) |
                ((sc[2] >> 4) & 0xF00) | (sc[3] & 0xF000))
        blocks[(bits & 0x7C00) == 0x7C00, 53] ^= 0x40
    elif scheme == "gguf_mxfp4":
        blocks[:, 0] = rng.integers(96, 161, count)
    return blocks


def dequant(scheme, b):
    """The f32 values of `b` [count, bytes] -> [count, elements]."""
    n = b.shape[0]
    y = np.zeros((n, BLOCKS[scheme][0]), F32)
    half, quarter = F32(0.5), F32(0.25)
    if scheme == "gguf_iq4_nl":
        d = f16(b, 0)[:, None]
        qs = b[:, 2:18]
        y[:, :16] = d * f32s(KVALUES_IQ4NL[qs & 15])
        y[:, 16:] = d * f32s(KVALUES_IQ4NL[qs >> 4])
        return y
    if scheme == "gguf_iq4_xs":
        d = f16(b, 0)
        scales_h = u16(b, 2)
        for ib in range(8):
            ls = (((b[:, 4 + ib // 2].astype(np.int64) >> 4 * (ib % 2)) & 15)
                  | (((scales_h >> 2 * ib) & 3) << 4))
            dl = (d * f32s(ls - 32))[:, None]
            qs = b[:, 8 + 16 * ib:24 + 16 * ib]
            y[:, 32 * ib:32 * ib + 16] = dl * f32s(KVALUES_IQ4NL[qs & 15])
            y[:, 32 * ib + 16:32 * ib + 32] = dl * f32s(KVALUES_IQ4NL[qs >> 4])
        return y
    if scheme == "gguf_iq2_xxs":
        d = f16(b, 0)
        for ib in range(8):
            aux1 = u32(b, 2 + 8 * ib + 4)
            db = (d * (half + f32s(aux1 >> 28))) * quarter
            for l in range(4):
                grid = IQ2XXS[b[:, 2 + 8 * ib + l]]
                signs = KSIGNS[(aux1 >> 7 * l) & 127]
                for j in range(8):
                    y[:, 32 * ib + 8 * l + j] = signed(
                        db * f32s(grid[:, j]), signs, j)
        return y
    if scheme in ("gguf_iq2_xs", "gguf_iq2_s"):
        d = f16(b, 0)
        xs = scheme == "gguf_iq2_xs"
        scales = b[:, 66 if xs else 74:].astype(np.int64)
        for ib in range(8):
            db = [(d * (half + f32s(scales[:, ib] & 15))) * quarter,
                  (d * (half + f32s(scales[:, ib] >> 4))) * quarter]
            for l in range(4):
                if xs:
                    q = u16(b, 2 + 2 * (4 * ib + l))
                    grid, signs = IQ2XS[q & 511], KSIGNS[q >> 9]
                else:
                    qh = b[:, 66 + ib].astype(np.int64)
                    index = b[:, 2 + 4 * ib + l] | ((qh << (8 - 2 * l)) &
                                                    0x300)
                    grid = IQ2S[index]
                    signs = b[:, 2 + 32 + 4 * ib + l].astype(np.int64)
                for j in range(8):
                    y[:, 32 * ib + 8 * l + j] = signed(
                        db[l // 2] * f32s(grid[:, j]), signs, j)
        return y
    if scheme == "gguf_iq3_xxs":
        d = f16(b, 0)
        for ib in range(8):
            aux = u32(b, 2 + 64 + 4 * ib)
            db = (d * (half + f32s(aux >> 28))) * half
            for l in range(4):
                signs = KSIGNS[(aux >> 7 * l) & 127]
                grid1 = IQ3XXS[b[:, 2 + 8 * ib + 2 * l]]
                grid2 = IQ3XXS[b[:, 2 + 8 * ib + 2 * l + 1]]
                for j in range(4):
                    out = 32 * ib + 8 * l
                    y[:, out + j] = signed(db * f32s(grid1[:, j]), signs, j)
                    y[:, out + j + 4] = signed(db * f32s(grid2[:, j]), signs,
                                               j + 4)
        return y
    if scheme == "gguf_iq3_s":
        d = f16(b, 0)
        qs, qh, signs = 2, 66, 74
        out = 0
        for ib32 in range(0, 8, 2):
            sc = b[:, 106 + ib32 // 2].astype(np.int64)
            for db, hi in ((d * f32s(1 + 2 * (sc & 15)), 0),
                           (d * f32s(1 + 2 * (sc >> 4)), 1)):
                h = b[:, qh + hi].astype(np.int64)
                for l in range(4):
                    g1 = IQ3S[b[:, qs + 2 * l] | ((h << (8 - 2 * l)) & 256)]
                    g2 = IQ3S[b[:, qs + 2 * l + 1] | ((h << (7 - 2 * l)) &
                                                      256)]
                    s = b[:, signs + l].astype(np.int64)
                    for j in range(4):
                        y[:, out + j] = signed(db * f32s(g1[:, j]), s, j)
                        y[:, out + j + 4] = signed(db * f32s(g2[:, j]), s,
                                                   j + 4)
                    out += 8
                qs += 8
                signs += 4
            qh += 2
        return y
    if scheme == "gguf_iq1_s":
        d = f16(b, 0)
        for ib in range(8):
            qh = u16(b, 34 + 2 * ib)
            dl = d * f32s(2 * ((qh >> 12) & 7) + 1)
            delta = np.where(qh & 0x8000, -IQ1S_DELTA, IQ1S_DELTA).astype(F32)
            for l in range(4):
                grid = IQ1S[b[:, 2 + 4 * ib + l] | (((qh >> 3 * l) & 7) << 8)]
                for j in range(8):
                    y[:, 32 * ib + 8 * l + j] = dl * (f32s(grid[:, j]) + delta)
        return y
    if scheme == "gguf_iq1_m":
        sc = [u16(b, 48 + 2 * i) for i in range(4)]
        bits = ((sc[0] >> 12) | ((sc[1] >> 8) & 0x00F0) |
                ((sc[2] >> 4) & 0x0F00) | (sc[3] & 0xF000))
        d = bits.astype(np.uint16).view(np.float16).astype(F32)
        for ib in range(8):
            dl1 = d * f32s(2 * ((sc[ib // 2] >> (6 * (ib % 2) + 0)) & 7) + 1)
            dl2 = d * f32s(2 * ((sc[ib // 2] >> (6 * (ib % 2) + 3)) & 7) + 1)
            qs = b[:, 4 * ib:4 * ib + 4].astype(np.int64)
            qh = b[:, 32 + 2 * ib:34 + 2 * ib].astype(np.int64)
            idx = [qs[:, 0] | ((qh[:, 0] << 8) & 0x700),
                   qs[:, 1] | ((qh[:, 0] << 4) & 0x700),
                   qs[:, 2] | ((qh[:, 1] << 8) & 0x700),
                   qs[:, 3] | ((qh[:, 1] << 4) & 0x700)]
            delta = [np.where(qh[:, 0] & 0x08, -IQ1S_DELTA, IQ1S_DELTA),
                     np.where(qh[:, 0] & 0x80, -IQ1S_DELTA, IQ1S_DELTA),
                     np.where(qh[:, 1] & 0x08, -IQ1S_DELTA, IQ1S_DELTA),
                     np.where(qh[:, 1] & 0x80, -IQ1S_DELTA, IQ1S_DELTA)]
            for l in range(4):
                dl = dl1 if l < 2 else dl2
                grid = IQ1S[idx[l]]
                for j in range(8):
                    y[:, 32 * ib + 8 * l + j] = dl * (
                        f32s(grid[:, j]) + delta[l].astype(F32))
        return y
    if scheme == "gguf_tq1_0":
        d = f16(b, 52)[:, None]
        pow3 = [1, 3, 9, 27, 81, 243]
        out = []
        for n_ in range(5):  # qs bytes 0..31
            out.append(b[:, 0:32].astype(np.int64) * pow3[n_])
        for n_ in range(5):  # qs bytes 32..47
            out.append(b[:, 32:48].astype(np.int64) * pow3[n_])
        for n_ in range(4):  # qh bytes 48..51
            out.append(b[:, 48:52].astype(np.int64) * pow3[n_])
        q = np.concatenate(out, axis=1) & 255
        xi = (q * 3) >> 8
        return f32s(xi - 1) * d
    if scheme == "gguf_tq2_0":
        d = f16(b, 64)[:, None]
        out = []
        for j in (0, 32):
            for l in range(4):
                out.append((b[:, j:j + 32].astype(np.int64) >> (2 * l)) & 3)
        return f32s(np.concatenate(out, axis=1) - 1) * d
    if scheme == "gguf_mxfp4":
        e = b[:, 0].astype(np.int64)
        bits = np.where(e < 2, 0x00200000 << e, (e - 1) << 23)
        d = bits.astype(np.uint32).view(F32)[:, None]
        qs = b[:, 1:17]
        with np.errstate(over="ignore"):  # e = 255: 12 * 2^127 is inf
            y[:, :16] = f32s(KVALUES_FP4[qs & 15]) * d
            y[:, 16:] = f32s(KVALUES_FP4[qs >> 4]) * d
        return y
    if scheme == "gguf_nvfp4":
        for s in range(4):
            x = b[:, s].astype(np.int64)
            exp, man = (x >> 3) & 15, x & 7
            raw = np.where(exp == 0, man * 2.0 ** -9,
                           (1 + man / 8.0) * 2.0 ** (exp - 7)).astype(F32)
            d = np.where((x == 0) | (x == 0x7F), F32(0), raw * half)
            d = d.astype(F32)[:, None]
            qs = b[:, 4 + 8 * s:12 + 8 * s]
            y[:, 16 * s:16 * s + 8] = f32s(KVALUES_FP4[qs & 15]) * d
            y[:, 16 * s + 8:16 * s + 16] = f32s(KVALUES_FP4[qs >> 4]) * d
        return y
    raise ValueError(scheme)
