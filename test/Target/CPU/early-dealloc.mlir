// RUN: rlx-opt %s --rlx-cpu-early-dealloc --split-input-file | FileCheck %s

// Each buffer is freed right after its last use instead of at the end: %a
// after the op that reads it, %b after the op that reads its view.
// CHECK-LABEL: func.func @chain(
// CHECK:      %[[A:.*]] = memref.alloc()
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]]
// CHECK-NEXT: %[[B:.*]] = memref.alloc()
// CHECK-NEXT: linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: %[[V:.*]] = memref.collapse_shape %[[B]]
// CHECK-NEXT: %[[C:.*]] = memref.alloc()
// CHECK-NEXT: linalg.copy ins(%[[V]] {{.*}} outs(%[[C]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: memref.copy %[[C]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NEXT: return
func.func @chain(%out: memref<8xf32>) {
  %cst = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<2x4xf32>)
  %b = memref.alloc() : memref<2x4xf32>
  linalg.copy ins(%a : memref<2x4xf32>) outs(%b : memref<2x4xf32>)
  %v = memref.collapse_shape %b [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  %c = memref.alloc() : memref<8xf32>
  linalg.copy ins(%v : memref<8xf32>) outs(%c : memref<8xf32>)
  memref.copy %c, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<2x4xf32>
  memref.dealloc %b : memref<2x4xf32>
  memref.dealloc %c : memref<8xf32>
  return
}

// -----

// A use inside a loop counts as the loop; a pointer taken from the buffer
// keeps it alive as long as the pointer is used.
// CHECK-LABEL: func.func @loop_and_pointer(
// CHECK:      %[[A:.*]] = memref.alloc()
// CHECK:      %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:      scf.for
// CHECK:        memref.store {{.*}}, %[[A]]
// CHECK:      }
// CHECK-NEXT: %[[Q:.*]] = arith.addi %[[P]]
// CHECK-NEXT: memref.store %[[Q]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: arith.constant
// CHECK-NEXT: return
func.func @loop_and_pointer(%out: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xindex>
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xindex> -> index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %i, %a[%i] : memref<4xindex>
  }
  %q = arith.addi %p, %c1 : index
  memref.store %q, %out[%c0] : memref<1xindex>
  %unrelated = arith.constant 7 : index
  memref.dealloc %a : memref<4xindex>
  return
}

// -----

// A buffer allocated in another block keeps its dealloc.
// CHECK-LABEL: func.func @other_block(
// CHECK:      scf.if
// CHECK-NEXT:   memref.dealloc
func.func @other_block(%cond: i1) {
  %a = memref.alloc() : memref<4xf32>
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%a : memref<4xf32>)
  scf.if %cond {
    memref.dealloc %a : memref<4xf32>
  }
  return
}
