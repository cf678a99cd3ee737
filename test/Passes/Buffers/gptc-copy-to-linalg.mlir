// RUN: gptc-opt %s --gptc-copy-to-linalg | FileCheck %s

// gptc-copy-to-linalg: memref.copy becomes linalg.copy (a kernel that lowers
// to loops like the others); nothing else changes.

// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<4x8xf32>, %[[B:[a-z0-9_]+]]: memref<4x8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[B]] : memref<4x8xf32>)
// CHECK-NEXT: return
func.func @copy(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  return
}

// Strided views (a column block of a matrix) and other element types.
// CHECK-LABEL: func.func @copy_strided
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<4x8xbf16, strided<[16, 1], offset: 8>>, %[[B:[a-z0-9_]+]]: memref<4x8xbf16>, %[[I:[a-z0-9_]+]]: memref<2xi32>, %[[J:[a-z0-9_]+]]: memref<2xi32>)
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<4x8xbf16, strided<[16, 1], offset: 8>>) outs(%[[B]] : memref<4x8xbf16>)
// CHECK-NEXT: linalg.copy ins(%[[I]] : memref<2xi32>) outs(%[[J]] : memref<2xi32>)
// CHECK-NOT: memref.copy
func.func @copy_strided(%a: memref<4x8xbf16, strided<[16, 1], offset: 8>>, %b: memref<4x8xbf16>,
                        %i: memref<2xi32>, %j: memref<2xi32>) {
  memref.copy %a, %b : memref<4x8xbf16, strided<[16, 1], offset: 8>> to memref<4x8xbf16>
  memref.copy %i, %j : memref<2xi32> to memref<2xi32>
  return
}

// Must not fire: other buffer ops, including other linalg ops that move
// data, are left alone.
// CHECK-LABEL: func.func @others
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<4xf32>, %[[B:[a-z0-9_]+]]: memref<4xf32>)
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: linalg.fill ins(%[[Z]] : f32) outs(%[[M]] : memref<4xf32>)
// CHECK-NEXT: linalg.transpose ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>) permutation = [0]
// CHECK-NEXT: memref.dealloc %[[M]] : memref<4xf32>
// CHECK-NEXT: return
func.func @others(%a: memref<4xf32>, %b: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%m : memref<4xf32>)
  linalg.transpose ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) permutation = [0]
  memref.dealloc %m : memref<4xf32>
  return
}
