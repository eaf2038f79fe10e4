// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file --verify-diagnostics

// What the NCCL lowering does not take is refused at the op.

func.func @int16(%x: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error@+1 {{the CUDA lowering moves f32, f64, f16, bf16, i1, i8, i32 and i64 tensors (NCCL's types), not 'i16'}}
  %0 = rlx.all_reduce sum %x mesh [2] : tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error@+1 {{the CUDA lowering needs static shapes}}
  %0 = rlx.all_reduce sum %x mesh [2] : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @deep_mesh(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{runs over a mesh of rank 5; the CUDA lowering takes meshes of rank up to 4}}
  %0 = rlx.all_reduce sum %x mesh [1, 1, 1, 1, 2] : tensor<4xf32>
  return %0 : tensor<4xf32>
}
