// remat=elementwise: the backward sweep reads its own recomputed copies of
// elementwise values (marked rlx.remat), each placed right before its
// reader, instead of the forward values.
// RUN: rlx-opt %s --rlx-autodiff="func=layer remat=elementwise" | FileCheck %s
// A value several forward ops read is kept instead, so copies do not chain
// back through a residual stream.
// RUN: rlx-opt %s --rlx-autodiff="func=shared remat=elementwise" | FileCheck %s --check-prefix=SHARED
// The marks keep CSE from merging the copies back into the forward values
// through the lowering and the elementwise fusion.
// RUN: rlx-opt %s --rlx-autodiff="func=layer remat=elementwise" \
// RUN:   --rlx-unfuse=target=cpu --convert-rlx-to-linalg --rlx-fuse-elementwise \
// RUN:   --cse | FileCheck %s --check-prefix=LOWERED
// RUN: rlx-opt %s --rlx-autodiff="func=layer" | FileCheck %s --check-prefix=NONE

// loss = sum(tanh(x @ w + b) @ v)
func.func @layer(%x: tensor<4x3xf32> {rlx.input = "x"},
                 %w: tensor<3x5xf32> {rlx.param = "w"},
                 %b: tensor<5xf32> {rlx.param = "b"},
                 %v: tensor<5x2xf32> {rlx.param = "v"}) -> tensor<f32> {
  %m = rlx.matmul %x, %w : tensor<4x3xf32>, tensor<3x5xf32>
  %a = rlx.binary add %m, %b : tensor<4x5xf32>, tensor<5xf32>
  %h = rlx.activation tanh %a : tensor<4x5xf32>
  %z = rlx.matmul %h, %v : tensor<4x5xf32>, tensor<5x2xf32>
  %l = rlx.reduce sum %z axes = [0, 1] : tensor<4x2xf32>
  return %l : tensor<f32>
}

// loss = sum(tanh(x @ w) @ v + tanh(x @ w)): the tanh has two forward
// readers.
func.func @shared(%x: tensor<4x5xf32> {rlx.input = "x"},
                  %w: tensor<5x5xf32> {rlx.param = "w"},
                  %v: tensor<5x5xf32> {rlx.param = "v"}) -> tensor<f32> {
  %m = rlx.matmul %x, %w : tensor<4x5xf32>, tensor<5x5xf32>
  %t = rlx.activation tanh %m : tensor<4x5xf32>
  %z = rlx.matmul %t, %v : tensor<4x5xf32>, tensor<5x5xf32>
  %y = rlx.binary add %z, %t : tensor<4x5xf32>, tensor<4x5xf32>
  %l = rlx.reduce sum %y axes = [0, 1] : tensor<4x5xf32>
  return %l : tensor<f32>
}

// CHECK-LABEL: func.func @layer_grad(
// CHECK:      %[[M:.*]] = rlx.matmul %arg0, %arg1
// CHECK-NEXT: %[[A:.*]] = rlx.binary add %[[M]], %arg2 :
// CHECK-NEXT: %[[H:.*]] = rlx.activation tanh %[[A]] :
// CHECK-NEXT: rlx.matmul %[[H]], %arg3
// The gradient of v reads tanh(x @ w + b) recomputed from the matmul.
// CHECK:      %[[A1:.*]] = rlx.binary add %[[M]], %arg2 {rlx.remat}
// CHECK-NEXT: %[[H1:.*]] = rlx.activation tanh %[[A1]] {rlx.remat}
// CHECK-NEXT: rlx.transpose %[[H1]]
// The tanh backward reads its own copy of x @ w + b.
// CHECK:      %[[A2:.*]] = rlx.binary add %[[M]], %arg2 {rlx.remat}
// CHECK-NEXT: rlx.activation_backward tanh %[[A2]],
// CHECK-NOT:  rlx.activation_backward tanh %[[A]]

// LOWERED-LABEL: func.func @layer_grad(
// LOWERED:      %[[FWD:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %arg2 :
// LOWERED-NOT:  rlx.remat
// LOWERED:      %[[COPY:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %arg2 : {{.*}} attrs = {rlx.remat}
// LOWERED:      linalg.transpose ins(%[[COPY]]

// NONE-LABEL: func.func @layer_grad(
// NONE-NOT:   rlx.remat
// NONE:       %[[H:.*]] = rlx.activation tanh
// NONE:       rlx.transpose %[[H]]

// SHARED-LABEL: func.func @shared_grad(
// SHARED:       %[[T:.*]] = rlx.activation tanh
// SHARED-NOT:   rlx.remat
// SHARED:       rlx.transpose %[[T]]
// SHARED-NOT:   rlx.remat
// SHARED:       return
