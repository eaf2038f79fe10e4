//===- RLXCustomOps.td - registry-dispatched custom ops ----*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXCUSTOMOPS_TD
#define RLX_DIALECT_RLX_IR_RLXCUSTOMOPS_TD

include "rlx/Dialect/RLX/IR/RLXOpBase.td"

//===----------------------------------------------------------------------===//
// rlx.custom
//===----------------------------------------------------------------------===//

def RLX_CustomOp : RLX_Op<"custom", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "user-registered op dispatched by name (RLX `Custom`)";
  let description = [{
    An op whose shape rule, gradient and per-backend kernels live in a
    registry keyed by `name` (a non-empty string). It takes any number of
    tensor `inputs` and produces the stated `results`; the IR cannot derive
    their types, so the assembly format spells them out.

    `attrs` is the op's configuration, passed unchanged to the registered
    callbacks. It is a dictionary attribute (default empty) so that
    structured settings stay readable and verifiable; an opaque RLX byte
    blob travels as a `bytes = array<i8: ...>` entry.

    Effects are unknown to the compiler: by default the op reads and
    writes arbitrary memory, so it is never reordered, deduplicated or
    erased. The unit attribute `pure` declares it side-effect free (then
    it must have at least one result). The op has no regions.

    Example:

    ```mlir
    %x = rlx.custom "sparse_lu_solve"(%a, %b) pure
        attrs {ordering = "amd", bytes = array<i8: 1, 2>}
        : (tensor<16x16xf32>, tensor<16xf32>) -> tensor<16xf32>
    rlx.custom "log_stats"(%x) : (tensor<16xf32>) -> ()
    ```
  }];

  let arguments = (ins StrAttr:$name,
                       Variadic<RLX_Tensor>:$inputs,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$attrs,
                       UnitAttr:$pure);
  let results = (outs Variadic<RLX_Tensor>:$results);

  let assemblyFormat = [{
    $name `(` $inputs `)` (`pure` $pure^)? (`attrs` $attrs^)? attr-dict `:`
    functional-type($inputs, results)
  }];
  let hasVerifier = 1;
}

#endif // RLX_DIALECT_RLX_IR_RLXCUSTOMOPS_TD
