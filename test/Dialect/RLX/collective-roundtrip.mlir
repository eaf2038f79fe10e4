// RUN: rlx-opt %s | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | rlx-opt | FileCheck %s
// RUN: rlx-opt %s | rlx-opt | FileCheck %s
// RUN: rlx-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Result types follow from the operand and the group size: all_gather
// multiplies `dim` by it, reduce_scatter divides, all_to_all does both.
// CHECK-LABEL: func.func @world
func.func @world(%x: tensor<8x6xf32>, %i: tensor<4xi32>, %b: tensor<3xi1>)
    -> (tensor<8x6xf32>, tensor<32x6xf32>, tensor<2x6xf32>, tensor<2x24xf32>,
        tensor<4xi32>, tensor<3xi1>, tensor<8x6xf32>) {
  // CHECK: rlx.all_reduce sum %{{.*}} mesh [4] : tensor<8x6xf32>
  %0 = rlx.all_reduce sum %x mesh [4] : tensor<8x6xf32>
  // CHECK: rlx.all_gather %{{.*}} dim = 0 mesh [4] : tensor<8x6xf32>
  %1 = rlx.all_gather %x dim = 0 mesh [4] : tensor<8x6xf32>
  // CHECK: rlx.reduce_scatter mean %{{.*}} dim = 0 mesh [4] : tensor<8x6xf32>
  %2 = rlx.reduce_scatter mean %x dim = 0 mesh [4] : tensor<8x6xf32>
  // CHECK: rlx.all_to_all %{{.*}} split_dim = 0 concat_dim = 1 mesh [4] : tensor<8x6xf32>
  %3 = rlx.all_to_all %x split_dim = 0 concat_dim = 1 mesh [4] : tensor<8x6xf32>
  // CHECK: rlx.reduce_to_root max %{{.*}} root = 3 mesh [4] : tensor<4xi32>
  %4 = rlx.reduce_to_root max %i root = 3 mesh [4] : tensor<4xi32>
  // Moving bytes takes any element type, i1 included.
  // CHECK: rlx.broadcast %{{.*}} root = 1 mesh [4] : tensor<3xi1>
  %5 = rlx.broadcast %b root = 1 mesh [4] : tensor<3xi1>
  // split_dim == concat_dim keeps the shape.
  // CHECK: rlx.all_to_all %{{.*}} split_dim = 1 concat_dim = 1 mesh [2] : tensor<8x6xf32>
  %6 = rlx.all_to_all %x split_dim = 1 concat_dim = 1 mesh [2] : tensor<8x6xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8x6xf32>, tensor<32x6xf32>,
      tensor<2x6xf32>, tensor<2x24xf32>, tensor<4xi32>, tensor<3xi1>,
      tensor<8x6xf32>
}

// Subgroups of a 2 x 4 mesh: `axes` prints only when it is not every axis;
// the group size is the product of the spanned axes' sizes.
// CHECK-LABEL: func.func @subgroups
func.func @subgroups(%x: tensor<4x3xf32>)
    -> (tensor<16x3xf32>, tensor<8x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>) {
  // CHECK: rlx.all_gather %{{.*}} dim = 0 mesh [2, 4] axes [1] : tensor<4x3xf32>
  // GENERIC: group = #rlx.group<[2, 4], axes = [1]>
  %0 = rlx.all_gather %x dim = 0 mesh [2, 4] axes [1] : tensor<4x3xf32>
  // CHECK: rlx.all_gather %{{.*}} dim = 0 mesh [2, 4] axes [0] : tensor<4x3xf32>
  %1 = rlx.all_gather %x dim = 0 mesh [2, 4] axes [0] : tensor<4x3xf32>
  // Listing every axis is the default form.
  // CHECK: rlx.all_reduce min %{{.*}} mesh [2, 4] : tensor<4x3xf32>
  // GENERIC: group = #rlx.group<[2, 4]>
  %2 = rlx.all_reduce min %x mesh [2, 4] axes [0, 1] : tensor<4x3xf32>
  // CHECK: rlx.reduce_scatter sum %{{.*}} dim = 0 mesh [2, 4] axes [0] : tensor<4x3xf32>
  %3 = rlx.reduce_scatter sum %x dim = 0 mesh [2, 4] axes [0] : tensor<4x3xf32>
  return %0, %1, %2, %3 : tensor<16x3xf32>, tensor<8x3xf32>, tensor<4x3xf32>,
      tensor<2x3xf32>
}

// `?` dims stay `?`; a group of one rank is an identity in shape.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x6xf64>) -> (tensor<?x6xf64>, tensor<?x6xf64>) {
  // CHECK: rlx.all_gather %{{.*}} dim = 0 mesh [3] : tensor<?x6xf64>
  %0 = rlx.all_gather %x dim = 0 mesh [3] : tensor<?x6xf64>
  // CHECK: rlx.reduce_scatter sum %{{.*}} dim = 1 mesh [1] : tensor<?x6xf64>
  %1 = rlx.reduce_scatter sum %x dim = 1 mesh [1] : tensor<?x6xf64>
  return %0, %1 : tensor<?x6xf64>, tensor<?x6xf64>
}
