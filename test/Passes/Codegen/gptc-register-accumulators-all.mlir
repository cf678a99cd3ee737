// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-register-accumulators{reassociate=false all-accumulations=true}))' --split-input-file | FileCheck %s
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-register-accumulators{reassociate=false}))' --split-input-file | FileCheck %s --check-prefix=ONE

// CUDA (all-accumulations): a loop with two accumulators, each to its own
// memref (RMSNorm's backward: sum x^2 and sum x * dy per row), keeps both
// in registers, loaded once before and stored once after. Without the
// option (the CPU) such a loop is left alone.
// CHECK-LABEL: func.func @two_sums
// CHECK-DAG:     %[[A0:.*]] = memref.load %arg2[%arg4]
// CHECK-DAG:     %[[B0:.*]] = memref.load %arg3[%arg4]
// CHECK:         %[[R:.*]]:2 = scf.for %{{.*}} iter_args(%[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]]) -> (f32, f32) {
// CHECK-NOT:       memref.store
// CHECK:           scf.yield
// CHECK:         }
// CHECK-DAG:     memref.store %[[R]]#0, %arg2[%arg4]
// CHECK-DAG:     memref.store %[[R]]#1, %arg3[%arg4]
// ONE-LABEL: func.func @two_sums
// ONE:         scf.for
// ONE-NOT:       iter_args
func.func @two_sums(%x: memref<512x768xf32>, %dy: memref<512x768xf32>, %ss: memref<512xf32>, %sd: memref<512xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c768 = arith.constant 768 : index
  scf.for %k = %c0 to %c768 step %c1 {
    %v = memref.load %x[%i, %k] : memref<512x768xf32>
    %g = memref.load %dy[%i, %k] : memref<512x768xf32>
    %a = memref.load %ss[%i] : memref<512xf32>
    %sq = arith.mulf %v, %v : f32
    %n = arith.addf %sq, %a : f32
    %b = memref.load %sd[%i] : memref<512xf32>
    %p = arith.mulf %v, %g : f32
    %m = arith.addf %b, %p : f32
    memref.store %n, %ss[%i] : memref<512xf32>
    memref.store %m, %sd[%i] : memref<512xf32>
  }
  return
}

// -----

// Must not fire: two accumulations into one memref (they could alias).
// CHECK-LABEL: func.func @same_memref
// CHECK: scf.for
// CHECK-NOT: iter_args
func.func @same_memref(%x: memref<512x768xf32>, %acc: memref<2x512xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c768 = arith.constant 768 : index
  scf.for %k = %c0 to %c768 step %c1 {
    %v = memref.load %x[%i, %k] : memref<512x768xf32>
    %a = memref.load %acc[%c0, %i] : memref<2x512xf32>
    %n = arith.addf %v, %a : f32
    %b = memref.load %acc[%c1, %i] : memref<2x512xf32>
    %m = arith.maximumf %b, %v : f32
    memref.store %n, %acc[%c0, %i] : memref<2x512xf32>
    memref.store %m, %acc[%c1, %i] : memref<2x512xf32>
  }
  return
}
