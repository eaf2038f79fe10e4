//===- ToolkitLibrary.h - CUDA toolkit libraries opened on demand -*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CUDA_TOOLKITLIBRARY_H
#define RLX_LIB_RUNTIME_CUDA_TOOLKITLIBRARY_H

#include "Driver.h"

#include <cublas_api.h>

#include <cstdint>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <type_traits>

namespace rlxrt::cuda {

/// Opens a CUDA toolkit library (cuBLAS, cuBLASLt) with dlopen: the path in
/// `envVar` when set, else `soname` on the loader's path, else the
/// toolkit's copy under /usr/local/cuda. Returns null and sets `error` (the
/// paths tried and how to point at the library) when none opens.
void *openToolkitLibrary(const char *envVar, const char *soname,
                         const char *what, std::string &error);

/// The functions of a toolkit library, opened once per process: `bindAll(api,
/// bind)` calls `bind(slot, "symbol")` for each of `Api`'s function
/// pointers. A missing library or symbol aborts naming `caller`.
template <typename Api, typename BindAll>
const Api &openToolkitApi(const char *caller, const char *envVar,
                          const char *soname, const char *what,
                          BindAll bindAll) {
  static Api api;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [&] {
    void *library = openToolkitLibrary(envVar, soname, what, error);
    if (!library)
      return;
    auto bind = [&](auto &slot, const char *name) {
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
          dlsym(library, name));
      if (!slot && error.empty())
        error = std::string(what) + " has no " + name;
    };
    bindAll(api, bind);
  });
  if (!error.empty())
    fatal(caller, error);
  return api;
}

/// Aborts naming `call`, its status and the entry point `caller` unless
/// `status` is success.
inline void checkCublasStatus(const char *(*statusString)(cublasStatus_t),
                              cublasStatus_t status, const char *call,
                              const char *caller) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fatal(caller, std::string(call) + " failed with " + statusString(status));
}

/// The ranked memref descriptor of MLIR's C interface.
template <int Rank> struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

} // namespace rlxrt::cuda

#endif // RLX_LIB_RUNTIME_CUDA_TOOLKITLIBRARY_H
