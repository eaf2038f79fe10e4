//===- RunStatus.h - the failure status of a graph run -----------*- C++
//-*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What the runtime's failable functions use to report a failure to the run
// that called them (RunStatus.cpp says how the run ends).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_LIB_RUNTIME_CPU_RUNSTATUS_H
#define RLX_LIB_RUNTIME_CPU_RUNSTATUS_H

namespace rlxrt::cpu {

/// Records that the run on this thread failed with `message`, unless it has
/// failed already (the first failure is the one reported). Outside a run,
/// nothing is recorded. Never throws.
void recordRunFailure(const char *message, bool outOfMemory = false);

/// The buffer pool's notes of the blocks it hands out to and takes back from
/// the run on this thread, so that a failed run's blocks are freed. Returns
/// false when the note cannot be kept (out of memory): the allocation must
/// then fail.
bool noteRunAllocation(void *block);
void noteRunFree(void *block);

} // namespace rlxrt::cpu

#endif // RLX_LIB_RUNTIME_CPU_RUNSTATUS_H
