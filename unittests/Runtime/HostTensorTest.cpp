//===- HostTensorTest.cpp - host tensors and the file loaders -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/HostTensor.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <stdexcept>

using namespace rlxrt;

namespace {

constexpr int64_t kBig = int64_t(1) << 32;

TEST(HostTensor, CheckedSizesOverflowToNothing) {
  EXPECT_EQ(checkedNumElements({2, 3}), 6);
  EXPECT_EQ(checkedNumElements({}), 1);
  EXPECT_EQ(checkedNumElements({-1, 3}), std::nullopt);
  EXPECT_EQ(checkedNumElements({kBig, kBig}), std::nullopt);
  // An empty tensor has no elements, but its strides must still fit.
  EXPECT_EQ(checkedNumElements({0, kBig}), 0);
  EXPECT_EQ(checkedNumElements({kBig, 0, kBig}), std::nullopt);
  EXPECT_EQ(checkedSizeInBytes(DType::F64, {2, 3}), 48);
  EXPECT_EQ(checkedSizeInBytes(DType::F64, {kBig, kBig / 8}), std::nullopt);
}

TEST(HostTensor, CreateReportsWhatCannotBeAllocated) {
  std::string error;
  EXPECT_FALSE(HostTensor::create(DType::F32, {kBig, kBig}, error));
  EXPECT_EQ(error, "[4294967296, 4294967296] f32 has more elements or bytes "
                   "than a 64-bit size holds");
  // 2^60 bytes: no machine has them.
  EXPECT_FALSE(HostTensor::create(DType::F32, {int64_t(1) << 58}, error));
  EXPECT_EQ(error.rfind("cannot allocate 1152921504606846976 bytes for "
                        "[288230376151711744] f32",
                        0),
            0u);
  std::optional<HostTensor> zeros =
      HostTensor::create(DType::I32, {2, 2}, error);
  ASSERT_TRUE(zeros);
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(zeros->getAsDouble(i), 0);
}

TEST(HostTensor, ConstructorThrowsWhatItCannotAllocate) {
  // The library never ends its host process: what create() reports, the
  // constructor throws (it had printed the reason and aborted).
  EXPECT_THROW(HostTensor(DType::F32, {kBig, kBig}), std::length_error);
  EXPECT_THROW(HostTensor(DType::F32, {int64_t(1) << 58}), std::bad_alloc);
  try {
    HostTensor(DType::F32, {-1, 2});
    ADD_FAILURE() << "a negative dim made a tensor";
  } catch (const std::length_error &error) {
    EXPECT_STREQ(error.what(), "[-1, 2] f32 has more elements or bytes than "
                               "a 64-bit size holds");
  }
  EXPECT_EQ(HostTensor(DType::I8, {3}).sizeInBytes(), 3u);
}

std::string fileBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(HostTensor, NpyRoundTripsThroughParse) {
  HostTensor tensor(DType::I64, {2, 1, 3});
  for (int64_t i = 0; i < 6; ++i)
    tensor.setFromDouble(i, i - 3);
  std::string path = ::testing::TempDir() + "round.npy", error;
  ASSERT_TRUE(writeNpy(path, tensor, error)) << error;
  std::optional<HostTensor> back = parseNpy(fileBytes(path), path, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->describe(), "[2, 1, 3] i64");
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(back->getAsDouble(i), i - 3);
  std::remove(path.c_str());
}

TEST(HostTensor, SafetensorsNamesAreEscaped) {
  // A name JSON must escape reads back as itself.
  std::map<std::string, HostTensor> tensors;
  tensors.emplace("a\"b\\c\nd", HostTensor(DType::F32, {2}));
  tensors.emplace("plain", HostTensor(DType::BF16, {0}));
  std::string path = ::testing::TempDir() + "names.safetensors", error;
  ASSERT_TRUE(writeSafetensors(path, tensors, error)) << error;
  auto back = parseSafetensors(fileBytes(path), path, error);
  ASSERT_TRUE(back) << error;
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(back->begin()->first, "a\"b\\c\nd");
  EXPECT_EQ(back->at("plain").describe(), "[0] bf16");
  std::remove(path.c_str());
}

TEST(HostTensor, TruncatedInputsNeverReadPastTheirEnd) {
  // Every prefix of a valid file is rejected with a message, never read
  // beyond (ASan builds check the bounds).
  HostTensor tensor(DType::F32, {3});
  std::map<std::string, HostTensor> one;
  one.emplace("w", HostTensor(DType::F32, {3}));
  std::string npy = ::testing::TempDir() + "t.npy";
  std::string st = ::testing::TempDir() + "t.safetensors", error;
  ASSERT_TRUE(writeNpy(npy, tensor, error));
  ASSERT_TRUE(writeSafetensors(st, one, error));
  std::string npyBytes = fileBytes(npy), stBytes = fileBytes(st);
  for (size_t n = 0; n < npyBytes.size(); ++n) {
    std::string prefix = npyBytes.substr(0, n);
    EXPECT_FALSE(parseNpy(prefix, "t.npy", error)) << n;
    EXPECT_NE(error.find("'t.npy'"), std::string::npos) << error;
  }
  for (size_t n = 0; n < stBytes.size(); ++n) {
    std::string prefix = stBytes.substr(0, n);
    EXPECT_FALSE(parseSafetensors(prefix, "t.safetensors", error)) << n;
    EXPECT_NE(error.find("'t.safetensors'"), std::string::npos) << error;
  }
  std::remove(npy.c_str());
  std::remove(st.c_str());
}

TEST(HostTensor, NpzRoundTripsAndRejectsEveryDamagedCopy) {
  std::map<std::string, HostTensor> tensors;
  tensors.emplace("a", HostTensor(DType::I32, {2, 2}));
  tensors.emplace("b", HostTensor(DType::Bool, {0}));
  tensors.emplace("scale", HostTensor(DType::F64, {}));
  for (int64_t i = 0; i < 4; ++i)
    tensors.at("a").setFromDouble(i, 7 * i - 9);
  tensors.at("scale").setFromDouble(0, 0.25);
  std::string path = ::testing::TempDir() + "round.npz", error;
  ASSERT_TRUE(writeNpz(path, tensors, error)) << error;
  std::string bytes = fileBytes(path);
  auto back = parseNpz(bytes, path, error);
  ASSERT_TRUE(back) << error;
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ(back->at("a").describe(), "[2, 2] i32");
  EXPECT_EQ(back->at("a").getAsDouble(3), 12);
  EXPECT_EQ(back->at("b").describe(), "[0] bool");
  EXPECT_EQ(back->at("scale").getAsDouble(0), 0.25);
  // Every prefix is rejected, never read beyond; so is every copy with one
  // byte flipped (the CRC-32 or a structural check catches it), except
  // where the byte is one the reader ignores (dates, attributes, versions).
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(parseNpz(bytes.substr(0, n), "t.npz", error)) << n;
    EXPECT_NE(error.find("'t.npz"), std::string::npos) << error;
  }
  size_t accepted = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string damaged = bytes;
    damaged[n] ^= 0x5a;
    if (auto read = parseNpz(damaged, "t.npz", error)) {
      ++accepted;
      ASSERT_EQ(read->size(), 3u) << n;
      EXPECT_EQ(read->at("a").getAsDouble(3), 12) << n;
    } else {
      EXPECT_NE(error.find("'t.npz"), std::string::npos) << error;
    }
  }
  EXPECT_LT(accepted, bytes.size() / 4);
  // bf16 has no NumPy dtype: refused, naming the array.
  std::map<std::string, HostTensor> bf16;
  bf16.emplace("h", HostTensor(DType::BF16, {2}));
  EXPECT_FALSE(writeNpz(path, bf16, error));
  EXPECT_NE(error.find("cannot write 'h'"), std::string::npos) << error;
  std::remove(path.c_str());
}

/// Little-endian bytes of `value`.
template <typename T> std::string le(T value) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}
std::string ggufString(const std::string &text) {
  return le<uint64_t>(text.size()) + text;
}

/// A GGUF v3 file: one metadata string, an f32 tensor of GGUF dims [3, 2]
/// and a q8_0 tensor of dims [32, 2] (two 34-byte blocks), aligned to 32.
std::string smallGguf() {
  std::string out = "GGUF" + le<uint32_t>(3) + le<uint64_t>(2) +
                    le<uint64_t>(1) + ggufString("general.name") +
                    le<uint32_t>(8) + ggufString("t");
  out += ggufString("a") + le<uint32_t>(2) + le<uint64_t>(3) + le<uint64_t>(2) +
         le<uint32_t>(0) + le<uint64_t>(0);
  out += ggufString("q") + le<uint32_t>(2) + le<uint64_t>(32) +
         le<uint64_t>(2) + le<uint32_t>(8) + le<uint64_t>(32);
  out.append((32 - out.size() % 32) % 32, '\0');
  for (int i = 0; i < 6; ++i)
    out += le<float>(float(i));
  out.append(8, '\0'); // padding to the next tensor
  for (int i = 0; i < 68; ++i)
    out += static_cast<char>(i);
  return out;
}

TEST(HostTensor, GgufReversesDimsAndKeepsBlocksPacked) {
  std::string error;
  auto tensors = parseGguf(smallGguf(), "t.gguf", error);
  ASSERT_TRUE(tensors) << error;
  const ParamTensor &a = tensors->at("a");
  EXPECT_EQ(a.tensor.describe(), "[2, 3] f32");
  EXPECT_TRUE(a.packedType.empty());
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(a.tensor.getAsDouble(i), i);
  const ParamTensor &q = tensors->at("q");
  EXPECT_EQ(q.tensor.describe(), "[68] u8");
  EXPECT_EQ(q.packedType, "q8_0");
  EXPECT_EQ(q.packedDims, (std::vector<int64_t>{32, 2}));
  EXPECT_EQ(q.tensor.dataAs<uint8_t>()[67], 67);
}

TEST(HostTensor, GgufTruncatedPrefixesAreErrors) {
  // Every prefix of a valid file is rejected with a message naming it.
  std::string bytes = smallGguf(), error;
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(parseGguf(bytes.substr(0, n), "t.gguf", error)) << n;
    EXPECT_NE(error.find("'t.gguf' is not a valid GGUF file"),
              std::string::npos)
        << error;
  }
}

} // namespace
