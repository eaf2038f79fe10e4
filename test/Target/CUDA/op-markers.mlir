// RUN: rlx-opt %s --rlx-cuda-pipeline --mlir-print-ir-after=rlx-cuda-op-markers -o /dev/null 2>&1 | FileCheck %s

// Each rlx op's host work (the matmul's cuBLAS call, which overwrites its
// product; the tanh kernel; the softmax's row kernels, chosen at run time by
// alignment) is bracketed by markers naming the op; synchronizations stay
// outside.
// Each label's cost per run, [bytes, FLOPs]: the matmul's x, w and result
// (8192 + 2048 + 4096 bytes, the cuBLAS call's dynamic casts traced back to
// their buffers) and 2 * 64 * 16 * 32 FLOPs; the tanh and the softmax read
// and write 64 x 16 f32 and have no FLOP count.
// CHECK: rlx.profile_costs = [array<i64: 14336, 65536>, array<i64: 8192, 0>, array<i64: 8192, 0>]
// CHECK-SAME: rlx.profile_labels = ["rlx.matmul @ op-markers.mlir:{{[0-9]+}}:8", "rlx.activation @ op-markers.mlir:{{[0-9]+}}:8", "rlx.softmax @ op-markers.mlir:{{[0-9]+}}:8"]
// CHECK-LABEL: func.func @f(
// CHECK: %[[L0:.*]] = llvm.mlir.addressof @rlx_op_label_0 : !llvm.ptr
// CHECK: call @rlx_cuda_op_begin(%[[ID0:.*]], %[[L0]]) : (i64, !llvm.ptr) -> ()
// CHECK-NOT: gpu.launch_func
// CHECK: call @rlx_cuda_matmul_f32(
// CHECK-NEXT: call @rlx_cuda_op_end(%[[ID0]]) : (i64) -> ()
// CHECK: call @rlx_cuda_op_begin(
// CHECK: gpu.launch_func
// CHECK-NEXT: call @rlx_cuda_op_end(
// CHECK: call @rlx_cuda_op_begin(
// CHECK-NEXT: scf.if
// CHECK: call @rlx_cuda_op_end(
// CHECK-NOT: rlx_cuda_op_begin
// CHECK: return
// CHECK-DAG: func.func private @rlx_cuda_op_begin(i64, !llvm.ptr)
// CHECK-DAG: func.func private @rlx_cuda_op_end(i64)
// CHECK-DAG: llvm.mlir.global internal constant @rlx_op_label_0("rlx.matmul @ op-markers.mlir:{{[0-9]+}}:8\00")
func.func @f(%x: tensor<64x32xf32> {rlx.input = "x"}, %w: tensor<32x16xf32> {rlx.param = "w"}) -> tensor<64x16xf32> {
  %m = rlx.matmul %x, %w : tensor<64x32xf32>, tensor<32x16xf32>
  %a = rlx.activation tanh %m : tensor<64x16xf32>
  %s = rlx.softmax %a {axis = -1 : i64} : tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}
