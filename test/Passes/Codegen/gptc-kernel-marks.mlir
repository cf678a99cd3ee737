// RUN: gptc-opt %s -split-input-file --gptc-kernel-marks | FileCheck %s

// gptc-kernel-marks: each kernel nest (an scf.parallel not nested in
// another) is bracketed by gptc_kernel_mark(ID, 0) and (ID, 1), IDs in
// program order across the module's functions; the inner scf.parallel of a
// nest gets no marks of its own.

// CHECK-LABEL: func.func @two_nests
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK: %[[BEGIN:.*]] = arith.constant 0 : i64
// CHECK: call @gptc_kernel_mark(%[[ID0]], %[[BEGIN]])
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK-NOT: gptc_kernel_mark
// CHECK: %[[ID0B:.*]] = arith.constant 0 : i64
// CHECK: %[[END:.*]] = arith.constant 1 : i64
// CHECK: call @gptc_kernel_mark(%[[ID0B]], %[[END]])
// CHECK: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK: %[[BEGIN1:.*]] = arith.constant 0 : i64
// CHECK: call @gptc_kernel_mark(%[[ID1]], %[[BEGIN1]])
// CHECK: scf.parallel
// CHECK-LABEL: func.func @third
// CHECK: %[[ID2:.*]] = arith.constant 2 : i64
// CHECK: call @gptc_kernel_mark(%[[ID2]],
// CHECK: func.func private @gptc_kernel_mark(i64, i64)
func.func @two_nests(%a: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
      memref.store %f, %a[%i, %j] : memref<4x4xf32>
      scf.reduce
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %f, %a[%i, %c0] : memref<4x4xf32>
    scf.reduce
  }
  return
}
func.func @third(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %f, %a[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// Must not fire: a module without kernel nests gets the declaration only
// (no call).

// CHECK-LABEL: func.func @no_nest
// CHECK-NOT: call @gptc_kernel_mark
// CHECK: func.func private @gptc_kernel_mark(i64, i64)
func.func @no_nest(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  memref.store %f, %a[%c0] : memref<4xf32>
  return
}
