// data-parallel=N: the training step all-reduces its gradients (in buckets)
// and its loss over mesh [N] before the update; @f_grad keeps the rank's own.
// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=sgd lr=0.5 data-parallel=2" | FileCheck %s
// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=sgd momentum=0.9 data-parallel=4 gradient-reduction=sum bucket-mb=0" | FileCheck %s --check-prefix=EACH
// A cap of 100 bytes: b1 (12 bytes) and w1 (96) do not fit together.
// RUN: rlx-opt %s --rlx-autodiff="func=f optimizer=sgd data-parallel=2 bucket-mb=0.0001" | FileCheck %s --check-prefix=CAP
// RUN: rlx-opt %s --rlx-autodiff="func=half optimizer=sgd data-parallel=2" | FileCheck %s --check-prefix=HALF
// RUN: rlx-opt %s --rlx-autodiff="func=half optimizer=sgd data-parallel=2 gradient-precision=native" | FileCheck %s --check-prefix=NATIVE
// RUN: not rlx-opt %s --rlx-autodiff="func=f data-parallel=2" 2>&1 | FileCheck %s --check-prefix=NOOPT
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd data-parallel=2 gradient-precision=f16" 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd data-parallel=-2" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd data-parallel=2 gradient-reduction=max" 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not rlx-opt %s --rlx-autodiff="func=f optimizer=sgd data-parallel=2 bucket-mb=-1" 2>&1 | FileCheck %s --check-prefix=BUCKET

// CHECK-LABEL: func.func @f_grad(
// CHECK-NOT: rlx.all_reduce
// CHECK-LABEL: func.func @f_train_step(
// One bucket per element type, in the order the backward pass computes the
// gradients, each reduced right after its last gradient: w2 (f64, the
// first) alone, reduced in place; then b1 [3] and w1 [8, 3] (f32)
// flattened into 27 elements, after w1's gradient (x^T dy), before the
// update that reads them.
// CHECK: %[[W2G:.*]] = rlx.all_reduce mean %{{.*}} mesh [2] : tensor<3xf64>
// CHECK: rlx.matmul
// CHECK: %[[GW1:.*]] = rlx.reshape %{{.*}} new_shape = [24] : tensor<8x3xf32>
// CHECK: %[[CAT:.*]] = rlx.concat %[[GB1:.*]], %[[GW1]] axis = 0 : tensor<3xf32>, tensor<24xf32>
// CHECK: %[[R:.*]] = rlx.all_reduce mean %[[CAT]] mesh [2] : tensor<27xf32>
// CHECK: %[[B1G:.*]] = rlx.narrow %[[R]] axis = 0 start = 0 len = 3
// CHECK: %[[N1:.*]] = rlx.narrow %[[R]] axis = 0 start = 3 len = 24
// CHECK: %[[W1G:.*]] = rlx.reshape %[[N1]] new_shape = [8, 3] : tensor<24xf32>
// CHECK: %[[LOSS:.*]] = rlx.all_reduce mean %{{.*}} mesh [2] : tensor<f32>
// CHECK: rlx.binary mul %[[W1G]]
// CHECK: rlx.binary mul %[[B1G]]
// CHECK: rlx.binary mul %[[W2G]]
// CHECK: return %[[LOSS]],

// EACH-LABEL: func.func @f_train_step(
// EACH-NOT: rlx.concat
// EACH: rlx.all_reduce sum %{{.*}} mesh [4] : tensor<3xf64>
// EACH: rlx.all_reduce sum %{{.*}} mesh [4] : tensor<3xf32>
// EACH: rlx.all_reduce sum %{{.*}} mesh [4] : tensor<8x3xf32>
// EACH: rlx.all_reduce sum %{{.*}} mesh [4] : tensor<f32>
// EACH-NOT: rlx.all_reduce

// CAP-LABEL: func.func @f_train_step(
// CAP-NOT: rlx.concat
// CAP: rlx.all_reduce mean %{{.*}} mesh [2] : tensor<3xf32>
// CAP: rlx.all_reduce mean %{{.*}} mesh [2] : tensor<8x3xf32>

// MPI has no bf16: the bucket is reduced in f32.
// HALF-LABEL: func.func @half_train_step(
// HALF: %[[CAT:.*]] = rlx.concat {{.*}} : tensor<3xbf16>, tensor<6xbf16>
// HALF: %[[WIDE:.*]] = rlx.cast %[[CAT]] : tensor<9xbf16> to f32
// HALF: %[[R:.*]] = rlx.all_reduce mean %[[WIDE]] mesh [2] : tensor<9xf32>
// HALF: rlx.cast %[[R]] : tensor<9xf32> to bf16

// gradient-precision=native: the bucket and the loss are reduced in bf16
// (NCCL takes it), no widening.
// NATIVE-LABEL: func.func @half_train_step(
// NATIVE-NOT: rlx.cast
// NATIVE: %[[CAT:.*]] = rlx.concat {{.*}} : tensor<3xbf16>, tensor<6xbf16>
// NATIVE: rlx.all_reduce mean %[[CAT]] mesh [2] : tensor<9xbf16>
// NATIVE: rlx.all_reduce mean %{{.*}} mesh [2] : tensor<bf16>
// NATIVE-NOT: rlx.cast
// NATIVE: return

// NOOPT: error: rlx-autodiff: data-parallel=2 all-reduces the gradients of the training step; it needs optimizer=sgd or adam
// NEG: error: rlx-autodiff: data-parallel=-2 is out of range (>= 0)
// KIND: error: rlx-autodiff: unknown gradient-reduction=max (expected mean or sum)
// PRECISION: error: rlx-autodiff: unknown gradient-precision=f16 (expected f32 or native)
// BUCKET: error: rlx-autodiff: bucket-mb=-1 is out of range (finite and >= 0)

func.func @f(%x: tensor<4x8xf32> {rlx.input = "x"},
             %w1: tensor<8x3xf32> {rlx.param = "w1"},
             %b1: tensor<3xf32> {rlx.param = "b1"},
             %w2: tensor<3xf64> {rlx.param = "w2"}) -> tensor<f32> {
  %h0 = rlx.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x3xf32>
  %h = rlx.binary add %h0, %b1 : tensor<4x3xf32>, tensor<3xf32>
  %s = rlx.cast %w2 : tensor<3xf64> to f32
  %y = rlx.binary mul %h, %s : tensor<4x3xf32>, tensor<3xf32>
  %l = rlx.reduce mean %y axes = [0, 1] : tensor<4x3xf32>
  return %l : tensor<f32>
}

func.func @half(%x: tensor<4x2xbf16> {rlx.input = "x"},
                %w: tensor<2x3xbf16> {rlx.param = "w"},
                %b: tensor<3xbf16> {rlx.param = "b"}) -> tensor<bf16> {
  %h0 = rlx.matmul %x, %w : tensor<4x2xbf16>, tensor<2x3xbf16>
  %h = rlx.binary add %h0, %b : tensor<4x3xbf16>, tensor<3xbf16>
  %l = rlx.reduce mean %h axes = [0, 1] : tensor<4x3xbf16>
  return %l : tensor<bf16>
}
