// RUN: rlx-opt %s --rlx-cuda-resident-constants --rlx-cuda-map-to-gpu --canonicalize --split-input-file | FileCheck %s

// A constant is read from the device copy the runtime keeps: its host
// address and byte size go to rlx_cuda_resident_constant (declared once),
// whose byte buffer is viewed as the constant's type. A run allocates,
// copies and frees nothing for it.
// CHECK:       func.func private @rlx_cuda_resident_constant(index, i64) -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-NOT:   func.func private @rlx_cuda_resident_constant
// CHECK-LABEL: func.func @offsets
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 1026048 : i64
// CHECK-DAG:     %[[SCALE_BYTES:.*]] = arith.constant 12 : i64
// CHECK:         %[[HOST:.*]] = memref.get_global @arange : memref<128256xi64>
// CHECK:         %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[HOST]]
// CHECK:         %[[RAW:.*]] = call @rlx_cuda_resident_constant(%[[ADDRESS]], %[[BYTES]]) : (index, i64) -> memref<?xi8>
// CHECK:         %[[TABLE:.*]] = memref.view %[[RAW]][%[[C0]]][] : memref<?xi8> to memref<128256xi64>
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     gpu.memcpy
// CHECK:         gpu.launch
// CHECK:           vector.load %[[TABLE]]
// CHECK:         gpu.launch
// CHECK:           memref.load %[[TABLE]]
// CHECK:         %[[SCALE:.*]] = call @rlx_cuda_resident_constant(%{{.*}}, %[[SCALE_BYTES]]) : (index, i64) -> memref<?xi8>
// CHECK:         memref.view %[[SCALE]][%[[C0]]][] : memref<?xi8> to memref<2x3xf16>
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     gpu.memcpy
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
memref.global "private" constant @arange : memref<128256xi64> = dense<1>
memref.global "private" constant @scale : memref<2x3xf16> = dense<2.0>

func.func @offsets(%x: memref<128256xi64>, %out: memref<128256xi64>,
                   %s: memref<2x3xf16>) {
  %t = memref.get_global @arange : memref<128256xi64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x, %t : memref<128256xi64>, memref<128256xi64>)
      outs(%out : memref<128256xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %sum = arith.addi %a, %b : i64
    linalg.yield %sum : i64
  }
  %c = memref.get_global @scale : memref<2x3xf16>
  memref.copy %c, %s : memref<2x3xf16> to memref<2x3xf16>
  return
}

// -----

// Sizes follow the LLVM layout of the elements: an i1 takes a byte.
// CHECK-LABEL: func.func @flags
// CHECK:         %[[BYTES:.*]] = arith.constant 5 : i64
// CHECK:         call @rlx_cuda_resident_constant(%{{.*}}, %[[BYTES]])
// CHECK:         memref.view %{{.*}} : memref<?xi8> to memref<5xi1>
memref.global "private" constant @mask : memref<5xi1> = dense<[true, false, true, true, false]>

func.func @flags(%out: memref<5xi1>) {
  %m = memref.get_global @mask : memref<5xi1>
  memref.copy %m, %out : memref<5xi1> to memref<5xi1>
  return
}

// -----

// In a loop the host keeps (a scan's steps), each trip asks for the copy,
// which the runtime only looks up.
// CHECK-LABEL: func.func @steps
// CHECK:         scf.for
// CHECK:           memref.get_global @bias
// CHECK:           call @rlx_cuda_resident_constant
// CHECK:           memref.view
// CHECK-NOT:       gpu.memcpy
// CHECK:           gpu.launch
memref.global "private" constant @bias : memref<8xf32> = dense<0.5>

func.func @steps(%acc: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %b = memref.get_global @bias : memref<8xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                     affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]}
        ins(%b : memref<8xf32>) outs(%acc : memref<8xf32>) {
    ^bb0(%in: f32, %o: f32):
      %sum = arith.addf %in, %o : f32
      linalg.yield %sum : f32
    }
  }
  return
}

// -----

// A mutable global may change between runs: it is copied to the device on
// each run, as before. Private functions (host helpers) are not graphs.
// CHECK-NOT:   rlx_cuda_resident_constant
// CHECK-LABEL: func.func @counter
// CHECK:         %[[HOST:.*]] = memref.get_global @state : memref<2xi32>
// CHECK:         %[[DEVICE:.*]] = gpu.alloc () : memref<2xi32>
// CHECK:         gpu.memcpy %[[DEVICE]], %[[HOST]]
// CHECK:         gpu.dealloc %[[DEVICE]]
// CHECK-LABEL: func.func private @helper
// CHECK:         memref.get_global @fixed
// CHECK-NOT:     rlx_cuda_resident_constant
memref.global "private" @state : memref<2xi32> = dense<0>
memref.global "private" constant @fixed : memref<2xi32> = dense<1>

func.func @counter(%out: memref<2xi32>) {
  %s = memref.get_global @state : memref<2xi32>
  memref.copy %s, %out : memref<2xi32> to memref<2xi32>
  return
}

func.func private @helper() -> memref<2xi32> {
  %f = memref.get_global @fixed : memref<2xi32>
  return %f : memref<2xi32>
}
