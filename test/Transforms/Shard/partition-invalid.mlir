// RUN: rlx-opt %s --rlx-shard-partition --split-input-file -verify-diagnostics

// An op without a sharding model on a split value.
func.func @reshape(%x: tensor<4x8xf32> {rlx.split = [[], [0]]})
    -> tensor<32xf32> attributes {rlx.mesh = [2]} {
  // expected-error @+1 {{cannot partition: rlx.reshape has no sharding model}}
  %0 = rlx.reshape %x new_shape = [32] : tensor<4x8xf32>
  return %0 : tensor<32xf32>
}

// -----

// Softmax needs its axis whole on a rank.
func.func @softmax(%x: tensor<4x8xf32> {rlx.split = [[], [0]]})
    -> tensor<4x8xf32> attributes {rlx.mesh = [2]} {
  // expected-error @+1 {{cannot partition: its loop 1 (a reduction over the whole dim) is split over mesh axes [0]}}
  %0 = rlx.softmax %x {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A split the mesh does not divide, reported at the argument.
// expected-error @+1 {{cannot partition: dim 1 of 'tensor<4x6xf32>' is split into 4 parts over mesh axes [0], which do not divide it}}
func.func @indivisible(%x: tensor<4x6xf32> {rlx.split = [[], [0]]})
    -> tensor<4x6xf32> attributes {rlx.mesh = [4]} {
  %0 = rlx.activation relu %x : tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// expected-error @+1 {{argument 0: rlx.split: mesh axis 1 is not in [0, 1)}}
func.func @bad_axis(%x: tensor<4x8xf32> {rlx.split = [[], [1]]})
    -> tensor<4x8xf32> attributes {rlx.mesh = [2]} {
  return %x : tensor<4x8xf32>
}

// -----

func.func @prod(%x: tensor<4x8xf32> {rlx.split = [[], [0]]})
    -> tensor<4xf32> attributes {rlx.mesh = [2]} {
  // expected-error @+1 {{cannot partition: its loop 1 (a reduction over the whole dim) is split over mesh axes [0]}}
  %0 = rlx.reduce prod %x axes = [1] : tensor<4x8xf32>
  return %0 : tensor<4xf32>
}
