// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Per-channel quantize: the attribute scales and zero points become
// constant tensors read along the axis; round half to even, add the zero
// point, saturate, convert. Dequantize subtracts in i32 and scales.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @quantize_per_channel
// CHECK-SAME: (%[[X:.*]]: tensor<7x3xf32>)
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<[0, -3, 2]> : tensor<3xi32>
// CHECK: %[[Q:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CHAN]], #[[CHAN]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[S]], %[[Z]] : tensor<7x3xf32>, tensor<3xf32>, tensor<3xi32>) outs(%{{.*}} : tensor<7x3xi8>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[SE:.*]]: f32, %[[ZE:.*]]: i32, %{{.*}}: i8):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[XE]], %[[SE]] : f32
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT: %[[ZF:.*]] = arith.sitofp %[[ZE]] : i32 to f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT: %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-NEXT: %[[C1:.*]] = arith.maxnumf %[[A]], %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-NEXT: %[[C2:.*]] = arith.minnumf %[[C1]], %[[HI]] : f32
// CHECK-NEXT: %[[I:.*]] = arith.fptosi %[[C2]] : f32 to i8
// CHECK-NEXT: linalg.yield %[[I]] : i8
// CHECK: %[[DQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CHAN]], #[[CHAN]], #[[ID]]]
// CHECK-SAME: ins(%[[Q]], %{{.*}}, %{{.*}} : tensor<7x3xi8>, tensor<3xf32>, tensor<3xi32>)
// CHECK-NEXT: ^bb0(%[[QE:.*]]: i8, %[[SE2:.*]]: f32, %[[ZE2:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extsi %[[QE]] : i8 to i32
// CHECK-NEXT: %[[SUB:.*]] = arith.subi %[[W]], %[[ZE2]] : i32
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[SUB]] : i32 to f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[F]], %[[SE2]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: return %[[Q]], %[[DQ]]
func.func @quantize_per_channel(%x: tensor<7x3xf32>) -> (tensor<7x3xi8>, tensor<7x3xf32>) {
  %q = rlx.quantize %x axis = 1 scales = [0.5, 0.25, 1.0] zero_points = [0, -3, 2] : tensor<7x3xf32>
  %y = rlx.dequantize %q axis = -1 scales = [0.5, 0.25, 1.0] zero_points = [0, -3, 2] : tensor<7x3xi8>
  return %q, %y : tensor<7x3xi8>, tensor<7x3xf32>
}

// -----

// One shared entry: read at index 0.
// CHECK-DAG: #[[SHARED:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK-LABEL: func.func @quantize_shared
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SHARED]], #[[SHARED]], #{{.*}}]
func.func @quantize_shared(%x: tensor<6x5xf32>) -> tensor<6x5xi8> {
  %q = rlx.quantize %x scales = [0.5] zero_points = [3] : tensor<6x5xf32>
  return %q : tensor<6x5xi8>
}

// -----

// Per-batch scales along a middle axis: a max |x| reduction with the
// channel dim outermost, max(m / q_max, 1e-12), then the fake quantization
// clamped to [-q_max, q_max] (bits = 4: q_max = 7).
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[CHAN:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @fake_quantize_per_batch_axis
// CHECK-SAME: (%[[X:.*]]: tensor<3x4x5xf64>)
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[RED]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<3x4x5xf64>) outs(%{{.*}} : tensor<4xf64>)
// CHECK: math.absf
// CHECK: arith.maximumf
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: ins(%[[M]] : tensor<4xf64>)
// CHECK: arith.constant 7.000000e+00 : f64
// CHECK: arith.divf
// CHECK: arith.constant 9.9999999999999998E-13 : f64
// CHECK: arith.maximumf
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[CHAN]], #{{.*}}]
// CHECK-SAME: ins(%[[X]], %[[S]] : tensor<3x4x5xf64>, tensor<4xf64>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f64, %[[SE:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[XE]], %[[SE]]
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]]
// CHECK-NEXT: %[[LO:.*]] = arith.constant -7.000000e+00 : f64
// CHECK-NEXT: %[[C1:.*]] = arith.maximumf %[[R]], %[[LO]]
// CHECK-NEXT: %[[HI:.*]] = arith.constant 7.000000e+00 : f64
// CHECK-NEXT: %[[C2:.*]] = arith.minimumf %[[C1]], %[[HI]]
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[C2]], %[[SE]]
// CHECK-NEXT: linalg.yield %[[V]]
// CHECK: return %[[Y]]
func.func @fake_quantize_per_batch_axis(%x: tensor<3x4x5xf64>) -> tensor<3x4x5xf64> {
  %y = rlx.fake_quantize %x bits = 4 axis = -2 : tensor<3x4x5xf64>
  return %y : tensor<3x4x5xf64>
}

// -----

// Per tensor: a full reduction to a rank-0 scale.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @fake_quantize_per_tensor
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<f32>)
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: ins(%[[M]] : tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %[[S]] : tensor<6x5xf32>, tensor<f32>)
func.func @fake_quantize_per_tensor(%x: tensor<6x5xf32>) -> tensor<6x5xf32> {
  %y = rlx.fake_quantize %x bits = 8 : tensor<6x5xf32>
  return %y : tensor<6x5xf32>
}

// -----

// ema: the per-batch scale blended with the state (the state where it is
// positive), returned as the second result and used for the output.
// CHECK-LABEL: func.func @fake_quantize_ema
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[ST:.*]]: tensor<4xf32>)
// CHECK: %[[MAXABS:.*]] = linalg.generic
// CHECK: math.absf
// CHECK: %[[CUR:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MAXABS]] :
// CHECK: arith.divf
// CHECK: %[[NEW:.*]] = linalg.generic
// CHECK-SAME: ins(%[[ST]], %[[CUR]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[SE:.*]]: f32, %[[CE:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[DEC:.*]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[OM:.*]] = arith.subf %[[ONE]], %[[DEC]]
// CHECK-NEXT: %[[A:.*]] = arith.mulf %[[DEC]], %[[SE]]
// CHECK-NEXT: %[[B:.*]] = arith.mulf %[[OM]], %[[CE]]
// CHECK-NEXT: %[[BL:.*]] = arith.addf %[[A]], %[[B]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[COLD:.*]] = arith.cmpf ole, %[[SE]], %[[ZERO]]
// CHECK-NEXT: %[[R:.*]] = arith.select %[[COLD]], %[[CE]], %[[BL]]
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[NEW]] :
// CHECK: return %[[Y]], %[[NEW]]
func.func @fake_quantize_ema(%x: tensor<8x4xf32>, %s: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
  %y, %s1 = rlx.fake_quantize %x bits = 8 axis = 1 state %s : tensor<4xf32> {scale_mode = #rlx.scale_mode<ema>, ema_decay = 0.75 : f32} : tensor<8x4xf32>
  return %y, %s1 : tensor<8x4xf32>, tensor<4xf32>
}

// -----

// fixed: max(state, 1e-12); no reduction.
// CHECK-LABEL: func.func @fake_quantize_fixed
// CHECK-NOT: iterator_types = ["reduction"
// CHECK: %[[S:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[S]] : tensor<6x5xf32>, tensor<1xf32>)
// CHECK: arith.constant -1.000000e+00 : f32
func.func @fake_quantize_fixed(%x: tensor<6x5xf32>, %s: tensor<1xf32>) -> tensor<6x5xf32> {
  %y = rlx.fake_quantize %x bits = 2 state %s : tensor<1xf32> {scale_mode = #rlx.scale_mode<fixed>} : tensor<6x5xf32>
  return %y : tensor<6x5xf32>
}

// -----

// The estimators of the backward op; identity is dy itself.
// CHECK-LABEL: func.func @fake_quantize_backward
// CHECK-SAME: (%[[X:.*]]: tensor<5x7xf32>, %[[DY:.*]]: tensor<5x7xf32>)
// CHECK: arith.cmpf ole
// CHECK: arith.select
// CHECK: math.tanh
// CHECK: math.absf
// CHECK: arith.maximumf
// CHECK: return %[[DY]], %{{.*}}, %{{.*}}, %{{.*}}
func.func @fake_quantize_backward(%x: tensor<5x7xf32>, %dy: tensor<5x7xf32>) -> (tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>) {
  %0 = rlx.fake_quantize_backward %x, %dy bits = 8 ste = identity : tensor<5x7xf32>, tensor<5x7xf32>
  %1 = rlx.fake_quantize_backward %x, %dy bits = 8 axis = 1 ste = clipped_identity : tensor<5x7xf32>, tensor<5x7xf32>
  %2 = rlx.fake_quantize_backward %x, %dy bits = 4 ste = tanh : tensor<5x7xf32>, tensor<5x7xf32>
  %3 = rlx.fake_quantize_backward %x, %dy bits = 2 ste = hard_tanh : tensor<5x7xf32>, tensor<5x7xf32>
  return %0, %1, %2, %3 : tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>, tensor<5x7xf32>
}

// -----

// LSQ: the scale operand read along the axis; the scale gradient is a
// per-channel sum of psi(x / s) * dy, expanded to [1] per tensor.
// CHECK-DAG: #[[SHARED:.*]] = affine_map<(d0, d1) -> (0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @lsq
// CHECK-SAME: (%[[X:.*]]: tensor<6x5xf32>, %[[S:.*]]: tensor<1xf32>, %[[DY:.*]]: tensor<6x5xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[SHARED]], #{{.*}}]
// CHECK: math.roundeven
// CHECK: %[[DX:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[S]], %[[DY]] :
// CHECK: arith.cmpf ole
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #[[SHARED]], #[[SCALAR]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[DY]], %[[S]] :
// CHECK: %[[QM:.*]] = arith.constant 7.000000e+00 : f32
// CHECK: math.roundeven
// CHECK: math.copysign %[[QM]]
// CHECK: arith.select
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[DS:.*]] = tensor.expand_shape %[[SUM]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: return %[[Y]], %[[DX]], %[[DS]]
func.func @lsq(%x: tensor<6x5xf32>, %s: tensor<1xf32>, %dy: tensor<6x5xf32>) -> (tensor<6x5xf32>, tensor<6x5xf32>, tensor<1xf32>) {
  %0 = rlx.fake_quantize_lsq %x, %s bits = 4 : tensor<6x5xf32>, tensor<1xf32>
  %1 = rlx.fake_quantize_lsq_backward_x %x, %s, %dy bits = 4 : tensor<6x5xf32>, tensor<1xf32>, tensor<6x5xf32>
  %2 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 4 : tensor<6x5xf32>, tensor<1xf32>, tensor<6x5xf32>
  return %0, %1, %2 : tensor<6x5xf32>, tensor<6x5xf32>, tensor<1xf32>
}

// -----

// Per channel, the scale gradient keeps the channel dim (outermost).
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @lsq_scale_axis
// CHECK: linalg.generic {indexing_maps = [#[[RED]], #[[RED]], #[[OUT]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<5xf64>)
// CHECK-NOT: tensor.expand_shape
func.func @lsq_scale_axis(%x: tensor<6x5xf64>, %s: tensor<5xf64>, %dy: tensor<6x5xf64>) -> tensor<5xf64> {
  %0 = rlx.fake_quantize_lsq_backward_scale %x, %s, %dy bits = 8 axis = 1 : tensor<6x5xf64>, tensor<5xf64>, tensor<6x5xf64>
  return %0 : tensor<5xf64>
}
