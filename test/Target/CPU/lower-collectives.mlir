// RUN: rlx-opt %s --rlx-cpu-lower-collectives | FileCheck %s
// RUN: rlx-opt %s --rlx-cpu-pipeline | FileCheck %s --check-prefix=PIPE

// Each collective becomes rlx_rt_collective(table, input, output) in the
// body of an rlx_cpu.on_buffers that reads the operand and writes a fresh
// result (tensor.empty), so bufferization sees both. The table is a
// constant global (include/rlx/Runtime/Collectives.h): op, kind, dtype,
// element bytes, two attributes, op index, rank, dims, then the mesh rank,
// the mesh, the number of axes and the axes. Equal tables share a global.

// CHECK-DAG: memref.global "private" constant @__rlx_collective_0 : memref<15xi64> = dense<[0, 1, 0, 4, 0, 0, 0, 2, 8, 6, 2, 2, 4, 1, 0]>
// CHECK-DAG: memref.global "private" constant @__rlx_collective_1 : memref<15xi64> = dense<[1, -1, 6, 4, 1, 0, 1, 2, 8, 6, 2, 2, 4, 1, 1]>
// CHECK-DAG: memref.global "private" constant @__rlx_collective_2 : memref<14xi64> = dense<[3, -1, 1, 8, 0, 1, 2, 2, 8, 6, 1, 8, 1, 0]>
// CHECK-DAG: func.func private @rlx_rt_collective(i64, i64, i64)
// CHECK-LABEL: func.func @three(
// CHECK-SAME: %[[X:.*]]: tensor<8x6xf32>, %[[I:.*]]: tensor<8x6xi32>, %[[D:.*]]: tensor<8x6xf64>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<8x6xf32>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[X]] : tensor<8x6xf32>) outs(%[[INIT]] : tensor<8x6xf32>) {
// CHECK: ^bb0(%[[XB:.*]]: memref<8x6xf32>, %[[OUT:.*]]: memref<8x6xf32>):
// CHECK:   memref.get_global @__rlx_collective_0 : memref<15xi64>
// CHECK:   memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK:   memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:   func.call @rlx_rt_collective(%{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64) -> ()
// CHECK: } -> tensor<8x6xf32>
// CHECK: tensor.empty() : tensor<8x24xi32>
// CHECK: memref.get_global @__rlx_collective_1
// CHECK: tensor.empty() : tensor<1x48xf64>
// CHECK: memref.get_global @__rlx_collective_2
// CHECK-NOT: rlx.all_
func.func @three(%x: tensor<8x6xf32>, %i: tensor<8x6xi32>, %d: tensor<8x6xf64>)
    -> (tensor<8x6xf32>, tensor<8x24xi32>, tensor<1x48xf64>) {
  %0 = rlx.all_reduce mean %x mesh [2, 4] axes [0] : tensor<8x6xf32>
  %1 = rlx.all_gather %i dim = 1 mesh [2, 4] axes [1] : tensor<8x6xi32>
  %2 = rlx.all_to_all %d split_dim = 0 concat_dim = 1 mesh [8] : tensor<8x6xf64>
  return %0, %1, %2 : tensor<8x6xf32>, tensor<8x24xi32>, tensor<1x48xf64>
}

// PIPE-LABEL: llvm.func @three
// PIPE-COUNT-3: llvm.call @rlx_rt_collective
