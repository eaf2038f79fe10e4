// RUN: rlx-opt %s --rlx-shard-partition --split-input-file | FileCheck %s

// Megatron-LM's MLP on 2 ranks: w1 column-split, w2 row-split. The hidden
// activations stay local; one all_reduce sums the partial products before
// the replicated bias.
func.func @mlp(%x: tensor<8x64xf32> {rlx.input = "x"},
               %w1: tensor<64x256xf32> {rlx.param = "w1", rlx.split = [[], [0]]},
               %b1: tensor<256xf32> {rlx.param = "b1", rlx.split = [[0]]},
               %w2: tensor<256x10xf32> {rlx.param = "w2", rlx.split = [[0]]},
               %b2: tensor<10xf32> {rlx.param = "b2"}) -> tensor<8x10xf32>
    attributes {rlx.mesh = [2]} {
  %0 = rlx.matmul %x, %w1 : tensor<8x64xf32>, tensor<64x256xf32>
  %1 = rlx.binary add %0, %b1 : tensor<8x256xf32>, tensor<256xf32>
  %2 = rlx.activation gelu %1 : tensor<8x256xf32>
  %3 = rlx.matmul %2, %w2 : tensor<8x256xf32>, tensor<256x10xf32>
  %4 = rlx.binary add %3, %b2 : tensor<8x10xf32>, tensor<10xf32>
  return %4 : tensor<8x10xf32>
}

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: %[[X:.*]]: tensor<8x64xf32> {rlx.input = "x"}, %[[W1:.*]]: tensor<64x128xf32> {rlx.param = "w1"}, %[[B1:.*]]: tensor<128xf32> {rlx.param = "b1"}, %[[W2:.*]]: tensor<128x10xf32> {rlx.param = "w2"}, %[[B2:.*]]: tensor<10xf32> {rlx.param = "b2"}) -> tensor<8x10xf32> {
// CHECK-NEXT: %[[H:.*]] = rlx.matmul %[[X]], %[[W1]] : tensor<8x64xf32>, tensor<64x128xf32>
// CHECK-NEXT: %[[HB:.*]] = rlx.binary add %[[H]], %[[B1]] : tensor<8x128xf32>, tensor<128xf32>
// CHECK-NEXT: %[[A:.*]] = rlx.activation gelu %[[HB]] : tensor<8x128xf32>
// CHECK-NEXT: %[[P:.*]] = rlx.matmul %[[A]], %[[W2]] : tensor<8x128xf32>, tensor<128x10xf32>
// CHECK-NEXT: %[[S:.*]] = rlx.all_reduce sum %[[P]] mesh [2] : tensor<8x10xf32>
// CHECK-NEXT: %[[Y:.*]] = rlx.binary add %[[S]], %[[B2]] : tensor<8x10xf32>, tensor<10xf32>
// CHECK-NEXT: return %[[Y]] : tensor<8x10xf32>
// CHECK-NOT: shard.

// -----

// A column-split layer whose result is returned whole: the activation
// runs on the local columns, which are then gathered.
func.func @column(%x: tensor<4x8xf32>,
                  %w: tensor<8x16xf32> {rlx.split = [[], [0]]})
    -> tensor<4x16xf32> attributes {rlx.mesh = [4]} {
  %0 = rlx.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32>
  %1 = rlx.activation relu %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @column
// CHECK-SAME: tensor<4x8xf32>, %{{.*}}: tensor<8x4xf32>) -> tensor<4x16xf32>
// CHECK: rlx.matmul {{.*}} : tensor<4x8xf32>, tensor<8x4xf32>
// CHECK: rlx.activation relu %{{.*}} : tensor<4x4xf32>
// CHECK: rlx.all_gather %{{.*}} dim = 1 mesh [4] : tensor<4x4xf32>

// -----

// A split result stays split when the result says so; a sum over the
// split dim of a 2-d mesh's axes is all-reduced over that axis only.
func.func @mesh2d(%x: tensor<4x8xf32> {rlx.split = [[0], [1]]})
    -> (tensor<4x8xf32> {rlx.split = [[0], [1]]}, tensor<4xf32> {rlx.split = [[0]]})
    attributes {rlx.mesh = [2, 2]} {
  %0 = rlx.activation exp %x : tensor<4x8xf32>
  %1 = rlx.reduce sum %0 axes = [1] : tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @mesh2d
// CHECK-SAME: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>)
// CHECK: rlx.activation exp %{{.*}} : tensor<2x4xf32>
// CHECK: %[[S:.*]] = rlx.reduce sum %{{.*}} axes = [1] : tensor<2x4xf32>
// CHECK: rlx.all_reduce sum %[[S]] mesh [2, 2] axes [1] : tensor<2xf32>

// -----

// A replicated weight meets a split activation: the rows of the batch are
// the ranks', the weight whole on each.
func.func @batch(%x: tensor<8x4xf32> {rlx.split = [[0]]},
                 %w: tensor<4x4xf32>) -> (tensor<8x4xf32> {rlx.split = [[0]]})
    attributes {rlx.mesh = [2]} {
  %0 = rlx.matmul %x, %w : tensor<8x4xf32>, tensor<4x4xf32>
  %1 = rlx.softmax %0 {axis = 1 : i64} : tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @batch
// CHECK-SAME: tensor<4x4xf32>, %{{.*}}: tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: rlx.matmul
// CHECK-NEXT: rlx.softmax %{{.*}} {axis = 1 : i64} : tensor<4x4xf32>
// CHECK-NEXT: return
