//===- OpProfiler.cpp - rlx-run --profile ---------------------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#include "OpProfiler.h"

#include "rlx/Target/CPU/Passes.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

OpProfiler::OpProfiler(ModuleOp module) {
  if (auto attr = module->getAttrOfType<ArrayAttr>(rlx::kProfileLabelsAttrName))
    for (Attribute label : attr)
      labels.push_back(cast<StringAttr>(label).str());
}

bool OpProfiler::bind(const std::string &runtimePath, std::string &error) {
  // The JIT loads the same library; opening it again yields that instance,
  // so these are the timers the graph updates.
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
      runtimePath.c_str(), &error);
  if (!library.isValid())
    return false;
  read = reinterpret_cast<decltype(read)>(
      library.getAddressOfSymbol("rlx_rt_profile_read"));
  resetTimers = reinterpret_cast<decltype(resetTimers)>(
      library.getAddressOfSymbol("rlx_rt_profile_reset"));
  if (!read || !resetTimers) {
    error = "the CPU runtime library '" + runtimePath +
            "' has no profile timers (rebuild it)";
    return false;
  }
  return true;
}

void OpProfiler::reset() { resetTimers(); }

void OpProfiler::print(llvm::raw_ostream &os, unsigned runs,
                       double wallMs) const {
  struct Row {
    size_t id;
    double totalMs;
    long long calls;
  };
  std::vector<Row> rows;
  for (size_t id = 0; id < labels.size(); ++id) {
    Row row{id, 0, 0};
    row.calls = read(static_cast<long long>(id), &row.totalMs);
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    return a.totalMs != b.totalMs ? a.totalMs > b.totalMs : a.id < b.id;
  });
  double timedMs = std::accumulate(
      rows.begin(), rows.end(), 0.0,
      [](double sum, const Row &row) { return sum + row.totalMs; });
  os << llvm::format("profile: %zu timed ops, %.3f ms of %.3f ms per run "
                     "(%.1f%%) over %u runs\n",
                     rows.size(), timedMs / runs, wallMs / runs,
                     wallMs > 0 ? 100 * timedMs / wallMs : 0.0, runs);
  os << "  ms/run      %  calls/run  op\n";
  for (const Row &row : rows)
    os << llvm::format("%8.3f %6.1f%% %10.1f  ", row.totalMs / runs,
                       wallMs > 0 ? 100 * row.totalMs / wallMs : 0.0,
                       static_cast<double>(row.calls) / runs)
       << labels[row.id] << "\n";
}
