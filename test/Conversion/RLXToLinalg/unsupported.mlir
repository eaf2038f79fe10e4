// RUN: rlx-opt %s --convert-rlx-to-linalg --verify-diagnostics
// RUN: rlx-opt %s --rlx-cpu-lower-custom-ops --rlx-cpu-lower-gaussian-splat --convert-rlx-to-linalg | FileCheck %s --check-prefix=CPU

// Every op the target-independent lowering does not handle is reported at
// its location, all of them, and the pass fails: nothing is dropped
// silently. (Change these ops when they gain a lowering.) rlx.custom and
// the Gaussian splat ops have none here: the CPU pipeline turns them into
// calls of the CPU runtime first (rlx-cpu-lower-custom-ops,
// rlx-cpu-lower-gaussian-splat); other targets report them. After those two
// passes, as on the CPU, nothing is left unlowered.
// CPU-NOT: rlx.
// CPU: call @rlx_rt_custom_call
// CPU: call @rlx_rt_gaussian_splat
// CPU-NOT: rlx.
// expected-error @+1 {{2 rlx op(s) cannot be lowered to linalg; see the errors above}}
module {
  func.func @unsupported(%x: tensor<4x8xf32>, %pos: tensor<30xf32>, %rot: tensor<40xf32>, %opa: tensor<10xf32>, %sh: tensor<90xf32>, %meta: tensor<23xf32>) -> (tensor<4x8xf32>, tensor<8192xf32>) {
    // expected-error @+1 {{'rlx.custom' cannot be lowered by convert-rlx-to-linalg}}
    %0 = rlx.custom "sparse_lu_solve"(%x) pure : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = rlx.activation relu %0 : tensor<4x8xf32>
    // expected-error @+1 {{'rlx.gaussian_splat_render' cannot be lowered by convert-rlx-to-linalg}}
    %2 = rlx.gaussian_splat_render %pos, %pos, %rot, %opa, %pos, %sh, %meta {width = 64 : i64, height = 32 : i64, tile_size = 16 : i64, radius_scale = 3.0 : f32, alpha_cutoff = 0.00392156886 : f32, max_splat_steps = 256 : i64, transmittance_threshold = 0.0001 : f32, max_list_entries = 65536 : i64} : tensor<30xf32>, tensor<30xf32>, tensor<40xf32>, tensor<10xf32>, tensor<30xf32>, tensor<90xf32>, tensor<23xf32>
    return %1, %2 : tensor<4x8xf32>, tensor<8192xf32>
  }
}
