// gptc-shared-tile-registers: kernels with workgroup attributions or
// dynamic shared memory (shared tiles) get nvvm.minctasm = 1, and 3 when they are 4 warps with
// tensor-core products (168 registers a thread); other kernels and
// non-kernel functions are left alone.
// RUN: gptc-opt %s --gptc-shared-tile-registers | FileCheck %s

// CHECK-LABEL: gpu.func @tiles
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-LABEL: gpu.func @tensor_cores
// CHECK-SAME: nvvm.minctasm = 3 : i32
// Must not fire: a tensor-core kernel of 2 warps keeps one block's budget.
// CHECK-LABEL: gpu.func @two_warp_tensor_cores
// CHECK-SAME: nvvm.minctasm = 1 : i32
// Tiles in dynamic shared memory (over 48 KiB: gptc-workgroup-tiles) count
// as tiles.
// CHECK-LABEL: gpu.func @dynamic_tensor_cores
// CHECK-SAME: nvvm.minctasm = 3 : i32
// CHECK-LABEL: gpu.func @elementwise
// CHECK-NOT: nvvm.minctasm
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: nvvm.minctasm
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @tiles(%a: memref<128xf32>) workgroup(%t: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %i = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %j = arith.remui %i, %c32 : index
      %v = memref.load %a[%i] : memref<128xf32>
      memref.store %v, %t[%j] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      gpu.return
    }
    gpu.func @tensor_cores(%a: i32, %c: f32) workgroup(%t: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %m = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
    gpu.func @two_warp_tensor_cores(%a: i32, %c: f32) workgroup(%t: memref<32xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %m = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
    gpu.func @dynamic_tensor_cores(%a: i32, %c: f32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %base = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %m = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      gpu.return
    }
    gpu.func @elementwise(%a: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<256xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<256xf32>
      gpu.return
    }
    gpu.func @helper(%a: memref<256xf32>) workgroup(%t: memref<32xf32, #gpu.address_space<workgroup>>) {
      gpu.return
    }
  }
}
