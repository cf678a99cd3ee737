// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-register-accumulators{reassociate=false}))' --split-input-file | FileCheck %s

// CUDA: a thread's sum of split-K partials inside a gpu.launch keeps its
// accumulator in a register and adds in the loop's order (no
// fastmath<reassoc>: the same bits as the load/store chain).
// CHECK-LABEL: func.func @partials_sum
// CHECK:         gpu.launch
// CHECK:           %[[A0:.*]] = memref.load %arg1[%[[I:.*]]]
// CHECK-NEXT:      %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[A0]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %arg0[%[[K]], %[[I]]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[A]], %[[X]] : f32
// CHECK-NEXT:        scf.yield %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[R]], %arg1[%[[I]]]
func.func @partials_sum(%partials: memref<32x256xf32>, %sum: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c32 step %c1 {
      %x = memref.load %partials[%k, %tx] : memref<32x256xf32>
      %a = memref.load %sum[%tx] : memref<256xf32>
      %s = arith.addf %a, %x : f32
      memref.store %s, %sum[%tx] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Must not fire inside a launch either: the accumulator's memref is
// stored elsewhere in the loop.
// CHECK-LABEL: func.func @stored_elsewhere
// CHECK:         gpu.launch
// CHECK:           scf.for
// CHECK-NOT:         iter_args
// CHECK:             memref.store
// CHECK:             memref.store
func.func @stored_elsewhere(%x: memref<32xf32>, %y: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c32 step %c1 {
      %v = memref.load %x[%k] : memref<32xf32>
      %a = memref.load %y[%c0] : memref<2xf32>
      %s = arith.addf %a, %v : f32
      memref.store %s, %y[%c0] : memref<2xf32>
      memref.store %v, %y[%c1] : memref<2xf32>
    }
    gpu.terminator
  }
  return
}
