//===- FileIO.h - whole-file reads for the tensor formats -------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_IO_FILEIO_H
#define RLX_LIB_RUNTIME_IO_FILEIO_H

#include <optional>
#include <string>

namespace rlxrt {
namespace detail {

/// The bytes of `path`, or std::nullopt with `error` naming the file and
/// the system's reason.
std::optional<std::string> readWholeFile(const std::string &path,
                                         std::string &error);

} // namespace detail
} // namespace rlxrt

#endif // RLX_LIB_RUNTIME_IO_FILEIO_H
