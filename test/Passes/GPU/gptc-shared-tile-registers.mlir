// gptc-shared-tile-registers: kernels with workgroup attributions (shared
// tiles) get nvvm.minctasm = 1; other kernels and non-kernel functions are
// left alone.
// RUN: gptc-opt %s --gptc-shared-tile-registers | FileCheck %s

// CHECK-LABEL: gpu.func @tiles
// CHECK-SAME: nvvm.minctasm = 1 : i32
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
