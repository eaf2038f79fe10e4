// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline --mlir-print-ir-after=rlx-cuda-drop-host-waits -o /dev/null 2>&1 | FileCheck %s
// RUN: rlx-opt %s --rlx-cuda-pipeline | FileCheck %s --check-prefix=LLVM

// Every chain of GPU work (the matmul's cuBLAS call, the tanh kernel, the
// softmax's row kernels) is ordered by the graph stream
// alone: no host wait is left, in either branch of the softmax's choice of
// kernel by alignment. Chains still begin with a token-producing wait.
// CHECK-LABEL: func.func @f(
// CHECK-NOT: gpu.wait [
// CHECK-NOT: gpu.wait{{$}}
// CHECK: call @rlx_cuda_matmul_f32(
// CHECK: gpu.launch_func async
// CHECK: scf.if
// CHECK-NOT: gpu.wait [
// CHECK-NOT: gpu.wait{{$}}
// CHECK: return

// LLVM-LABEL: llvm.func @f(
// LLVM-NOT: mgpuStreamSynchronize
// LLVM: gpu.launch_func
// LLVM-NOT: mgpuStreamSynchronize
// LLVM: llvm.return
func.func @f(%x: tensor<64x32xf32> {rlx.input = "x"}, %w: tensor<32x16xf32> {rlx.param = "w"}) -> tensor<64x16xf32> {
  %m = rlx.matmul %x, %w : tensor<64x32xf32>, tensor<32x16xf32>
  %a = rlx.activation tanh %m : tensor<64x16xf32>
  %s = rlx.softmax %a {axis = -1 : i64} : tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}
