// gptc-vector-elementwise: an elementwise nest along contiguous, aligned
// rows takes 16 bytes over its widest element a work item: one vector load
// or store per row access, the element math repeated, what does not vary
// along the row computed once.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-vector-elementwise))' --split-input-file | FileCheck %s

// bf16 in, f32 out, a per-row scale: 4 elements a work item (f32 is the
// widest), an 8-byte load and a 16-byte store.
// CHECK-LABEL: func.func @scale_rows
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}) step (%{{.*}}, %[[C4]])
// CHECK: %[[X:.*]] = vector.load %arg0[%[[I]], %[[J]]] {alignment = 8 : i64} : memref<512x768xbf16>, vector<4xbf16>
// CHECK-COUNT-4: vector.extract %[[X]]
// CHECK: %[[S:.*]] = memref.load %arg1[%[[I]]]
// CHECK-NOT: memref.load
// CHECK-COUNT-4: arith.mulf %{{.*}}, %[[S]] : f32
// CHECK: %[[Y:.*]] = vector.from_elements
// CHECK: vector.store %[[Y]], %arg2[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<512x768xf32>, vector<4xf32>
func.func @scale_rows(%a: memref<512x768xbf16>, %scale: memref<512xf32>, %b: memref<512x768xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c768 = arith.constant 768 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c768) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<512x768xbf16>
    %s = memref.load %scale[%i] : memref<512xf32>
    %w = arith.extf %x : bf16 to f32
    %y = arith.mulf %w, %s : f32
    memref.store %y, %b[%i, %j] : memref<512x768xf32>
    scf.reduce
  }
  return
}

// -----

// bf16 only: 8 elements (16 bytes) a work item; an arena view at a
// 64-byte multiple.
// CHECK-LABEL: func.func @bf16_copy
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x256xbf16>, vector<8xbf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x256xbf16>, vector<8xbf16>
func.func @bf16_copy(%arena: memref<65536xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c32768 = arith.constant 32768 : index
  %a = memref.view %arena[%c0][] : memref<65536xi8> to memref<64x256xbf16>
  %b = memref.view %arena[%c32768][] : memref<65536xi8> to memref<64x256xbf16>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<64x256xbf16>
    %y = arith.negf %x : bf16
    memref.store %y, %b[%i, %j] : memref<64x256xbf16>
    scf.reduce
  }
  return
}

// -----

// An extent of 6 f32: 2 elements a work item (4 does not divide 6).
// CHECK-LABEL: func.func @narrow
// CHECK: vector.load %{{.*}} : memref<10x6xf32>, vector<2xf32>
func.func @narrow(%a: memref<10x6xf32>, %b: memref<10x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c6 = arith.constant 6 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c6) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<10x6xf32>
    memref.store %x, %b[%i, %j] : memref<10x6xf32>
    scf.reduce
  }
  return
}

// -----

// A gather of whole rows (an embedding's lookup: the row loaded, the row
// walked along j) is contiguous: 4 elements a work item.
// CHECK-LABEL: func.func @row_gather
// CHECK: %[[R:.*]] = arith.index_cast
// CHECK: vector.load %arg1[%[[R]], %{{.*}}] {alignment = 16 : i64} : memref<1000x64xf32>, vector<4xf32>
func.func @row_gather(%ids: memref<512xi32>, %table: memref<1000x64xf32>, %out: memref<512x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c64) step (%c1, %c1) {
    %t = memref.load %ids[%i] : memref<512xi32>
    %r = arith.index_cast %t : i32 to index
    %x = memref.load %table[%r, %j] : memref<1000x64xf32>
    memref.store %x, %out[%i, %j] : memref<512x64xf32>
    scf.reduce
  }
  return
}

// -----

// Must not fire: a gather along the row (an index loaded at j), the innermost index in
// arithmetic, a view at a shift no vector aligns to, an odd extent, a
// transposed access, a loop in the body.
// CHECK-LABEL: func.func @gather
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @index_math
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @unaligned_view
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @odd
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @with_loop
// CHECK-NOT: vector.
func.func @gather(%ids: memref<512x64xi32>, %table: memref<1000xf32>, %out: memref<512x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c64) step (%c1, %c1) {
    %t = memref.load %ids[%i, %j] : memref<512x64xi32>
    %r = arith.index_cast %t : i32 to index
    %x = memref.load %table[%r] : memref<1000xf32>
    memref.store %x, %out[%i, %j] : memref<512x64xf32>
    scf.reduce
  }
  return
}
func.func @index_math(%out: memref<128x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c128, %c16) step (%c1, %c1) {
    %n = arith.index_cast %j : index to i64
    %x = arith.sitofp %n : i64 to f32
    memref.store %x, %out[%i, %j] : memref<128x16xf32>
    scf.reduce
  }
  return
}
func.func @unaligned_view(%arena: memref<65536xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  %a = memref.view %arena[%c4][] : memref<65536xi8> to memref<64x64xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<64x64xf32>
    %y = arith.negf %x : f32
    memref.store %y, %a[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  return
}
func.func @odd(%a: memref<10x7xf32>, %b: memref<10x7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c7 = arith.constant 7 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c10, %c7) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<10x7xf32>
    memref.store %x, %b[%i, %j] : memref<10x7xf32>
    scf.reduce
  }
  return
}
func.func @transposed(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    %x = memref.load %a[%j, %i] : memref<64x64xf32>
    memref.store %x, %b[%i, %j] : memref<64x64xf32>
    scf.reduce
  }
  return
}
func.func @with_loop(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {
    scf.for %k = %c0 to %c4 step %c1 {
      %x = memref.load %a[%i, %j] : memref<64x64xf32>
      memref.store %x, %b[%i, %j] : memref<64x64xf32>
    }
    scf.reduce
  }
  return
}
