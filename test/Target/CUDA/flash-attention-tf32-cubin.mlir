// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline=allow-tf32 | FileCheck %s
// RUN: rlx-opt %s --rlx-cuda-pipeline | FileCheck %s --check-prefix=F32

// f32 under allow-tf32: the TF32 tensor-core kernel (head dim 128, the
// largest shared tiles) and the CUDA-core one, both through ptxas.
// CHECK-LABEL: llvm.func @attention_f32(
// CHECK:         gpu.launch_func {{.*}} @attention_f32_kernel::@attention_f32_kernel
// CHECK:         gpu.launch_func {{.*}} @attention_f32_kernel_0::@attention_f32_kernel
// CHECK:       gpu.binary @attention_f32_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}bin = "\7FELF
func.func @attention_f32(%q: tensor<1x4x100x128xf32> {rlx.input = "q"},
                         %k: tensor<1x4x100x128xf32> {rlx.input = "k"},
                         %v: tensor<1x4x100x128xf32> {rlx.input = "v"})
    -> tensor<1x4x100x128xf32> {
  %o = rlx.attention %q, %k, %v {head_dim = 128 : i64,
      mask_kind = #rlx.mask<none>, num_heads = 4 : i64}
      : tensor<1x4x100x128xf32>, tensor<1x4x100x128xf32>,
        tensor<1x4x100x128xf32>
  return %o : tensor<1x4x100x128xf32>
}

// Without allow-tf32 the same two kernels, the tensor-core one on split
// TF32 operands (three products per step).
// F32-LABEL: llvm.func @attention_f32(
// F32:         gpu.launch_func {{.*}} @attention_f32_kernel::@attention_f32_kernel
// F32:         gpu.launch_func {{.*}} @attention_f32_kernel_0::@attention_f32_kernel
// F32:       gpu.binary @attention_f32_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90"{{.*}}bin = "\7FELF
