// RUN: rlx-opt %s --rlx-cpu-lower-convolutions --split-input-file | FileCheck %s

// f32 rlx.conv, rlx.conv2d_backward_input and rlx.conv2d_backward_weight
// become calls of the runtime's oneDNN convolutions in the body of an
// rlx_cpu.on_buffers that reads the two operands and writes a fresh result
// (a tensor.empty), so bufferization sees both: the three buffers as fully
// dynamic strided memrefs, then the forward op's stride, padding and
// dilation ([H, W] each) and groups.

// CHECK: func.func private @rlx_rt_conv2d_forward_f32(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @forward(
// CHECK-SAME: %[[X:.*]]: tensor<2x6x17x13xf32>, %[[W:.*]]: tensor<8x3x5x3xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x8x11x4xf32>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[X]], %[[W]] : tensor<2x6x17x13xf32>, tensor<8x3x5x3xf32>) outs(%[[INIT]] : tensor<2x8x11x4xf32>) {
// CHECK: ^bb0(%[[XB:.*]]: memref<2x6x17x13xf32>, %[[WB:.*]]: memref<8x3x5x3xf32>, %[[OUT:.*]]: memref<2x8x11x4xf32>):
// CHECK: %[[XC:.*]] = memref.cast %[[XB]]
// CHECK: %[[WC:.*]] = memref.cast %[[WB]]
// CHECK: %[[OC:.*]] = memref.cast %[[OUT]]
// CHECK-DAG: %[[SH:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[SW:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[PH:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[PW:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[DH:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[DW:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[G:.*]] = arith.constant 2 : i64
// CHECK: call @rlx_rt_conv2d_forward_f32(%[[XC]], %[[WC]], %[[OC]], %[[SH]], %[[SW]], %[[PH]], %[[PW]], %[[DH]], %[[DW]], %[[G]])
// CHECK: } -> tensor<2x8x11x4xf32>
// CHECK: return %[[R]]
func.func @forward(%x: tensor<2x6x17x13xf32>, %w: tensor<8x3x5x3xf32>) -> tensor<2x8x11x4xf32> {
  %0 = rlx.conv %x, %w kernel_size = [5, 3], stride = [2, 3], padding = [4, 5], dilation = [1, 6], groups = 2 : tensor<2x6x17x13xf32>, tensor<8x3x5x3xf32>
  return %0 : tensor<2x8x11x4xf32>
}

// -----

// The input gradient's batch comes from dy when it is `?`.
// CHECK-LABEL: func.func @backward_input(
// CHECK-SAME: %[[DY:.*]]: tensor<?x8x4x4xf32>, %[[W:.*]]: tensor<8x4x3x3xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[DY]], %{{.*}} : tensor<?x8x4x4xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x4x8x8xf32>
// CHECK: rlx_cpu.on_buffers ins(%[[DY]], %[[W]] : tensor<?x8x4x4xf32>, tensor<8x4x3x3xf32>) outs(%[[INIT]] : tensor<?x4x8x8xf32>)
// CHECK: ^bb0(%{{.*}}: memref<?x8x4x4xf32>, %{{.*}}: memref<8x4x3x3xf32>, %{{.*}}: memref<?x4x8x8xf32>):
// CHECK: call @rlx_rt_conv2d_backward_data_f32(
// CHECK: } -> tensor<?x4x8x8xf32>
func.func @backward_input(%dy: tensor<?x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<?x4x8x8xf32> {
  %0 = rlx.conv2d_backward_input %dy, %w kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<?x8x4x4xf32>, tensor<8x4x3x3xf32> -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @backward_weight(
// CHECK-SAME: %[[X:.*]]: tensor<?x4x8x8xf32>, %[[DY:.*]]: tensor<?x8x4x4xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<8x4x3x3xf32>
// CHECK: rlx_cpu.on_buffers ins(%[[X]], %[[DY]] : tensor<?x4x8x8xf32>, tensor<?x8x4x4xf32>) outs(%[[INIT]] : tensor<8x4x3x3xf32>)
// CHECK: call @rlx_rt_conv2d_backward_weights_f32(
// CHECK: } -> tensor<8x4x3x3xf32>
func.func @backward_weight(%x: tensor<?x4x8x8xf32>, %dy: tensor<?x8x4x4xf32>) -> tensor<8x4x3x3xf32> {
  %0 = rlx.conv2d_backward_weight %x, %dy kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<?x4x8x8xf32>, tensor<?x8x4x4xf32>
  return %0 : tensor<8x4x3x3xf32>
}

// -----

// f16 and bf16 convolutions call the f32 one on f32 copies of their
// operands and round its result once.
// CHECK-LABEL: func.func @narrow(
// CHECK-SAME: %[[X:.*]]: tensor<1x3x8x8xf16>, %[[W:.*]]: tensor<4x3x3x3xf16>, %[[DY:.*]]: tensor<1x4x8x8xbf16>, %[[WB:.*]]: tensor<4x3x3x3xbf16>
// CHECK: %[[XF:.*]] = rlx.cast %[[X]] : tensor<1x3x8x8xf16> to f32
// CHECK: %[[WF:.*]] = rlx.cast %[[W]] : tensor<4x3x3x3xf16> to f32
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<1x4x8x8xf32>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[XF]], %[[WF]] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<1x4x8x8xf32>)
// CHECK: call @rlx_rt_conv2d_forward_f32(
// CHECK: } -> tensor<1x4x8x8xf32>
// CHECK: %[[Y:.*]] = rlx.cast %[[R]] : tensor<1x4x8x8xf32> to f16
// CHECK: %[[DYF:.*]] = rlx.cast %[[DY]] : tensor<1x4x8x8xbf16> to f32
// CHECK: %[[WBF:.*]] = rlx.cast %[[WB]] : tensor<4x3x3x3xbf16> to f32
// CHECK: %[[G:.*]] = rlx_cpu.on_buffers ins(%[[DYF]], %[[WBF]] : tensor<1x4x8x8xf32>, tensor<4x3x3x3xf32>)
// CHECK: call @rlx_rt_conv2d_backward_data_f32(
// CHECK: %[[DX:.*]] = rlx.cast %[[G]] : tensor<1x3x8x8xf32> to bf16
// CHECK: return %[[Y]], %[[DX]]
func.func @narrow(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>,
                  %dy: tensor<1x4x8x8xbf16>, %wb: tensor<4x3x3x3xbf16>)
    -> (tensor<1x4x8x8xf16>, tensor<1x3x8x8xbf16>) {
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16>
  %1 = rlx.conv2d_backward_input %dy, %wb kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x4x8x8xbf16>, tensor<4x3x3x3xbf16> -> tensor<1x3x8x8xbf16>
  return %0, %1 : tensor<1x4x8x8xf16>, tensor<1x3x8x8xbf16>
}

// -----

// f64 and `?` channel or spatial dims keep the linalg lowering.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: call
// CHECK: rlx.conv {{.*}} : tensor<1x3x8x8xf64>
// CHECK: rlx.conv {{.*}} : tensor<1x3x?x8xf32>
// CHECK: rlx.conv2d_backward_weight {{.*}} : tensor<1x3x?x8xf32>
func.func @kept(%a: tensor<1x3x8x8xf64>, %wa: tensor<4x3x3x3xf64>,
                %c: tensor<1x3x?x8xf32>, %wc: tensor<4x3x3x3xf32>,
                %dy: tensor<1x4x?x8xf32>)
    -> (tensor<1x4x8x8xf64>, tensor<1x4x?x8xf32>, tensor<4x3x3x3xf32>) {
  %0 = rlx.conv %a, %wa kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x8x8xf64>, tensor<4x3x3x3xf64>
  %1 = rlx.conv %c, %wc kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>
  %2 = rlx.conv2d_backward_weight %c, %dy kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x3x?x8xf32>, tensor<1x4x?x8xf32>
  return %0, %1, %2 : tensor<1x4x8x8xf64>, tensor<1x4x?x8xf32>, tensor<4x3x3x3xf32>
}

// -----

// A convolution of a convolution's result (a chain, as in every network)
// reads the first call's result.
// CHECK-LABEL: func.func @chained(
// CHECK: %[[Y1:.*]] = rlx_cpu.on_buffers ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>)
// CHECK: call @rlx_rt_conv2d_forward_f32(
// CHECK: %[[Y2:.*]] = rlx_cpu.on_buffers ins(%[[Y1]], %{{.*}} : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>)
// CHECK: call @rlx_rt_conv2d_forward_f32(
// CHECK: rlx_cpu.on_buffers ins(%[[Y2]], %{{.*}} : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>)
// CHECK: call @rlx_rt_conv2d_backward_data_f32(
func.func @chained(%x: tensor<1x4x6x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %0 = rlx.conv %x, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>
  %1 = rlx.conv %0, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32>
  %2 = rlx.conv2d_backward_input %1, %w kernel_size = [3, 3], stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1 : tensor<1x4x6x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}
