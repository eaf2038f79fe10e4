//===- Collective.h - one collective op, as both runtimes read it -*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What the MPI (Mpi.cpp) and NCCL (Nccl.cpp) glue share: the description of
// one collective op of a graph, however its compiler passed it, and where a
// rank sits in the op's group.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_COMM_COLLECTIVE_H
#define RLX_LIB_RUNTIME_COMM_COLLECTIVE_H

#include "rlx/Runtime/Collectives.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace rlxrt::comm {

/// One collective op: its code, combination (-1 for none), element type,
/// the op's dim / split_dim / root (`first`) and concat_dim (`second`), its
/// index in the graph, its operand's dims and its group.
struct Collective {
  int64_t op = 0, kind = -1, dtype = 0, elementBytes = 1, first = 0, second = 0,
          index = 0;
  std::vector<int64_t> dims, mesh, axes;

  /// "rlx.all_reduce (collective #3 of the graph)", for diagnostics.
  std::string name() const {
    static const char *names[] = {"rlx.all_reduce",     "rlx.all_gather",
                                  "rlx.reduce_scatter", "rlx.all_to_all",
                                  "rlx.broadcast",      "rlx.reduce_to_root"};
    return std::string(op >= 0 && op <= kReduceToRoot ? names[op]
                                                      : "collective") +
           " (collective #" + std::to_string(index) + " of the graph)";
  }
  int64_t meshSize() const { return productOf(mesh, 0, mesh.size()); }
  int64_t groupSize() const {
    int64_t size = 1;
    for (int64_t axis : axes)
      size *= mesh[axis];
    return size;
  }
  /// The product of dims [from, to).
  int64_t product(size_t from, size_t to) const {
    return productOf(dims, from, to);
  }
  int64_t elements() const { return product(0, dims.size()); }

  /// Where world rank `rank` sits in the op's group: `color` numbers its
  /// group by its mesh coordinates off the spanned axes, `index` orders
  /// it in the group (row-major over the spanned axes), as MPI_Comm_split
  /// and ncclCommSplit take them.
  struct Place {
    int64_t color = 0, index = 0;
  };
  Place placeOf(int64_t rank) const {
    std::vector<int64_t> coords(mesh.size());
    for (size_t d = mesh.size(); d-- > 0;) {
      coords[d] = rank % mesh[d];
      rank /= mesh[d];
    }
    Place place;
    for (size_t d = 0; d < mesh.size(); ++d) {
      bool spanned =
          std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
      int64_t &into = spanned ? place.index : place.color;
      into = into * mesh[d] + coords[d];
    }
    return place;
  }
  /// Whether the group is the whole world.
  bool spansEveryAxis() const { return axes.size() == mesh.size(); }
  /// The key of the group's communicator: the mesh, then the axes.
  std::vector<int64_t> groupKey() const {
    std::vector<int64_t> key = mesh;
    key.push_back(-1);
    key.insert(key.end(), axes.begin(), axes.end());
    return key;
  }

private:
  static int64_t productOf(const std::vector<int64_t> &values, size_t from,
                           size_t to) {
    int64_t count = 1;
    for (size_t d = from; d < to; ++d)
      count *= values[d];
    return count;
  }
};

/// "[2, 4]".
inline std::string meshText(const std::vector<int64_t> &mesh) {
  std::string text = "[";
  for (size_t i = 0; i < mesh.size(); ++i)
    text += (i ? ", " : "") + std::to_string(mesh[i]);
  return text + "]";
}

} // namespace rlxrt::comm

#endif // RLX_LIB_RUNTIME_COMM_COLLECTIVE_H
