//===- CustomCall.cpp - compiled graphs calling rlx.custom kernels --------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `rlx-cpu-lower-custom-ops` turns each rlx.custom into a call of
// rlx_rt_custom_call with the op's name, its attributes' text and a table
// of its tensors; the kernel is looked up by name when the graph runs, so a
// graph compiled without the plugin runs once the plugin is loaded. A kernel
// that fails (or one not registered) ends the run with its message as the
// error (RunStatus.cpp).
//
//===----------------------------------------------------------------------===//

#include "RunStatus.h"

#include "rlx-c/CustomOps.h"

#include <cstdio>
#include <new>
#include <string>
#include <vector>

namespace {

/// Formatted without allocating: the failure may be the lack of memory.
void fail(const char *name, const char *what, const char *why,
          bool outOfMemory = false) {
  char message[1280];
  std::snprintf(message, sizeof(message), "custom op '%s' %s%s", name, what,
                why);
  rlxrt::cpu::recordRunFailure(message, outOfMemory);
}

} // namespace

extern "C" {

/// `table` holds, for each input and then each output, its data pointer,
/// dtype (RlxDType), rank and `rank` dims, all as int64.
__attribute__((visibility("default"))) void
rlx_rt_custom_call(int64_t namePtr, int64_t attrsPtr, int64_t numInputs,
                   int64_t numOutputs, int64_t tablePtr) {
  auto *name = reinterpret_cast<const char *>(namePtr);
  auto *attrs = reinterpret_cast<const char *>(attrsPtr);
  // No exception may leave for the compiled code, which has no unwind path.
  try {
    const RlxCustomOpDef *def = rlxFindCustomOp(name);
    if (!def) {
      std::string names = rlxCustomOpNames();
      return fail(name,
                  "is not registered: load the plugin that registers it "
                  "(rlx-run --plugin LIB.so); registered ops: ",
                  names.empty() ? "none" : names.c_str());
    }
    const int64_t *table = reinterpret_cast<const int64_t *>(tablePtr);
    std::vector<RlxCustomTensor> tensors(numInputs + numOutputs);
    for (RlxCustomTensor &tensor : tensors) {
      tensor.data = reinterpret_cast<void *>(*table++);
      tensor.type.dtype = static_cast<int32_t>(*table++);
      tensor.type.rank = static_cast<int32_t>(*table++);
      for (int32_t d = 0; d < tensor.type.rank; ++d)
        tensor.type.dims[d] = *table++;
    }
    char error[1024] = {0};
    if (def->cpuKernel(tensors.data(), numInputs, tensors.data() + numInputs,
                       numOutputs, attrs, error, sizeof(error)) != 0)
      fail(name, "failed: ", error[0] ? error : "its kernel returned an error");
  } catch (const std::bad_alloc &) {
    fail(name, "failed: ", "out of memory", /*outOfMemory=*/true);
  } catch (...) {
    fail(name, "failed: ", "its kernel threw an exception");
  }
}

} // extern "C"
