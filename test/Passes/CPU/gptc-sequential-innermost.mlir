// RUN: gptc-opt %s --gptc-sequential-innermost | FileCheck %s

// gptc-sequential-innermost: a parallel loop of two or more dimensions
// without reductions keeps all but its innermost dimension parallel and runs
// the innermost one as an scf.for (a unit-stride row LLVM vectorises).

// CHECK-LABEL: func.func @scale_rows
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[Y:.*]]: memref<4x8xf32>)
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[W:.*]] = arith.mulf %[[V]], %[[V]]
// CHECK-NEXT: memref.store %[[W]], %[[Y]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
func.func @scale_rows(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// Three dimensions: two stay parallel.
// CHECK-LABEL: func.func @three_dims
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}})
// CHECK-NEXT: scf.for
func.func @three_dims(%x: memref<2x4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%a, %b, %c) = (%c0, %c0, %c0) to (%c2, %c4, %c8) step (%c1, %c1, %c1) {
    memref.store %z, %x[%a, %b, %c] : memref<2x4x8xf32>
    scf.reduce
  }
  return
}

// Must not fire: one dimension; a reduction; a parallel loop nested in
// another.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%{{[a-z0-9]+}}) =
// CHECK: scf.parallel (%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) = {{.*}} init
// CHECK: scf.parallel (%{{[a-z0-9]+}}) =
// CHECK: scf.parallel (%{{[a-z0-9]+}}, %{{[a-z0-9]+}}) =
// CHECK-NOT: scf.for
// CHECK: return
func.func @left_alone(%x: memref<4x8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    memref.store %z, %x[%i, %c0] : memref<4x8xf32>
    scf.reduce
  }
  %s = scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) init (%z) -> f32 {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    scf.reduce(%v : f32) {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      scf.reduce.return %a : f32
    }
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j, %k) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
      memref.store %z, %x[%i, %j] : memref<4x8xf32>
      scf.reduce
    }
    scf.reduce
  }
  return %s : f32
}
