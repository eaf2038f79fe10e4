//===- CPUExecutionTarget.h - run graphs on this host's CPU -----*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_TARGET_CPU_CPUEXECUTIONTARGET_H
#define RLX_TARGET_CPU_CPUEXECUTIONTARGET_H

namespace rlxrt {

/// Registers the `cpu` execution target: rlx-cpu-pipeline, then the MLIR
/// ExecutionEngine (JIT) or an object file linked into a shared library,
/// both calling librlx_cpu_runtime.so. Its default runtime library is
/// `../lib/librlx_cpu_runtime.so` relative to the running executable.
void registerCPUExecutionTarget();

} // namespace rlxrt

#endif // RLX_TARGET_CPU_CPUEXECUTIONTARGET_H
