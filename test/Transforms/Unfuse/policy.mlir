// RUN: rlx-opt %s --rlx-unfuse="target=cpu" | FileCheck %s --check-prefix=CPU
// RUN: rlx-opt %s --rlx-unfuse="target=cuda" | FileCheck %s --check-prefix=CUDA
// RUN: rlx-opt %s --rlx-unfuse="target=autodiff" | FileCheck %s --check-prefix=AD
// RUN: not rlx-opt %s --rlx-unfuse="target=tpu" 2>&1 | FileCheck %s --check-prefix=BAD

// The per-target policies: the CPU and CUDA (whose generic kernels run what
// the linalg lowering produces) decompose matmul+bias+act and lower rank-3
// attention directly; autodiff decomposes everything.

// CPU-NOT: rlx.fused_matmul_bias_act
// CPU: rlx.attention {{.*}} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>

// CUDA-NOT: rlx.fused_matmul_bias_act
// CUDA: rlx.attention {{.*}} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>

// AD-NOT: rlx.fused_matmul_bias_act
// AD: rlx.attention {{.*}} : tensor<1x2x5x4xf32>

// BAD: error: rlx-unfuse: unknown target 'tpu' (expected one of: autodiff, cpu, cuda, all)
func.func @policy(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>,
                  %q: tensor<1x5x8xf32>) -> (tensor<4x16xf32>, tensor<1x5x8xf32>) {
  %0 = rlx.fused_matmul_bias_act %x, %w, %b activation relu : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
  %1 = rlx.attention %q, %q, %q {num_heads = 2 : i64, head_dim = 4 : i64, mask_kind = #rlx.mask<causal>} : tensor<1x5x8xf32>, tensor<1x5x8xf32>, tensor<1x5x8xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<1x5x8xf32>
}
