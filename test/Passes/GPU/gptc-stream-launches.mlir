// RUN: gptc-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(gptc-stream-launches))' | FileCheck %s

// gptc-stream-launches: every synchronous launch of the function (one in a
// loop among them) goes on one stream token made at the function's entry,
// and nothing waits for it.

// CHECK-LABEL: func.func @step
// CHECK-NEXT: %[[S:.*]] = gpu.wait async
// CHECK: gpu.launch_func async [%[[S]]] @k::@k blocks in
// CHECK: scf.for
// CHECK: gpu.launch_func async [%[[S]]] @k::@k blocks in
// CHECK-NOT: gpu.wait
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %a[%i] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<4xf32>
      gpu.return
    }
  }
  func.func @step(%a: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    scf.for %l = %c0 to %c4 step %c1 {
      gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    }
    return
  }
}

// -----

// Must not fire: a function without launches gets no stream, and a launch
// that is already asynchronous keeps its own dependencies (and no second
// token is made for it).

// CHECK-LABEL: func.func @host_only
// CHECK-NOT: gpu.wait
// CHECK: return
// CHECK-LABEL: func.func @already_async
// CHECK-COUNT-1: gpu.wait async
// CHECK-NEXT: gpu.launch_func async [%{{.*}}] @k::@k
// CHECK-NEXT: gpu.wait [
// CHECK-NOT: gpu.wait
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @host_only(%a: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%c0] : memref<4xf32>
    return
  }
  func.func @already_async(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @k::@k blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<4xf32>)
    gpu.wait [%t1]
    return
  }
}
