// RUN: gptc-opt %s -split-input-file --gptc-dedup-kernels | FileCheck %s

// gptc-dedup-kernels: @k2 has the body of @k1 (the same kernel in another
// layer; outlining names the modules apart, the kernel function inside
// keeps the entry point's name @kernel): it goes, its launch points at
// @k1's module, and the alias keeps its name. @k3 differs (a multiply) and
// stays.

// CHECK-LABEL: module attributes {gptc.kernel_aliases = {k2 = @k1}, gpu.container_module}
// CHECK: gpu.module @k1
// CHECK-NOT: gpu.module @k2
// CHECK: gpu.module @k3
// CHECK: gpu.launch_func @k1::@kernel
// CHECK: gpu.launch_func @k1::@kernel
// CHECK: gpu.launch_func @k3::@kernel
module attributes {gpu.container_module} {
  gpu.module @k1 {
    gpu.func @kernel(%a: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @k2 {
    gpu.func @kernel(%a: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @k3 {
    gpu.func @kernel(%a: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %a[%i] : memref<4xf32>
      gpu.return
    }
  }
  func.func @step(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @k1::@kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @k2::@kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @k3::@kernel blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}

// -----

// Must not fire: distinct kernels only, no aliases.
// CHECK-LABEL: module attributes {gpu.container_module} {
// CHECK: gpu.module @a
// CHECK: gpu.module @b
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @a(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @b(%x: memref<8xf32>) kernel {
      gpu.return
    }
  }
}
