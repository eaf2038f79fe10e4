// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline | FileCheck %s

// The fused attention kernels through the whole pipeline: the host picks
// the tensor-core kernel (f16, 16-byte aligned buffers) or the
// warp-per-row one, each a launch and a cubin of its own; the shared tiles
// are static shared memory, and no kernel or buffer holds the [Sq, Sk]
// scores.

// CHECK-LABEL: llvm.func @attention(
// CHECK:         gpu.launch_func {{.*}} @attention_kernel::@attention_kernel
// CHECK:         gpu.launch_func {{.*}} @attention_kernel_0::@attention_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK-LABEL: llvm.func @_mlir_ciface_attention(
// CHECK:       gpu.binary @attention_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}bin = "\7FELF
// CHECK:       gpu.binary @attention_kernel_0  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}bin = "\7FELF
// CHECK-NOT:   gpu.binary
func.func @attention(%q: tensor<2x12x128x64xf16> {rlx.input = "q"},
                     %k: tensor<2x12x128x64xf16> {rlx.input = "k"},
                     %v: tensor<2x12x128x64xf16> {rlx.input = "v"})
    -> tensor<2x12x128x64xf16> {
  %o = rlx.attention %q, %k, %v {head_dim = 64 : i64,
      mask_kind = #rlx.mask<causal>, num_heads = 12 : i64}
      : tensor<2x12x128x64xf16>, tensor<2x12x128x64xf16>,
        tensor<2x12x128x64xf16>
  return %o : tensor<2x12x128x64xf16>
}

