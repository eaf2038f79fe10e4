// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=FORM
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels --split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: rlx-opt %s --rlx-cuda-pipeline --split-input-file | FileCheck %s --check-prefix=PIPELINE

// Each collective becomes an rlx_cuda.collective writing a tensor.empty,
// then one call of the runtime's rlx_cuda_collective_r<rank>_<type> (NCCL) with
// the description as i32 arguments after the two buffers: op code, kind
// (-1 when the op does not combine), dtype (RLX_DTYPE_*), first, second,
// the op's index among the graph's collectives, the mesh rank, four mesh
// sizes and the mask of spanned axes.

// FORM-LABEL: func.func @forward
// FORM:         %[[E0:.*]] = tensor.empty() : tensor<4x6xf32>
// FORM:         %[[R0:.*]] = rlx_cuda.collective "all_reduce" kind = <mean> ins(%arg0 : tensor<4x6xf32>) outs(%[[E0]] : tensor<4x6xf32>) first = 0 second = 0 group = <[2, 2], axes = [1]> -> tensor<4x6xf32>
// FORM:         %[[E1:.*]] = tensor.empty() : tensor<4x12xbf16>
// FORM:         %[[R1:.*]] = rlx_cuda.collective "all_gather" ins(%arg1 : tensor<4x6xbf16>) outs(%[[E1]] : tensor<4x12xbf16>) first = 1 second = 0 group = <[2, 2], axes = [0]> -> tensor<4x12xbf16>
// FORM:         rlx_cuda.collective "all_to_all" ins(%arg0 : tensor<4x6xf32>) outs({{.*}} : tensor<1x24xf32>) first = 0 second = 1 group = <[4]>
// FORM:         rlx_cuda.collective "reduce_to_root" kind = <max> ins(%arg2 : tensor<i32>) outs({{.*}} : tensor<i32>) first = 3 second = 0 group = <[4]>
// FORM-NOT:     rlx.all_reduce
// FORM-NOT:     rlx.all_gather

// LOWER-DAG:   func.func private @rlx_cuda_collective_r2_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// LOWER-DAG:   func.func private @rlx_cuda_collective_r0_i32(memref<i32, strided<[], offset: ?>>, memref<i32, strided<[], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// LOWER-LABEL: func.func @forward
// all_reduce (0) mean (1) f32 (0), collective #0 on mesh [2, 2] spanning
// axis 1 (mask 2).
// LOWER:         call @rlx_cuda_collective_r2_f32(%{{.*}}, %{{.*}}, %c0_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}})
// all_gather (1), no kind, bf16 (3), dim 1, collective #1, mesh [2, 2]
// spanning axis 0 (mask 1).
// LOWER:         call @rlx_cuda_collective_r2_bf16(%{{.*}}, %{{.*}}, %c1_i32{{(_[0-9]+)?}}, %c-1_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}})
// LOWER:         call @rlx_cuda_collective_r2_f32(
// reduce_to_root (5) max (2) i32 (6) root 3, collective #3 on mesh [4].
// LOWER:         call @rlx_cuda_collective_r0_i32(%{{.*}}, %{{.*}}, %c5_i32{{(_[0-9]+)?}}, %c2_i32{{(_[0-9]+)?}}, %c6_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c4_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}})
// LOWER-NOT:     rlx_cuda.collective

func.func @forward(%x: tensor<4x6xf32>, %h: tensor<4x6xbf16>, %i: tensor<i32>)
    -> (tensor<4x6xf32>, tensor<4x12xbf16>, tensor<1x24xf32>, tensor<i32>) {
  %0 = rlx.all_reduce mean %x mesh [2, 2] axes [1] : tensor<4x6xf32>
  %1 = rlx.all_gather %h dim = 1 mesh [2, 2] axes [0] : tensor<4x6xbf16>
  %2 = rlx.all_to_all %x split_dim = 0 concat_dim = 1 mesh [4] : tensor<4x6xf32>
  %3 = rlx.reduce_to_root max %i root = 3 mesh [4] : tensor<i32>
  return %0, %1, %2, %3 : tensor<4x6xf32>, tensor<4x12xbf16>, tensor<1x24xf32>, tensor<i32>
}

// Through the whole pipeline: the runtime's C-interface entry points, and
// each collective a labelled op of the profile.
// PIPELINE: rlx.profile_labels = ["rlx.all_reduce @ collectives.mlir:{{[0-9]+}}:8", "rlx.all_gather @
// PIPELINE: llvm.call @_mlir_ciface_rlx_cuda_collective_r0_i32(
// PIPELINE: llvm.call @_mlir_ciface_rlx_cuda_collective_r2_bf16(
// PIPELINE: llvm.call @_mlir_ciface_rlx_cuda_collective_r2_f32(

