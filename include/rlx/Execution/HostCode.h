//===- HostCode.h - a graph's host code, JIT or shared library -*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// What every target's compile paths end with: the host part of a module
// lowered to the LLVM dialect, with its graph entry (kernels already
// embedded, for a GPU target), compiled for this host, in this process (JIT)
// or into a shared library that depends only on the target's runtime
// library.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_HOSTCODE_H
#define RLX_EXECUTION_HOSTCODE_H

#include "rlx/Execution/CompiledGraph.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace rlxrt {

/// The runtime library a target's graphs call: `requested` (the
/// CompileOptions::runtimeLibrary) if not empty, else `fileName` in the
/// lib/ folder beside the running tool's bin/ folder, where the build and
/// an installation put it. Fails, naming `targetLabel`'s runtime and the
/// path, if the file is not there.
llvm::Expected<std::string> findRuntimeLibrary(llvm::StringRef requested,
                                               llvm::StringRef fileName,
                                               llvm::StringRef targetLabel);

/// Parses `text` (CompileOptions::pipelineOptions) into `options`, the
/// options of the pipeline `pipelineName`; the error names the pipeline and
/// what the parser reported (an unknown option, a bad value).
llvm::Error parsePipelineOptions(mlir::detail::PassOptions &options,
                                 llvm::StringRef text,
                                 llvm::StringRef pipelineName);

/// Runs `pm` on `module`. Fails also when a pass reported an error without
/// signalling failure, so that a compile never prints `error:` and goes on
/// (the diagnostics still reach the handlers installed before). With
/// `timing`, MLIR's pass timing report goes to stderr after the run.
mlir::LogicalResult runCompilePipeline(mlir::PassManager &pm,
                                       mlir::ModuleOp module,
                                       bool timing = false);

/// An error of writing or linking a library rather than of compiling its
/// graph (a full disk, a file size limit, no linker): it carries
/// std::errc::io_error, so a caller can tell the two apart (the compile
/// cache compiles without it then, CompileCache.h).
llvm::Error writeFailure(const llvm::Twine &message);
/// Whether `error` (not consumed) is, or holds, a writeFailure.
bool isWriteFailure(const llvm::Error &error);

/// Compiles `module` (LLVM dialect) for this host as position-independent
/// code and links it into `outputPath`, with `runtimeLibrary` as a
/// dependency (DT_NEEDED) found through an rpath to its folder. With
/// `timing`, every phase's time goes to stderr (CompilePhase). Failures to
/// write or link the library are writeFailures.
llvm::Error emitHostSharedLibrary(mlir::ModuleOp module,
                                  llvm::StringRef outputPath,
                                  llvm::StringRef runtimeLibrary,
                                  bool timing = false);

/// The per-op timers of a graph JIT-compiled from `module`: the labels its
/// pipeline stored in the module (`rlx.profile_labels`) and the timer
/// functions of `runtimeLibrary`, the runtime the JIT loads (opening it
/// again yields that instance). `runtimeName` names it in errors.
llvm::Expected<ProfileTimers>
bindModuleProfileTimers(mlir::ModuleOp module,
                        const std::string &runtimeLibrary,
                        llvm::StringRef runtimeName);

/// JIT-compiles `module` (LLVM dialect, with the graph entry) in this
/// process with `runtimeLibrary` loaded, and returns the graph: its
/// `rlx_graph_run`, and its `rlx_graph_bench` where the module has one.
/// With `timing`, the JIT's time goes to stderr (CompilePhase).
llvm::Expected<std::unique_ptr<CompiledGraph>>
jitCompileGraph(mlir::ModuleOp module, GraphSignature signature,
                llvm::StringRef runtimeLibrary, bool timing = false);

} // namespace rlxrt

#endif // RLX_EXECUTION_HOSTCODE_H
