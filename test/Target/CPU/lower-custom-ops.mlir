// RUN: rlx-opt %s --rlx-cpu-lower-custom-ops --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-cpu-pipeline --split-input-file | FileCheck %s --check-prefix=PIPE

// Each rlx.custom becomes one call of rlx_rt_custom_call with its name, its
// attributes' text and a table of (pointer, dtype, rank, dims) per operand
// then result; operands are read-only buffers, results fresh aligned ones.
// The table and the call share a region that is never inlined, so
// rlx-cpu-early-dealloc keeps every buffer alive up to the call.

// CHECK-DAG: memref.global "private" constant @__rlx_custom_name_0 : memref<6xi8> = dense<[109, 121, 95, 111, 112, 0]>
// CHECK-DAG: memref.global "private" constant @__rlx_custom_attrs_0 : memref<3xi8> = dense<[123, 125, 0]>
// CHECK-DAG: func.func private @rlx_rt_custom_call(i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @one(
// CHECK-SAME: %[[X:.*]]: tensor<2x?xf32>, %[[Y:.*]]: tensor<3xi32>)
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<2x?xf32> to memref<2x?xf32>
// CHECK: %[[YB:.*]] = bufferization.to_buffer %[[Y]] read_only : tensor<3xi32> to memref<3xi32>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf64>
// CHECK: scf.execute_region no_inline {
// CHECK:   memref.alloca() : memref<13xi64>
// CHECK:   memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK:   %[[DIM:.*]] = memref.dim %[[XB]], %{{.*}} : memref<2x?xf32>
// CHECK:   arith.index_cast %[[DIM]] : index to i64
// CHECK:   memref.extract_aligned_pointer_as_index %[[YB]]
// CHECK:   memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:   %[[C2:.*]] = arith.constant 2 : i64
// CHECK:   %[[C1:.*]] = arith.constant 1 : i64
// CHECK:   func.call @rlx_rt_custom_call(%{{.*}}, %{{.*}}, %[[C2]], %[[C1]], %{{.*}}) : (i64, i64, i64, i64, i64) -> ()
// CHECK:   scf.yield
// CHECK: }
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4xf64> to tensor<4xf64>
// CHECK: return %[[R]]
func.func @one(%x: tensor<2x?xf32>, %y: tensor<3xi32>) -> tensor<4xf64> {
  %r = rlx.custom "my_op"(%x, %y) pure : (tensor<2x?xf32>, tensor<3xi32>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

// The whole CPU pipeline: the call survives to LLVM, and the input's buffer
// is freed only after it (here: the narrowed copy of %x).
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
