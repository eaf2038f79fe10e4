// RUN: not rlx-opt %s --rlx-export-graph-functions 2>&1 | FileCheck %s

// The invariant of buffers handed to libraries (docs/architecture.md): no
// buffer is taken from a tensor before bufferization, whose analysis does
// not see the uses of a bufferization.to_buffer memref.

// CHECK: error: rlx-export-graph-functions: a buffer is taken from a tensor before bufferization (bufferization.to_buffer)
func.func private @library(memref<4xf32>)
func.func @f(%x: tensor<4xf32> {rlx.input = "x"}) -> tensor<4xf32> {
  %b = bufferization.to_buffer %x read_only : tensor<4xf32> to memref<4xf32>
  func.call @library(%b) : (memref<4xf32>) -> ()
  return %x : tensor<4xf32>
}
