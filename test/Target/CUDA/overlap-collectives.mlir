// RUN: rlx-opt %s --rlx-cuda-overlap-collectives --split-input-file | FileCheck %s

// A collective starts on the communication stream, and the graph's stream
// waits for it just before the first op after it that touches its input or
// output buffer: here the linalg.generic reading the sum, past the GEMM on
// other buffers. The wait takes the op's index (argument 8: 7).

func.func private @rlx_cuda_collective_r1_f32(memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
func.func private @rlx_cuda_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}

// CHECK-DAG:   func.func private @rlx_cuda_collective_start_r1_f32(memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// CHECK-DAG:   func.func private @rlx_cuda_collective_wait(i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}
// CHECK-LABEL: func.func @overlap
// CHECK:         %[[INDEX:.*]] = arith.constant 7 : i32
// CHECK:         call @rlx_cuda_collective_start_r1_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[INDEX]],
// CHECK-NOT:     rlx_cuda_collective_wait
// CHECK:         call @rlx_cuda_matmul_f32
// CHECK-NEXT:    call @rlx_cuda_collective_wait(%[[INDEX]]) : (i32) -> ()
// CHECK-NEXT:    linalg.generic
// CHECK-NOT:     rlx_cuda_collective_wait
// CHECK:         return
func.func @overlap(%grad: memref<16xf32>, %a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %index = arith.constant 7 : i32
  %sum = memref.alloc() : memref<16xf32>
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %sum : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %index, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  %ma = memref.cast %a : memref<4x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %mb = memref.cast %b : memref<4x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %mc = memref.cast %c : memref<4x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @rlx_cuda_matmul_f32(%ma, %mb, %mc, %c0) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%sum : memref<16xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %sum : memref<16xf32>
  return
}

// -----

// The op right after the collective reads its output: nothing to overlap,
// the call stays on the graph's stream.

func.func private @rlx_cuda_collective_r1_f32(memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}

// CHECK-LABEL: func.func @next_op_reads
// CHECK:         call @rlx_cuda_collective_r1_f32(
// CHECK-NOT:     rlx_cuda_collective_wait
// CHECK:         return
func.func @next_op_reads(%grad: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %sum = memref.alloc() : memref<16xf32>
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %sum : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %c0, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  memref.copy %sum, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %sum : memref<16xf32>
  return
}

// -----

// Only an allocation, a view and a host scalar before the op that reads
// the sum: no work to overlap, the call stays on the graph's stream.

func.func private @rlx_cuda_collective_r1_f32(memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}

// CHECK-LABEL: func.func @no_work_between
// CHECK:         call @rlx_cuda_collective_r1_f32(
// CHECK-NOT:     rlx_cuda_collective_wait
// CHECK:         return
func.func @no_work_between(%grad: memref<16xf32>, %out: memref<4x4xf32>, %n: index) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %sum = memref.alloc() : memref<16xf32>
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %sum : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %c0, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  %tmp = memref.alloc() : memref<4x4xf32>
  %v = memref.expand_shape %sum [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  %twice = arith.addi %n, %n : index
  memref.copy %v, %out : memref<4x4xf32> to memref<4x4xf32>
  memref.dealloc %tmp : memref<4x4xf32>
  memref.dealloc %sum : memref<16xf32>
  return
}

// -----

// Views touch nothing, their users do: the wait goes before the copy out of
// a reshaped view of the output, after the view's creation and the
// unrelated fill. A write into a view of the input counts too, and a use in
// a loop counts at the loop.

func.func private @rlx_cuda_collective_r1_f32(memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) attributes {llvm.emit_c_interface, rlx.cuda.device_buffers}

// CHECK-LABEL: func.func @through_views
// CHECK:         call @rlx_cuda_collective_start_r1_f32(
// CHECK-NEXT:    memref.expand_shape
// CHECK-NEXT:    linalg.fill {{.*}} outs(%arg2
// CHECK-NEXT:    call @rlx_cuda_collective_wait(
// CHECK-NEXT:    memref.copy
// CHECK-LABEL: func.func @input_written
// CHECK:         call @rlx_cuda_collective_start_r1_f32(
// CHECK-NEXT:    linalg.fill {{.*}} outs(%arg2
// CHECK-NEXT:    memref.subview
// CHECK-NEXT:    call @rlx_cuda_collective_wait(
// CHECK-NEXT:    linalg.fill {{.*}} outs(%subview
// CHECK-LABEL: func.func @in_loop
// CHECK:         call @rlx_cuda_collective_start_r1_f32(
// CHECK-NEXT:    linalg.fill {{.*}} outs(%arg2
// CHECK-NEXT:    call @rlx_cuda_collective_wait(
// CHECK-NEXT:    scf.for
// CHECK-LABEL: func.func @unused
// CHECK:         call @rlx_cuda_collective_start_r1_f32(
// CHECK-NEXT:    linalg.fill {{.*}} outs(%arg2
// CHECK-NEXT:    call @rlx_cuda_collective_wait(
// CHECK-NEXT:    return
func.func @through_views(%grad: memref<16xf32>, %out: memref<4x4xf32>, %other: memref<8xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<16xf32>
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %sum : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %c0, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  %v = memref.expand_shape %sum [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  memref.copy %v, %out : memref<4x4xf32> to memref<4x4xf32>
  memref.dealloc %sum : memref<16xf32>
  return
}

func.func @input_written(%grad: memref<16xf32>, %out: memref<16xf32>, %other: memref<8xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %zero = arith.constant 0.0 : f32
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %out : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %c0, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  %subview = memref.subview %grad[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  linalg.fill ins(%zero : f32) outs(%subview : memref<8xf32, strided<[1]>>)
  return
}

func.func @in_loop(%grad: memref<16xf32>, %out: memref<16xf32>, %other: memref<8xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %out : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %c0, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  scf.for %i = %i0 to %i4 step %i1 {
    memref.store %zero, %out[%i] : memref<16xf32>
  }
  return
}

func.func @unused(%grad: memref<16xf32>, %out: memref<16xf32>, %other: memref<8xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %zero = arith.constant 0.0 : f32
  %g = memref.cast %grad : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  %s = memref.cast %out : memref<16xf32> to memref<?xf32, strided<[?], offset: ?>>
  call @rlx_cuda_collective_r1_f32(%g, %s, %c0, %c1, %c0, %c0, %c0, %c0, %c1, %c2, %c0, %c0, %c0, %c1) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  linalg.fill ins(%zero : f32) outs(%other : memref<8xf32>)
  return
}
