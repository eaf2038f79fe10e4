// RUN: rlx-opt %s --rlx-cpu-lower-collectives --split-input-file --verify-diagnostics

// MPI has no 16-bit float type: combining bf16 is an error naming the op;
// moving it is not.
func.func @bf16(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  // expected-error @+1 {{'rlx.all_reduce' op the CPU lowering combines f32, f64, i8, i16, i32 and i64 tensors (MPI has no 'bf16' type); cast to f32 around the op}}
  %0 = rlx.all_reduce sum %x mesh [2] : tensor<4xbf16>
  %1 = rlx.broadcast %x root = 0 mesh [2] : tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'rlx.all_reduce' op the CPU lowering needs static shapes, got 'tensor<?x4xf32>' -> 'tensor<?x4xf32>'}}
  %0 = rlx.all_reduce sum %x mesh [2] : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
