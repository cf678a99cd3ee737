// gptc-thread-blocks: every outermost scf.parallel with constant bounds
// becomes blocks (outer scf.parallel) of threads (inner scf.parallel);
// work item n = block * threads + thread delinearises innermost fastest.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-thread-blocks))' --split-input-file | FileCheck %s
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-thread-blocks{block-size=128}))' --split-input-file | FileCheck %s --check-prefix=B128
// RUN: not gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-thread-blocks{block-size=100}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: block-size must be a multiple of 32 in [32, 1024], not 100

// 512 x 64 = 32768 items: 128 blocks of 256 threads (with block-size=128:
// 256 blocks of 128),
// no guard; j = n mod 64, i = n div 64.
// CHECK-LABEL: func.func @nest
// CHECK-DAG: %[[BLOCKS:.*]] = arith.constant 128 : index
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[BLOCKS]])
// CHECK: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[THREADS]])
// CHECK: %[[BASE:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[N:.*]] = arith.addi %[[BASE]], %[[T]] : index
// CHECK: %[[J:.*]] = arith.remui %[[N]], %{{.*}} : index
// CHECK: %[[I:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK-NOT: scf.if
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// B128-LABEL: func.func @nest
// B128: arith.constant 256 : index
// B128: arith.constant 128 : index

func.func @nest(%a: memref<512x64xf32>, %b: memref<512x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c64) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<512x64xf32>
    memref.store %v, %b[%i, %j] : memref<512x64xf32>
    scf.reduce
  }
  return
}


// -----

// 49 items (2, 4, ..., 98): one block of 64 threads (a multiple of 32),
// the last 15 threads skipped by the guard; i = 2 + 2 n.
// CHECK-LABEL: func.func @ragged
// CHECK: scf.parallel
// CHECK: arith.constant 64 : index
// CHECK: scf.parallel
// CHECK: %[[N:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[N]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK:   %[[S:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK:   %[[I:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[I]]]


func.func @ragged(%a: memref<100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c100 = arith.constant 100 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c2) to (%c100) step (%c2) {
    memref.store %cst, %a[%i] : memref<100xf32>
    scf.reduce
  }
  return
}


// -----

// Must not fire: dynamic bounds.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%arg1)
// CHECK-NOT: scf.parallel


func.func @dynamic(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}


// -----

// Must not fire: a nest staging a shared tile (its work item is a block).
// CHECK-LABEL: func.func @shared_tile
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}})
// CHECK-NEXT: memref.alloca() {gptc.workgroup_tile}
// CHECK-NOT: scf.parallel


func.func @shared_tile(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %t = memref.alloca() {gptc.workgroup_tile} : memref<16xf32>
    %v = memref.load %t[%i] : memref<16xf32>
    memref.store %v, %a[%i] : memref<64xf32>
    scf.reduce
  }
  return
}

// -----

// A block of threads staging a shared tile (the cross-entropy kernels'
// reductions, their barriers already gpu.barrier, gptc-lower-block-barriers):
// left as it is.
// CHECK-LABEL: func.func @shared_tile_nest
// CHECK: scf.parallel (%[[R:.*]]) = (%{{.*}}) to (%{{.*}})
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}})
// CHECK: memref.alloca() {gptc.workgroup_tile}
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: scf.parallel

func.func @shared_tile_nest(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      %s = memref.alloca() {gptc.workgroup_tile} : memref<32xf32>
      memref.store %zero, %s[%t] : memref<32xf32>
      gpu.barrier
      %v = memref.load %s[%c0] : memref<32xf32>
      memref.store %v, %a[%r] : memref<4xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A nest whose work item is a team (a nested scf.parallel of 256 threads,
// the cross-entropy's rows) keeps one work item per block: the inner nest
// becomes the block's threads, not a sequential loop in one thread.
// CHECK-LABEL: func.func @team
// CHECK: scf.parallel (%[[R:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NOT: scf.parallel
// CHECK: scf.for %{{.*}} = %[[T]] to
func.func @team(%x: memref<65536xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c1000 = arith.constant 1000 : index
  %cst = arith.constant 0.0 : bf16
  scf.parallel (%r) = (%c0) to (%c512) step (%c1) {
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
      scf.for %j = %t to %c1000 step %c256 {
        memref.store %cst, %x[%j] : memref<65536xbf16>
      }
      scf.reduce
    }
    scf.reduce
  }
  return
}
