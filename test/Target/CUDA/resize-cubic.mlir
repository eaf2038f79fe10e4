// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline | FileCheck %s --implicit-check-not=memref. --implicit-check-not=linalg. --implicit-check-not=scf.

// rlx.resize cubic (bicubic) and its gradient, rlx.resize_backward cubic,
// through the whole CUDA pipeline: their tap tables lower to linalg like
// the other modes' and become kernels launched on the graph's stream,
// compiled into a cubin.

// CHECK-LABEL: llvm.func @bicubic(
// CHECK:         gpu.launch_func
// CHECK:         llvm.return
// CHECK:       gpu.binary @bicubic_kernel{{.*}}bin = "\7FELF

func.func @bicubic(%x: tensor<2x3x6x7xf32> {rlx.input = "x"},
                   %dy: tensor<2x3x11x5xf32> {rlx.input = "dy"})
    -> (tensor<2x3x11x5xf32>, tensor<2x3x6x7xf32>) {
  %y = rlx.resize cubic %x to [11, 5] {align_corners} : tensor<2x3x6x7xf32>
  %dx = rlx.resize_backward cubic %dy to [6, 7] : tensor<2x3x11x5xf32>
  return %y, %dx : tensor<2x3x11x5xf32>, tensor<2x3x6x7xf32>
}
