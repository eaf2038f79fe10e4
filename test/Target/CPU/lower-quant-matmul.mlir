// RUN: rlx-opt %s --rlx-cpu-lower-quant-matmul | FileCheck %s
// RUN: rlx-opt %s --rlx-cpu-pipeline | FileCheck %s --check-prefix=PIPELINE
// RUN: rlx-opt %s --rlx-cpu-pipeline="quant-gemm-kernel=false" | FileCheck %s --check-prefix=WHOLE

// rlx.dequant_matmul of gguf_q4_0, gguf_q8_0 and the int8/int4 block
// schemes becomes one call of rlx_rt_quant_matmul(format, x, w, scale,
// zero_point, out, M, N, K, block_size): format 0 int8 blocks, 1 int4
// blocks, 2 q4_0, 3 q8_0; the data pointers of the operands' buffers (0 for
// an absent side operand) and of the [M, N] result's, which the kernel
// overwrites. The call sits in the body of an rlx_cpu.on_buffers that reads
// the operands present (x, w, then scale and zero_point) and writes a fresh
// result (a tensor.empty, sized by x's rows when they are `?`), so
// bufferization sees both; the body's block arguments are those buffers.
// A ui8 weight is cast to its signless type, as convert-rlx-to-linalg types
// it. Other schemes and a dynamic K keep the whole-weight lowering.

// CHECK: func.func private @rlx_rt_quant_matmul(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)

// CHECK-LABEL: func.func @q4_0_dynamic_rows(
// CHECK-SAME: %[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<288xui8>)
// CHECK: %[[M:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[M]]) : tensor<?x8xf32>
// CHECK: %[[WS:.*]] = builtin.unrealized_conversion_cast %[[W]] : tensor<288xui8> to tensor<288xi8>
// CHECK: %[[R:.*]] = rlx_cpu.on_buffers ins(%[[X]], %[[WS]] : tensor<?x64xf32>, tensor<288xi8>) outs(%[[INIT]] : tensor<?x8xf32>) {
// CHECK: ^bb0(%[[XB:.*]]: memref<?x64xf32>, %[[WB:.*]]: memref<288xi8>, %[[OUT:.*]]: memref<?x8xf32>):
// CHECK-DAG: %[[MD:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?x8xf32>
// CHECK-DAG: %[[ROWS:.*]] = arith.index_cast %[[MD]] : index to i64
// CHECK-DAG: %[[FORMAT:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[WB]]
// CHECK-DAG: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-DAG: %[[X64:.*]] = arith.index_cast %[[XP]] : index to i64
// CHECK-DAG: %[[W64:.*]] = arith.index_cast %[[WP]] : index to i64
// CHECK-DAG: %[[O64:.*]] = arith.index_cast %[[OP]] : index to i64
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[K:.*]] = arith.constant 64 : i64
// CHECK: func.call @rlx_rt_quant_matmul(%[[FORMAT]], %[[X64]], %[[W64]], %{{.*}}, %{{.*}}, %[[O64]], %[[ROWS]], %[[N]], %[[K]], %{{.*}})
// CHECK: } -> tensor<?x8xf32>
// CHECK: return %[[R]]
func.func @q4_0_dynamic_rows(%x: tensor<?x64xf32>, %w: tensor<288xui8>) -> tensor<?x8xf32> {
  %0 = rlx.dequant_matmul gguf_q4_0 %x, %w : tensor<?x64xf32>, tensor<288xui8>
  return %0 : tensor<?x8xf32>
}

// CHECK-LABEL: func.func @q8_0(
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<1x8xf32>
// CHECK: rlx_cpu.on_buffers ins(%{{.*}}, %{{.*}} : tensor<1x64xf32>, tensor<544xi8>) outs(%[[INIT]] : tensor<1x8xf32>)
// CHECK-DAG: %[[FORMAT:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 1 : i64
// CHECK: func.call @rlx_rt_quant_matmul(%[[FORMAT]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[M]],
func.func @q8_0(%x: tensor<1x64xf32>, %w: tensor<544xui8>) -> tensor<1x8xf32> {
  %0 = rlx.dequant_matmul gguf_q8_0 %x, %w : tensor<1x64xf32>, tensor<544xui8>
  return %0 : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @int4_zero_point(
// CHECK-SAME: %[[X:.*]]: tensor<3x64xf32>, %[[W:.*]]: tensor<64x4xui8>, %[[S:.*]]: tensor<2x8xf32>, %[[Z:.*]]: tensor<2x8xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<3x8xf32>
// CHECK: %[[WS:.*]] = builtin.unrealized_conversion_cast %[[W]] : tensor<64x4xui8> to tensor<64x4xi8>
// CHECK: rlx_cpu.on_buffers ins(%[[X]], %[[WS]], %[[S]], %[[Z]] : tensor<3x64xf32>, tensor<64x4xi8>, tensor<2x8xf32>, tensor<2x8xf32>) outs(%[[INIT]] : tensor<3x8xf32>) {
// CHECK: ^bb0(%{{.*}}: memref<3x64xf32>, %{{.*}}: memref<64x4xi8>, %[[SB:.*]]: memref<2x8xf32>, %[[ZB:.*]]: memref<2x8xf32>, %{{.*}}: memref<3x8xf32>):
// CHECK-DAG: %[[FORMAT:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[SB]]
// CHECK-DAG: %[[ZP:.*]] = memref.extract_aligned_pointer_as_index %[[ZB]]
// CHECK-DAG: %[[S64:.*]] = arith.index_cast %[[SP]] : index to i64
// CHECK-DAG: %[[Z64:.*]] = arith.index_cast %[[ZP]] : index to i64
// CHECK: func.call @rlx_rt_quant_matmul(%[[FORMAT]], %{{.*}}, %{{.*}}, %[[S64]], %[[Z64]], %{{.*}}, %[[M]], %{{.*}}, %{{.*}}, %[[BLOCK]])
// CHECK: } -> tensor<3x8xf32>
func.func @int4_zero_point(%x: tensor<3x64xf32>, %w: tensor<64x4xui8>, %s: tensor<2x8xf32>, %z: tensor<2x8xf32>) -> tensor<3x8xf32> {
  %0 = rlx.dequant_matmul int4_block block_size = 32 %x, %w scale %s : tensor<2x8xf32> zero_point %z : tensor<2x8xf32> : tensor<3x64xf32>, tensor<64x4xui8>
  return %0 : tensor<3x8xf32>
}

// CHECK-LABEL: func.func @int8_asym(
// CHECK-NOT: unrealized_conversion_cast
// CHECK: rlx_cpu.on_buffers ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<17x50xf32>, tensor<50x6xi8>, tensor<4x6xf32>, tensor<4x6xf32>) outs(%{{.*}} : tensor<17x6xf32>)
// CHECK: func.call @rlx_rt_quant_matmul(%{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> ()
func.func @int8_asym(%x: tensor<17x50xf32>, %w: tensor<50x6xi8>, %s: tensor<4x6xf32>, %z: tensor<4x6xf32>) -> tensor<17x6xf32> {
  %0 = rlx.dequant_matmul int8_block_asym block_size = 16 %x, %w scale %s : tensor<4x6xf32> zero_point %z : tensor<4x6xf32> : tensor<17x50xf32>, tensor<50x6xi8>
  return %0 : tensor<17x6xf32>
}

// CHECK-LABEL: func.func @q4_k_whole_weight(
// CHECK-NOT: rlx_rt_quant_matmul
// CHECK: rlx.dequant_matmul gguf_q4_k
func.func @q4_k_whole_weight(%x: tensor<3x256xf32>, %w: tensor<1152xui8>) -> tensor<3x8xf32> {
  %0 = rlx.dequant_matmul gguf_q4_k %x, %w : tensor<3x256xf32>, tensor<1152xui8>
  return %0 : tensor<3x8xf32>
}

// CHECK-LABEL: func.func @int8_dynamic_k(
// CHECK-NOT: rlx_rt_quant_matmul
// CHECK: rlx.dequant_matmul int8_block
func.func @int8_dynamic_k(%x: tensor<3x?xf32>, %w: tensor<?x6xi8>, %s: tensor<?x6xf32>) -> tensor<3x6xf32> {
  %0 = rlx.dequant_matmul int8_block block_size = 16 %x, %w scale %s : tensor<?x6xf32> : tensor<3x?xf32>, tensor<?x6xi8>
  return %0 : tensor<3x6xf32>
}

// Through the whole pipeline the weight's casts fold away: the kernel is
// called on the i8 argument's memref, the one buffer allocated is the
// result's, and the f32 weight is never allocated. With
// quant-gemm-kernel=false the weight is decoded whole and multiplied by the
// f32 GEMM (oneDNN's sgemm by default).
// PIPELINE-LABEL: llvm.func @q4_0_dynamic_rows(
// PIPELINE: llvm.call @_mlir_memref_to_llvm_alloc(
// PIPELINE-NOT: llvm.call @_mlir_memref_to_llvm_alloc(
// PIPELINE: llvm.call @rlx_rt_quant_matmul(
// PIPELINE-NOT: rlx_rt_matmul_f32
// PIPELINE-LABEL: llvm.func @q8_0(
// WHOLE-LABEL: llvm.func @q4_0_dynamic_rows(
// WHOLE-NOT: rlx_rt_quant_matmul
// WHOLE: llvm.call @rlx_rt_matmul_f32_onednn(
