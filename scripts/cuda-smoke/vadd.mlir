// The CUDA smoke test's graph: c = a + b on the GPU, with device buffers from
// gpu.alloc, copies in and out with gpu.memcpy and the output cleared with
// gpu.memset first. scripts/cuda-smoke.sh compiles it ahead of time.
module attributes {gpu.container_module} {
  func.func @vadd(%a: memref<1000003xf32>, %b: memref<1000003xf32>,
                  %c: memref<1000003xf32>) attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %n = arith.constant 1000003 : index
    %threads = arith.constant 256 : index
    %blocks = arith.constant 3907 : index
    %zero = arith.constant 0.0 : f32
    // 64 KiB of dynamic shared memory, above the 48 KiB a kernel gets
    // without opting in: the runtime must raise the kernel's limit.
    %smem = arith.constant 65536 : i32
    %t0 = gpu.wait async
    %da, %t1 = gpu.alloc async [%t0] () : memref<1000003xf32>
    %db, %t2 = gpu.alloc async [%t1] () : memref<1000003xf32>
    %dc, %t3 = gpu.alloc async [%t2] () : memref<1000003xf32>
    %t4 = gpu.memcpy async [%t3] %da, %a : memref<1000003xf32>, memref<1000003xf32>
    %t5 = gpu.memcpy async [%t4] %db, %b : memref<1000003xf32>, memref<1000003xf32>
    %t6 = gpu.memset async [%t5] %dc, %zero : memref<1000003xf32>, f32
    %t7 = gpu.launch async [%t6]
        blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
        threads(%tx, %ty, %tz) in (%sx = %threads, %sy = %c1, %sz = %c1)
        dynamic_shared_memory_size %smem {
      %base = arith.muli %bx, %sx : index
      %i = arith.addi %base, %tx : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %x0 = memref.load %da[%i] : memref<1000003xf32>
        // Round-trip a through the last KiB of shared memory.
        %shm = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
        %c0 = arith.constant 0 : index
        %view = memref.view %shm[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf32, #gpu.address_space<workgroup>>
        %last = arith.constant 16128 : index
        %slot = arith.addi %last, %tx : index
        memref.store %x0, %view[%slot] : memref<16384xf32, #gpu.address_space<workgroup>>
        %x = memref.load %view[%slot] : memref<16384xf32, #gpu.address_space<workgroup>>
        %y = memref.load %db[%i] : memref<1000003xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %dc[%i] : memref<1000003xf32>
      }
      gpu.terminator
    }
    %t8 = gpu.memcpy async [%t7] %c, %dc : memref<1000003xf32>, memref<1000003xf32>
    %t9 = gpu.dealloc async [%t8] %da : memref<1000003xf32>
    %t10 = gpu.dealloc async [%t9] %db : memref<1000003xf32>
    %t11 = gpu.dealloc async [%t10] %dc : memref<1000003xf32>
    gpu.wait [%t11]
    return
  }
}
