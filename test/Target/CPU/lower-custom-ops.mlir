// RUN: rlx-opt %s --rlx-cpu-lower-custom-ops --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-cpu-pipeline --split-input-file | FileCheck %s --check-prefix=PIPE

// Each rlx.custom becomes one call of rlx_rt_custom_call with its name, its
// attributes' text and a table of (pointer, dtype, rank, dims) per operand
// then result. The table and the call sit in the body of an
// rlx_cpu.on_buffers that reads the operands and writes fresh results (one
// tensor.empty each), so bufferization sees both; the body's block
// arguments are the operands' then the results' buffers. Bufferization
// makes the body a region that is never inlined, so rlx-cpu-early-dealloc
// keeps every buffer alive up to the call.

// CHECK-DAG: memref.global "private" constant @__rlx_custom_name_0 : memref<6xi8> = dense<[109, 121, 95, 111, 112, 0]>
// CHECK-DAG: memref.global "private" constant @__rlx_custom_attrs_0 : memref<3xi8> = dense<[123, 125, 0]>
// CHECK-DAG: func.func private @rlx_rt_custom_call(i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @one(
// CHECK-SAME: %[[X:.*]]: tensor<2x?xf32>, %[[Y:.*]]: tensor<3xi32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4xf64>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[X]], %[[Y]] : tensor<2x?xf32>, tensor<3xi32>) outs(%[[INIT]] : tensor<4xf64>) {
// CHECK: ^bb0(%[[XB:.*]]: memref<2x?xf32>, %[[YB:.*]]: memref<3xi32>, %[[OUT:.*]]: memref<4xf64>):
// CHECK:   memref.alloca() : memref<13xi64>
// CHECK:   memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK:   %[[DIM:.*]] = memref.dim %[[XB]], %{{.*}} : memref<2x?xf32>
// CHECK:   arith.index_cast %[[DIM]] : index to i64
// CHECK:   memref.extract_aligned_pointer_as_index %[[YB]]
// CHECK:   memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:   %[[C2:.*]] = arith.constant 2 : i64
// CHECK:   %[[C1:.*]] = arith.constant 1 : i64
// CHECK:   func.call @rlx_rt_custom_call(%{{.*}}, %{{.*}}, %[[C2]], %[[C1]], %{{.*}}) : (i64, i64, i64, i64, i64) -> ()
// CHECK: } -> tensor<4xf64>
// CHECK: return %[[R]]
func.func @one(%x: tensor<2x?xf32>, %y: tensor<3xi32>) -> tensor<4xf64> {
  %r = rlx.custom "my_op"(%x, %y) pure : (tensor<2x?xf32>, tensor<3xi32>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

// An op without results reads its operands in an rlx_cpu.on_buffers with
// no outs. Through the whole CPU pipeline both calls survive to LLVM (the
// first op's effects are unknown, so it is never erased), and the input's
// buffer is freed only after the last (here: the narrowed copy of %x).
// CHECK-LABEL: func.func @effects(
// CHECK: rlx_cpu.on_buffers ins(%[[E:.*]] : tensor<4x3xf32>) outs( : ) {
// CHECK: ^bb0(%{{.*}}: memref<4x3xf32>):
// CHECK: func.call @rlx_rt_custom_call(
// CHECK: }
// CHECK-NEXT: %[[INIT:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[E]] : tensor<4x3xf32>) outs(%[[INIT]] : tensor<4x3xf32>) {
// CHECK: ^bb0(%{{.*}}: memref<4x3xf32>, %{{.*}}: memref<4x3xf32>):
// CHECK: func.call @rlx_rt_custom_call(
// CHECK: } -> tensor<4x3xf32>
// CHECK: return %[[R]]
// PIPE-LABEL: llvm.func @effects
// PIPE: llvm.call @rlx_rt_custom_call
// PIPE-NOT: llvm.call @_mlir_memref_to_llvm_free
// PIPE: llvm.call @rlx_rt_custom_call
// PIPE: llvm.call @_mlir_memref_to_llvm_free
func.func @effects(%x: tensor<4x8xf32> {rlx.input = "x"}) -> tensor<4x3xf32> {
  %n = rlx.narrow %x axis = 1 start = 2 len = 3 : tensor<4x8xf32>
  %e = rlx.activation exp %n : tensor<4x3xf32>
  rlx.custom "log_stats"(%e) attrs {level = 2 : i64} : (tensor<4x3xf32>) -> ()
  %r = rlx.custom "double"(%e) pure : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
