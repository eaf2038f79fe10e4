//===- CompileCache.h - compiled graphs kept on disk ------------*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The persistent compile cache (docs/compile-cache.md). A compile of the
// same module text with the same options, target, host CPU and compiler
// loads the shared library an earlier process stored instead of compiling:
//
//   auto config = rlxrt::CompileCacheConfig::fromEnvironment();
//   auto graph = rlxrt::compileWithCache(*target, text, entry, parse,
//                                        options, *config);
//
// An entry is the library the ahead-of-time path writes
// (ExecutionTarget::emitSharedLibrary) followed by a trailer holding the
// entry's key and a checksum of the library. Entries are written to a
// temporary file and renamed into place, so a reader sees a whole entry or
// none; the trailer is verified before the library is mapped, and an entry
// that fails the check is removed and compiled again.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_EXECUTION_COMPILECACHE_H
#define RLX_EXECUTION_COMPILECACHE_H

#include "rlx/Execution/ExecutionTarget.h"

#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace rlxrt {

struct CompileCacheConfig {
  /// The default bound on the bytes the cache's entries take together.
  static constexpr uint64_t kDefaultMaxBytes = uint64_t(2) << 30;

  /// The folder of the entries; empty: no cache.
  std::string directory;
  /// Once the entries take more, the least recently used are removed.
  uint64_t maxBytes = kDefaultMaxBytes;
  /// Print one line per lookup (hit, miss, eviction) on stderr.
  bool verbose = false;

  bool isEnabled() const { return !directory.empty(); }

  /// The configuration the environment asks for:
  ///   RLX_CACHE_DIR        the folder; set but empty turns the cache off
  ///                        (default $XDG_CACHE_HOME/rlx, else
  ///                        ~/.cache/rlx)
  ///   RLX_CACHE_MAX_BYTES  the size bound, a byte count with an optional
  ///                        K, M or G suffix (powers of 1024)
  ///   RLX_CACHE_VERBOSE    nonempty and not 0: `verbose`
  /// Fails, naming the variable, on a size that is not a number.
  static llvm::Expected<CompileCacheConfig> fromEnvironment();
};

/// A module parsed for a compile, and the graph function to compile in it
/// (which may depend on the module: rlx-run's training step).
struct ParsedGraph {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string entry;
};

/// Compiles graph `entry` of the module text `moduleText` for `target`
/// through the cache of `config`. `parse` makes the module when it must be
/// compiled (never on a hit; twice when a stored entry vanished before it
/// was loaded); `entry` is the function's name as given,
/// empty for the module's only public one; `entryRule` is the rule a caller
/// applies to pick the entry when `entry` is empty, if it has one of its
/// own (both are part of the key). Without a cache, or for a target that
/// does not support one, it parses and compiles as
/// ExecutionTarget::compile does. A cache that cannot be used (a folder
/// that cannot be written) is reported on stderr and the graph compiled
/// without it; only the compile's own errors are returned.
llvm::Expected<std::unique_ptr<CompiledGraph>>
compileWithCache(const ExecutionTarget &target, llvm::StringRef moduleText,
                 llvm::StringRef entry, llvm::StringRef entryRule,
                 llvm::function_ref<llvm::Expected<ParsedGraph>()> parse,
                 const CompileOptions &options,
                 const CompileCacheConfig &config);

} // namespace rlxrt

#endif // RLX_EXECUTION_COMPILECACHE_H
