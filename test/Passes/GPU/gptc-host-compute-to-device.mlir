// gptc-host-compute-to-device: buffer reads and writes left on the host
// (with the scalar arithmetic between them) move into single-thread
// launches; host work (launches, calls, views, allocations) stays.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-host-compute-to-device))' --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @scalar_run
// CHECK: gpu.launch
// CHECK-NOT: gptc.single_thread
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: %[[S:.*]] = memref.load %arg0[]
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[S]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[F]]
// CHECK-NEXT: memref.store %[[M]], %arg1[]
// CHECK-NEXT: gpu.terminator
// CHECK-NEXT: } {gptc.single_thread}
// CHECK: gpu.launch
// CHECK: memref.load %arg1[]

// A run: a scalar schedule step (load, arithmetic, store) between two
// launches becomes one single-thread launch.
func.func @scalar_run(%step: memref<i64>, %lr: memref<f32>, %x: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 0.5 : f32
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c64, %s1 = %c1, %s2 = %c1) {
    memref.store %half, %x[%t0] : memref<64xf32>
    gpu.terminator
  }
  %s = memref.load %step[] : memref<i64>
  %f = arith.sitofp %s : i64 to f32
  %m = arith.mulf %f, %half : f32
  memref.store %m, %lr[] : memref<f32>
  %n = arith.constant 2 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c64, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %lr[] : memref<f32>
    memref.store %v, %x[%t0] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----
// CHECK-LABEL: func.func @reduction_loop
// CHECK: gpu.launch
// CHECK-NEXT: memref.store %{{.*}}, %arg1[]
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK: } {gptc.single_thread}
// CHECK-NEXT: return

// A serial loop over a buffer (a full reduction) moves whole.
func.func @reduction_loop(%in: memref<4x128xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %out[] : memref<f32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %a = memref.load %in[%i, %j] : memref<4x128xf32>
      %o = memref.load %out[] : memref<f32>
      %s = arith.addf %a, %o : f32
      memref.store %s, %out[] : memref<f32>
    }
  }
  return
}

// -----
// CHECK-LABEL: func.func @passed_on
// CHECK: %[[SCALAR:.*]] = memref.alloc() : memref<index>
// CHECK: gpu.launch
// CHECK-NEXT: %[[RAW:.*]] = memref.load %arg0[]
// CHECK-NEXT: %[[WIN:.*]] = arith.index_cast %[[RAW]]
// CHECK-NEXT: memref.store %[[WIN]], %[[SCALAR]][]
// CHECK: } {gptc.single_thread}
// CHECK: gpu.launch
// CHECK-NEXT: %[[AGAIN:.*]] = memref.load %[[SCALAR]][]
// CHECK-NEXT: arith.addi %{{.*}}, %[[AGAIN]]
// CHECK: memref.dealloc %[[SCALAR]]

// A value read from device memory that a later kernel uses passes through
// a device scalar.
func.func @passed_on(%w: memref<i64>, %lo: memref<8xindex>, %x: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %raw = memref.load %w[] : memref<i64>
  %win = arith.index_cast %raw : i64 to index
  scf.for %t = %c0 to %c8 step %c1 {
    %d = arith.subi %t, %win : index
    memref.store %d, %lo[%t] : memref<8xindex>
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c8, %s1 = %c1, %s2 = %c1) {
    %e = arith.addi %t0, %win : index
    memref.store %e, %x[%t0] : memref<8xindex>
    gpu.terminator
  }
  return
}

// -----
// CHECK-LABEL: func.func @host_work
// CHECK-NOT: gptc.single_thread
// CHECK: memref.view
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: call @gemm
// CHECK-NEXT: scf.for
// CHECK-NEXT: gpu.launch
// CHECK-NOT: gptc.single_thread
// CHECK: memref.dealloc

// Must not fire: a host loop that launches kernels, an allocation, views
// and GEMM calls are host work.
func.func private @gemm(i64)
func.func @host_work(%arena: memref<1024xi8>, %n: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %v = memref.view %arena[%c0][] : memref<1024xi8> to memref<4xf32>
  %t = memref.alloc() : memref<4xf32>
  func.call @gemm(%n) : (i64) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
               threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
      %x = memref.load %v[%t0] : memref<4xf32>
      memref.store %x, %t[%t0] : memref<4xf32>
      gpu.terminator
    }
  }
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// A value read from device memory that host code needs is an error.
func.func @host_needs(%n: memref<index>, %x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{a value computed from device memory is used on the host; it cannot move into a kernel}}
  %len = memref.load %n[] : memref<index>
  // expected-note @+1 {{used by memref.subview here}}
  %sub = memref.subview %x[0] [%len] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  return
}
