//===- DequantToLinalg.cpp - quantized matmuls and int8 convolution -------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The weight formats of rlx.dequant_matmul, rlx.dequant_grouped_matmul and
// rlx.dequant_moe_weights are decoded in IR by one function,
// decodeWeight(k, n), which reads the packed bytes with tensor.extract and
// reconstructs W[k, n] with integer and float arithmetic. It is the single
// home of each format's math (docs/quantization.md documents the layouts);
// the IR it emits does not depend on the tensor sizes, so compile time does
// not either. The float operations follow the documented evaluation order
// (e.g. `(d * scale) * q - dmin * min` for the K-quants), so a decoded value
// is bit-identical to a reference dequantizer that follows the document.
// The IQ and FP4 formats decode through ggml's lookup tables
// (GgmlTables.inc, copied from ggml by scripts/import-ggml-tables.py),
// which become constant byte tensors beside the op.
//
// rlx.dequant_matmul decodes the whole weight into an f32 tensor with one
// parallel generic and multiplies with rlx.matmul (so the product goes
// through the same BLAS path as any f32 matmul). GGUF bytes hold W's
// columns, so they are decoded as W^T [N, K], reading and writing along
// memory, and the GEMM reads that transposed. On the CPU the formats of the
// runtime's per-tile kernel never get here: rlx-cpu-lower-quant-matmul
// calls that kernel instead (lib/Runtime/CPU/QuantGemm.cpp).
//
// rlx.dequant_grouped_matmul decodes inside its (m, k, n) contraction, like
// rlx.grouped_matmul reads its weight: an expert stack is E times larger
// than one weight, and only the experts the rows use are read.
//
// rlx.q_conv2d centers its operands (x - x_zp, w - w_zp) in f64 and
// convolves them with rlx.conv: every product and partial sum is an integer
// below 2^53 in magnitude, so the f64 sums are exact, and truncating them to
// i32 gives the wrapping i32 accumulator the op specifies. Padding
// contributes zero, as a padded x equal to x_zp would.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "QuantLowering.h"
#include "rlx/Conversion/RLXToLinalg/RLXToLinalg.h"
#include "rlx/Dialect/RLX/IR/GgufBlock.h"
#include "rlx/Dialect/RLX/IR/RLXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>
#include <type_traits>

using namespace mlir;
using namespace mlir::rlx;

namespace {

namespace ggml {
#define GGML_TABLE_BEGIN(type, name, size) const type name[size] = {
#define GGML_TABLE_END()                                                       \
  }                                                                            \
  ;
#include "GgmlTables.inc"
#undef GGML_TABLE_BEGIN
#undef GGML_TABLE_END
} // namespace ggml

/// Scalar arithmetic inside a generic body: index arithmetic for byte
/// offsets, i32 for the bit fields and f32 for the reconstructed values.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value f32(double v) { return floatConstant(b, loc, b.getF32Type(), v); }

  // Index arithmetic (offsets and positions are non-negative).
  Value add(Value x, int64_t y) { return add(x, index(y)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, index(y));
  }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, int64_t y) {
    return arith::DivUIOp::create(b, loc, x, index(y));
  }
  Value rem(Value x, int64_t y) {
    return arith::RemUIOp::create(b, loc, x, index(y));
  }
  /// An index value as an i32 shift amount or bit field.
  Value toI32(Value x) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x);
  }

  // i32 bit fields.
  Value bits(Value x, Value shift, int64_t width) {
    Value shifted = arith::ShRUIOp::create(b, loc, x, shift);
    return arith::AndIOp::create(b, loc, shifted, i32((1 << width) - 1));
  }
  Value bits(Value x, int64_t shift, int64_t width) {
    return bits(x, i32(shift), width);
  }
  Value shl(Value x, int64_t shift) {
    return arith::ShLIOp::create(b, loc, x, i32(shift));
  }
  Value ori(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value subi(Value x, int64_t y) {
    return arith::SubIOp::create(b, loc, x, i32(y));
  }
  /// Index comparison `x < y`.
  Value below(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 index(y));
  }
  Value eq(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, i32(y));
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }

  // f32 arithmetic.
  Value toF32(Value i) {
    return arith::SIToFPOp::create(b, loc, b.getF32Type(), i);
  }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fsub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }

  /// Element `idx` of a tensor.
  Value extract(Value tensor, ValueRange idx) {
    return tensor::ExtractOp::create(b, loc, tensor, idx);
  }
  /// An i8 zero-extended (unsigned byte) or sign-extended to i32.
  Value widen(Value byte, bool isSigned = false) {
    if (isSigned)
      return arith::ExtSIOp::create(b, loc, b.getI32Type(), byte);
    return arith::ExtUIOp::create(b, loc, b.getI32Type(), byte);
  }
  /// The little-endian f16 at bytes `offset`, `offset + 1`, as f32.
  Value f16At(Value bytes, Value offset) {
    Value lo = widen(extract(bytes, offset));
    Value hi = widen(extract(bytes, add(offset, 1)));
    Value word =
        arith::TruncIOp::create(b, loc, b.getI16Type(), ori(lo, shl(hi, 8)));
    Value half = arith::BitcastOp::create(b, loc, b.getF16Type(), word);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), half);
  }
  /// The f16 whose bits are the low 16 of the i32 `bits`, as f32.
  Value f16FromBits(Value bits) {
    Value word = arith::TruncIOp::create(b, loc, b.getI16Type(), bits);
    Value half = arith::BitcastOp::create(b, loc, b.getF16Type(), word);
    return arith::ExtFOp::create(b, loc, b.getF32Type(), half);
  }
  /// An i32 value (non-negative) as an index.
  Value toIndex(Value x) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), x);
  }
  Value andi(Value x, int64_t y) {
    return arith::AndIOp::create(b, loc, x, i32(y));
  }
  Value muli(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, i32(y));
  }
  Value shli(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shri(Value x, int64_t y) {
    return arith::ShRUIOp::create(b, loc, x, i32(y));
  }
  Value ult(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, i32(y));
  }
  /// `-x` where the i1 `negative` is set, else `x`.
  Value negateIf(Value negative, Value x) {
    return select(negative, arith::NegFOp::create(b, loc, x), x);
  }
  /// The little-endian f32 at bytes `offset` .. `offset + 3`.
  Value f32At(Value bytes, Value offset) {
    Value word = widen(extract(bytes, offset));
    for (int64_t i = 1; i < 4; ++i)
      word = ori(word, shl(widen(extract(bytes, add(offset, i))), 8 * i));
    return arith::BitcastOp::create(b, loc, b.getF32Type(), word);
  }

  /// `2^e` for an i32 `e` in the f32 normal range, built from its bits.
  Value pow2(Value e) {
    Value biased = shl(addi(e, i32(127)), 23);
    return arith::BitcastOp::create(b, loc, b.getF32Type(), biased);
  }

  /// A sign-magnitude minifloat with `expBits` exponent and `manBits`
  /// mantissa bits below its sign bit, bias `bias`, decoded as a finite
  /// value (subnormals included; callers select their special encodings).
  /// The magnitude is `mant * 2^(exp - bias - manBits)` with the implicit
  /// bit in `mant` unless `exp` is 0, which is exact in f32.
  Value minifloat(Value code, int64_t expBits, int64_t manBits, int64_t bias) {
    Value exp = bits(code, manBits, expBits);
    Value man = bits(code, 0, manBits);
    Value subnormal = eq(exp, 0);
    Value mant = select(subnormal, man, ori(man, i32(1 << manBits)));
    Value scaleExp = select(subnormal, i32(1), exp);
    Value magnitude = fmul(
        toF32(mant),
        pow2(arith::SubIOp::create(b, loc, scaleExp, i32(bias + manBits))));
    Value negative = eq(bits(code, expBits + manBits, 1), 1);
    return select(negative, arith::NegFOp::create(b, loc, magnitude),
                  magnitude);
  }

  /// An FP8 E4M3FN byte (no infinities; S.1111.111 is NaN).
  Value e4m3(Value code) {
    Value nan = eq(bits(code, 0, 7), 0x7f);
    return select(nan, f32(std::nan("")), minifloat(code, 4, 3, 7));
  }
  /// An FP8 E5M2 byte (IEEE-style: exponent 31 is infinity or NaN).
  Value e5m2(Value code) {
    Value special = eq(bits(code, 2, 5), 31);
    Value inf = select(eq(bits(code, 7, 1), 1),
                       f32(-std::numeric_limits<double>::infinity()),
                       f32(std::numeric_limits<double>::infinity()));
    Value nonFinite = select(eq(bits(code, 0, 2), 0), inf, f32(std::nan("")));
    return select(special, nonFinite, minifloat(code, 5, 2, 15));
  }
  /// An FP4 E2M1 nibble (every code is finite).
  Value e2m1(Value code) { return minifloat(code, 2, 1, 1); }

  OpBuilder &builder() { return b; }
  Location location() { return loc; }

private:
  OpBuilder &b;
  Location loc;
};

/// A quantized weight W [K, N] (or a stack of them) as the converted
/// operands of a dequantizing op.
struct PackedWeight {
  QuantScheme scheme;
  /// i8 [K, N] (int8 schemes), i8 [K, N/2] (nibbles), FP8 [K, N], or the
  /// packed GGUF bytes.
  Value wq;
  Value scale = {}, zeroPoint = {}, globalScale = {};
  /// The scale block of the int8/int4 block schemes along K.
  int64_t blockSize = 0;
  /// GGUF: the bytes of one row of K elements (index).
  Value rowBytes = {};
  /// The IQ and FP4 GGUF formats: ggml's lookup tables as constant i8
  /// tensors of their little-endian bytes (see lookupTables).
  Value grid = {}, signs = {}, values = {};
};

/// The bytes of a ggml table, little-endian per entry, as a constant.
template <typename T, size_t N>
Value byteTable(OpBuilder &b, Location loc, const T (&table)[N]) {
  SmallVector<int8_t> bytes;
  bytes.reserve(N * sizeof(T));
  for (T entry : table) {
    auto bits =
        static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(entry));
    for (size_t i = 0; i < sizeof(T); ++i)
      bytes.push_back(static_cast<int8_t>(bits >> (8 * i)));
  }
  auto type = RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                                    b.getI8Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<int8_t>(bytes)));
}

/// Sets the lookup tables `w.scheme` decodes through (docs/quantization.md
/// names them per format), as constants at the builder's point.
void addLookupTables(OpBuilder &b, Location loc, PackedWeight &w) {
  switch (w.scheme) {
  case QuantScheme::GgufIQ2XXS:
    w.grid = byteTable(b, loc, ggml::iq2xxs_grid);
    w.signs = byteTable(b, loc, ggml::ksigns_iq2xs);
    break;
  case QuantScheme::GgufIQ2XS:
    w.grid = byteTable(b, loc, ggml::iq2xs_grid);
    w.signs = byteTable(b, loc, ggml::ksigns_iq2xs);
    break;
  case QuantScheme::GgufIQ2S:
    w.grid = byteTable(b, loc, ggml::iq2s_grid);
    break;
  case QuantScheme::GgufIQ3XXS:
    w.grid = byteTable(b, loc, ggml::iq3xxs_grid);
    w.signs = byteTable(b, loc, ggml::ksigns_iq2xs);
    break;
  case QuantScheme::GgufIQ3S:
    w.grid = byteTable(b, loc, ggml::iq3s_grid);
    break;
  case QuantScheme::GgufIQ1S:
  case QuantScheme::GgufIQ1M:
    w.grid = byteTable(b, loc, ggml::iq1s_grid);
    break;
  case QuantScheme::GgufIQ4NL:
  case QuantScheme::GgufIQ4XS:
    w.values = byteTable(b, loc, ggml::kvalues_iq4nl);
    break;
  case QuantScheme::GgufMXFP4:
  case QuantScheme::GgufNVFP4:
    w.values = byteTable(b, loc, ggml::kvalues_fp4);
    break;
  default:
    break;
  }
}

/// Element `j` of the GGUF block of `scheme` that starts at byte `base` of
/// `bytes`. Offsets and formulas: docs/quantization.md.
Value decodeGgufElement(Emitter &e, const PackedWeight &w, Value base,
                        Value j) {
  QuantScheme scheme = w.scheme;
  Value bytes = w.wq;
  auto byteAt = [&](Value offset) {
    return e.widen(e.extract(bytes, e.add(base, offset)));
  };
  auto signedByteAt = [&](Value offset) {
    return e.widen(e.extract(bytes, e.add(base, offset)), /*isSigned=*/true);
  };
  auto f16At = [&](int64_t offset) {
    return e.f16At(bytes, e.add(base, e.index(offset)));
  };
  // Little-endian u16 and u32 fields, zero-extended to i32.
  auto u16At = [&](Value offset) {
    return e.ori(byteAt(offset), e.shl(byteAt(e.add(offset, 1)), 8));
  };
  auto u32At = [&](Value offset) {
    return e.ori(u16At(offset), e.shl(u16At(e.add(offset, 2)), 16));
  };
  // Byte `i` (an i32) of a lookup table, zero- or sign-extended.
  auto tableAt = [&](Value table, Value i, bool isSigned = false) {
    return e.widen(e.extract(table, e.toIndex(i)), isSigned);
  };
  // The 256-element IQ formats: sub-block ib of 32 elements, group l of 8
  // in it, element t of the group.
  Value ib = e.div(j, 32), l = e.div(e.rem(j, 32), 8), t = e.rem(j, 8);
  // A grid row's element t: byte t of the `width`-byte entry `index`.
  auto gridAt = [&](Value index, int64_t width, Value at, bool isSigned) {
    return tableAt(w.grid, e.addi(e.muli(index, width), e.toI32(at)), isSigned);
  };
  // Bit t of a sign byte set: the element is negative.
  auto signBit = [&](Value signByte) {
    return e.eq(e.bits(signByte, e.toI32(t), 1), 1);
  };
  // IQ2/IQ3: (d * (0.5 + s)) * f from a 4-bit scale s.
  auto halfStepScale = [&](Value s, double factor) {
    return e.fmul(e.fmul(f16At(0), e.fadd(e.f32(0.5), e.toF32(s))),
                  e.f32(factor));
  };
  // 32-element blocks: element j is nibble j / 16 of qs byte j % 16.
  auto nibble = [&](int64_t qsOffset) {
    Value byte = byteAt(e.add(e.rem(j, 16), qsOffset));
    return e.bits(byte, e.toI32(e.mul(e.div(j, 16), 4)), 4);
  };
  // 5-bit 32-element blocks: bit j of the little-endian 32-bit qh.
  auto highBit = [&](int64_t qhOffset) {
    Value byte = byteAt(e.add(e.div(j, 8), qhOffset));
    return e.bits(byte, e.toI32(e.rem(j, 8)), 1);
  };
  // Q4_K/Q5_K: the 6-bit scale and min of sub-block `is` (0..7) from the 12
  // bytes at `offset`.
  auto scaleMin = [&](Value is, int64_t offset) -> std::pair<Value, Value> {
    Value a = byteAt(e.add(is, offset));
    Value b = byteAt(e.add(is, offset + 4));
    Value c = byteAt(e.add(e.rem(is, 4), offset));
    Value first = e.below(is, 4);
    Value scale = e.select(first, e.bits(a, 0, 6),
                           e.ori(e.bits(b, 0, 4), e.shl(e.bits(c, 6, 2), 4)));
    Value min = e.select(first, e.bits(b, 0, 6),
                         e.ori(e.bits(b, 4, 4), e.shl(e.bits(a, 6, 2), 4)));
    return {e.toF32(scale), e.toF32(min)};
  };

  switch (scheme) {
  case QuantScheme::GgufQ4_0:
    return e.fmul(e.toF32(e.subi(nibble(2), 8)), f16At(0));
  case QuantScheme::GgufQ4_1:
    return e.fadd(e.fmul(e.toF32(nibble(4)), f16At(0)), f16At(2));
  case QuantScheme::GgufQ5_0: {
    Value q = e.ori(nibble(6), e.shl(highBit(2), 4));
    return e.fmul(e.toF32(e.subi(q, 16)), f16At(0));
  }
  case QuantScheme::GgufQ5_1: {
    Value q = e.ori(nibble(8), e.shl(highBit(4), 4));
    return e.fadd(e.fmul(e.toF32(q), f16At(0)), f16At(2));
  }
  case QuantScheme::GgufQ8_0:
    return e.fmul(e.toF32(signedByteAt(e.add(j, 2))), f16At(0));
  case QuantScheme::GgufQ2K: {
    // Halves of 128: 32 qs bytes each; element (h, p, s) is bits 2p of qs
    // byte 32h + s with scale byte 8h + 2p + s / 16.
    Value h = e.div(j, 128), p = e.div(e.rem(j, 128), 32), s = e.rem(j, 32);
    Value q = e.bits(byteAt(e.add(e.add(e.mul(h, 32), s), 16)),
                     e.toI32(e.mul(p, 2)), 2);
    Value sc = byteAt(e.add(e.add(e.mul(h, 8), e.mul(p, 2)), e.div(s, 16)));
    Value dl = e.fmul(f16At(80), e.toF32(e.bits(sc, 0, 4)));
    Value ml = e.fmul(f16At(82), e.toF32(e.bits(sc, 4, 4)));
    return e.fsub(e.fmul(dl, e.toF32(q)), ml);
  }
  case QuantScheme::GgufQ3K: {
    Value h = e.div(j, 128), p = e.div(e.rem(j, 128), 32), s = e.rem(j, 32);
    Value low = e.bits(byteAt(e.add(e.add(e.mul(h, 32), s), 32)),
                       e.toI32(e.mul(p, 2)), 2);
    Value high = e.bits(byteAt(s), e.toI32(e.add(e.mul(h, 4), p)), 1);
    // The high bit set means no offset; clear means -4.
    Value q = e.subi(e.ori(low, e.shl(high, 2)), 4);
    // 16 6-bit scales: low nibbles from bytes 96..103, top 2 bits from
    // bytes 104..107.
    Value is = e.add(e.add(e.mul(h, 8), e.mul(p, 2)), e.div(s, 16));
    Value lowBits = e.bits(byteAt(e.add(e.rem(is, 8), 96)),
                           e.toI32(e.mul(e.div(is, 8), 4)), 4);
    Value highBits = e.bits(byteAt(e.add(e.rem(is, 4), 104)),
                            e.toI32(e.mul(e.div(is, 4), 2)), 2);
    Value sc = e.subi(e.ori(lowBits, e.shl(highBits, 4)), 32);
    return e.fmul(e.fmul(f16At(108), e.toF32(sc)), e.toF32(q));
  }
  case QuantScheme::GgufQ4K:
  case QuantScheme::GgufQ5K: {
    // Groups of 64: 32 qs bytes each, low nibbles then high nibbles.
    bool five = scheme == QuantScheme::GgufQ5K;
    int64_t qsOffset = five ? 48 : 16;
    Value g = e.div(j, 64), sub = e.div(e.rem(j, 64), 32), l = e.rem(j, 32);
    Value q = e.bits(byteAt(e.add(e.add(e.mul(g, 32), l), qsOffset)),
                     e.toI32(e.mul(sub, 4)), 4);
    Value is = e.add(e.mul(g, 2), sub);
    if (five)
      q = e.ori(q, e.shl(e.bits(byteAt(e.add(l, 16)), e.toI32(is), 1), 4));
    auto [scale, min] = scaleMin(is, 4);
    Value dl = e.fmul(f16At(0), scale);
    Value ml = e.fmul(f16At(2), min);
    return e.fsub(e.fmul(dl, e.toF32(q)), ml);
  }
  case QuantScheme::GgufQ6K: {
    // Halves of 128: 64 ql bytes, 32 qh bytes, 8 scales; quarter c of a
    // half reads nibble c / 2 of ql byte l + 32 (c % 2) and bits 2c of qh.
    Value h = e.div(j, 128), c = e.div(e.rem(j, 128), 32), l = e.rem(j, 32);
    Value qlByte =
        byteAt(e.add(e.add(e.mul(h, 64), l), e.mul(e.rem(c, 2), 32)));
    Value ql = e.bits(qlByte, e.toI32(e.mul(e.div(c, 2), 4)), 4);
    Value qh = e.bits(byteAt(e.add(e.add(e.mul(h, 32), l), 128)),
                      e.toI32(e.mul(c, 2)), 2);
    Value q = e.subi(e.ori(ql, e.shl(qh, 4)), 32);
    Value sc = signedByteAt(
        e.add(e.add(e.add(e.mul(h, 8), e.div(l, 16)), e.mul(c, 2)), 192));
    return e.fmul(e.fmul(f16At(208), e.toF32(sc)), e.toF32(q));
  }
  case QuantScheme::GgufQ8K:
    return e.fmul(e.toF32(signedByteAt(e.add(j, 4))), e.f32At(bytes, base));
  case QuantScheme::GgufIQ4NL: {
    Value q = tableAt(w.values, nibble(2), /*isSigned=*/true);
    return e.fmul(f16At(0), e.toF32(q));
  }
  case QuantScheme::GgufIQ4XS: {
    // Sub-block ib: 16 qs bytes at 8 + 16 ib, nibbles as in q4_0; a 6-bit
    // scale from scales_l (nibble ib % 2 of byte 4 + ib / 2) and scales_h
    // (bits 2 ib of the u16 at 2).
    Value jj = e.rem(j, 32);
    Value byte = byteAt(e.add(e.add(e.mul(ib, 16), e.rem(jj, 16)), 8));
    Value q =
        tableAt(w.values, e.bits(byte, e.toI32(e.mul(e.div(jj, 16), 4)), 4),
                /*isSigned=*/true);
    Value low = e.bits(byteAt(e.add(e.div(ib, 2), 4)),
                       e.toI32(e.mul(e.rem(ib, 2), 4)), 4);
    Value high = e.bits(u16At(e.index(2)), e.toI32(e.mul(ib, 2)), 2);
    Value ls = e.subi(e.ori(low, e.shl(high, 4)), 32);
    return e.fmul(e.fmul(f16At(0), e.toF32(ls)), e.toF32(q));
  }
  case QuantScheme::GgufIQ2XXS: {
    // 8 bytes per sub-block at 2 + 8 ib: four grid indices, then a u32 of
    // four 7-bit sign indices and the 4-bit scale in its top bits.
    Value sub = e.add(e.mul(ib, 8), 2);
    Value index = byteAt(e.add(sub, l));
    Value aux = u32At(e.add(sub, 4));
    Value signs = tableAt(w.signs, e.bits(aux, e.toI32(e.mul(l, 7)), 7));
    Value value = e.fmul(halfStepScale(e.shri(aux, 28), 0.25),
                         e.toF32(gridAt(index, 8, t, false)));
    return e.negateIf(signBit(signs), value);
  }
  case QuantScheme::GgufIQ2XS: {
    // A u16 per group at 2 + 2 (4 ib + l): 9-bit grid index, 7-bit sign
    // index; 4-bit scales at 66 + ib (low nibble for groups 0, 1).
    Value q = u16At(e.add(e.add(e.mul(ib, 8), e.mul(l, 2)), 2));
    Value signs = tableAt(w.signs, e.shri(q, 9));
    Value s = e.bits(byteAt(e.add(ib, 66)), e.toI32(e.mul(e.div(l, 2), 4)), 4);
    Value value = e.fmul(halfStepScale(s, 0.25),
                         e.toF32(gridAt(e.andi(q, 511), 8, t, false)));
    return e.negateIf(signBit(signs), value);
  }
  case QuantScheme::GgufIQ2S: {
    // Grid index: qs byte 2 + 4 ib + l, bits 2l of qh byte 66 + ib as bits
    // 8..9; sign byte 34 + 4 ib + l; scales as iq2_xs at 74 + ib.
    Value group = e.add(e.mul(ib, 4), l);
    Value high = e.bits(byteAt(e.add(ib, 66)), e.toI32(e.mul(l, 2)), 2);
    Value index = e.ori(byteAt(e.add(group, 2)), e.shl(high, 8));
    Value signs = byteAt(e.add(group, 34));
    Value s = e.bits(byteAt(e.add(ib, 74)), e.toI32(e.mul(e.div(l, 2), 4)), 4);
    Value value =
        e.fmul(halfStepScale(s, 0.25), e.toF32(gridAt(index, 8, t, false)));
    return e.negateIf(signBit(signs), value);
  }
  case QuantScheme::GgufIQ3XXS: {
    // Two 4-byte grid entries per group: indices at 2 + 8 ib + 2 l + t / 4;
    // a u32 of sign indices and scale per sub-block at 66 + 4 ib.
    Value index =
        byteAt(e.add(e.add(e.add(e.mul(ib, 8), e.mul(l, 2)), e.div(t, 4)), 2));
    Value aux = u32At(e.add(e.mul(ib, 4), 66));
    Value signs = tableAt(w.signs, e.bits(aux, e.toI32(e.mul(l, 7)), 7));
    Value value = e.fmul(halfStepScale(e.shri(aux, 28), 0.5),
                         e.toF32(gridAt(index, 4, e.rem(t, 4), false)));
    return e.negateIf(signBit(signs), value);
  }
  case QuantScheme::GgufIQ3S: {
    // Grid index: qs byte 2 + 8 ib + 2 l + t / 4, its bit 8 bit 2 l + t / 4
    // of qh byte 66 + ib; sign byte 74 + 4 ib + l; 4-bit scale nibble
    // ib % 2 of byte 106 + ib / 2, d * (1 + 2 s).
    Value h = e.div(t, 4);
    Value low = byteAt(e.add(e.add(e.add(e.mul(ib, 8), e.mul(l, 2)), h), 2));
    Value high =
        e.bits(byteAt(e.add(ib, 66)), e.toI32(e.add(e.mul(l, 2), h)), 1);
    Value index = e.ori(low, e.shl(high, 8));
    Value signs = byteAt(e.add(e.add(e.mul(ib, 4), l), 74));
    Value s = e.bits(byteAt(e.add(e.div(ib, 2), 106)),
                     e.toI32(e.mul(e.rem(ib, 2), 4)), 4);
    Value db = e.fmul(f16At(0), e.toF32(e.addi(e.muli(s, 2), e.i32(1))));
    Value value = e.fmul(db, e.toF32(gridAt(index, 4, e.rem(t, 4), false)));
    return e.negateIf(signBit(signs), value);
  }
  case QuantScheme::GgufIQ1S: {
    // u16 qh per sub-block at 34 + 2 ib: 3 index bits per group (bits
    // 3 l), a 3-bit scale (bits 12..14) and the delta's sign (bit 15).
    Value qh = u16At(e.add(e.mul(ib, 2), 34));
    Value high = e.bits(qh, e.toI32(e.mul(l, 3)), 3);
    Value index =
        e.ori(byteAt(e.add(e.add(e.mul(ib, 4), l), 2)), e.shl(high, 8));
    Value dl = e.fmul(f16At(0),
                      e.toF32(e.addi(e.muli(e.bits(qh, 12, 3), 2), e.i32(1))));
    Value delta =
        e.select(e.eq(e.bits(qh, 15, 1), 1), e.f32(-0.125), e.f32(0.125));
    Value g = e.toF32(gridAt(index, 8, t, /*isSigned=*/true));
    return e.fmul(dl, e.fadd(g, delta));
  }
  case QuantScheme::GgufIQ1M: {
    // The f16 super-block scale is the top nibbles of the four u16 scale
    // words at 48; each word holds four 3-bit scales (bits 6 (ib % 2) +
    // 3 (l / 2) of word ib / 2). qh byte 32 + 2 ib + l / 2 holds, per
    // nibble l % 2, 3 index bits and the delta's sign (bit 3).
    SmallVector<Value> sc;
    for (int64_t i = 0; i < 4; ++i)
      sc.push_back(u16At(e.index(48 + 2 * i)));
    Value dBits =
        e.ori(e.ori(e.shri(sc[0], 12), e.andi(e.shri(sc[1], 8), 0xf0)),
              e.ori(e.andi(e.shri(sc[2], 4), 0xf00), e.andi(sc[3], 0xf000)));
    Value word = u16At(e.add(e.mul(e.div(ib, 2), 2), 48));
    Value s = e.bits(
        word, e.toI32(e.add(e.mul(e.rem(ib, 2), 6), e.mul(e.div(l, 2), 3))), 3);
    Value dl =
        e.fmul(e.f16FromBits(dBits), e.toF32(e.addi(e.muli(s, 2), e.i32(1))));
    Value qhByte = byteAt(e.add(e.add(e.mul(ib, 2), e.div(l, 2)), 32));
    Value nibbleShift = e.toI32(e.mul(e.rem(l, 2), 4));
    Value field = e.bits(qhByte, nibbleShift, 4);
    Value index =
        e.ori(byteAt(e.add(e.mul(ib, 4), l)), e.shl(e.andi(field, 7), 8));
    Value delta =
        e.select(e.eq(e.bits(field, 3, 1), 1), e.f32(-0.125), e.f32(0.125));
    Value g = e.toF32(gridAt(index, 8, t, /*isSigned=*/true));
    return e.fmul(dl, e.fadd(g, delta));
  }
  case QuantScheme::GgufTQ1_0: {
    // Base-3 digits: qs bytes 0..31 hold elements 32 n + m (n = 0..4),
    // qs bytes 32..47 elements 160 + 16 n + m, qh bytes 48..51 elements
    // 240 + 4 n + m; digit n of a byte is ((byte * 3^n mod 256) * 3) >> 8.
    Value rest = e.add(j, -160), last = e.add(j, -240);
    Value inFirst = e.below(j, 160), inSecond = e.below(j, 240);
    Value offset = e.select(inFirst, e.rem(j, 32),
                            e.select(inSecond, e.add(e.rem(rest, 16), 32),
                                     e.add(e.rem(last, 4), 48)));
    Value n = e.select(inFirst, e.div(j, 32),
                       e.select(inSecond, e.div(rest, 16), e.div(last, 4)));
    Value pow3 = e.i32(1);
    for (int64_t i = 1; i < 5; ++i) {
      Value more = e.ult(e.toI32(n), i);
      pow3 = e.select(more, pow3, e.i32(static_cast<int64_t>(std::pow(3, i))));
    }
    Value q = e.andi(
        arith::MulIOp::create(e.builder(), e.location(), byteAt(offset), pow3),
        255);
    Value digit = e.shri(e.muli(q, 3), 8);
    return e.fmul(e.toF32(e.subi(digit, 1)), f16At(52));
  }
  case QuantScheme::GgufTQ2_0: {
    // Element 128 h + 32 p + m: bits 2 p of qs byte 32 h + m.
    Value h = e.div(j, 128), p = e.div(e.rem(j, 128), 32), m = e.rem(j, 32);
    Value q = e.bits(byteAt(e.add(e.mul(h, 32), m)), e.toI32(e.mul(p, 2)), 2);
    return e.fmul(e.toF32(e.subi(q, 1)), f16At(64));
  }
  case QuantScheme::GgufMXFP4: {
    // E8M0 scale byte at 0, halved (the table holds doubled E2M1 values):
    // 2^(e - 128), a subnormal bit pattern for e < 2.
    Value code = byteAt(e.index(0));
    Value bits = e.select(e.ult(code, 2), e.shli(e.i32(0x00200000), code),
                          e.shl(e.subi(code, 1), 23));
    Value d = arith::BitcastOp::create(e.builder(), e.location(),
                                       e.builder().getF32Type(), bits);
    Value q = tableAt(w.values, nibble(1), /*isSigned=*/true);
    return e.fmul(e.toF32(q), d);
  }
  case QuantScheme::GgufNVFP4: {
    // Four 16-element sub-blocks: UE4M3 scale byte s at s, 8 qs bytes at
    // 4 + 8 s (nibbles as q4_0 within the sub-block); the scale is halved
    // and the code 0x7f reads as 0.
    Value s = e.div(j, 16), jj = e.rem(j, 16);
    Value code = byteAt(s);
    Value scale =
        e.select(e.eq(code, 0x7f), e.f32(0.0),
                 e.fmul(e.minifloat(e.andi(code, 0x7f), 4, 3, 7), e.f32(0.5)));
    Value byte = byteAt(e.add(e.add(e.mul(s, 8), e.rem(jj, 8)), 4));
    Value q =
        tableAt(w.values, e.bits(byte, e.toI32(e.mul(e.div(jj, 8), 4)), 4),
                /*isSigned=*/true);
    return e.fmul(e.toF32(q), scale);
  }
  default:
    llvm_unreachable("not a GGUF scheme");
  }
}

/// W[k, n] of `w`. For the GGUF schemes `n` counts rows across a stack of
/// weights (expert e's row n is row e * N + n).
Value decodeWeight(OpBuilder &b, Location loc, const PackedWeight &w, Value k,
                   Value n) {
  Emitter e(b, loc);
  if (std::optional<GgufBlock> block = ggufBlock(w.scheme)) {
    Value base = e.add(e.mul(n, w.rowBytes),
                       e.mul(e.div(k, block->elements), block->bytes));
    return decodeGgufElement(e, w, base, e.rem(k, block->elements));
  }
  switch (w.scheme) {
  case QuantScheme::Int8Block:
  case QuantScheme::Int8BlockAsym:
  case QuantScheme::Int4Block: {
    Value q;
    if (w.scheme == QuantScheme::Int4Block) {
      Value byte = e.widen(e.extract(w.wq, {k, e.div(n, 2)}));
      q = e.bits(byte, e.toI32(e.mul(e.rem(n, 2), 4)), 4);
    } else {
      q = e.widen(e.extract(w.wq, {k, n}), /*isSigned=*/true);
    }
    SmallVector<Value> at = {e.div(k, w.blockSize), n};
    Value value = e.toF32(q);
    if (w.zeroPoint)
      value = e.fsub(value, e.extract(w.zeroPoint, at));
    return e.fmul(value, e.extract(w.scale, at));
  }
  case QuantScheme::Fp8E4M3:
  case QuantScheme::Fp8E5M2: {
    // The decoder reads the FP8 code, not its value.
    Value code = e.widen(arith::BitcastOp::create(b, loc, b.getI8Type(),
                                                  e.extract(w.wq, {k, n})));
    Value value =
        w.scheme == QuantScheme::Fp8E4M3 ? e.e4m3(code) : e.e5m2(code);
    return e.fmul(value, e.extract(w.scale, {n}));
  }
  case QuantScheme::Nvfp4Block: {
    Value byte = e.widen(e.extract(w.wq, {k, e.div(n, 2)}));
    Value code = e.bits(byte, e.toI32(e.mul(e.rem(n, 2), 4)), 4);
    Value scale = e.e4m3(e.widen(e.extract(w.scale, {e.div(k, 16), n})));
    Value global = e.extract(w.globalScale, {e.index(0)});
    return e.fmul(e.fmul(e.e2m1(code), scale), global);
  }
  default:
    llvm_unreachable("GGUF schemes handled above");
  }
}

/// GGUF: the bytes of one row of `k` elements (index).
Value ggufRowBytes(OpBuilder &b, Location loc, QuantScheme scheme, Value k) {
  GgufBlock block = *ggufBlock(scheme);
  Emitter e(b, loc);
  return e.mul(e.div(k, block.elements), block.bytes);
}

/// The tensor of `type` whose element at `indices` is `body(indices)`.
Value buildFromIndices(
    OpBuilder &b, Location loc, RankedTensorType type, ValueRange dynamicSizes,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = type.getRank();
  Value init = tensor::EmptyOp::create(b, loc, type, dynamicSizes);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
             SmallVector<AffineMap>{
                 AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> indices;
               for (int64_t i = 0; i < rank; ++i)
                 indices.push_back(linalg::IndexOp::create(nb, nl, i));
               linalg::YieldOp::create(nb, nl, body(nb, nl, indices));
             })
      .getResult(0);
}

/// Checks at run time the sizes of a dequant_matmul's operands that a `?`
/// dim left to the run, as its verifier does for static ones, before
/// anything reads them: a short weight or scale would be read past its end,
/// and a GGUF K of 0 divided by. `k` is x's dim 1 (`staticK` whether it is
/// static); `n` the result's dim 1, or null where it comes from the GGUF
/// byte count, which must then be whole rows.
void buildDequantShapeChecks(OpBuilder &b, Location loc, const PackedWeight &w,
                             Value k, bool staticK, Value n) {
  StringRef scheme = stringifyEnum(w.scheme);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto forScheme = [&](const Twine &what) -> std::string {
    return (what + " for scheme '" + scheme + "'").str();
  };
  if (std::optional<GgufBlock> block = ggufBlock(w.scheme)) {
    if (!staticK) {
      Value positive =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, k, index(0));
      Value whole = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::eq,
          arith::RemUIOp::create(b, loc, k, index(block->elements)), index(0));
      buildShapeAssert(
          b, loc, arith::AndIOp::create(b, loc, positive, whole),
          forScheme("K (x's dim 1) must be a positive multiple of " +
                    Twine(block->elements)));
    }
    if (!n) {
      Value bytes = dimSizeOf(b, loc, w.wq, 0);
      Value rows = b.createOrFold<arith::DivUIOp>(loc, bytes, w.rowBytes);
      buildSizeCheck(
          b, loc, bytes, b.createOrFold<arith::MulIOp>(loc, rows, w.rowBytes),
          forScheme("w_q's bytes must be whole rows of K elements (" +
                    Twine(block->bytes) + " bytes per " +
                    Twine(block->elements) + ")"));
    }
    return;
  }
  buildSizeCheck(b, loc, dimSizeOf(b, loc, w.wq, 0), k,
                 "w_q's dim 0 differs from x's dim 1 (K)");
  auto checkSide = [&](Value side, StringRef name,
                       ArrayRef<std::pair<Value, StringRef>> dims) {
    if (!side)
      return;
    for (auto [i, dim] : llvm::enumerate(dims))
      buildSizeCheck(
          b, loc, dimSizeOf(b, loc, side, i), dim.first,
          forScheme(name + " dim " + Twine(i) + " differs from " + dim.second));
  };
  if (w.blockSize) {
    Value blocks =
        b.createOrFold<arith::CeilDivUIOp>(loc, k, index(w.blockSize));
    checkSide(w.scale, "scale", {{blocks, "ceil(K / block_size)"}, {n, "N"}});
    checkSide(w.zeroPoint, "zero_point",
              {{blocks, "ceil(K / block_size)"}, {n, "N"}});
  } else if (w.scheme == QuantScheme::Nvfp4Block) {
    if (!staticK)
      buildSizeCheck(b, loc, b.createOrFold<arith::RemUIOp>(loc, k, index(16)),
                     b.getIndexAttr(0),
                     forScheme("K (x's dim 1) must be a multiple of 16"));
    checkSide(w.scale, "scale",
              {{b.createOrFold<arith::DivUIOp>(loc, k, index(16)), "K / 16"},
               {n, "N"}});
    checkSide(w.globalScale, "global_scale", {{index(1), "1"}});
  } else {
    checkSide(w.scale, "scale", {{n, "N"}});
  }
}

/// rlx.dequant_matmul -> the decoded f32 weight (GGUF: its transpose [N, K]),
/// then rlx.matmul.
struct DequantMatMulLowering : OpConversionPattern<DequantMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX();
    auto resultType = cast<RankedTensorType>(op.getType());
    PackedWeight w{op.getScheme(),
                   adaptor.getWQ(),
                   adaptor.getScale(),
                   adaptor.getZeroPoint(),
                   adaptor.getGlobalScale(),
                   static_cast<int64_t>(op.getBlockSize().value_or(0))};
    Value k = dimSizeOf(rewriter, loc, x, 1);
    int64_t staticK = cast<RankedTensorType>(x.getType()).getDimSize(1);
    Value n;
    if (ggufBlock(w.scheme)) {
      w.rowBytes = ggufRowBytes(rewriter, loc, w.scheme, k);
      addLookupTables(rewriter, loc, w);
      // Before the division by the row size (0 for a K of 0).
      buildDequantShapeChecks(
          rewriter, loc, w, k, !ShapedType::isDynamic(staticK),
          resultType.isDynamicDim(1)
              ? Value()
              : arith::ConstantIndexOp::create(rewriter, loc,
                                               resultType.getDimSize(1)));
      if (resultType.isDynamicDim(1))
        n = arith::DivUIOp::create(
            rewriter, loc, dimSizeOf(rewriter, loc, w.wq, 0), w.rowBytes);
    } else {
      n = dimSizeOf(rewriter, loc, w.wq, 1);
      bool nibbles = w.scheme == QuantScheme::Int4Block ||
                     w.scheme == QuantScheme::Nvfp4Block;
      if (nibbles)
        n = rewriter.createOrFold<arith::MulIOp>(
            loc, n, arith::ConstantIndexOp::create(rewriter, loc, 2));
      buildDequantShapeChecks(rewriter, loc, w, k,
                              !ShapedType::isDynamic(staticK), n);
      if (!resultType.isDynamicDim(1))
        n = Value();
    }
    int64_t staticN = resultType.getDimSize(1);
    // GGUF bytes hold W's columns (rows of K elements): decode W^T [N, K]
    // so that reads and writes both run along the bytes, and let the
    // matmul read it transposed. The other formats are stored as [K, N].
    bool columns = ggufBlock(w.scheme).has_value();
    SmallVector<int64_t> weightShape = {staticK, staticN};
    if (columns)
      std::swap(weightShape[0], weightShape[1]);
    auto weightType = RankedTensorType::get(weightShape, rewriter.getF32Type());
    Value kSize = ShapedType::isDynamic(staticK) ? k : Value();
    SmallVector<Value> dims =
        columns ? SmallVector<Value>{n, kSize} : SmallVector<Value>{kSize, n};
    SmallVector<Value> sizes;
    for (Value size : dims)
      if (size)
        sizes.push_back(size);
    Value weight =
        buildFromIndices(rewriter, loc, weightType, sizes,
                         [&](OpBuilder &b, Location l, ValueRange idx) {
                           return columns
                                      ? decodeWeight(b, l, w, idx[1], idx[0])
                                      : decodeWeight(b, l, w, idx[0], idx[1]);
                         });
    if (columns)
      weight = TransposeOp::create(rewriter, loc, weight,
                                   rewriter.getDenseI64ArrayAttr({1, 0}));
    rewriter.replaceOpWithNewOp<MatMulOp>(op, resultType, x, weight);
    return success();
  }
};

/// The GGUF expert stack `bytes` of a MoE op, whose rows have `k` elements.
PackedWeight ggufStack(OpBuilder &b, Location loc, QuantScheme scheme,
                       Value bytes, Value k) {
  PackedWeight w{scheme, bytes};
  w.rowBytes = ggufRowBytes(b, loc, scheme, k);
  addLookupTables(b, loc, w);
  return w;
}

/// rlx.dequant_moe_weights -> out[e, k, n] = W_e[k, n], decoded.
struct DequantMoEWeightsLowering : OpConversionPattern<DequantMoEWeightsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantMoEWeightsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!resultType.hasStaticShape())
      return op.emitOpError()
             << "the CPU lowering needs a static result shape [E, K, N], got "
             << resultType;
    int64_t rows = resultType.getDimSize(2);
    Value k =
        arith::ConstantIndexOp::create(rewriter, loc, resultType.getDimSize(1));
    PackedWeight w =
        ggufStack(rewriter, loc, op.getScheme(), adaptor.getPacked(), k);
    Value result =
        buildFromIndices(rewriter, loc, resultType, {},
                         [&](OpBuilder &b, Location l, ValueRange ekn) {
                           Emitter e(b, l);
                           Value row = e.add(e.mul(ekn[0], rows), ekn[2]);
                           return decodeWeight(b, l, w, ekn[1], row);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.dequant_grouped_matmul -> out[m, n] = sum_k x[m, k] * W_e(m)[k, n],
/// decoding W inside the contraction. An expert id outside [0, E) gives a
/// zero row, as in rlx.grouped_matmul.
struct DequantGroupedMatMulLowering
    : OpConversionPattern<DequantGroupedMatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DequantGroupedMatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), idx = adaptor.getExpertIdx();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(input.getType());
    if (resultType.isDynamicDim(1) || inputType.isDynamicDim(1))
      return op.emitOpError()
             << "the CPU lowering needs static K and N, got input " << inputType
             << " and result " << resultType;
    int64_t rows = resultType.getDimSize(1);
    Value k =
        arith::ConstantIndexOp::create(rewriter, loc, inputType.getDimSize(1));
    PackedWeight w =
        ggufStack(rewriter, loc, op.getScheme(), adaptor.getWeight(), k);
    // E = bytes / (N * rowBytes).
    Value bytes = dimSizeOf(rewriter, loc, w.wq, 0);
    Value slab = arith::MulIOp::create(
        rewriter, loc, w.rowBytes,
        arith::ConstantIndexOp::create(rewriter, loc, rows));
    Value experts = arith::DivUIOp::create(rewriter, loc, bytes, slab);
    int64_t staticBytes = cast<RankedTensorType>(w.wq.getType()).getDimSize(0);
    bool mayBeEmpty = ShapedType::isDynamic(staticBytes) || staticBytes == 0;

    SmallVector<Value> sizes;
    if (Value m = dynamicDimOf(rewriter, loc, input, 0))
      sizes.push_back(m);
    Value init = buildZeros(rewriter, loc, resultType, sizes);
    AffineExpr dm = getAffineDimExpr(0, ctx), dk = getAffineDimExpr(1, ctx),
               dn = getAffineDimExpr(2, ctx);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {dm, dk}, ctx),
                                   AffineMap::get(3, 0, {dm}, ctx),
                                   AffineMap::get(3, 0, {dm, dn}, ctx)};
    // n innermost: consecutive n of one k are rows of one expert.
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::reduction,
        utils::IteratorType::parallel};
    Value result = buildGeneric(
        rewriter, loc, ValueRange{input, idx}, init, maps, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Emitter e(b, l);
          // In the generic's body: linalg.index may not sit in an scf.if.
          Value kk = linalg::IndexOp::create(b, l, 1);
          Value nn = linalg::IndexOp::create(b, l, 2);
          Value term = buildExpertTerm(
              b, l, args[1], experts, mayBeEmpty, b.getF32Type(),
              [&](OpBuilder &pb, Location pl, Value expert) -> Value {
                Emitter pe(pb, pl);
                Value row = pe.add(pe.mul(expert, rows), nn);
                return pe.fmul(args[0], decodeWeight(pb, pl, w, kk, row));
              });
          return e.fadd(args[2], term);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// rlx.q_conv2d -> rlx.conv of the centered operands in f64, truncated to
/// the i32 accumulator, plus the bias, requantized to i8.
struct QConv2dLowering : OpConversionPattern<QConv2dOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(QConv2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type f64 = rewriter.getF64Type();
    // I64Attr getters return uint64_t; the zero points are signed.
    auto centered = [&](Value v, int64_t zp) {
      auto type = cast<RankedTensorType>(v.getType());
      return buildBroadcastElementwise(
          rewriter, loc, type.clone(f64), v,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value wide = arith::SIToFPOp::create(b, l, f64, args[0]);
            return arith::SubFOp::create(
                b, l, wide, floatConstant(b, l, f64, static_cast<double>(zp)));
          });
    };
    Value x = centered(adaptor.getX(), static_cast<int64_t>(op.getXZp()));
    Value w = centered(adaptor.getW(), static_cast<int64_t>(op.getWZp()));
    Value sums = ConvOp::create(rewriter, loc, resultType.clone(f64), x, w,
                                op.getKernelSizeAttr(), op.getStrideAttr(),
                                op.getPaddingAttr(), op.getDilationAttr(),
                                rewriter.getI64IntegerAttr(op.getGroups()));

    double mult = static_cast<double>(op.getMult().convertToFloat());
    int64_t outZp = static_cast<int64_t>(op.getOutZp());
    Type i32 = rewriter.getI32Type();
    Value empty = buildBroadcastEmpty(rewriter, loc, resultType, sums);
    Value result = buildGeneric(
        rewriter, loc, ValueRange{sums, adaptor.getBias()}, empty,
        {AffineMap::getMultiDimIdentityMap(4, ctx), projection(ctx, 4, {1}),
         AffineMap::getMultiDimIdentityMap(4, ctx)},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          // Exact integer -> i64 -> i32 wraps like an i32 accumulator.
          Value sum = arith::TruncIOp::create(
              b, l, i32,
              arith::FPToSIOp::create(b, l, b.getI64Type(), args[0]));
          Value acc = arith::AddIOp::create(b, l, sum, args[1]);
          return buildRequantizeToI8(b, l, acc, mult, outZp);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void rlx::populateDequantToLinalgPatterns(const TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<DequantMatMulLowering, DequantMoEWeightsLowering,
               DequantGroupedMatMulLowering, QConv2dLowering>(
      converter, patterns.getContext());
}
