// RUN: rlx-opt %s --pass-pipeline='builtin.module(gpu.module(rlx-cuda-device-lib-calls))' | FileCheck %s
// REQUIRES: cuda-toolkit
// RUN: rlx-opt %S/Inputs/float-remainder.mlir --rlx-cuda-pipeline | FileCheck %s --check-prefix=PIPELINE

// arith.remf has no PTX instruction: device code calls libdevice's fmod
// (f16 through f32, vectors element by element); other arith ops and the
// host side are left to the later conversions.
// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG: llvm.func @__nv_fmodf(f32, f32) -> f32
// CHECK-DAG: llvm.func @__nv_fmod(f64, f64) -> f64
// CHECK-LABEL: gpu.func @k(
// CHECK: llvm.call @__nv_fmodf(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: llvm.call @__nv_fmod(%{{.*}}, %{{.*}}) : (f64, f64) -> f64
// CHECK: %[[WIDE:.*]] = llvm.call @__nv_fmodf(
// CHECK: llvm.fptrunc %[[WIDE]] : f32 to f16
// CHECK-COUNT-4: llvm.call @__nv_fmodf(
// CHECK-NOT: arith.remf
// CHECK: arith.addf
// CHECK-LABEL: func.func @host(
// CHECK: arith.remf

// PIPELINE-NOT: llvm.frem
// PIPELINE: gpu.binary

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: f32, %b: f32, %c: f64, %d: f64, %e: f16, %f: f16,
                %v: vector<4xf32>, %w: vector<4xf32>) kernel {
      %0 = arith.remf %a, %b : f32
      %1 = arith.remf %c, %d : f64
      %2 = arith.remf %e, %f : f16
      %3 = arith.remf %v, %w : vector<4xf32>
      %4 = arith.addf %0, %a : f32
      gpu.return
    }
  }
  func.func @host(%a: f32, %b: f32) -> f32 {
    %0 = arith.remf %a, %b : f32
    return %0 : f32
  }
}
