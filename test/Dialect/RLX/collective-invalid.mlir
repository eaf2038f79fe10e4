// RUN: rlx-opt %s -split-input-file -verify-diagnostics

func.func @all_gather_dim(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op dim 2 is outside input [4, 3] (dims are in [0, 2))}}
  %0 = rlx.all_gather %x dim = 2 mesh [2] : tensor<4x3xf32>
  return
}

// -----

func.func @all_gather_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'rlx.all_gather' op input must have rank >= 1, got []}}
  %0 = rlx.all_gather %x dim = 0 mesh [2] : tensor<f32>
  return
}

// -----

func.func @reduce_scatter_split(%x: tensor<6x3xf32>) {
  // expected-error @+1 {{'rlx.reduce_scatter' op dim 0 of input [6, 3] has size 6, which does not split into 4 equal slices (one per rank of the group)}}
  %0 = rlx.reduce_scatter sum %x dim = 0 mesh [4] : tensor<6x3xf32>
  return
}

// -----

func.func @reduce_scatter_subgroup_split(%x: tensor<3x4xf32>) {
  // The group is the 2 ranks of axis 0, not the 8 of the mesh.
  // expected-error @+1 {{'rlx.reduce_scatter' op dim 0 of input [3, 4] has size 3, which does not split into 2 equal slices}}
  %0 = rlx.reduce_scatter sum %x dim = 0 mesh [2, 4] axes [0] : tensor<3x4xf32>
  return
}

// -----

func.func @all_to_all_split(%x: tensor<4x5xf32>) {
  // expected-error @+1 {{'rlx.all_to_all' op split_dim 1 of input [4, 5] has size 5, which does not split into 2 equal slices}}
  %0 = rlx.all_to_all %x split_dim = 1 concat_dim = 0 mesh [2] : tensor<4x5xf32>
  return
}

// -----

func.func @all_to_all_concat_dim(%x: tensor<4x4xf32>) {
  // expected-error @+1 {{'rlx.all_to_all' op concat_dim 2 is outside input [4, 4]}}
  %0 = rlx.all_to_all %x split_dim = 0 concat_dim = 2 mesh [2] : tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_root(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.broadcast' op root 4 is not a rank of the group, which has 4 ranks}}
  %0 = rlx.broadcast %x root = 4 mesh [4] : tensor<4xf32>
  return
}

// -----

func.func @reduce_to_root_subgroup_root(%x: tensor<4xf32>) {
  // The root indexes the group (2 ranks), not the world (8).
  // expected-error @+1 {{'rlx.reduce_to_root' op root 2 is not a rank of the group, which has 2 ranks}}
  %0 = rlx.reduce_to_root sum %x root = 2 mesh [2, 4] axes [0] : tensor<4xf32>
  return
}

// -----

func.func @mean_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'rlx.all_reduce' op mean needs a float element type, got 'i32' (sum, then divide after a cast)}}
  %0 = rlx.all_reduce mean %x mesh [2] : tensor<4xi32>
  return
}

// -----

func.func @reduce_booleans(%x: tensor<4xi1>) {
  // expected-error @+1 {{'rlx.all_reduce' op cannot reduce i1 tensors (cast them to an integer type first)}}
  %0 = rlx.all_reduce max %x mesh [2] : tensor<4xi1>
  return
}

// -----

func.func @negative_dim(%x: tensor<4xf32>) {
  // expected-error @+1 {{'rlx.all_gather' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "rlx.all_gather"(%x) {dim = -1 : i64, group = #rlx.group<[2]>} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @unsigned(%x: tensor<4xui8>) {
  // expected-error @+1 {{'rlx.all_reduce' op operand #0 must be ranked tensor of}}
  %0 = "rlx.all_reduce"(%x) {kind = #rlx.collective<sum>, group = #rlx.group<[2]>} : (tensor<4xui8>) -> tensor<4xui8>
  return
}

// -----

func.func @wrong_result(%x: tensor<4xf32>) {
  // expected-error @+2 {{'rlx.all_gather' op inferred type(s) 'tensor<8xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'rlx.all_gather' op failed to infer returned types}}
  %0 = "rlx.all_gather"(%x) {dim = 0 : i64, group = #rlx.group<[2]>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @unknown_kind(%x: tensor<4xf32>) {
  // expected-error @+1 {{unknown collective kind 'prod', expected one of: sum, mean, max, min}}
  %0 = rlx.all_reduce prod %x mesh [2] : tensor<4xf32>
  return
}

// -----

func.func @mesh_size(%x: tensor<4xf32>) {
  // expected-error @+1 {{#rlx.group: mesh [2, 0] has size 0 on axis 1; sizes are static and >= 1}}
  %0 = rlx.all_reduce sum %x mesh [2, 0] : tensor<4xf32>
  return
}

// -----

func.func @axis_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{#rlx.group: axis 2 is outside mesh [2, 4] (axes are in [0, 2))}}
  %0 = rlx.all_reduce sum %x mesh [2, 4] axes [2] : tensor<4xf32>
  return
}

// -----

func.func @axes_order(%x: tensor<4xf32>) {
  // expected-error @+1 {{#rlx.group: axes [1, 0] must be strictly increasing}}
  %0 = rlx.all_reduce sum %x mesh [2, 4] axes [1, 0] : tensor<4xf32>
  return
}

// -----

func.func @empty_mesh(%x: tensor<4xf32>) {
  // expected-error @+1 {{#rlx.group: the mesh needs at least one axis}}
  %0 = rlx.all_reduce sum %x mesh [] : tensor<4xf32>
  return
}

// -----

func.func @empty_axes(%x: tensor<4xf32>) {
  // expected-error @+1 {{#rlx.group: a group spans at least one mesh axis}}
  %0 = "rlx.all_reduce"(%x) {kind = #rlx.collective<sum>, group = #rlx.group<[2], axes = []>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
