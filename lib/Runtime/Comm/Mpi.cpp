//===- Mpi.cpp - collectives of compiled graphs over MPI ------------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// rlx_rt_collective runs one collective op of a graph (the table layout is
// include/rlx/Runtime/Collectives.h). MPI is opened with dlopen, and only
// when the process was started by an MPI launcher, so neither the compiler
// nor the runtime links libmpi and a graph without collectives never loads
// it. A process not started by a launcher is a world of one rank: a
// collective over a group of one rank is an identity, one over more ranks
// is an error that says how to launch the run.
//
// A failure (no MPI library, a mesh the run's ranks do not match, an error
// an MPI call returns) is the run's error status, never the end of the host
// process (lib/Runtime/CPU/RunStatus.cpp). MPI's own default error handler
// still aborts the job on an error inside an MPI call; a host that sets
// MPI_ERRORS_RETURN gets those as statuses too.
//
// MPI's handles are not part of its API's ABI: Open MPI's are pointers to
// its predefined objects (ompi_mpi_comm_world, ompi_mpi_float, ...), which
// dlsym finds; MPICH's are integer constants. This file binds Open MPI's
// (Debian's libopenmpi-dev); another MPI is refused with a message.
//
//===----------------------------------------------------------------------===//

#include "../CPU/RunStatus.h"
#include "Collective.h"

#include "rlx-c/RLX.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

using namespace rlxrt::comm;

namespace {

// Open MPI's handles are pointers; these are the C API's signatures with
// them as `void *`.
using Handle = void *;
struct MpiApi {
  int (*initialized)(int *);
  int (*initThread)(int *, char ***, int, int *);
  int (*finalized)(int *);
  int (*finalize)();
  int (*commRank)(Handle, int *);
  int (*commSize)(Handle, int *);
  int (*commSplit)(Handle, int, int, Handle *);
  int (*allreduce)(const void *, void *, int, Handle, Handle, Handle);
  int (*allgather)(const void *, int, Handle, void *, int, Handle, Handle);
  int (*reduceScatterBlock)(const void *, void *, int, Handle, Handle, Handle);
  int (*alltoall)(const void *, int, Handle, void *, int, Handle, Handle);
  int (*bcast)(void *, int, Handle, int, Handle);
  int (*reduce)(const void *, void *, int, Handle, Handle, int, Handle);
  int (*errorString)(int, char *, int *);
  Handle commWorld, byteType, opSum, opMax, opMin;
  Handle f32, f64, i8, i16, i32, i64;
};

/// MPI_THREAD_SERIALIZED (the same value in Open MPI and MPICH): graphs may
/// run on any thread, one collective at a time (the mutex below).
constexpr int kThreadSerialized = 2;

struct World {
  const MpiApi *mpi = nullptr;
  int rank = 0, size = 1;
  /// Why MPI could not be set up; every collective fails with it.
  std::string error;
};

std::mutex &commMutex() {
  static std::mutex mutex;
  return mutex;
}

const MpiApi *openedMpi = nullptr;
/// Whether a collective failed on its way through MPI: ranks may then wait
/// in a collective for this one, and MPI_Finalize (collective too) would
/// wait for them forever.
std::atomic<bool> collectiveFailed{false};

/// Ends the collective under way with `message`, caught in
/// rlx_rt_collective, which makes it the run's error.
[[noreturn]] void fail(const std::string &message) {
  throw std::runtime_error(message);
}

/// Whether an MPI launcher (mpirun, mpiexec, srun with PMI) started this
/// process, by the variables each sets in its ranks' environments.
bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name))
      return true;
  return false;
}

void *openLibrary() {
  std::vector<std::string> tried;
  // RTLD_GLOBAL: Open MPI's components, which it opens itself, resolve
  // libmpi's symbols from the global scope.
  auto open = [&](const std::string &path) -> void * {
    tried.push_back(path);
    return dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  };
  if (const char *path = std::getenv("RLX_MPI_LIBRARY")) {
    if (void *library = open(path))
      return library;
    fail(std::string("cannot open RLX_MPI_LIBRARY='") + path +
         "': " + dlerror());
  }
  for (const char *name : {"libmpi.so.40", "libmpi.so.12", "libmpi.so"})
    if (void *library = open(name))
      return library;
  std::string list;
  for (const std::string &path : tried)
    list += (list.empty() ? "" : ", ") + path;
  fail("this process was started by an MPI launcher, but no MPI library "
       "opens (tried " +
       list +
       "); install Open MPI (scripts/setup.sh) or set RLX_MPI_LIBRARY to "
       "libmpi.so");
}

const MpiApi &loadMpi() {
  static MpiApi api;
  void *library = openLibrary();
  auto bind = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        dlsym(library, name));
    if (!slot)
      fail(std::string("the MPI library has no ") + name);
  };
  if (!dlsym(library, "ompi_mpi_comm_world"))
    fail("the MPI library is not Open MPI: rlx binds Open MPI's handles "
         "(docs/distributed.md); point RLX_MPI_LIBRARY at Open MPI's "
         "libmpi.so");
  bind(api.initialized, "MPI_Initialized");
  bind(api.initThread, "MPI_Init_thread");
  bind(api.finalized, "MPI_Finalized");
  bind(api.finalize, "MPI_Finalize");
  bind(api.commRank, "MPI_Comm_rank");
  bind(api.commSize, "MPI_Comm_size");
  bind(api.commSplit, "MPI_Comm_split");
  bind(api.allreduce, "MPI_Allreduce");
  bind(api.allgather, "MPI_Allgather");
  bind(api.reduceScatterBlock, "MPI_Reduce_scatter_block");
  bind(api.alltoall, "MPI_Alltoall");
  bind(api.bcast, "MPI_Bcast");
  bind(api.reduce, "MPI_Reduce");
  bind(api.errorString, "MPI_Error_string");
  // The predefined objects' addresses are the handles.
  bind(api.commWorld, "ompi_mpi_comm_world");
  bind(api.byteType, "ompi_mpi_byte");
  bind(api.opSum, "ompi_mpi_op_sum");
  bind(api.opMax, "ompi_mpi_op_max");
  bind(api.opMin, "ompi_mpi_op_min");
  bind(api.f32, "ompi_mpi_float");
  bind(api.f64, "ompi_mpi_double");
  bind(api.i8, "ompi_mpi_int8_t");
  bind(api.i16, "ompi_mpi_int16_t");
  bind(api.i32, "ompi_mpi_int32_t");
  bind(api.i64, "ompi_mpi_int64_t");
  return api;
}

void check(const MpiApi &mpi, int status, const char *call) {
  if (status == 0)
    return;
  char text[512] = {0};
  int length = 0;
  mpi.errorString(status, text, &length);
  fail(std::string(call) + " failed: " + text);
}

void finalizeAtExit() {
  // Left unfinalized, the process exits as one that failed: the launcher
  // ends the ranks still waiting for it.
  if (collectiveFailed)
    return;
  int done = 0;
  openedMpi->finalized(&done);
  if (!done)
    openedMpi->finalize();
}

/// The world, set up once: MPI initialised (unless the host program did)
/// when a launcher started the process.
const World &world() {
  static World world;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!launchedByMpi())
      return;
    // Set up once, failed or not: MPI cannot be initialised twice.
    try {
      const MpiApi &mpi = loadMpi();
      int initialized = 0;
      mpi.initialized(&initialized);
      if (!initialized) {
        int provided = 0;
        check(mpi,
              mpi.initThread(nullptr, nullptr, kThreadSerialized, &provided),
              "MPI_Init_thread");
        std::atexit(finalizeAtExit);
      }
      openedMpi = &mpi;
      check(mpi, mpi.commRank(mpi.commWorld, &world.rank), "MPI_Comm_rank");
      check(mpi, mpi.commSize(mpi.commWorld, &world.size), "MPI_Comm_size");
      world.mpi = &mpi;
    } catch (const std::exception &error) {
      world = World();
      world.error = error.what();
    }
  });
  return world;
}

/// The op's description, read from its table.
Collective readTable(const int64_t *table) {
  Collective c;
  c.op = table[kOp];
  c.kind = table[kKind];
  c.dtype = table[kDType];
  c.elementBytes = table[kElementBytes];
  c.first = table[kFirstAttr];
  c.second = table[kSecondAttr];
  c.index = table[kOpIndex];
  const int64_t *at = table + kDims;
  c.dims.assign(at, at + table[kRank]);
  at += table[kRank];
  c.mesh.assign(at + 1, at + 1 + at[0]);
  at += 1 + at[0];
  c.axes.assign(at + 1, at + 1 + at[0]);
  return c;
}

/// The communicator of the group `c` spans that holds this rank; the world
/// itself when it spans every axis. Split once per (mesh, axes): every rank
/// reaches a graph's collectives in the same order, so the splits (which
/// are collective over the world) match up.
Handle groupComm(const World &w, const Collective &c) {
  if (c.spansEveryAxis())
    return w.mpi->commWorld;
  static std::map<std::vector<int64_t>, Handle> comms;
  std::vector<int64_t> key = c.groupKey();
  auto it = comms.find(key);
  if (it != comms.end())
    return it->second;
  Collective::Place place = c.placeOf(w.rank);
  Handle comm = nullptr;
  check(*w.mpi,
        w.mpi->commSplit(w.mpi->commWorld, int(place.color), int(place.index),
                         &comm),
        "MPI_Comm_split");
  comms.emplace(std::move(key), comm);
  return comm;
}

/// This rank's index in its group.
int64_t groupRank(const World &w, const Collective &c) {
  return c.placeOf(w.rank).index;
}

Handle mpiType(const MpiApi &mpi, int64_t dtype) {
  switch (dtype) {
  case RLX_DTYPE_F32:
    return mpi.f32;
  case RLX_DTYPE_F64:
    return mpi.f64;
  case RLX_DTYPE_I8:
    return mpi.i8;
  case RLX_DTYPE_I16:
    return mpi.i16;
  case RLX_DTYPE_I32:
    return mpi.i32;
  case RLX_DTYPE_I64:
    return mpi.i64;
  default:
    return nullptr;
  }
}

Handle mpiOp(const MpiApi &mpi, int64_t kind) {
  switch (kind) {
  case kMax:
    return mpi.opMax;
  case kMin:
    return mpi.opMin;
  default: // sum, and mean (a sum divided afterwards)
    return mpi.opSum;
  }
}

/// `dst[y][x][:]` = `src[x][y][:]` for `src` viewed as [X][Y][bytes].
void swapOuterDims(const char *src, char *dst, int64_t x, int64_t y,
                   int64_t bytes) {
  for (int64_t i = 0; i < x; ++i)
    for (int64_t j = 0; j < y; ++j)
      std::memcpy(dst + (j * x + i) * bytes, src + (i * y + j) * bytes, bytes);
}

void divideBy(void *data, int64_t count, int64_t dtype, int64_t ranks) {
  if (dtype == RLX_DTYPE_F32)
    for (float *v = static_cast<float *>(data), *e = v + count; v != e; ++v)
      *v /= static_cast<float>(ranks);
  else if (dtype == RLX_DTYPE_F64)
    for (double *v = static_cast<double *>(data), *e = v + count; v != e; ++v)
      *v /= static_cast<double>(ranks);
}

int toCount(const Collective &c, int64_t count) {
  if (count > 0x7fffffff)
    fail(c.name() + " moves " + std::to_string(count) +
         " elements at once; MPI's counts stop at 2^31 - 1");
  return static_cast<int>(count);
}

/// A world of one rank: every collective over a group of one is a copy
/// (reduce_to_root's root is that rank).
void runAlone(const Collective &c, const char *in, char *out) {
  std::memcpy(out, in, c.elements() * c.elementBytes);
}

void run(const World &w, const Collective &c, const char *in, char *out) {
  const MpiApi &mpi = *w.mpi;
  Handle comm = groupComm(w, c);
  int64_t ranks = c.groupSize();
  int64_t bytes = c.elementBytes;
  int64_t count = c.elements();
  Handle type = mpiType(mpi, c.dtype);
  if (c.kind >= 0 && !type)
    fail(c.name() + ": no MPI type combines dtype " + std::to_string(c.dtype));
  switch (c.op) {
  case kAllReduce:
    check(mpi,
          mpi.allreduce(in, out, toCount(c, count), type, mpiOp(mpi, c.kind),
                        comm),
          "MPI_Allreduce");
    if (c.kind == kMean)
      divideBy(out, count, c.dtype, ranks);
    return;
  case kAllGather: {
    // Each rank's tensor as [outer][inner]; the gathered [rank][outer][inner]
    // goes to [outer][rank][inner].
    int64_t outer = c.product(0, c.first);
    int64_t inner = c.product(c.first, c.dims.size()) * bytes;
    std::vector<char> gathered(outer == 1 ? 0 : ranks * outer * inner);
    char *into = outer == 1 ? out : gathered.data();
    check(mpi,
          mpi.allgather(in, toCount(c, outer * inner), mpi.byteType, into,
                        toCount(c, outer * inner), mpi.byteType, comm),
          "MPI_Allgather");
    if (outer != 1)
      swapOuterDims(gathered.data(), out, ranks, outer, inner);
    return;
  }
  case kReduceScatter: {
    // [outer][rank][inner] packed to [rank][outer][inner]: one block per rank.
    int64_t outer = c.product(0, c.first);
    int64_t inner =
        c.dims[c.first] / ranks * c.product(c.first + 1, c.dims.size());
    std::vector<char> packed(outer == 1 ? 0 : count * bytes);
    if (outer != 1)
      swapOuterDims(in, packed.data(), outer, ranks, inner * bytes);
    check(mpi,
          mpi.reduceScatterBlock(outer == 1 ? in : packed.data(), out,
                                 toCount(c, outer * inner), type,
                                 mpiOp(mpi, c.kind), comm),
          "MPI_Reduce_scatter_block");
    if (c.kind == kMean)
      divideBy(out, outer * inner, c.dtype, ranks);
    return;
  }
  case kAllToAll: {
    // Send: the input as [A][rank][B] packed to [rank][A][B]. Receive: the
    // block of each rank, shaped as the input with split_dim divided, seen as
    // [A'][C * B'] around concat_dim and placed at [A'][rank][C * B'].
    int64_t split = c.first, concat = c.second;
    int64_t a = c.product(0, split);
    int64_t b = c.dims[split] / ranks * c.product(split + 1, c.dims.size());
    std::vector<char> send(count * bytes), received(count * bytes);
    swapOuterDims(in, send.data(), a, ranks, b * bytes);
    int block = toCount(c, a * b * bytes);
    check(mpi,
          mpi.alltoall(send.data(), block, mpi.byteType, received.data(), block,
                       mpi.byteType, comm),
          "MPI_Alltoall");
    std::vector<int64_t> piece = c.dims;
    piece[split] /= ranks;
    int64_t outer = 1, rest = 1;
    for (size_t d = 0; d < piece.size(); ++d)
      (int64_t(d) < concat ? outer : rest) *= piece[d];
    swapOuterDims(received.data(), out, ranks, outer, rest * bytes);
    return;
  }
  case kBroadcast:
    if (groupRank(w, c) == c.first)
      std::memcpy(out, in, count * bytes);
    check(mpi,
          mpi.bcast(out, toCount(c, count * bytes), mpi.byteType, int(c.first),
                    comm),
          "MPI_Bcast");
    return;
  case kReduceToRoot: {
    bool isRoot = groupRank(w, c) == c.first;
    check(mpi,
          mpi.reduce(in, out, toCount(c, count), type, mpiOp(mpi, c.kind),
                     int(c.first), comm),
          "MPI_Reduce");
    if (!isRoot)
      std::memset(out, 0, count * bytes);
    else if (c.kind == kMean)
      divideBy(out, count, c.dtype, ranks);
    return;
  }
  default:
    fail("unknown collective op code " + std::to_string(c.op));
  }
}

void runCollective(const World &w, const Collective &c, const char *in,
                   char *out) {
  if (!w.error.empty())
    fail(w.error);
  if (c.meshSize() != 1 && !w.mpi && std::getenv("RLX_WORLD_SIZE"))
    fail(c.name() +
         " runs on the CPU, whose collectives run over MPI; "
         "rlx-run --ranks starts the ranks of CUDA graphs (NCCL): "
         "launch this one with mpirun -np " +
         std::to_string(c.meshSize()));
  if (c.meshSize() != w.size)
    fail(c.name() + " runs over mesh " + meshText(c.mesh) + " of " +
         std::to_string(c.meshSize()) + " ranks, but this run has " +
         std::to_string(w.size) +
         (w.mpi ? " ranks" : " rank (not started by an MPI launcher)") +
         ": launch it with mpirun -np " + std::to_string(c.meshSize()));
  if (!w.mpi)
    return runAlone(c, in, out);
  std::lock_guard<std::mutex> lock(commMutex());
  try {
    run(w, c, in, out);
  } catch (...) {
    collectiveFailed = true;
    throw;
  }
}

} // namespace

extern "C" {

/// A failure is the run's error (the compiled code returns after the call).
__attribute__((visibility("default"))) void
rlx_rt_collective(int64_t table, int64_t input, int64_t output) {
  const World &w = world();
  try {
    runCollective(w, readTable(reinterpret_cast<const int64_t *>(table)),
                  reinterpret_cast<const char *>(input),
                  reinterpret_cast<char *>(output));
  } catch (const std::bad_alloc &) {
    rlxrt::cpu::recordRunFailure("out of host memory in a collective",
                                 /*outOfMemory=*/true);
  } catch (const std::exception &error) {
    rlxrt::cpu::recordRunFailure(error.what());
  }
}

__attribute__((visibility("default"))) void rlx_rt_comm_world(int64_t *rank,
                                                              int64_t *size) {
  const World &w = world();
  *rank = w.rank;
  *size = w.size;
}

} // extern "C"
