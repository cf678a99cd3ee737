// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-register-accumulators))' --split-input-file | FileCheck %s

// A row sum: the output element is loaded once, carried, stored once, and
// the add may be reassociated.
// CHECK-LABEL: func.func @row_sum
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK-NEXT:      %[[A0:.*]] = memref.load %arg1[%[[I]]]
// CHECK-NEXT:      %[[R:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[A0]]) -> (f32) {
// CHECK-NEXT:        %[[X:.*]] = memref.load %arg0[%[[I]], %[[K]]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[X]], %[[A]] fastmath<reassoc> : f32
// CHECK-NEXT:        scf.yield %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[R]], %arg1[%[[I]]]
func.func @row_sum(%x: memref<8x64xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %k] : memref<8x64xf32>
      %a = memref.load %y[%i] : memref<8xf32>
      %s = arith.addf %v, %a : f32
      memref.store %s, %y[%i] : memref<8xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A running maximum: the same, maximumf keeps its flags (none needed).
// CHECK-LABEL: func.func @row_max
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           arith.maximumf
// CHECK:           scf.yield
func.func @row_max(%x: memref<64xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %x[%k] : memref<64xf32>
    %a = memref.load %y[%c0] : memref<1xf32>
    %m = arith.maximumf %v, %a : f32
    memref.store %m, %y[%c0] : memref<1xf32>
  }
  return
}

// -----

// Must not fire: the accumulator's memref is read elsewhere in the loop.
// CHECK-LABEL: func.func @read_elsewhere
// CHECK:         scf.for
// CHECK-NOT:       iter_args
// CHECK:           memref.store
func.func @read_elsewhere(%y: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %y[%c1] : memref<2xf32>
    %a = memref.load %y[%c0] : memref<2xf32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %y[%c0] : memref<2xf32>
  }
  return
}

// -----

// Must not fire: the element moves with the loop (an elementwise update,
// not a reduction).
// CHECK-LABEL: func.func @element_per_iteration
// CHECK-NOT:     iter_args
func.func @element_per_iteration(%x: memref<64xf32>, %y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %x[%k] : memref<64xf32>
    %a = memref.load %y[%k] : memref<64xf32>
    %s = arith.addf %v, %a : f32
    memref.store %s, %y[%k] : memref<64xf32>
  }
  return
}

// -----

// Must not fire: the stored value is not a combination with the old one.
// CHECK-LABEL: func.func @overwrite
// CHECK-NOT:     iter_args
func.func @overwrite(%x: memref<64xf32>, %y: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %x[%k] : memref<64xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%c0] : memref<1xf32>
  }
  return
}
