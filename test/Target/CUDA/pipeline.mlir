// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline | FileCheck %s --implicit-check-not=memref. --implicit-check-not=linalg. --implicit-check-not=scf.
// RUN: rlx-opt %s --rlx-cuda-pipeline="chip=sm_80 features=+ptx70 opt-level=1" | FileCheck %s --check-prefix=SM80

// The whole pipeline on a graph with a linear layer, an exact-GELU
// activation and a row reduction: sm_90 cubins embedded in gpu.binary ops,
// and host code in the LLVM dialect that calls cuBLASLt for the GEMM and
// its bias (one call, on the graph's stream, without a host wait), then
// allocates on the device and launches the two remaining kernels on the
// same stream (the exact GELU, the softmax's row kernel). The host never
// waits for the stream: the runner that called the graph does.

// CHECK-LABEL: llvm.func @mlp(
// CHECK:         llvm.call @rlx_cuda_matmul_bias_f32(
// CHECK-NOT:     llvm.call @mgpuStreamSynchronize
// CHECK:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK:         llvm.call @mgpuMemAlloc({{.*}}, %[[STREAM]], {{.*}})
// The kernels' constants are sunk into them before outlining: the launches
// pass buffers and their sizes only, no f32 or i32 constants.
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mlp_kernel::@mlp_kernel {{.*}} args({{(%[a-z0-9]+ : (!llvm.ptr|i64)(, )?)+}})
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mlp_kernel_0::@mlp_kernel {{.*}} args({{(%[a-z0-9]+ : (!llvm.ptr|i64)(, )?)+}})
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.call @mgpuMemFree({{.*}}, %[[STREAM]])
// CHECK-NOT:     llvm.call @mgpuStreamSynchronize
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @_mlir_ciface_mlp(
// The kernels' math calls (erf) link the toolkit's libdevice.
// CHECK:       gpu.binary @mlp_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80", link = ["{{.*}}libdevice.10.bc"]>, {{.*}}bin = "\7FELF

// SM80: #nvvm.target<O = 1, chip = "sm_80", features = "+ptx70"

func.func @mlp(%x: tensor<8x64xf32> {rlx.input = "x"},
               %w: tensor<64x33xf32> {rlx.param = "w"},
               %b: tensor<33xf32> {rlx.param = "b"}) -> tensor<8x33xf32> {
  %0 = rlx.matmul %x, %w : tensor<8x64xf32>, tensor<64x33xf32>
  %1 = rlx.binary add %0, %b : tensor<8x33xf32>, tensor<33xf32>
  %2 = rlx.activation gelu %1 : tensor<8x33xf32>
  %3 = rlx.softmax %2 {axis = 1 : i64} : tensor<8x33xf32>
  return %3 : tensor<8x33xf32>
}
