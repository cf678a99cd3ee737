// gptc-warp-reductions: a work item whose reduction loop walks a row (the
// loop's index the last, contiguous index of its loads) becomes a warp of
// 32 lanes: partial sums in a register from the neutral element, a
// butterfly of shuffles, and lane 0 combining the total into the element.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-warp-reductions))' --split-input-file | FileCheck %s

// A row's sum of squares (RMSNorm's statistics), 512 rows of 768.
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.parallel (%[[I:.*]], %[[L:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %[[C32]])
// CHECK: %[[FIRST:.*]] = arith.addi %{{.*}}, %[[L]] : index
// CHECK: %[[NEUTRAL:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[P:.*]] = scf.for %[[K:.*]] = %[[FIRST]] to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[NEUTRAL]]) -> (f32) {
// CHECK:   %[[X:.*]] = memref.load %arg0[%[[I]], %[[K]]]
// CHECK:   %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK:   %[[N:.*]] = arith.addf %[[SQ]], %[[S]]
// CHECK:   scf.yield %[[N]]
// CHECK: gpu.shuffle xor %[[P]], %c16_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32{{.*}}
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32{{.*}}
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32{{.*}}
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32{{.*}}
// CHECK: %[[T:.*]] = arith.addf
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[L]], %{{.*}} : index
// CHECK: scf.if %[[LEAD]] {
// CHECK:   %[[OLD:.*]] = memref.load %arg1[%[[I]]]
// CHECK:   %[[NEW:.*]] = arith.addf %[[OLD]], %[[T]]
// CHECK:   memref.store %[[NEW]], %arg1[%[[I]]]
// CHECK: } {gptc.warp_leader}
func.func @row_sum(%x: memref<512x768xf32>, %acc: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c768 step %c1 {
      %v = memref.load %x[%i, %k] : memref<512x768xf32>
      %a = memref.load %acc[%i] : memref<512xf32>
      %sq = arith.mulf %v, %v : f32
      %n = arith.addf %sq, %a : f32
      memref.store %n, %acc[%i] : memref<512xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A max over a row of bf16 values, with a per-row load before the loop
// (cloned into every lane); the neutral element is -inf.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.parallel (%[[I:.*]], %[[L:.*]]) =
// CHECK: %[[B:.*]] = memref.load %arg2[%[[I]]]
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: scf.for
// CHECK:   arith.extf
// CHECK:   arith.addf %{{.*}}, %[[B]]
// CHECK:   arith.maximumf
// CHECK: gpu.shuffle xor
// CHECK: arith.maximumf
func.func @row_max(%x: memref<64x128xbf16>, %acc: memref<64xf32>, %bias: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %b = memref.load %bias[%i] : memref<64xf32>
    scf.for %k = %c0 to %c128 step %c1 {
      %v = memref.load %x[%i, %k] : memref<64x128xbf16>
      %a = memref.load %acc[%i] : memref<64xf32>
      %w = arith.extf %v : bf16 to f32
      %s = arith.addf %w, %b : f32
      %n = arith.maximumf %a, %s : f32
      memref.store %n, %acc[%i] : memref<64xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Must not fire: a column sum (the loop walks the first dimension; a
// thread per column is coalesced already).
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT: gpu.shuffle
// CHECK: scf.parallel (%{{.*}}) =
// CHECK: scf.for
func.func @column_sum(%x: memref<768x512xf32>, %acc: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%j) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c768 step %c1 {
      %v = memref.load %x[%k, %j] : memref<768x512xf32>
      %a = memref.load %acc[%j] : memref<512xf32>
      %n = arith.addf %v, %a : f32
      memref.store %n, %acc[%j] : memref<512xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Must not fire: fewer terms than a warp's lanes.
// CHECK-LABEL: func.func @short_row
// CHECK-NOT: gpu.shuffle
func.func @short_row(%x: memref<512x16xf32>, %acc: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      %v = memref.load %x[%i, %k] : memref<512x16xf32>
      %a = memref.load %acc[%i] : memref<512xf32>
      %n = arith.addf %v, %a : f32
      memref.store %n, %acc[%i] : memref<512xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Must not fire: a second store in the loop, an f64 accumulator, and a
// row of a buffer whose last dimension is strided.
// CHECK-LABEL: func.func @other_store
// CHECK-NOT: gpu.shuffle
// CHECK-LABEL: func.func @f64_sum
// CHECK-NOT: gpu.shuffle
// CHECK-LABEL: func.func @strided_row
// CHECK-NOT: gpu.shuffle
func.func @other_store(%x: memref<512x768xf32>, %acc: memref<512xf32>, %y: memref<512x768xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c768 step %c1 {
      %v = memref.load %x[%i, %k] : memref<512x768xf32>
      %a = memref.load %acc[%i] : memref<512xf32>
      %n = arith.addf %v, %a : f32
      memref.store %n, %acc[%i] : memref<512xf32>
      memref.store %v, %y[%i, %k] : memref<512x768xf32>
    }
    scf.reduce
  }
  return
}
func.func @f64_sum(%x: memref<512x768xf64>, %acc: memref<512xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c768 step %c1 {
      %v = memref.load %x[%i, %k] : memref<512x768xf64>
      %a = memref.load %acc[%i] : memref<512xf64>
      %n = arith.addf %v, %a : f64
      memref.store %n, %acc[%i] : memref<512xf64>
    }
    scf.reduce
  }
  return
}
func.func @strided_row(%x: memref<512x768xf32, strided<[1, 512]>>, %acc: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c768 step %c1 {
      %v = memref.load %x[%i, %k] : memref<512x768xf32, strided<[1, 512]>>
      %a = memref.load %acc[%i] : memref<512xf32>
      %n = arith.addf %v, %a : f32
      memref.store %n, %acc[%i] : memref<512xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Two sums in one loop (RMSNorm's backward: sum x^2 and sum x * dy): both
// in registers, both combined over the warp, both stored by lane 0.
// CHECK-LABEL: func.func @two_sums
// CHECK: %[[P:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK: scf.if
// CHECK-COUNT-2: memref.store
// CHECK: } {gptc.warp_leader}
func.func @two_sums(%x: memref<512x768xf32>, %dy: memref<512x768xbf16>, %ss: memref<512xf32>, %sd: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    scf.for %k = %c0 to %c768 step %c1 {
      %v = memref.load %x[%i, %k] : memref<512x768xf32>
      %g = memref.load %dy[%i, %k] : memref<512x768xbf16>
      %a = memref.load %ss[%i] : memref<512xf32>
      %w = arith.extf %g : bf16 to f32
      %sq = arith.mulf %v, %v : f32
      %n = arith.addf %sq, %a : f32
      %p = arith.mulf %v, %w : f32
      %b = memref.load %sd[%i] : memref<512xf32>
      %m = arith.addf %b, %p : f32
      memref.store %n, %ss[%i] : memref<512xf32>
      memref.store %m, %sd[%i] : memref<512xf32>
    }
    scf.reduce
  }
  return
}
