// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-pipeline --mlir-print-ir-after=rlx-cuda-drop-host-waits -o /dev/null 2>&1 | FileCheck %s

// rlx.top_k's lowering computes a scalar on the GPU that the host reads (a
// copy into a host buffer, then a load): the wait that ends that chain
// stays, every other host wait goes, and the module is marked so that the
// runtime never captures its runs as a CUDA graph.
// CHECK: module attributes {{{.*}}rlx.cuda.host_reads{{.*}}}
// CHECK-LABEL: func.func @main(
// CHECK: %[[COPY:.*]] = gpu.memcpy async [%{{.*}}] %[[HOST:.*]], %{{.*}} : memref<f32>, memref<f32>
// CHECK-NEXT: %[[FREE:.*]] = gpu.dealloc async [%[[COPY]]]
// CHECK-NEXT: gpu.wait [%[[FREE]]]
// CHECK-NEXT: memref.load %[[HOST]][]
// CHECK: %[[COPY2:.*]] = gpu.memcpy async [%{{.*}}] %[[HOST2:.*]], %{{.*}} : memref<index>, memref<index>
// CHECK: gpu.wait [%{{.*}}]
// CHECK-NEXT: memref.load %[[HOST2]][]
// CHECK: gpu.launch_func async
// CHECK-NOT: gpu.wait [%{{.*}}]{{$}}
// CHECK: return
func.func @main(%x: tensor<1x1xf32> {rlx.input = "x"}) -> (tensor<1x1xf32>, tensor<1x1xi64>) {
  %v0, %i0 = rlx.top_k %x {k = 1 : i64} : tensor<1x1xf32>
  return %v0, %i0 : tensor<1x1xf32>, tensor<1x1xi64>
}
