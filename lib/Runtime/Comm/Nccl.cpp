//===- Nccl.cpp - collectives of compiled CUDA graphs over NCCL -----------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx_cuda_collective_r<rank>_<type> runs one collective op of a CUDA graph
// (rlx-cuda-lower-kernels passes its description as i32 arguments, in the
// order of include/rlx/Runtime/Collectives.h) through NCCL, on the calling
// thread's graph stream, so it is ordered with the graph's kernels and is
// captured with them into a CUDA graph. Part of librlx_cuda_runtime; NCCL is
// opened with dlopen like the other CUDA libraries, on the first collective.
//
// The world is one process per GPU: started by `rlx-run --ranks N` (which
// sets RLX_RANK, RLX_WORLD_SIZE, RLX_LOCAL_RANK and RLX_COMM_DIR) or by an
// MPI launcher (mpirun, srun), whose variables give the rank. The device is
// the local rank's (Driver.cpp). NCCL's communicators need a unique id
// created by one rank and handed to the others: rank 0 writes it to a file
// in a rendezvous directory, RLX_COMM_DIR, else /tmp/rlx-comm-<the MPI
// launcher's job id> on one host, and the others read it. A group of the
// mesh that is not the whole world is a communicator split from the
// world's, once per (mesh, axes).
//
//===----------------------------------------------------------------------===//

#include "Collective.h"

#include "rlx-c/RLX.h"
#include "rlx/Runtime/HostTensor.h"

#include "../CUDA/DeviceAllocator.h"
#include "../CUDA/Driver.h"
#include "../CUDA/GraphStream.h"
#include "../CUDA/ToolkitLibrary.h"

#include <nccl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rlxrt::comm;
using namespace rlxrt::cuda;

namespace {

struct NcclApi {
  decltype(&::ncclGetVersion) getVersion;
  decltype(&::ncclGetUniqueId) getUniqueId;
  decltype(&::ncclCommInitRank) commInitRank;
  decltype(&::ncclCommSplit) commSplit;
  decltype(&::ncclGetErrorString) getErrorString;
  decltype(&::ncclAllReduce) allReduce;
  decltype(&::ncclAllGather) allGather;
  decltype(&::ncclReduceScatter) reduceScatter;
  decltype(&::ncclBroadcast) broadcast;
  decltype(&::ncclReduce) reduce;
  decltype(&::ncclSend) send;
  decltype(&::ncclRecv) recv;
  decltype(&::ncclGroupStart) groupStart;
  decltype(&::ncclGroupEnd) groupEnd;
};

const NcclApi &nccl(const char *caller) {
  return openToolkitApi<NcclApi>(caller, "RLX_NCCL_LIBRARY", "libnccl.so.2",
                                 "NCCL", [](NcclApi &api, auto bind) {
                                   bind(api.getVersion, "ncclGetVersion");
                                   bind(api.getUniqueId, "ncclGetUniqueId");
                                   bind(api.commInitRank, "ncclCommInitRank");
                                   bind(api.commSplit, "ncclCommSplit");
                                   bind(api.getErrorString,
                                        "ncclGetErrorString");
                                   bind(api.allReduce, "ncclAllReduce");
                                   bind(api.allGather, "ncclAllGather");
                                   bind(api.reduceScatter, "ncclReduceScatter");
                                   bind(api.broadcast, "ncclBroadcast");
                                   bind(api.reduce, "ncclReduce");
                                   bind(api.send, "ncclSend");
                                   bind(api.recv, "ncclRecv");
                                   bind(api.groupStart, "ncclGroupStart");
                                   bind(api.groupEnd, "ncclGroupEnd");
                                 });
}

/// This process's place in the run, from its launcher's variables.
struct World {
  int rank = 0, size = 1;
  /// Which launcher: "rlx-run --ranks", "an MPI launcher", or empty.
  std::string launcher;
  /// A name of this run that all its ranks share, for the rendezvous file
  /// (empty under rlx-run --ranks, whose directory is the run's own).
  std::string jobId;
};

World readWorld() {
  auto number = [](const char *name) -> std::optional<int> {
    const char *text = std::getenv(name);
    if (!text || !*text)
      return std::nullopt;
    char *end = nullptr;
    long value = std::strtol(text, &end, 10);
    if (*end || value < 0 || value > (1 << 24))
      return std::nullopt;
    return static_cast<int>(value);
  };
  World world;
  auto pick = [&](const char *sizeName, const char *rankName,
                  const char *launcher) {
    std::optional<int> size = number(sizeName), rank = number(rankName);
    if (!world.launcher.empty() || !size || !rank || *rank >= *size)
      return;
    world.size = *size;
    world.rank = *rank;
    world.launcher = launcher;
  };
  pick("RLX_WORLD_SIZE", "RLX_RANK", "rlx-run --ranks");
  pick("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "an MPI launcher");
  pick("PMI_SIZE", "PMI_RANK", "an MPI launcher");
  pick("SLURM_NTASKS", "SLURM_PROCID", "srun");
  if (world.launcher != "rlx-run --ranks")
    for (const char *name :
         {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "SLURM_JOB_ID"})
      if (const char *id = std::getenv(name); id && *id) {
        world.jobId = id;
        break;
      }
  return world;
}

const World &world() {
  static const World w = readWorld();
  return w;
}

/// Every call of this file runs under this lock: NCCL's communicators are
/// not safe to use from several threads at once, and the lazily created
/// ones are created once.
std::mutex &commMutex() {
  static std::mutex mutex;
  return mutex;
}

void check(const NcclApi &api, ncclResult_t result, const char *call,
           const char *caller, const Collective *c = nullptr) {
  if (result == ncclSuccess)
    return;
  fatal(caller, std::string(call) + " failed with " +
                    api.getErrorString(result) +
                    (c ? " in " + c->name() : std::string()) +
                    " (NCCL_DEBUG=WARN says more)");
}

std::string rendezvousDir(const World &w, const char *caller) {
  if (const char *dir = std::getenv("RLX_COMM_DIR"); dir && *dir)
    return dir;
  if (w.jobId.empty())
    fatal(caller, "the ranks of this run (started by " + w.launcher +
                      ") have no job id to meet by; set RLX_COMM_DIR to a "
                      "directory every rank can read (docs/distributed.md)");
  return "/tmp/rlx-comm-" + w.jobId;
}

/// The world's unique id: rank 0 creates it and publishes it as a file
/// (written, then renamed into place); the others wait for the file.
ncclUniqueId exchangeUniqueId(const NcclApi &api, const World &w,
                              const std::string &file, const char *caller) {
  ncclUniqueId id;
  if (w.rank == 0) {
    check(api, api.getUniqueId(&id), "ncclGetUniqueId", caller);
    std::string dir = file.substr(0, file.rfind('/'));
    ::mkdir(dir.c_str(), 0700);
    std::string partial = file + ".partial." + std::to_string(::getpid());
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      out.write(id.internal, sizeof(id.internal));
      if (!out.flush())
        fatal(caller, "cannot write the NCCL id to " + partial);
    }
    if (std::rename(partial.c_str(), file.c_str()) != 0)
      fatal(caller, "cannot rename " + partial + " to " + file + ": " +
                        std::strerror(errno));
    return id;
  }
  double timeout = 300;
  if (const char *text = std::getenv("RLX_COMM_TIMEOUT"); text && *text)
    timeout = std::max(1.0, std::strtod(text, nullptr));
  auto start = std::chrono::steady_clock::now();
  while (true) {
    std::ifstream in(file, std::ios::binary);
    if (in.read(id.internal, sizeof(id.internal)))
      return id;
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (waited > timeout)
      fatal(caller, "rank " + std::to_string(w.rank) + " waited " +
                        std::to_string(int(timeout)) +
                        " s for rank 0's NCCL id in " + file +
                        " (RLX_COMM_TIMEOUT sets the limit; ranks on several "
                        "hosts need RLX_COMM_DIR on a shared file system)");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

ncclComm_t worldComm(const NcclApi &api, const char *caller) {
  static ncclComm_t comm = nullptr;
  if (comm)
    return comm;
  const World &w = world();
  std::string dir = rendezvousDir(w, caller);
  std::string file =
      dir + "/nccl-id" + (w.jobId.empty() ? std::string() : "-" + w.jobId);
  ncclUniqueId id = exchangeUniqueId(api, w, file, caller);
  check(api, api.commInitRank(&comm, w.size, id, w.rank), "ncclCommInitRank",
        caller);
  // Every rank has joined once the initialisation returns: the file has
  // been read.
  if (w.rank == 0) {
    std::remove(file.c_str());
    if (!std::getenv("RLX_COMM_DIR"))
      ::rmdir(dir.c_str());
  }
  return comm;
}

/// The communicator of the group `c` spans that holds this rank, split from
/// the world's once per (mesh, axes); its ranks are in group order.
ncclComm_t groupComm(const NcclApi &api, const Collective &c,
                     const char *caller) {
  ncclComm_t world = worldComm(api, caller);
  if (c.spansEveryAxis())
    return world;
  static std::map<std::vector<int64_t>, ncclComm_t> comms;
  std::vector<int64_t> key = c.groupKey();
  if (auto it = comms.find(key); it != comms.end())
    return it->second;
  Collective::Place place = c.placeOf(::world().rank);
  ncclComm_t comm = nullptr;
  check(
      api,
      api.commSplit(world, int(place.color), int(place.index), &comm, nullptr),
      "ncclCommSplit", caller, &c);
  comms.emplace(std::move(key), comm);
  return comm;
}

std::optional<ncclDataType_t> ncclType(int32_t dtype) {
  switch (dtype) {
  case RLX_DTYPE_F32:
    return ncclFloat32;
  case RLX_DTYPE_F64:
    return ncclFloat64;
  case RLX_DTYPE_F16:
    return ncclFloat16;
  case RLX_DTYPE_BF16:
    return ncclBfloat16;
  case RLX_DTYPE_I8:
    return ncclInt8;
  case RLX_DTYPE_I32:
    return ncclInt32;
  case RLX_DTYPE_I64:
    return ncclInt64;
  default:
    return std::nullopt;
  }
}

ncclRedOp_t ncclOp(int32_t kind) {
  switch (kind) {
  case kMean:
    return ncclAvg;
  case kMax:
    return ncclMax;
  case kMin:
    return ncclMin;
  default:
    return ncclSum;
  }
}

CUdeviceptr at(const void *base, int64_t offsetBytes) {
  return reinterpret_cast<CUdeviceptr>(static_cast<const char *>(base) +
                                       offsetBytes);
}

/// `dst[y][x][:]` = `src[x][y][:]` for device buffers viewed as
/// [X][Y][bytes], as 2-D copies on `stream` (one per row of the shorter
/// side).
void swapOuterDims(const Session &cu, CUstream stream, const void *src,
                   void *dst, int64_t x, int64_t y, int64_t bytes) {
  bool byX = x <= y;
  for (int64_t i = 0; i < (byX ? x : y); ++i) {
    CUDA_MEMCPY2D copy;
    std::memset(&copy, 0, sizeof(copy));
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.WidthInBytes = bytes;
    if (byX) {
      // src row i ([Y][bytes], contiguous) to dst column i.
      copy.srcDevice = at(src, i * y * bytes);
      copy.srcPitch = bytes;
      copy.dstDevice = at(dst, i * bytes);
      copy.dstPitch = x * bytes;
      copy.Height = y;
    } else {
      // src column j to dst row j ([X][bytes], contiguous).
      copy.srcDevice = at(src, i * bytes);
      copy.srcPitch = y * bytes;
      copy.dstDevice = at(dst, i * x * bytes);
      copy.dstPitch = bytes;
      copy.Height = x;
    }
    cu.check(cu->cuMemcpy2DAsync(&copy, stream), "cuMemcpy2DAsync");
  }
}

/// A device buffer from the graph's stream-ordered allocator, freed when
/// it goes out of scope (after the work queued on it).
struct Scratch {
  const Session &cu;
  CUstream stream;
  void *data;
  Scratch(const Session &cu, CUstream stream, int64_t bytes)
      : cu(cu), stream(stream), data(allocateDevice(cu, bytes, stream)) {}
  ~Scratch() { freeMemory(cu, data, stream); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
};

void run(const Session &cu, const Collective &c, const void *in, void *out,
         const char *caller, CUstream stream) {
  int64_t ranks = c.groupSize();
  int64_t bytes = c.elementBytes;
  int64_t count = c.elements();
  // A group of one rank (every group, in a world of one) is a copy, and
  // never opens NCCL.
  if (ranks == 1) {
    cu.check(cu->cuMemcpyAsync(at(out, 0), at(in, 0), count * bytes, stream),
             "cuMemcpyAsync");
    return;
  }
  const NcclApi &api = nccl(caller);
  ncclComm_t comm = groupComm(api, c, caller);
  std::optional<ncclDataType_t> type = ncclType(c.dtype);
  if (c.kind >= 0 && !type)
    fatal(caller,
          c.name() + ": NCCL combines no dtype " + std::to_string(c.dtype));
  auto ok = [&](ncclResult_t result, const char *call) {
    check(api, result, call, caller, &c);
  };
  switch (c.op) {
  case kAllReduce:
    ok(api.allReduce(in, out, count, *type, ncclOp(c.kind), comm, stream),
       "ncclAllReduce");
    return;
  case kAllGather: {
    // Each rank's tensor as [outer][inner]; the gathered [rank][outer][inner]
    // goes to [outer][rank][inner].
    int64_t outer = c.product(0, c.first);
    int64_t inner = c.product(c.first, c.dims.size()) * bytes;
    if (outer == 1) {
      ok(api.allGather(in, out, inner, ncclUint8, comm, stream),
         "ncclAllGather");
      return;
    }
    Scratch gathered(cu, stream, ranks * outer * inner);
    ok(api.allGather(in, gathered.data, outer * inner, ncclUint8, comm, stream),
       "ncclAllGather");
    swapOuterDims(cu, stream, gathered.data, out, ranks, outer, inner);
    return;
  }
  case kReduceScatter: {
    // [outer][rank][inner] packed to [rank][outer][inner]: one block a rank.
    int64_t outer = c.product(0, c.first);
    int64_t inner =
        c.dims[c.first] / ranks * c.product(c.first + 1, c.dims.size());
    if (outer == 1) {
      ok(api.reduceScatter(in, out, inner, *type, ncclOp(c.kind), comm, stream),
         "ncclReduceScatter");
      return;
    }
    Scratch packed(cu, stream, count * bytes);
    swapOuterDims(cu, stream, in, packed.data, outer, ranks, inner * bytes);
    ok(api.reduceScatter(packed.data, out, outer * inner, *type, ncclOp(c.kind),
                         comm, stream),
       "ncclReduceScatter");
    return;
  }
  case kAllToAll: {
    // Send: the input as [A][rank][B] packed to [rank][A][B]. Receive: one
    // block from each rank, shaped as the input with split_dim divided,
    // seen as [A'][C * B'] around concat_dim and placed at [A'][rank][..].
    int64_t a = c.product(0, c.first);
    int64_t b = c.dims[c.first] / ranks * c.product(c.first + 1, c.dims.size());
    int64_t block = a * b * bytes;
    Scratch send(cu, stream, a == 1 ? 0 : count * bytes);
    const void *sendData = in;
    if (a != 1) {
      swapOuterDims(cu, stream, in, send.data, a, ranks, b * bytes);
      sendData = send.data;
    }
    std::vector<int64_t> piece = c.dims;
    piece[c.first] /= ranks;
    int64_t outer = 1, rest = 1;
    for (size_t d = 0; d < piece.size(); ++d)
      (int64_t(d) < c.second ? outer : rest) *= piece[d];
    Scratch received(cu, stream, outer == 1 ? 0 : count * bytes);
    void *receiveData = outer == 1 ? out : received.data;
    ok(api.groupStart(), "ncclGroupStart");
    for (int64_t peer = 0; peer < ranks; ++peer) {
      ok(api.send(static_cast<const char *>(sendData) + peer * block, block,
                  ncclUint8, int(peer), comm, stream),
         "ncclSend");
      ok(api.recv(static_cast<char *>(receiveData) + peer * block, block,
                  ncclUint8, int(peer), comm, stream),
         "ncclRecv");
    }
    ok(api.groupEnd(), "ncclGroupEnd");
    if (outer != 1)
      swapOuterDims(cu, stream, received.data, out, ranks, outer, rest * bytes);
    return;
  }
  case kBroadcast:
    ok(api.broadcast(in, out, count * bytes, ncclUint8, int(c.first), comm,
                     stream),
       "ncclBroadcast");
    return;
  case kReduceToRoot:
    ok(api.reduce(in, out, count, *type, ncclOp(c.kind), int(c.first), comm,
                  stream),
       "ncclReduce");
    // rlx defines the result on every rank: zeros off the root.
    if (c.placeOf(world().rank).index != c.first)
      cu.check(cu->cuMemsetD8Async(at(out, 0), 0, count * bytes, stream),
               "cuMemsetD8Async");
    return;
  default:
    fatal(caller, "unknown collective op code " + std::to_string(c.op));
  }
}

/// The aligned start and the sizes of a rank-`rank` memref descriptor
/// (MLIR's C interface), which must be dense and row-major.
const char *denseData(const void *descriptor, int rank,
                      std::vector<int64_t> &sizes, const char *what,
                      const Collective &c, const char *caller) {
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  const auto *header = static_cast<const Header *>(descriptor);
  const auto *rest = reinterpret_cast<const int64_t *>(header + 1);
  sizes.assign(rest, rest + rank);
  int64_t expected = 1;
  for (int d = rank; d-- > 0;) {
    if (sizes[d] != 1 && rest[rank + d] != expected)
      fatal(caller,
            c.name() + ": its " + what + " buffer is not dense and row-major");
    expected *= sizes[d];
  }
  return header->aligned + header->offset * c.elementBytes;
}

/// The collective of `flags` on the descriptors `input` and `output`, with
/// its data pointers; fatal, naming it, when the run has not its mesh's
/// ranks.
Collective describe(const char *caller, int rank, const void *input,
                    const void *output, const int32_t *flags, const char *&in,
                    char *&out) {
  Collective c;
  c.op = flags[kCudaOp];
  c.kind = flags[kCudaKind];
  c.dtype = flags[kCudaDType];
  c.first = flags[kCudaFirst];
  c.second = flags[kCudaSecond];
  c.index = flags[kCudaOpIndex];
  if (c.dtype < 0 || c.dtype > RLX_DTYPE_C64)
    fatal(caller, c.name() + ": dtype code " + std::to_string(c.dtype) +
                      " is none of RLX's");
  // RLX_DTYPE_* and rlxrt::DType number the types alike.
  c.elementBytes = rlxrt::dtypeSize(static_cast<rlxrt::DType>(c.dtype));
  for (int32_t d = 0; d < flags[kCudaMeshRank]; ++d) {
    c.mesh.push_back(flags[kCudaMesh + d]);
    if (flags[kCudaAxesMask] & (1 << d))
      c.axes.push_back(d);
  }
  std::vector<int64_t> outputSizes;
  in = denseData(input, rank, c.dims, "input", c, caller);
  out = const_cast<char *>(
      denseData(output, rank, outputSizes, "output", c, caller));
  const World &w = world();
  if (c.meshSize() != w.size)
    fatal(caller,
          c.name() + " runs over mesh " + meshText(c.mesh) + " of " +
              std::to_string(c.meshSize()) + " ranks, but this run has " +
              std::to_string(w.size) +
              (w.launcher.empty()
                   ? " rank (not started by a launcher): run it with "
                     "rlx-run --ranks " +
                         std::to_string(c.meshSize()) + " or mpirun -np " +
                         std::to_string(c.meshSize())
                   : " (started by " + w.launcher + ")"));
  return c;
}

/// The calling thread's communication stream and the collectives started
/// on it (rlx-cuda-overlap-collectives): each one's completion event, by op
/// index, until the graph's stream waits for it.
struct CommStream {
  CUstream stream = nullptr;
  /// Recorded on the graph's stream where a collective starts; reused,
  /// since a wait takes the event's state when it is enqueued.
  CUevent fork = nullptr;
  std::map<int32_t, CUevent> pending;
  std::vector<CUevent> spare;
};
thread_local CommStream threadComm;

CUevent takeEvent(const Session &cu) {
  CUevent event;
  if (!threadComm.spare.empty()) {
    event = threadComm.spare.back();
    threadComm.spare.pop_back();
    return event;
  }
  cu.check(cu->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return event;
}

/// Whether `c` runs without scratch buffers, which the communication
/// stream does not allocate: a one-rank copy, or an NCCL call on the
/// buffers themselves.
bool runsInPlace(const Collective &c) {
  if (c.groupSize() == 1)
    return true;
  switch (c.op) {
  case kAllReduce:
  case kBroadcast:
  case kReduceToRoot:
    return true;
  case kAllGather:
  case kReduceScatter:
    return c.product(0, c.first) == 1;
  default:
    return false;
  }
}

/// Runs the collective of `flags` on the graph's stream, or with `overlap`
/// (rlx_cuda_collective_start_*) starts it on the communication stream
/// where it runs in place.
void collective(const char *caller, int rank, const void *input,
                const void *output, const int32_t *flags, bool overlap) {
  const char *in;
  char *out;
  Collective c = describe(caller, rank, input, output, flags, in, out);
  Session cu(caller);
  std::lock_guard<std::mutex> lock(commMutex());
  CUstream graph = graphStream(cu);
  if (!overlap || !runsInPlace(c)) {
    run(cu, c, in, out, caller, graph);
    return;
  }
  // Left by a run that failed before its wait: joined now, so that no
  // work of it stays unordered.
  if (auto it = threadComm.pending.find(c.index);
      it != threadComm.pending.end()) {
    cu.check(cu->cuStreamWaitEvent(graph, it->second, 0), "cuStreamWaitEvent");
    threadComm.spare.push_back(it->second);
    threadComm.pending.erase(it);
  }
  if (!threadComm.stream) {
    cu.check(cu->cuStreamCreate(&threadComm.stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate");
    cu.check(cu->cuEventCreate(&threadComm.fork, CU_EVENT_DISABLE_TIMING),
             "cuEventCreate");
  }
  // After everything the graph's stream ran so far (the input's producer).
  cu.check(cu->cuEventRecord(threadComm.fork, graph), "cuEventRecord");
  cu.check(cu->cuStreamWaitEvent(threadComm.stream, threadComm.fork, 0),
           "cuStreamWaitEvent");
  run(cu, c, in, out, caller, threadComm.stream);
  CUevent done = takeEvent(cu);
  cu.check(cu->cuEventRecord(done, threadComm.stream), "cuEventRecord");
  threadComm.pending[c.index] = done;
}

} // namespace

/// The graph's stream waits for the collective of op index `index` that
/// rlx_cuda_collective_start_* started; nothing when it ran on the graph's
/// stream.
extern "C" __attribute__((visibility("default"))) void
_mlir_ciface_rlx_cuda_collective_wait(int32_t index) {
  auto it = threadComm.pending.find(index);
  if (it == threadComm.pending.end())
    return;
  Session cu(__func__);
  cu.check(cu->cuStreamWaitEvent(graphStream(cu), it->second, 0),
           "cuStreamWaitEvent");
  threadComm.spare.push_back(it->second);
  threadComm.pending.erase(it);
}

// One entry point per rank and element type, as the compiler declares them
// (the layout of a descriptor depends on the rank only; the dtype argument
// says the type), each in order on the graph's stream (`rlx_cuda_collective_r`)
// and started beside it (`rlx_cuda_collective_start_r`).
#define RLX_CUDA_COLLECTIVE_ENTRY(prefix, rank, type, overlap)                 \
  extern "C" __attribute__((visibility("default"))) void                       \
      _mlir_ciface_##prefix##rank##_##type(                                    \
          const void *input, const void *output, int32_t op, int32_t kind,     \
          int32_t dtype, int32_t first, int32_t second, int32_t index,         \
          int32_t meshRank, int32_t mesh0, int32_t mesh1, int32_t mesh2,       \
          int32_t mesh3, int32_t axesMask) {                                   \
    const int32_t flags[kCudaFlagCount] = {op,     kind,  dtype,    first,     \
                                           second, index, meshRank, mesh0,     \
                                           mesh1,  mesh2, mesh3,    axesMask}; \
    collective(__func__, rank, input, output, flags, overlap);                 \
  }
#define RLX_CUDA_COLLECTIVE_ENTRIES(rank, type)                                \
  RLX_CUDA_COLLECTIVE_ENTRY(rlx_cuda_collective_r, rank, type, false)          \
  RLX_CUDA_COLLECTIVE_ENTRY(rlx_cuda_collective_start_r, rank, type, true)
#define RLX_CUDA_COLLECTIVE_TYPES(rank)                                        \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, f32)                                       \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, f64)                                       \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, f16)                                       \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, bf16)                                      \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, i1)                                        \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, i8)                                        \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, i32)                                       \
  RLX_CUDA_COLLECTIVE_ENTRIES(rank, i64)

RLX_CUDA_COLLECTIVE_TYPES(0)
RLX_CUDA_COLLECTIVE_TYPES(1)
RLX_CUDA_COLLECTIVE_TYPES(2)
RLX_CUDA_COLLECTIVE_TYPES(3)
RLX_CUDA_COLLECTIVE_TYPES(4)
RLX_CUDA_COLLECTIVE_TYPES(5)
RLX_CUDA_COLLECTIVE_TYPES(6)

#undef RLX_CUDA_COLLECTIVE_TYPES
#undef RLX_CUDA_COLLECTIVE_ENTRIES
#undef RLX_CUDA_COLLECTIVE_ENTRY

static_assert(kCudaFlagCount == 12 && kMaxCudaMeshRank == 4,
              "the entry points' arguments follow CudaCollectiveFlag");
