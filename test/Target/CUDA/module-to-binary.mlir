// REQUIRES: cuda-toolkit
// RUN: rlx-opt %s --rlx-cuda-module-to-binary=format=isa | FileCheck %s --check-prefix=ISA
// RUN: rlx-opt %s --rlx-cuda-module-to-binary | FileCheck %s --check-prefix=BIN
// RUN: not rlx-opt %s --rlx-cuda-module-to-binary=format=ptx 2>&1 | FileCheck %s --check-prefix=FORMAT

// The modules, compiled side by side, become binaries in their order, each
// with its own kernel: PTX with format=isa, a cubin by default.

// ISA:      gpu.binary @first {{.*}}assembly = "{{.*}}.entry first_kernel
// ISA-NEXT: gpu.binary @second {{.*}}assembly = "{{.*}}.entry second_kernel
// ISA-NEXT: gpu.binary @third {{.*}}assembly = "{{.*}}.entry third_kernel
// ISA-NOT:  gpu.module
// BIN:      gpu.binary @first {{.*}}bin = "\7FELF
// BIN-NEXT: gpu.binary @second {{.*}}bin = "\7FELF
// BIN-NEXT: gpu.binary @third {{.*}}bin = "\7FELF
// FORMAT: error: rlx-cuda-module-to-binary: format 'ptx' is not isa, bin or fatbin
module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<chip = "sm_90">] {
    llvm.func @first_kernel(%p: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<chip = "sm_90">] {
    llvm.func @second_kernel(%p: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(2.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @third [#nvvm.target<chip = "sm_90">] {
    llvm.func @third_kernel(%p: !llvm.ptr) attributes {nvvm.kernel} {
      %c = llvm.mlir.constant(3.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr
      llvm.return
    }
  }
}
