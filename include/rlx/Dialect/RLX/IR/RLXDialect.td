//===- RLXDialect.td - rlx dialect definition --------------*- tablegen -*-===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//

#ifndef RLX_DIALECT_RLX_IR_RLXDIALECT_TD
#define RLX_DIALECT_RLX_IR_RLXDIALECT_TD

include "mlir/IR/OpBase.td"

def RLX_Dialect : Dialect {
  let name = "rlx";
  let cppNamespace = "::mlir::rlx";
  let summary = "Tensor-level operations of the RLX ML compiler";
  let description = [{
    The `rlx` dialect models every operation of the RLX graph IR on builtin
    ranked tensors. A graph is a `func.func`: graph inputs and parameters are
    function arguments carrying `rlx.input = "name"` or `rlx.param = "name"`
    argument attributes, and the function results are the graph outputs. A
    parameter that is state rather than a trained weight (batch norm's
    running statistics) also carries the unit attribute `rlx.state`.

    Ops are value-semantic and side-effect free unless stated otherwise.
    Broadcasting is NumPy-style (right-aligned) for every elementwise op.
    Enumerated op kinds (activation, binary, compare, reduce, pool, ...) are
    carried as enum attributes, one op per RLX op variant.
  }];

  // The folders of the elementwise ops evaluate their scalar computation
  // (ScalarizableOpInterface), which is made of ops of these dialects.
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::complex::ComplexDialect"];

  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;

  let extraClassDeclaration = [{
    /// Argument attribute naming a graph input.
    static constexpr ::llvm::StringLiteral kInputAttrName = "rlx.input";
    /// Argument attribute naming a graph parameter (weight).
    static constexpr ::llvm::StringLiteral kParamAttrName = "rlx.param";
    /// Unit argument attribute beside `rlx.param`: the parameter is state
    /// the graph reads but training does not update (PyTorch's registered
    /// buffers, such as batch norm's running statistics). Bound and saved
    /// like a parameter; left out of rlx-autodiff's default `wrt`.
    static constexpr ::llvm::StringLiteral kStateAttrName = "rlx.state";
    /// Unit attribute of an op that recomputes a value for the backward
    /// sweep (rlx-autodiff remat=elementwise). The lowering carries it to the
    /// op that produces the value, so CSE does not merge the recomputation
    /// back into the forward value it duplicates.
    static constexpr ::llvm::StringLiteral kRematAttrName = "rlx.remat";

  private:
    // One registration hook per op family; each lives beside the family's
    // op definitions so a family compiles on its own.
    void registerAttributes();
#define RLX_OP_FAMILY(Name) void register##Name##Ops();
#include "rlx/Dialect/RLX/IR/RLXOpFamilies.def"
  public:
  }];
}

#endif // RLX_DIALECT_RLX_IR_RLXDIALECT_TD
