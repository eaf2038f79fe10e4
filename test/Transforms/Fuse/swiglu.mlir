// RUN: rlx-opt %s --rlx-fuse --split-input-file | FileCheck %s
// RUN: rlx-opt %s --rlx-fuse="report=true" --split-input-file --verify-diagnostics > /dev/null
// RUN: rlx-opt %s --rlx-fuse="swiglu=false elementwise-region=false" --split-input-file | FileCheck %s --check-prefix=OFF

// up = low half, gate = high half, mul(silu(gate), up).
// CHECK-LABEL: func.func @narrow_up_low
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %arg0 : tensor<4x10xf32>
// CHECK-NEXT: return %[[F]] : tensor<4x5xf32>
// OFF-LABEL: func.func @narrow_up_low
// OFF-NOT: rlx.fused_swiglu
// OFF: rlx.activation silu
func.func @narrow_up_low(%x: tensor<4x10xf32>) -> tensor<4x5xf32> {
  %up = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<4x10xf32>
  %gate = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<4x10xf32>
  %s = rlx.activation silu %gate : tensor<4x5xf32>
  %y = rlx.binary mul %s, %up : tensor<4x5xf32>, tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// Gate in the low half (gate_first), mul operands the other way round,
// rank 3, the narrows not in program order.
// CHECK-LABEL: func.func @narrow_gate_first
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %arg0 gate_first : tensor<2x3x14xf64>
// CHECK-NEXT: return %[[F]] : tensor<2x3x7xf64>
func.func @narrow_gate_first(%x: tensor<2x3x14xf64>) -> tensor<2x3x7xf64> {
  %up = rlx.narrow %x axis = 2 start = 7 len = 7 : tensor<2x3x14xf64>
  %gate = rlx.narrow %x axis = 2 start = 0 len = 7 : tensor<2x3x14xf64>
  %s = rlx.activation silu %gate : tensor<2x3x7xf64>
  %y = rlx.binary mul %up, %s : tensor<2x3x7xf64>, tensor<2x3x7xf64>
  return %y : tensor<2x3x7xf64>
}

// -----

// A cast of the product becomes cast_to.
// CHECK-LABEL: func.func @narrow_cast
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %arg0 cast_to f16 : tensor<2x3x8xf32>
// CHECK-NEXT: return %[[F]] : tensor<2x3x4xf16>
func.func @narrow_cast(%x: tensor<2x3x8xf32>) -> tensor<2x3x4xf16> {
  %up = rlx.narrow %x axis = 2 start = 0 len = 4 : tensor<2x3x8xf32>
  %gate = rlx.narrow %x axis = 2 start = 4 len = 4 : tensor<2x3x8xf32>
  %s = rlx.activation silu %gate : tensor<2x3x4xf32>
  %y = rlx.binary mul %up, %s : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  %c = rlx.cast %y : tensor<2x3x4xf32> to f16
  return %c : tensor<2x3x4xf16>
}

// -----

// CHECK-LABEL: func.func @narrow_gate_first_cast_f8
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %arg0 gate_first cast_to f8E4M3FN : tensor<6x2xbf16>
// CHECK-NEXT: return %[[F]] : tensor<6x1xf8E4M3FN>
func.func @narrow_gate_first_cast_f8(%x: tensor<6x2xbf16>) -> tensor<6x1xf8E4M3FN> {
  %gate = rlx.narrow %x axis = 1 start = 0 len = 1 : tensor<6x2xbf16>
  %up = rlx.narrow %x axis = 1 start = 1 len = 1 : tensor<6x2xbf16>
  %s = rlx.activation silu %gate : tensor<6x1xbf16>
  %y = rlx.binary mul %s, %up : tensor<6x1xbf16>, tensor<6x1xbf16>
  %c = rlx.cast %y : tensor<6x1xbf16> to f8E4M3FN
  return %c : tensor<6x1xf8E4M3FN>
}

// -----

// The pre-cast product is also returned: fuse the SwiGLU, keep the cast.
// CHECK-LABEL: func.func @pre_cast_used
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %arg0 : tensor<4x10xf32>
// CHECK-NEXT: %[[C:.*]] = rlx.cast %[[F]] : tensor<4x5xf32> to f16
// CHECK-NEXT: return %[[F]], %[[C]]
func.func @pre_cast_used(%x: tensor<4x10xf32>) -> (tensor<4x5xf32>, tensor<4x5xf16>) {
  %up = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<4x10xf32>
  %gate = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<4x10xf32>
  %s = rlx.activation silu %gate : tensor<4x5xf32>
  %y = rlx.binary mul %s, %up : tensor<4x5xf32>, tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the pre-cast result has other uses}}
  %c = rlx.cast %y : tensor<4x5xf32> to f16
  return %y, %c : tensor<4x5xf32>, tensor<4x5xf16>
}

// -----

// A cast to an integer type is not a cast_to.
// CHECK-LABEL: func.func @cast_to_int
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %arg0 : tensor<4x10xf32>
// CHECK-NEXT: %[[C:.*]] = rlx.cast %[[F]] : tensor<4x5xf32> to i32
// CHECK-NEXT: return %[[C]]
func.func @cast_to_int(%x: tensor<4x10xf32>) -> tensor<4x5xi32> {
  %up = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<4x10xf32>
  %gate = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<4x10xf32>
  %s = rlx.activation silu %gate : tensor<4x5xf32>
  %y = rlx.binary mul %s, %up : tensor<4x5xf32>, tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the cast target is not a float type cast_to takes}}
  %c = rlx.cast %y : tensor<4x5xf32> to i32
  return %c : tensor<4x5xi32>
}

// -----

// Near misses of the narrow form: a half or the silu used elsewhere, a split
// along another axis, unequal or overlapping halves, two source tensors,
// another activation.
// CHECK-LABEL: func.func @narrow_near_misses
// CHECK-NOT: rlx.fused_swiglu
// CHECK: return
func.func @narrow_near_misses(%x: tensor<10x10xf32>, %z: tensor<10x10xf32>)
    -> (tensor<10x5xf32>, tensor<10x5xf32>, tensor<10x5xf32>, tensor<10x5xf32>,
        tensor<10x5xf32>, tensor<10x5xf32>, tensor<5x10xf32>, tensor<10x4xf32>,
        tensor<10x5xf32>, tensor<10x5xf32>, tensor<10x5xf32>) {
  %up0 = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<10x10xf32>
  %gate0 = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<10x10xf32>
  %s0 = rlx.activation silu %gate0 : tensor<10x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the gate half has other uses}}
  %y0 = rlx.binary mul %s0, %up0 : tensor<10x5xf32>, tensor<10x5xf32>

  %up1 = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<10x10xf32>
  %gate1 = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<10x10xf32>
  %s1 = rlx.activation silu %gate1 : tensor<10x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the up half has other uses}}
  %y1 = rlx.binary mul %up1, %s1 : tensor<10x5xf32>, tensor<10x5xf32>

  %up2 = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<10x10xf32>
  %gate2 = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<10x10xf32>
  %s2 = rlx.activation silu %gate2 : tensor<10x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the silu result has other uses}}
  %y2 = rlx.binary mul %s2, %up2 : tensor<10x5xf32>, tensor<10x5xf32>

  %up3 = rlx.narrow %x axis = 0 start = 0 len = 5 : tensor<10x10xf32>
  %gate3 = rlx.narrow %x axis = 0 start = 5 len = 5 : tensor<10x10xf32>
  %s3 = rlx.activation silu %gate3 : tensor<5x10xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: not split in halves of the last axis}}
  %y3 = rlx.binary mul %s3, %up3 : tensor<5x10xf32>, tensor<5x10xf32>

  %up4 = rlx.narrow %x axis = 1 start = 0 len = 4 : tensor<10x10xf32>
  %gate4 = rlx.narrow %x axis = 1 start = 4 len = 4 : tensor<10x10xf32>
  %s4 = rlx.activation silu %gate4 : tensor<10x4xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: not split in halves of the last axis}}
  %y4 = rlx.binary mul %s4, %up4 : tensor<10x4xf32>, tensor<10x4xf32>

  %up5 = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<10x10xf32>
  %gate5 = rlx.narrow %x axis = 1 start = 3 len = 5 : tensor<10x10xf32>
  %s5 = rlx.activation silu %gate5 : tensor<10x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: not split in halves of the last axis}}
  %y5 = rlx.binary mul %s5, %up5 : tensor<10x5xf32>, tensor<10x5xf32>

  %up6 = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<10x10xf32>
  %gate6 = rlx.narrow %z axis = 1 start = 5 len = 5 : tensor<10x10xf32>
  %s6 = rlx.activation silu %gate6 : tensor<10x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the narrows split different tensors}}
  %y6 = rlx.binary mul %s6, %up6 : tensor<10x5xf32>, tensor<10x5xf32>

  %up7 = rlx.narrow %x axis = 1 start = 0 len = 5 : tensor<10x10xf32>
  %gate7 = rlx.narrow %x axis = 1 start = 5 len = 5 : tensor<10x10xf32>
  %s7 = rlx.activation gelu %gate7 : tensor<10x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the activation is not silu}}
  %y7 = rlx.binary mul %s7, %up7 : tensor<10x5xf32>, tensor<10x5xf32>

  return %y0, %gate0, %y1, %up1, %y2, %s2, %y3, %y4, %y5, %y6, %y7
      : tensor<10x5xf32>, tensor<10x5xf32>, tensor<10x5xf32>, tensor<10x5xf32>,
        tensor<10x5xf32>, tensor<10x5xf32>, tensor<5x10xf32>, tensor<10x4xf32>,
        tensor<10x5xf32>, tensor<10x5xf32>, tensor<10x5xf32>
}

// -----

// silu(x @ Wg) * (x @ Wu): one matmul with [Wu | Wg], up in the low half.
// CHECK-LABEL: func.func @dual_matmul
// CHECK-NEXT: %[[W:.*]] = rlx.concat %arg2, %arg1 axis = 1 : tensor<8x5xf32>, tensor<8x5xf32>
// CHECK-NEXT: %[[P:.*]] = rlx.matmul %arg0, %[[W]] : tensor<4x8xf32>, tensor<8x10xf32>
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %[[P]] : tensor<4x10xf32>
// CHECK-NEXT: return %[[F]] : tensor<4x5xf32>
// OFF-LABEL: func.func @dual_matmul
// OFF-NOT: rlx.fused_swiglu
// OFF-COUNT-2: rlx.matmul
func.func @dual_matmul(%x: tensor<4x8xf32>, %wg: tensor<8x5xf32>, %wu: tensor<8x5xf32>) -> tensor<4x5xf32> {
  %g = rlx.matmul %x, %wg : tensor<4x8xf32>, tensor<8x5xf32>
  %u = rlx.matmul %x, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s = rlx.activation silu %g : tensor<4x5xf32>
  %y = rlx.binary mul %s, %u : tensor<4x5xf32>, tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}

// -----

// The other mul order, a rank-3 input, a cast after the product.
// CHECK-LABEL: func.func @dual_matmul_rank3_cast
// CHECK-NEXT: %[[W:.*]] = rlx.concat %arg2, %arg1 axis = 1 : tensor<6x3xf64>, tensor<6x3xf64>
// CHECK-NEXT: %[[P:.*]] = rlx.matmul %arg0, %[[W]] : tensor<2x7x6xf64>, tensor<6x6xf64>
// CHECK-NEXT: %[[F:.*]] = rlx.fused_swiglu %[[P]] cast_to f32 : tensor<2x7x6xf64>
// CHECK-NEXT: return %[[F]] : tensor<2x7x3xf32>
func.func @dual_matmul_rank3_cast(%x: tensor<2x7x6xf64>, %wg: tensor<6x3xf64>, %wu: tensor<6x3xf64>) -> tensor<2x7x3xf32> {
  %u = rlx.matmul %x, %wu : tensor<2x7x6xf64>, tensor<6x3xf64>
  %g = rlx.matmul %x, %wg : tensor<2x7x6xf64>, tensor<6x3xf64>
  %s = rlx.activation silu %g : tensor<2x7x3xf64>
  %y = rlx.binary mul %u, %s : tensor<2x7x3xf64>, tensor<2x7x3xf64>
  %c = rlx.cast %y : tensor<2x7x3xf64> to f32
  return %c : tensor<2x7x3xf32>
}

// -----

// Near misses of the dual-matmul form: two inputs, weights of different
// shapes, a projection or the silu used elsewhere, another activation.
// CHECK-LABEL: func.func @dual_matmul_near_misses
// CHECK-NOT: rlx.fused_swiglu
// CHECK-NOT: rlx.concat
// CHECK: return
func.func @dual_matmul_near_misses(%x: tensor<4x8xf32>, %z: tensor<4x8xf32>,
                                   %wg: tensor<8x5xf32>, %wu: tensor<8x5xf32>,
                                   %w1: tensor<8x1xf32>)
    -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>,
        tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>,
        tensor<4x5xf32>) {
  %g0 = rlx.matmul %x, %wg : tensor<4x8xf32>, tensor<8x5xf32>
  %u0 = rlx.matmul %z, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s0 = rlx.activation silu %g0 : tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the matmuls read different inputs}}
  %y0 = rlx.binary mul %s0, %u0 : tensor<4x5xf32>, tensor<4x5xf32>

  %g1 = rlx.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x1xf32>
  %u1 = rlx.matmul %x, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s1 = rlx.activation silu %g1 : tensor<4x1xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the weights are not two [K, H] matrices of one type}}
  %y1 = rlx.binary mul %s1, %u1 : tensor<4x1xf32>, tensor<4x5xf32>

  %g2 = rlx.matmul %x, %wg : tensor<4x8xf32>, tensor<8x5xf32>
  %u2 = rlx.matmul %x, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s2 = rlx.activation silu %g2 : tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the gate projection has other uses}}
  %y2 = rlx.binary mul %s2, %u2 : tensor<4x5xf32>, tensor<4x5xf32>

  %g3 = rlx.matmul %x, %wg : tensor<4x8xf32>, tensor<8x5xf32>
  %u3 = rlx.matmul %x, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s3 = rlx.activation silu %g3 : tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the up projection has other uses}}
  %y3 = rlx.binary mul %u3, %s3 : tensor<4x5xf32>, tensor<4x5xf32>

  %g4 = rlx.matmul %x, %wg : tensor<4x8xf32>, tensor<8x5xf32>
  %u4 = rlx.matmul %x, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s4 = rlx.activation silu %g4 : tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the silu result has other uses}}
  %y4 = rlx.binary mul %s4, %u4 : tensor<4x5xf32>, tensor<4x5xf32>

  %g5 = rlx.matmul %x, %wg : tensor<4x8xf32>, tensor<8x5xf32>
  %u5 = rlx.matmul %x, %wu : tensor<4x8xf32>, tensor<8x5xf32>
  %s5 = rlx.activation gelu %g5 : tensor<4x5xf32>
  // expected-remark @+1 {{not fused into rlx.fused_swiglu: the activation is not silu}}
  %y5 = rlx.binary mul %s5, %u5 : tensor<4x5xf32>, tensor<4x5xf32>

  return %y0, %y1, %y2, %g2, %y3, %u3, %y4, %s4, %y5
      : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>,
        tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>,
        tensor<4x5xf32>
}
