//===- IRFuzzerSupport.h - shared parts of the IR fuzz targets --*- C++ -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// The MLIR context the IR fuzz targets parse into, a quiet parser, and the
// structure-aware mutator: it parses the input, changes one shape, dim,
// element type or attribute value, and prints the module again, so the
// mutations get past the parser (byte flips rarely do).
//
//===----------------------------------------------------------------------===//

#ifndef RLX_FUZZ_IRFUZZERSUPPORT_H
#define RLX_FUZZ_IRFUZZERSUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstddef>
#include <cstdint>

namespace rlx_fuzz {

/// Registers every dialect and pass of the project (and the upstream ones
/// its pipelines use). Call once, from LLVMFuzzerInitialize.
void initialize();

/// The context inputs are parsed into: every registered dialect loaded,
/// multithreading off. Uniqued types and attributes pile up in a context, so
/// it is replaced every few hundred inputs (call `recycleContext` at the
/// start of each input, while no module of the old one is alive).
mlir::MLIRContext &getContext();
void recycleContext();

/// Parses `text` into a module, verifying it when `verify` is set.
/// Diagnostics go to the caller's handler (none installed: dropped).
mlir::OwningOpRef<mlir::ModuleOp>
parseModule(llvm::StringRef text, mlir::MLIRContext &context, bool verify);

/// The body of LLVMFuzzerCustomMutator. With probability
/// `structuredPercent`/100, and when the input parses, it applies one
/// structured mutation (see IRFuzzerSupport.cpp) and prints the module;
/// otherwise, or when the result would not fit in `maxSize`, it falls back
/// to libFuzzer's byte mutation.
size_t mutate(uint8_t *data, size_t size, size_t maxSize, unsigned seed,
              unsigned structuredPercent);

} // namespace rlx_fuzz

#endif // RLX_FUZZ_IRFUZZERSUPPORT_H
