//===- GraphRunner.cpp - run a compiled graph on host tensors -------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// A graph compiled by rlx-cuda-pipeline takes device buffers. The graph
// entry of its library (`rlx_graph_run`, docs/abi.md) takes host buffers
// like every target's, and calls these functions with the graph's
// signature and its device-side entry: they copy the arguments to device
// buffers, run the graph on the calling thread's graph stream
// (GraphStream.h) and copy the outputs back. The signature gives every buffer's
// size, so nothing here depends on the graph.
//
//===----------------------------------------------------------------------===//

#include "rlx/Runtime/CUDARuntime.h"
#include "rlx/Runtime/HostTensor.h"

#include "DeviceAllocator.h"
#include "Driver.h"
#include "GraphStream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

using namespace rlxrt::cuda;

namespace {

/// One argument or output of a graph, from its signature line.
struct BufferSpec {
  bool isOutput = false;
  size_t rank = 0;
  size_t bytes = 0;
};

/// Parses the signature's lines, `KIND NAME DTYPE DIMS [param=PARAM]` with
/// single spaces between fields and DIMS a comma-separated list (empty for
/// rank 0); a malformed line is fatal, naming it.
std::vector<BufferSpec> parseSignature(const char *caller,
                                       const char *signature) {
  std::vector<BufferSpec> specs;
  std::istringstream lines(signature);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    std::string field;
    while (std::getline(split, field, ' '))
      fields.push_back(field);
    if (fields.empty())
      continue;
    const std::string &kind = fields[0];
    if (kind != "input" && kind != "parameter" && kind != "argument" &&
        kind != "output")
      continue;
    auto malformed = [&](const std::string &why) {
      fatal(caller, "graph signature line '" + line + "': " + why);
    };
    if (fields.size() < 3)
      malformed("expected KIND NAME DTYPE DIMS");
    std::optional<rlxrt::DType> type = rlxrt::parseDTypeName(fields[2]);
    if (!type)
      malformed("unknown dtype '" + fields[2] + "'");
    BufferSpec spec;
    spec.isOutput = kind == "output";
    size_t elements = 1;
    std::istringstream sizes(fields.size() > 3 ? fields[3] : "");
    std::string size;
    while (std::getline(sizes, size, ',')) {
      char *end = nullptr;
      unsigned long long dim = std::strtoull(size.c_str(), &end, 10);
      if (size.empty() || *end != '\0' ||
          (dim != 0 && elements > SIZE_MAX / dim))
        malformed("bad dim '" + size + "'");
      elements *= dim;
      ++spec.rank;
    }
    if (elements > SIZE_MAX / rlxrt::dtypeSize(*type))
      malformed("byte size overflows");
    spec.bytes = elements * rlxrt::dtypeSize(*type);
    specs.push_back(spec);
  }
  return specs;
}

/// The specs of `signature`, parsed once per graph.
const std::vector<BufferSpec> &specsOf(const char *caller,
                                       const char *signature) {
  static std::mutex mutex;
  static std::map<const char *, std::vector<BufferSpec>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(signature);
  if (it == cache.end())
    it = cache.emplace(signature, parseSignature(caller, signature)).first;
  return it->second;
}

/// The graph's buffers on the device for one call: a device descriptor per
/// host descriptor, same shape, dense.
class DeviceBuffers {
public:
  DeviceBuffers(const Session &cu, const std::vector<BufferSpec> &specs,
                void **hostDescriptors, CUstream stream)
      : cu(cu), specs(specs), host(hostDescriptors), stream(stream) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const BufferSpec &spec = specs[i];
      auto *hostFields = static_cast<int64_t *>(host[i]);
      std::vector<int64_t> fields(3 + 2 * spec.rank);
      std::memcpy(fields.data(), hostFields, fields.size() * sizeof(int64_t));
      // A zero-byte buffer still gets a distinct, valid pointer.
      void *device = allocateDevice(cu, spec.bytes ? spec.bytes : 1, stream);
      fields[0] = fields[1] = reinterpret_cast<int64_t>(device);
      fields[2] = 0;
      deviceFields.push_back(std::move(fields));
    }
    for (std::vector<int64_t> &fields : deviceFields)
      pointers.push_back(fields.data());
  }

  ~DeviceBuffers() {
    for (std::vector<int64_t> &fields : deviceFields)
      freeMemory(cu, reinterpret_cast<void *>(fields[1]), stream);
  }

  void **descriptors() { return pointers.data(); }

  /// Host data of buffer `i`: the aligned pointer plus the offset, which the
  /// ABI gives in elements; the byte size of an element is bytes/elements.
  char *hostData(size_t i) const {
    auto *fields = static_cast<int64_t *>(host[i]);
    size_t elements = 1;
    for (size_t d = 0; d < specs[i].rank; ++d)
      elements *= fields[3 + d];
    size_t elementBytes = elements ? specs[i].bytes / elements : 0;
    return reinterpret_cast<char *>(fields[1]) + fields[2] * elementBytes;
  }

  void upload() {
    for (size_t i = 0; i < specs.size(); ++i)
      if (!specs[i].isOutput && specs[i].bytes)
        cu.check(cu->cuMemcpyAsync(deviceFields[i][1],
                                   reinterpret_cast<CUdeviceptr>(hostData(i)),
                                   specs[i].bytes, stream),
                 "cuMemcpyAsync (argument to device)");
  }

  void download() {
    for (size_t i = 0; i < specs.size(); ++i)
      if (specs[i].isOutput && specs[i].bytes)
        cu.check(cu->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(hostData(i)),
                                   deviceFields[i][1], specs[i].bytes, stream),
                 "cuMemcpyAsync (output to host)");
    cu.check(cu->cuStreamSynchronize(stream), "cuStreamSynchronize");
  }

private:
  const Session &cu;
  const std::vector<BufferSpec> &specs;
  void **host;
  CUstream stream;
  std::vector<std::vector<int64_t>> deviceFields;
  std::vector<void *> pointers;
};

using DeviceEntry = void (*)(void **);

} // namespace

extern "C" void rlx_cuda_graph_run(const char *signature, DeviceEntry entry,
                                   void **hostDescriptors) {
  Session cu(__func__);
  CUstream stream = graphStream(cu);
  DeviceBuffers buffers(cu, specsOf(__func__, signature), hostDescriptors,
                        stream);
  buffers.upload();
  entry(buffers.descriptors());
  buffers.download();
}

extern "C" void rlx_cuda_graph_bench(const char *signature, DeviceEntry entry,
                                     void **hostDescriptors, int32_t warmUpRuns,
                                     int32_t timedRuns, float *runMs) {
  Session cu(__func__);
  CUstream stream = graphStream(cu);
  DeviceBuffers buffers(cu, specsOf(__func__, signature), hostDescriptors,
                        stream);
  buffers.upload();
  for (int32_t i = 0; i < warmUpRuns; ++i)
    entry(buffers.descriptors());
  // The graph's work runs on this thread's graph stream, so events there
  // bracket all of it.
  CUevent start, stop;
  cu.check(cu->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  cu.check(cu->cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  for (int32_t i = 0; i < timedRuns; ++i) {
    cu.check(cu->cuEventRecord(start, stream), "cuEventRecord");
    entry(buffers.descriptors());
    cu.check(cu->cuEventRecord(stop, stream), "cuEventRecord");
    cu.check(cu->cuEventSynchronize(stop), "cuEventSynchronize");
    cu.check(cu->cuEventElapsedTime(&runMs[i], start, stop),
             "cuEventElapsedTime");
  }
  cu.check(cu->cuEventDestroy(start), "cuEventDestroy");
  cu.check(cu->cuEventDestroy(stop), "cuEventDestroy");
  buffers.download();
}
