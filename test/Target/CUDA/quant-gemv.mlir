// RUN: rlx-opt %s --rlx-cuda-form-kernels --split-input-file | FileCheck %s --check-prefix=FORM
// RUN: rlx-opt %s --rlx-cuda-form-kernels --convert-rlx-to-linalg --rlx-export-graph-functions --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --rlx-cuda-lower-kernels --split-input-file | FileCheck %s --check-prefix=LOWER

// A bf16 decode step's quantized projection and residual add: the casts
// around rlx.dequant_matmul go into the kernel op, which reads the bf16
// rows and writes the bf16 product; the packed bytes are read as i8.
// Lowered, the GEMV kernel first copies the rows into shared memory (4 KB,
// their 16-byte chunks in xor-swizzled order), then reads the weight in
// 4-byte words (a view of the bytes as i32; 9 words per pair of Q4_0
// blocks) and the rows from shared memory, decodes in registers
// (a byte permute puts each quant in the mantissa of 2^23; bf16 rows are
// widened from words of two) and computes the residual add in place of
// the product (it stores the add's result); where the buffers are not
// aligned at run time, the other kernel assembles the words from bytes.
// FORM-LABEL: func.func @decode_q4_0
// FORM:         %[[BYTES:.*]] = rlx.cast %arg1 : tensor<1179648xui8> to i8
// FORM:         %[[INIT:.*]] = tensor.empty() : tensor<1x1024xbf16>
// FORM:         %[[P:.*]] = rlx_cuda.quant_gemv <gguf_q4_0> ins(%arg0, %[[BYTES]] : tensor<1x2048xbf16>, tensor<1179648xi8>) outs(%[[INIT]] : tensor<1x1024xbf16>) -> tensor<1x1024xbf16>
// FORM-NOT:     rlx.dequant_matmul
// FORM:         rlx.binary add %arg2, %[[P]]
// LOWER-LABEL: func.func @decode_q4_0
// LOWER:         scf.if
// LOWER:           %[[WORDS:.*]] = memref.view %arg1[%{{.*}}][] : memref<1179648xi8> to memref<294912xi32>
// LOWER:           gpu.launch
// LOWER-SAME:        dynamic_shared_memory_size %c4096_i32
// LOWER:             %[[SHARED:.*]] = gpu.dynamic_shared_memory
// LOWER:             %[[ROWS:.*]] = memref.view %[[SHARED]]{{.*}} to memref<1x2048xbf16, #gpu.address_space<workgroup>>
// LOWER:             scf.for
// LOWER:               vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<1x2048xbf16>, vector<8xbf16>
// LOWER:               arith.xori
// LOWER:               vector.store %{{.*}}, %[[ROWS]]
// LOWER:             gpu.barrier
// LOWER:             scf.for
// LOWER-COUNT-9:       memref.load %[[WORDS]][%{{.*}}] : memref<294912xi32>
// LOWER:               vector.load %[[ROWS]][{{.*}}] {alignment = 16 : i64} : memref<1x2048xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// LOWER:               vector.bitcast %{{.*}} : vector<8xbf16> to vector<4xi32>
// LOWER:               nvvm.prmt <default> %c{{.*}}, %{{.*}}, %c1258291200_i32{{.*}} : i32
// LOWER:               math.fma
// LOWER:             gpu.shuffle xor
// LOWER:             arith.truncf %{{.*}} : f32 to bf16
// LOWER:             memref.load %arg2[%{{.*}}, %{{.*}}] : memref<1x1024xbf16>
// LOWER:             arith.addf
// LOWER:             memref.store %{{.*}}, %[[SUM:.*]][%{{.*}}, %{{.*}}] : memref<1x1024xbf16>
// LOWER:         } else {
// LOWER:           gpu.launch
// LOWER-NOT:         memref.view
// LOWER:             memref.load %arg1[%{{.*}}] : memref<1179648xi8>
// LOWER:             arith.extui %{{.*}} : i8 to i32
// LOWER-NOT:     rlx_cuda.quant_gemv
// LOWER:         linalg.generic
// LOWER-SAME:      ins(%[[SUM]], %[[SUM]]
func.func @decode_q4_0(%x: tensor<1x2048xbf16>, %w: tensor<1179648xui8>, %r: tensor<1x1024xbf16>) -> tensor<1x1024xbf16> {
  %xf = rlx.cast %x : tensor<1x2048xbf16> to f32
  %y = rlx.dequant_matmul gguf_q4_0 %xf, %w : tensor<1x2048xf32>, tensor<1179648xui8>
  %yb = rlx.cast %y : tensor<1x1024xf32> to bf16
  %s = rlx.binary add %r, %yb : tensor<1x1024xbf16>, tensor<1x1024xbf16>
  %t = rlx.binary mul %s, %s : tensor<1x1024xbf16>, tensor<1x1024xbf16>
  return %t : tensor<1x1024xbf16>
}

// -----

// f32 rows and product, Q8_0 (17 words per pair of blocks, each byte's
// sign bit flipped for its value plus 128); K = 8192 with
// 64 columns: each column's dot split over 4 warps, whose sums meet in
// shared memory. The rows (96 KB) are read from global memory, not copied.
// FORM-LABEL: func.func @q8_0_split
// FORM:         rlx_cuda.quant_gemv <gguf_q8_0> ins(%arg0, %{{.*}} : tensor<3x8192xf32>, tensor<557056xi8>) outs(%{{.*}} : tensor<3x64xf32>) -> tensor<3x64xf32>
// LOWER-LABEL: func.func @q8_0_split
// LOWER:         gpu.launch
// LOWER-SAME:      workgroup(%{{.*}} : memref<8x3xf32, #gpu.address_space<workgroup>>)
// LOWER-NOT:         gpu.dynamic_shared_memory
// LOWER-COUNT-17:    memref.load %{{.*}} : memref<139264xi32>
// LOWER:             vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<3x8192xf32>, vector<4xf32>
// LOWER:             arith.xori %{{.*}}, %c-2139062144_i32 : i32
// LOWER:             gpu.barrier
func.func @q8_0_split(%x: tensor<3x8192xf32>, %w: tensor<557056xui8>) -> tensor<3x64xf32> {
  %y = rlx.dequant_matmul gguf_q8_0 %x, %w : tensor<3x8192xf32>, tensor<557056xui8>
  return %y : tensor<3x64xf32>
}

// -----

// Not for the kernel: 9 rows; K not a multiple of 64; a K-quant; a
// dynamic row count. They keep the generic lowering.
// FORM-LABEL: func.func @generic
// FORM-NOT:     rlx_cuda.quant_gemv
// FORM-COUNT-4: rlx.dequant_matmul
func.func @generic(%x9: tensor<9x64xf32>, %w: tensor<36xui8>, %x96: tensor<1x96xf32>, %w96: tensor<54xui8>, %xk: tensor<1x256xf32>, %wk: tensor<144xui8>, %xd: tensor<?x64xf32>) -> (tensor<9x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<?x1xf32>) {
  %a = rlx.dequant_matmul gguf_q4_0 %x9, %w : tensor<9x64xf32>, tensor<36xui8>
  %b = rlx.dequant_matmul gguf_q4_0 %x96, %w96 : tensor<1x96xf32>, tensor<54xui8>
  %c = rlx.dequant_matmul gguf_q4_k %xk, %wk : tensor<1x256xf32>, tensor<144xui8>
  %d = rlx.dequant_matmul gguf_q4_0 %xd, %w : tensor<?x64xf32>, tensor<36xui8>
  return %a, %b, %c, %d : tensor<9x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<?x1xf32>
}
