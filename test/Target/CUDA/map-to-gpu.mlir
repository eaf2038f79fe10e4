// RUN: rlx-opt %s --rlx-cuda-map-to-gpu --canonicalize --split-input-file --verify-diagnostics | FileCheck %s

// A parallel loop nest is one kernel over its flattened iteration space:
// 7000 points in blocks of 256 threads, the linear index split back into
// (row, column) by the trip count of the inner dimension.
// CHECK-LABEL: func.func @broadcast_add
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[C28:.*]] = arith.constant 28 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C7000:.*]] = arith.constant 7000 : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C28]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK:           %[[BASE:.*]] = arith.muli %[[BX]], %[[C256]]
// CHECK:           %[[LINEAR:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[LINEAR]], %[[C7000]]
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[COL:.*]] = arith.remui %[[LINEAR]], %[[C7]]
// CHECK:             %[[ROW:.*]] = arith.divui %[[LINEAR]], %[[C7]]
// CHECK:             memref.load %arg0[%[[ROW]], %[[COL]]]
// CHECK:             memref.load %arg1[%[[COL]]]
// CHECK:             memref.store %{{.*}}, %arg2[%[[ROW]], %[[COL]]]
// CHECK:           gpu.terminator
// CHECK-NOT:     gpu.launch
func.func @broadcast_add(%a: memref<1000x7xf32>, %b: memref<7xf32>,
                         %out: memref<1000x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<1000x7xf32>, memref<7xf32>)
      outs(%out : memref<1000x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction keeps its reduced dimension as a loop in each thread; a
// loop of 3 points launches one block of 3 threads. Temporaries are device
// buffers.
// CHECK-LABEL: func.func @row_sum
// CHECK:         %[[TMP:.*]] = gpu.alloc () : memref<3xf32>
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[TMP]]
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c3
// CHECK:           scf.if
// CHECK:             scf.for %{{.*}} = %c0 to %c5 step %c1
// CHECK:               memref.load %arg0
// CHECK:         gpu.dealloc %[[TMP]] : memref<3xf32>
func.func @row_sum(%a: memref<3x5xf32>, %out: memref<3xf32>) {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<3xf32>
  linalg.fill ins(%zero : f32) outs(%tmp : memref<3xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<3x5xf32>) outs(%tmp : memref<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  memref.copy %tmp, %out : memref<3xf32> to memref<3xf32>
  memref.dealloc %tmp : memref<3xf32>
  return
}

// -----

// A long reduction gets a block per output: 4 rows of 100 points, blocks
// of 128 threads (whole warps) striding over a row from the combiner's
// identity, `gpu.all_reduce` across the block, and thread 0 folding the
// total into the output's initial value.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG:     %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], {{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]],
// CHECK:           %[[PARTIAL:.*]] = scf.for %[[R:.*]] = %[[T]] to %[[C100]] step %[[C128]] iter_args(%[[ACC:.*]] = %[[NEGINF]]) -> (f32) {
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[R]]]
// CHECK:             %[[M:.*]] = arith.maximumf %[[X]], %[[ACC]] : f32
// CHECK:             scf.yield %[[M]]
// CHECK:           %[[TOTAL:.*]] = gpu.all_reduce maximumf %[[PARTIAL]] uniform
// CHECK:           scf.if
// CHECK:             %[[INIT:.*]] = memref.load %arg1[%[[ROW]]]
// CHECK:             %[[OUT:.*]] = arith.maximumf %[[TOTAL]], %[[INIT]]
// CHECK:             memref.store %[[OUT]], %arg1[%[[ROW]]]
func.func @row_max(%a: memref<4x100xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x100xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// 64-bit elements take the same path (the NVVM lowering shuffles them as
// two 32-bit halves): an f64 sum and the i64 minimum of an argmax. Two
// outputs of 128256 points each would be two busy blocks: each output's
// points are split over 63 blocks (2036 points each, about 8 a thread),
// whose totals a second kernel, a block per output, folds in order into
// the output from a device buffer freed after it.
// CHECK-LABEL: func.func @row_reductions_64_bit
// CHECK:         gpu.all_reduce add %{{.*}} uniform {
// CHECK-NEXT:    } : (f64) -> f64
// CHECK:         %[[PARTS:.*]] = gpu.alloc () : memref<2x63xi64>
// CHECK:         gpu.launch {{.*}} in ({{.*}} = %c126, {{.*}}) threads({{.*}}) in ({{.*}} = %c256,
// CHECK:           %[[OUT:.*]] = arith.divui %{{.*}}, %c63
// CHECK:           %[[PART:.*]] = arith.remui %{{.*}}, %c63
// CHECK:           %[[FIRST:.*]] = arith.muli %[[PART]], %c2036
// CHECK:           scf.for
// CHECK:             arith.minsi
// CHECK:           gpu.all_reduce minsi %{{.*}} uniform {
// CHECK-NEXT:      } : (i64) -> i64
// CHECK:           memref.store %{{.*}}, %[[PARTS]][%[[OUT]], %[[PART]]]
// CHECK:         gpu.launch {{.*}} in ({{.*}} = %c2, {{.*}}) threads({{.*}}) in ({{.*}} = %c64,
// CHECK:           scf.for {{.*}} to %c63 step %c64
// CHECK:             memref.load %[[PARTS]]
// CHECK:           gpu.all_reduce minsi
// CHECK:           memref.load %arg3
// CHECK:           memref.store %{{.*}}, %arg3
// CHECK:         gpu.dealloc %[[PARTS]]
func.func @row_reductions_64_bit(%a: memref<4x100xf64>, %out: memref<4xf64>,
                       %i: memref<2x128256xi64>, %min: memref<2xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x100xf64>) outs(%out : memref<4xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %x, %acc : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%i : memref<2x128256xi64>) outs(%min : memref<2xi64>) {
  ^bb0(%x: i64, %acc: i64):
    %m = arith.minsi %x, %acc : i64
    linalg.yield %m : i64
  }
  return
}

// -----

// Sequential work (here a reduction over every dimension into a scalar)
// runs whole in a kernel of one thread.
// CHECK-LABEL: func.func @total
// CHECK:         gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1)
// CHECK-NEXT:      scf.for
// CHECK:             memref.load %arg0
// CHECK:           gpu.terminator
func.func @total(%a: memref<5xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c5 step %c1 {
    %x = memref.load %a[%i] : memref<5xf32>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %x, %acc : f32
    memref.store %s, %out[] : memref<f32>
  }
  return
}

// -----

// A global buffer that rlx-cuda-resident-constants left (a mutable one;
// the pipeline reads constants from device copies the runtime keeps, see
// resident-constants.mlir) is copied to the device where it is taken and
// freed at the end.
memref.global "private" @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @constant_table
// CHECK:         %[[HOST:.*]] = memref.get_global @table : memref<4xf32>
// CHECK:         %[[DEVICE:.*]] = gpu.alloc () : memref<4xf32>
// CHECK:         gpu.memcpy %[[DEVICE]], %[[HOST]] : memref<4xf32>, memref<4xf32>
// CHECK:         gpu.launch
// CHECK:           memref.load %[[DEVICE]]
// CHECK:         gpu.dealloc %[[DEVICE]] : memref<4xf32>
// CHECK-NEXT:    return
func.func @constant_table(%out: memref<4xf32>) {
  %t = memref.get_global @table : memref<4xf32>
  memref.copy %t, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A global whose only use takes its address (the key of its device copy,
// rlx-cuda-resident-constants) stays in host memory: no copy, no free.
memref.global "private" constant @weights : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @constant_address
// CHECK:         %[[HOST:.*]] = memref.get_global @weights : memref<4xf32>
// CHECK-NEXT:    memref.extract_aligned_pointer_as_index %[[HOST]]
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     gpu.memcpy
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
func.func @constant_address() -> index {
  %t = memref.get_global @weights : memref<4xf32>
  %address = memref.extract_aligned_pointer_as_index %t : memref<4xf32> -> index
  return %address : index
}

// -----

// A loop whose steps are buffer operations stays on the host and launches
// each step's kernel; the buffer it carries lives on the device.
// CHECK-LABEL: func.func @scan_like
// CHECK:         %[[ACC:.*]] = gpu.alloc () : memref<8xf32>
// CHECK:         gpu.launch
// CHECK:         scf.for
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      gpu.launch
// CHECK:             memref.store %{{.*}}, %[[ACC]]
// CHECK:         gpu.launch
// CHECK:         gpu.dealloc %[[ACC]]
func.func @scan_like(%a: memref<4x8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<8xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]}
        ins(%row : memref<8xf32, strided<[1], offset: ?>>) outs(%acc : memref<8xf32>) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  }
  memref.copy %acc, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %acc : memref<8xf32>
  return
}

// -----

// A while loop steered by device data: its condition's values are copied
// to host memory, one scalar at a time, through host scalars allocated once
// at the function's entry; its body's rank-0 op runs in a kernel of one
// thread.
// CHECK-LABEL: func.func @count_up
// CHECK:         %[[HOST2:.*]] = memref.alloca() : memref<i32>
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<i32>
// CHECK:         scf.while
// CHECK:           %[[DEV:.*]] = gpu.alloc () : memref<i32>
// CHECK:           gpu.launch
// CHECK:             %[[V:.*]] = memref.load %arg0[] : memref<i32>
// CHECK:             memref.store %[[V]], %[[DEV]][]
// CHECK:           gpu.memcpy %[[HOST]], %[[DEV]]
// CHECK:           gpu.dealloc %[[DEV]]
// CHECK:           memref.load %[[HOST]][] : memref<i32>
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK-NEXT:      gpu.launch
// CHECK-NEXT:        linalg.generic
func.func @count_up(%n: memref<i32>, %lim: memref<i32>) {
  %one = arith.constant 1 : i32
  scf.while : () -> () {
    %v = memref.load %n[] : memref<i32>
    %l = memref.load %lim[] : memref<i32>
    %p = arith.cmpi slt, %v, %l : i32
    scf.condition(%p)
  } do {
    linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []}
        outs(%n : memref<i32>) {
    ^bb0(%x: i32):
      %s = arith.addi %x, %one : i32
      linalg.yield %s : i32
    }
    scf.yield
  }
  return
}

// -----

// The deallocation pipeline's bookkeeping stays in host memory: a buffer
// handed to a (private, host) function is a host buffer, and the stores
// into it run on the host.
// CHECK-LABEL: func.func @bookkeeping
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<1xi1>
// CHECK-NEXT:    memref.store %arg0, %[[T]]
// CHECK-NEXT:    memref.cast
// CHECK-NEXT:    call @helper
// CHECK-NEXT:    memref.dealloc %[[T]]
// CHECK-NEXT:    return
func.func private @helper(%flags: memref<?xi1>)

func.func @bookkeeping(%flag: i1) {
  %c0 = arith.constant 0 : index
  %table = memref.alloc() : memref<1xi1>
  memref.store %flag, %table[%c0] : memref<1xi1>
  %cast = memref.cast %table : memref<1xi1> to memref<?xi1>
  func.call @helper(%cast) : (memref<?xi1>) -> ()
  memref.dealloc %table : memref<1xi1>
  return
}

// -----

// A scalar loop runs whole in one thread; what the host needs of it comes
// back through a device scalar.
// CHECK-LABEL: func.func @first_positive
// CHECK:         %[[HOST:.*]] = memref.alloca() : memref<index>
// CHECK:         %[[DEV:.*]] = gpu.alloc () : memref<index>
// CHECK:         gpu.launch
// CHECK:           %[[FOUND:.*]] = scf.while
// CHECK:           memref.store %[[FOUND]], %[[DEV]][]
// CHECK:         gpu.memcpy %[[HOST]], %[[DEV]]
// CHECK:         %[[I:.*]] = memref.load %[[HOST]][]
// CHECK:         memref.subview %arg0[%[[I]]]
func.func @first_positive(%a: memref<8xf32>, %out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %found = scf.while (%i = %c0) : (index) -> index {
    %v = memref.load %a[%i] : memref<8xf32>
    %p = arith.cmpf ole, %v, %zero : f32
    scf.condition(%p) %i : index
  } do {
  ^bb0(%i: index):
    %n = arith.addi %i, %c1 : index
    scf.yield %n : index
  }
  %tail = memref.subview %a[%found] [1] [1] : memref<8xf32> to memref<1xf32, strided<[1], offset: ?>>
  memref.copy %tail, %out : memref<1xf32, strided<[1], offset: ?>> to memref<1xf32>
  return
}

// -----

func.func @host_uses_device_buffer(%a: memref<4xf32>, %out: memref<4xf32>) {
  // expected-error @+1 {{'bufferization.clone' op produces on the device a buffer that host code uses; the CUDA target cannot run it}}
  %copy = bufferization.clone %a : memref<4xf32> to memref<4xf32>
  memref.copy %copy, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// An innermost dimension that is a static multiple of 4: a second kernel
// runs 4 points per thread (2000 threads for 8000 points) with 16-byte
// vector accesses, launched when the host finds the buffers 16-byte
// aligned; the one-point kernel stays for the others.
// CHECK-LABEL: func.func @vector_broadcast_add
// CHECK-COUNT-3: memref.extract_aligned_pointer_as_index
// CHECK:         scf.if
// CHECK:           gpu.launch
// CHECK:             arith.cmpi ult, %{{.*}}, %c2000
// CHECK:             %[[FIRST:.*]] = arith.muli %{{.*}}, %c4
// CHECK:             %[[COL:.*]] = arith.remui %[[FIRST]], %c8
// CHECK:             %[[ROW:.*]] = arith.divui %[[FIRST]], %c8
// CHECK:             %[[A:.*]] = vector.load %arg0[%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<1000x8xf32>, vector<4xf32>
// CHECK:             vector.load %arg1[%[[COL]]] {alignment = 16 : i64} : memref<8xf32>, vector<4xf32>
// CHECK-COUNT-4:     arith.addf
// CHECK:             %[[SUM:.*]] = vector.from_elements
// CHECK:             vector.store %[[SUM]], %arg2[%[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK:         } else {
// CHECK:           gpu.launch
// CHECK:             arith.cmpi ult, %{{.*}}, %c8000
// CHECK-NOT:         vector.load
// CHECK:             memref.store
func.func @vector_broadcast_add(%a: memref<1000x8xf32>, %b: memref<8xf32>,
                                %out: memref<1000x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<1000x8xf32>, memref<8xf32>)
      outs(%out : memref<1000x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A value equal in the 4 points (the row's scale and its exponential) is
// computed once; a transposed read walks the outer dimension, so it stays
// 4 scalar loads; f16 vectors are 8 bytes.
// CHECK-LABEL: func.func @vector_row_scale
// CHECK:         scf.if
// CHECK:           gpu.launch
// CHECK:             vector.load %arg0{{.*}} {alignment = 8 : i64} : memref<64x128xf16>, vector<4xf16>
// CHECK:             memref.load %arg1
// CHECK-COUNT-4:     memref.load %arg2
// CHECK:             math.exp
// CHECK-NOT:         math.exp
// CHECK:             vector.store {{.*}} {alignment = 16 : i64} : memref<64x128xf32>, vector<4xf32>
// CHECK:         } else {
func.func @vector_row_scale(%a: memref<64x128xf16>, %b: memref<64xf16>,
                            %t: memref<128x64xf32>,
                            %out: memref<64x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %t : memref<64x128xf16>, memref<64xf16>, memref<128x64xf32>)
      outs(%out : memref<64x128xf32>) {
  ^bb0(%x: f16, %y: f16, %z: f32, %o: f32):
    %e = math.exp %y : f16
    %s = arith.mulf %x, %e : f16
    %w = arith.extf %s : f16 to f32
    %r = arith.addf %w, %z : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// No vectorized kernel: an innermost dimension of 6, too few points, a
// view whose offset is not known, or an i1 buffer.
// CHECK-LABEL: func.func @not_vectorized
// CHECK-NOT:     vector.load
// CHECK-NOT:     vector.store
// CHECK:         return
func.func @not_vectorized(%a: memref<1000x6xf32>, %b: memref<8x8xf32>,
                          %c: memref<4096x4xf32, strided<[4, 1], offset: ?>>,
                          %d: memref<4096x4xi1>) {
  %one = arith.constant 1.0 : f32
  %true = arith.constant true
  linalg.fill ins(%one : f32) outs(%a : memref<1000x6xf32>)
  linalg.fill ins(%one : f32) outs(%b : memref<8x8xf32>)
  linalg.fill ins(%one : f32) outs(%c : memref<4096x4xf32, strided<[4, 1], offset: ?>>)
  linalg.fill ins(%true : i1) outs(%d : memref<4096x4xi1>)
  return
}
