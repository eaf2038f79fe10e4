// RUN: rlx-opt %s --convert-rlx-to-linalg --split-input-file | FileCheck %s

// Row max, then one reduction carrying sum(exp(x - max)) and the logit
// whose class index equals the label (start value NaN: an out-of-range
// label picks nothing), then loss = max + log(sum) - picked, or 0 for a
// row whose label is outside [0, C) (ignored, as PyTorch's ignore_index).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf32>, %[[L:.*]]: tensor<4xi32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[PICK0:.*]] = linalg.fill ins(%[[NAN]] : f32)
// CHECK: %[[STATS:.*]]:2 = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]], %[[L]] : tensor<4x10xf32>, tensor<4xf32>, tensor<4xi32>) outs(%{{.*}}, %[[PICK0]] :
// CHECK-NEXT: ^bb0(%[[XE:.*]]: f32, %[[ME:.*]]: f32, %[[LE:.*]]: i32, %[[SUM:.*]]: f32, %[[PICKED:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[XE]], %[[ME]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[SUM]], %[[E]]
// CHECK-NEXT: %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[LI:.*]] = arith.index_cast %[[LE]] : i32 to index
// CHECK-NEXT: %[[HIT:.*]] = arith.cmpi eq, %[[C]], %[[LI]] : index
// CHECK-NEXT: %[[P:.*]] = arith.select %[[HIT]], %[[XE]], %[[PICKED]] : f32
// CHECK-NEXT: linalg.yield %[[S]], %[[P]]
// CHECK: %[[C10:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x10xf32>
// CHECK: %[[LOSS:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MAX]], %[[STATS]]#0, %[[STATS]]#1, %[[L]] :
// CHECK-NEXT: ^bb0(%[[M2:.*]]: f32, %[[S2:.*]]: f32, %[[P2:.*]]: f32, %[[L2:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[LOG:.*]] = math.log %[[S2]]
// CHECK-NEXT: %[[LSE:.*]] = arith.addf %[[M2]], %[[LOG]]
// CHECK-NEXT: %[[Y:.*]] = arith.subf %[[LSE]], %[[P2]]
// CHECK-NEXT: %[[LI2:.*]] = arith.index_cast %[[L2]] : i32 to index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[LI2]], %[[ZERO]] : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[LI2]], %[[C10]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: %[[ZF:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.select %[[IN]], %[[Y]], %[[ZF]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK: return %[[LOSS]]
func.func @cross_entropy(%x: tensor<4x10xf32>, %l: tensor<4xi32>) -> tensor<4xf32> {
  %0 = rlx.softmax_cross_entropy_with_logits %x, %l : tensor<4x10xf32>, tensor<4xi32>
  return %0 : tensor<4xf32>
}

// -----

// f16 accumulates in f32 and rounds once.
// CHECK-LABEL: func.func @cross_entropy_f16
// CHECK: arith.extf
// CHECK: math.log %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cross_entropy_f16(%x: tensor<3x5xf16>, %l: tensor<3xi64>) -> tensor<3xf16> {
  %0 = rlx.softmax_cross_entropy_with_logits %x, %l : tensor<3x5xf16>, tensor<3xi64>
  return %0 : tensor<3xf16>
}

// -----

// The gradient: softmax minus the one-hot label, times d_loss per row.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @cross_entropy_backward
// CHECK-SAME: (%[[X:.*]]: tensor<4x10xf64>, %[[L:.*]]: tensor<4xi64>, %[[G:.*]]: tensor<4xf64>)
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: %[[STATS:.*]]:2 = linalg.generic
// CHECK: %[[DX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MAX]], %[[STATS]]#0, %[[L]], %[[G]] :
// CHECK: math.exp
// CHECK: %[[P:.*]] = arith.divf
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: arith.cmpi eq, %[[C]]
// CHECK: %[[T:.*]] = arith.select
// CHECK: %[[D:.*]] = arith.subf %[[P]], %[[T]]
// CHECK: arith.mulf %[[D]]
// CHECK: return %[[DX]]
func.func @cross_entropy_backward(%x: tensor<4x10xf64>, %l: tensor<4xi64>, %g: tensor<4xf64>) -> tensor<4x10xf64> {
  %0 = rlx.softmax_cross_entropy_backward %x, %l, %g : tensor<4x10xf64>, tensor<4xi64>, tensor<4xf64>
  return %0 : tensor<4x10xf64>
}
