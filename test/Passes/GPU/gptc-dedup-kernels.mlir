// RUN: gptc-opt %s -split-input-file --gptc-dedup-kernels | FileCheck %s

// gptc-dedup-kernels: @k2 has the body of @k1 (the same kernel in another
// layer; outlining names the modules apart, the kernel functions inside
// share the name gptc-name-kernels gave them, @kernel): it goes, its launch
// points at @k1's module, and the alias keeps its name. @k3 differs (a
// multiply) and stays. The two kept modules and their kernels are then
// named after the function, the second numbered: every PTX entry point is
// distinct.

// CHECK-LABEL: module attributes {gptc.kernel_aliases = {k2 = @kernel}, gpu.container_module}
// CHECK: gpu.module @kernel
// CHECK-NEXT: gpu.func @kernel(
// CHECK-NOT: gpu.module @k2
// CHECK: gpu.module @kernel_1
// CHECK-NEXT: gpu.func @kernel_1(
// CHECK: gpu.launch_func @kernel::@kernel
// CHECK: gpu.launch_func @kernel::@kernel
// CHECK: gpu.launch_func @kernel_1::@kernel_1
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

// -----

// Kernels of two origins with one body (the same nest in the attention and
// the MLP norm) are one kernel, named after the first; the launch of the
// second points at it.
// CHECK-LABEL: module attributes {gptc.kernel_aliases = {y = @grad_attn_norm}, gpu.container_module}
// CHECK: gpu.module @grad_attn_norm
// CHECK-NOT: gpu.module
// CHECK: gpu.launch_func @grad_attn_norm::@grad_attn_norm
// CHECK: gpu.launch_func @grad_attn_norm::@grad_attn_norm
module attributes {gpu.container_module} {
  gpu.module @x {
    gpu.func @grad_attn_norm(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @y {
    gpu.func @grad_mlp_norm(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @step(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @x::@grad_attn_norm blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.launch_func @y::@grad_mlp_norm blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    return
  }
}
