// RUN: rlx-opt %s --rlx-cuda-lower-kernels | FileCheck %s

// Bufferization gave two GEMVs' products one buffer (%p), one after the
// other, each read by its own residual add. Each GEMV computes its own
// add: the readers of the second product (after the next write of %p) are
// not the first's, and the second GEMV, which only overwrites %p, does not
// read it.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @shared_product
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] : memref<1x256xf32>
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %arg4[%{{.*}}, %{{.*}}] : memref<1x256xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @shared_product(%x: memref<1x256xf32>, %w: memref<36864xi8>, %r: memref<1x256xf32>, %s: memref<1x256xf32>, %t: memref<1x256xf32>) {
  %p = memref.alloc() : memref<1x256xf32>
  rlx_cuda.quant_gemv <gguf_q4_0> ins(%x, %w : memref<1x256xf32>, memref<36864xi8>) outs(%p : memref<1x256xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %p : memref<1x256xf32>, memref<1x256xf32>) outs(%s : memref<1x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %sum = arith.addf %a, %b : f32
    linalg.yield %sum : f32
  }
  rlx_cuda.quant_gemv <gguf_q4_0> ins(%s, %w : memref<1x256xf32>, memref<36864xi8>) outs(%p : memref<1x256xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %p : memref<1x256xf32>, memref<1x256xf32>) outs(%t : memref<1x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %sum = arith.addf %a, %b : f32
    linalg.yield %sum : f32
  }
  memref.dealloc %p : memref<1x256xf32>
  return
}
