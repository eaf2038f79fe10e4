//===- ExecutionTarget.cpp - targets that compile and run graphs ----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "rlx/Execution/ExecutionTarget.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace rlxrt;

ExecutionTarget::~ExecutionTarget() = default;

namespace {
struct Registry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<ExecutionTarget>> targets;
};
} // namespace

static Registry &getRegistry() {
  static Registry registry;
  return registry;
}

void rlxrt::registerExecutionTarget(std::unique_ptr<ExecutionTarget> target) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  llvm::StringRef name = target->getName();
  registry.targets.try_emplace(name, std::move(target));
}

llvm::Expected<const ExecutionTarget *>
rlxrt::lookupExecutionTarget(llvm::StringRef name) {
  {
    Registry &registry = getRegistry();
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto it = registry.targets.find(name);
    if (it != registry.targets.end())
      return it->second.get();
  }
  std::vector<std::string> names = getExecutionTargetNames();
  return llvm::createStringError("unknown target '" + name + "' (available: " +
                                 (names.empty() ? std::string("none registered")
                                                : llvm::join(names, ", ")) +
                                 ")");
}

std::vector<std::string> rlxrt::getExecutionTargetNames() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto &entry : registry.targets)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}
