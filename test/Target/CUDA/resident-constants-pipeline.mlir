// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline | FileCheck %s

// Through the whole pipeline, a graph's constant is the runtime's device
// copy: the host code passes the address of the global and its byte size to
// the C interface of rlx_cuda_resident_constant and launches the kernel on
// the buffer it returns; a run allocates, copies and frees nothing.
// CHECK:       llvm.call @_mlir_ciface_rlx_cuda_resident_constant(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i64, i64) -> ()
// CHECK-LABEL: llvm.func @offsets(
// CHECK:         %[[GLOBAL:.*]] = llvm.mlir.addressof @__constant_8xi64
// CHECK-DAG:     %[[BYTES:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-DAG:     %[[ELEMENT:.*]] = llvm.getelementptr %[[GLOBAL]][0, 0]
// CHECK:         %[[ADDRESS:.*]] = llvm.ptrtoint %[[ELEMENT]]
// CHECK:         llvm.call @rlx_cuda_resident_constant(%[[ADDRESS]], %[[BYTES]])
// CHECK-NOT:     llvm.call @mgpuMemAlloc
// CHECK-NOT:     llvm.call @mgpuMemcpy
// CHECK:         gpu.launch_func
// CHECK-NOT:     llvm.call @mgpuMemFree
// CHECK:         llvm.return
func.func @offsets(%x: tensor<8xi64> {rlx.input = "x"}) -> tensor<8xi64> {
  %c = rlx.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %0 = rlx.binary add %x, %c : tensor<8xi64>, tensor<8xi64>
  return %0 : tensor<8xi64>
}
