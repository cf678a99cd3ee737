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
// CHECK-LABEL: func.func @recomputed
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK-NEXT: %[[RAW:.*]] = memref.load %arg0[]
// CHECK-NEXT: %[[WIN:.*]] = arith.index_cast %[[RAW]]
// CHECK: } {gptc.single_thread}
// CHECK: gpu.launch
// CHECK-NEXT: %[[RAW2:.*]] = memref.load %arg0[]
// CHECK-NEXT: %[[WIN2:.*]] = arith.index_cast %[[RAW2]]
// CHECK-NEXT: arith.addi %{{.*}}, %[[WIN2]]
// CHECK-NOT: memref.dealloc

// A value read from device memory that a later kernel uses is read and
// computed again at the start of that kernel when nothing in between may
// write what it reads (no device scalar: no allocation in the step, which
// a CUDA graph could not replay).
func.func @recomputed(%w: memref<i64>, %lo: memref<8xindex>, %x: memref<8xindex>) {
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
// CHECK-LABEL: func.func @arena_views_apart
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %[[W:.*]][]
// CHECK: } {gptc.single_thread}
// CHECK: gpu.launch
// CHECK-NEXT: memref.store
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %[[W]][]

// Views of one arena at constant offsets: kernels that write other bytes
// of it between the run and the use do not stop the recomputation.
func.func @arena_views_apart(%arena: memref<256xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %w = memref.view %arena[%c0][] : memref<256xi8> to memref<i64>
  %lo = memref.view %arena[%c64][] : memref<256xi8> to memref<8xindex>
  %x = memref.view %arena[%c128][] : memref<256xi8> to memref<8xindex>
  %raw = memref.load %w[] : memref<i64>
  %win = arith.index_cast %raw : i64 to index
  memref.store %win, %lo[%c0] : memref<8xindex>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c8, %s1 = %c1, %s2 = %c1) {
    memref.store %t0, %lo[%t0] : memref<8xindex>
    gpu.terminator
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
// CHECK-LABEL: func.func @arena_views_overlap
// CHECK: memref.alloc() : memref<index>
// CHECK: memref.dealloc

// Must not recompute: a kernel writes a view whose bytes overlap the read
// one's (bytes 4..11 against 0..7).
func.func @arena_views_overlap(%arena: memref<256xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %w = memref.view %arena[%c0][] : memref<256xi8> to memref<i64>
  %over = memref.view %arena[%c4][] : memref<256xi8> to memref<2xf32>
  %x = memref.view %arena[%c128][] : memref<256xi8> to memref<8xindex>
  %raw = memref.load %w[] : memref<i64>
  %win = arith.index_cast %raw : i64 to index
  memref.store %win, %x[%c0] : memref<8xindex>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    memref.store %zero, %over[%c1] : memref<2xf32>
    gpu.terminator
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
// CHECK-LABEL: func.func @call_writes_elsewhere
// CHECK-NOT: memref.alloc
// CHECK: call @gemm
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %{{.*}}[] : memref<i64>

// A call between the run and the kernel (a GEMM on addresses) writes the
// buffers its address operands point into: here another view of the arena,
// nested in a view of its own (shifts 64 + 64: bytes 128..191).
func.func private @gemm(i64)
func.func @call_writes_elsewhere(%arena: memref<256xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %w = memref.view %arena[%c0][] : memref<256xi8> to memref<i64>
  %half = memref.view %arena[%c64][] : memref<256xi8> to memref<192xi8>
  %c = memref.view %half[%c64][] : memref<192xi8> to memref<8xf64>
  %x = memref.view %arena[%c8][] : memref<256xi8> to memref<1xindex>
  %raw = memref.load %w[] : memref<i64>
  %win = arith.index_cast %raw : i64 to index
  memref.store %win, %x[%c0] : memref<1xindex>
  %p = memref.extract_aligned_pointer_as_index %c : memref<8xf64> -> index
  %a = arith.index_cast %p : index to i64
  func.call @gemm(%a) : (i64) -> ()
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %e = arith.addi %t0, %win : index
    memref.store %e, %x[%t0] : memref<1xindex>
    gpu.terminator
  }
  return
}

// -----
// CHECK-LABEL: func.func @call_writes_the_read_bytes
// CHECK: memref.alloc() : memref<index>
// CHECK: call @gemm
// CHECK: memref.dealloc

// Must not recompute: the call's address points into the view the run
// read (a view of a view: shifts 0 + 0).
func.func private @gemm(i64)
func.func @call_writes_the_read_bytes(%arena: memref<256xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %w = memref.view %arena[%c0][] : memref<256xi8> to memref<i64>
  %head = memref.view %arena[%c0][] : memref<256xi8> to memref<64xi8>
  %c = memref.view %head[%c0][] : memref<64xi8> to memref<8xf64>
  %x = memref.view %arena[%c8][] : memref<256xi8> to memref<1xindex>
  %raw = memref.load %w[] : memref<i64>
  %win = arith.index_cast %raw : i64 to index
  memref.store %win, %x[%c0] : memref<1xindex>
  %p = memref.extract_aligned_pointer_as_index %c : memref<8xf64> -> index
  %a = arith.index_cast %p : index to i64
  func.call @gemm(%a) : (i64) -> ()
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %e = arith.addi %t0, %win : index
    memref.store %e, %x[%t0] : memref<1xindex>
    gpu.terminator
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
// CHECK: gpu.launch
// CHECK-NEXT: %[[AGAIN:.*]] = memref.load %[[SCALAR]][]
// CHECK-NEXT: arith.addi %{{.*}}, %[[AGAIN]]
// CHECK: memref.dealloc %[[SCALAR]]

// Must not recompute: a kernel between the run and the use writes the
// value's buffer (here the same view bytes), so the value the run read
// passes through a device scalar: the run stores it, the kernel loads it.
func.func @passed_on(%w: memref<i64>, %lo: memref<8xindex>, %x: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i64
  %raw = memref.load %w[] : memref<i64>
  %win = arith.index_cast %raw : i64 to index
  scf.for %t = %c0 to %c8 step %c1 {
    %d = arith.subi %t, %win : index
    memref.store %d, %lo[%t] : memref<8xindex>
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    memref.store %zero, %w[] : memref<i64>
    gpu.terminator
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
