//===- HostTensor.h - host tensors, .npy, .npz and .safetensors -*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// Host tensors and their file formats, for the runners. This library has no
// LLVM/MLIR dependency: it also serves ahead-of-time compiled graphs on
// machines without them. Errors are returned as messages, never thrown or
// asserted: every malformed or truncated file is reported.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_RUNTIME_HOSTTENSOR_H
#define RLX_RUNTIME_HOSTTENSOR_H

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rlxrt {

/// RLX dtypes as stored in host memory.
enum class DType { F32, F64, F16, BF16, I8, I16, I32, I64, U8, U32, Bool, C64 };

/// Bytes per element.
size_t dtypeSize(DType dtype);
/// Lower-case RLX name: f32, bf16, i64, u8, bool, c64, ...
const char *dtypeName(DType dtype);
std::optional<DType> parseDTypeName(const std::string &name);

/// The number of elements of `shape`, or std::nullopt when a dim is
/// negative or the product of its non-zero dims overflows int64_t (so the
/// row-major strides of the shape fit too).
std::optional<int64_t> checkedNumElements(const std::vector<int64_t> &shape);
/// The bytes of a `dtype` tensor of `shape`, under the same conditions and
/// std::nullopt when the byte count overflows int64_t.
std::optional<int64_t> checkedSizeInBytes(DType dtype,
                                          const std::vector<int64_t> &shape);

/// A dense row-major tensor in 64-byte aligned host memory.
class HostTensor {
public:
  HostTensor() = default;
  /// A zeroed tensor. Throws std::length_error (its message create()'s)
  /// when the size overflows and std::bad_alloc when the memory is not
  /// available, as std::vector does: for shapes the program chose; sizes
  /// that come from files or graphs go through create().
  HostTensor(DType dtype, std::vector<int64_t> shape);

  /// A zeroed tensor, or std::nullopt with `error` saying why (the size
  /// overflows, or that many bytes cannot be allocated). The caller prefixes
  /// the tensor's name.
  static std::optional<HostTensor>
  create(DType dtype, std::vector<int64_t> shape, std::string &error);

  DType dtype() const { return elementType; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t numElements() const;
  size_t sizeInBytes() const { return numElements() * dtypeSize(elementType); }
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  template <typename T> T *dataAs() { return static_cast<T *>(data()); }
  template <typename T> const T *dataAs() const {
    return static_cast<const T *>(data());
  }

  /// `[2, 3] f32` for messages.
  std::string describe() const;

  /// Element `i` converted to double (complex: the real part).
  double getAsDouble(int64_t i) const;
  /// Stores `value` at `i`, converted to the dtype (round half to even).
  void setFromDouble(int64_t i, double value);

private:
  struct FreeDeleter {
    void operator()(void *p) const;
  };
  DType elementType = DType::F32;
  std::vector<int64_t> dims;
  std::unique_ptr<void, FreeDeleter> storage;
};

/// `[2, 3]`.
std::string formatDims(const std::vector<int64_t> &dims);

/// Reads a NumPy .npy file (format 1.0-3.0, C order). On failure returns
/// std::nullopt and sets `error` (missing file, bad magic, malformed header
/// or shape, unsupported dtype, Fortran order, overflowing sizes, truncated
/// data, trailing bytes).
std::optional<HostTensor> readNpy(const std::string &path, std::string &error);
/// The same for the bytes of a .npy file already in memory; `path` names it
/// in errors. The header is validated before anything is allocated, and the
/// tensor is never larger than `bytes`.
std::optional<HostTensor> parseNpy(std::string_view bytes,
                                   const std::string &path, std::string &error);
/// Writes a .npy (format 1.0). bf16 has no NumPy dtype: it is refused.
bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string &error);

/// The bytes of a .npy file (format 1.0) before `tensor`'s data: magic,
/// version, header length and the header dict. bf16 is refused.
std::optional<std::string> encodeNpyHeader(const HostTensor &tensor,
                                           std::string &error);

/// Reads every array of a NumPy .npz archive (np.savez) by name, `x` for the
/// entry `x.npy`. Only stored (uncompressed) entries are read; a deflated
/// one (np.savez_compressed) is an error naming it. The zip structure (end
/// records, Zip64, every entry's offsets, sizes, local header and CRC-32,
/// no shared bytes between entries) is validated before anything is
/// allocated, and each array is parsed as a .npy file.
std::optional<std::map<std::string, HostTensor>>
readNpz(const std::string &path, std::string &error);
/// The same for the bytes of a .npz file already in memory; `path` names it
/// in errors.
std::optional<std::map<std::string, HostTensor>>
parseNpz(std::string_view bytes, const std::string &path, std::string &error);
/// Writes tensors as the stored entries NAME.npy of a .npz archive (no
/// Zip64: at most 4 GiB and 65534 arrays, else an error). bf16 is refused.
bool writeNpz(const std::string &path,
              const std::map<std::string, HostTensor> &tensors,
              std::string &error);

/// Reads every tensor of a .safetensors file by name. The header must be a
/// JSON object without duplicate names, and the tensors' data_offsets must
/// tile the data section exactly: no overlap, gap or trailing byte.
std::optional<std::map<std::string, HostTensor>>
readSafetensors(const std::string &path, std::string &error);
/// The same for the bytes of a .safetensors file already in memory; `path`
/// names it in errors. Everything is validated before anything is
/// allocated.
std::optional<std::map<std::string, HostTensor>>
parseSafetensors(std::string_view bytes, const std::string &path,
                 std::string &error);
/// Writes tensors to a .safetensors file.
bool writeSafetensors(const std::string &path,
                      const std::map<std::string, HostTensor> &tensors,
                      std::string &error);

/// A tensor of a parameter file. GGUF's block-quantized tensors (q4_0,
/// q8_0, the K-quants, ...) are kept as their packed blocks: `tensor` is a
/// u8 `[bytes]` tensor of the file's bytes, `packedType` the GGUF type name
/// (`q4_0`) and `packedDims` the file's dims, innermost first. Both are
/// empty for plain tensors.
struct ParamTensor {
  HostTensor tensor;
  std::string packedType;
  std::vector<int64_t> packedDims;
};

/// `tensors` as parameter tensors, none of them packed.
std::map<std::string, ParamTensor>
asParamTensors(std::map<std::string, HostTensor> tensors);

/// Reads every tensor of a GGUF file (versions 2 and 3) by name. Plain
/// tensors (f32, f16, bf16, f64, i8, i16, i32, i64) become host tensors
/// whose shape is GGUF's dims reversed (GGUF lists the innermost dim first;
/// a tensor of dims [K, N] is the row-major [N, K]); block-quantized ones
/// stay packed (ParamTensor). Metadata is validated and skipped, except
/// `general.alignment`. The header, every count, string, dim, size and
/// offset are validated against the file before anything is allocated;
/// tensors may not overlap, and between them only alignment padding may
/// lie (docs/security.md).
std::optional<std::map<std::string, ParamTensor>>
readGguf(const std::string &path, std::string &error);
/// The same for the bytes of a GGUF file already in memory; `path` names
/// it in errors.
std::optional<std::map<std::string, ParamTensor>>
parseGguf(std::string_view bytes, const std::string &path, std::string &error);

/// Reads a parameter file: GGUF when it starts with the magic "GGUF" or its
/// name ends in .gguf, a NumPy archive when its name ends in .npz,
/// .safetensors otherwise.
std::optional<std::map<std::string, ParamTensor>>
readParamsFile(const std::string &path, std::string &error);

} // namespace rlxrt

#endif // RLX_RUNTIME_HOSTTENSOR_H
