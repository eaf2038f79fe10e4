//===- CustomOpRegistry.cpp - the registry of rlx.custom ops --------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// One registry per process: this library is shared (librlx_custom_ops.so)
// so that the compiler, the CPU runtime and every plugin see the same ops.
//
//===----------------------------------------------------------------------===//

#include "rlx-c/CustomOps.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace {

struct Registry {
  std::mutex mutex;
  /// Definitions by name; each keeps its own copy of the name, and never
  /// moves (returned pointers stay valid).
  std::map<std::string, std::unique_ptr<RlxCustomOpDef>> ops;
  std::string names;
};

Registry &registry() {
  // Never destroyed: graphs may call kernels during process exit.
  static Registry *instance = new Registry;
  return *instance;
}

thread_local std::string lastError;

} // namespace

int rlxCustomOpsABIVersion(void) { return RLX_CUSTOM_OPS_ABI_VERSION; }

int rlxRegisterCustomOp(const RlxCustomOpDef *def) {
  if (!def || !def->name || !*def->name) {
    lastError = "a custom op needs a non-empty name";
    return 1;
  }
  if (!def->cpuKernel) {
    lastError = std::string("custom op '") + def->name + "' has no CPU kernel";
    return 1;
  }
  Registry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto [it, inserted] = reg.ops.try_emplace(def->name);
  if (!inserted) {
    lastError =
        std::string("custom op '") + def->name + "' is already registered";
    return 1;
  }
  it->second = std::make_unique<RlxCustomOpDef>(*def);
  it->second->name = it->first.c_str();
  reg.names.clear();
  for (const auto &entry : reg.ops)
    reg.names += (reg.names.empty() ? "" : ", ") + entry.first;
  return 0;
}

const RlxCustomOpDef *rlxFindCustomOp(const char *name) {
  if (!name)
    return nullptr;
  Registry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  auto it = reg.ops.find(name);
  return it == reg.ops.end() ? nullptr : it->second.get();
}

const char *rlxCustomOpNames(void) {
  Registry &reg = registry();
  std::lock_guard<std::mutex> lock(reg.mutex);
  // Thread-local copy: the shared string changes with registrations.
  static thread_local std::string copy;
  copy = reg.names;
  return copy.c_str();
}

const char *rlxCustomOpsLastError(void) { return lastError.c_str(); }
