// RUN: gptc-opt %s --gptc-copy-to-linalg | FileCheck %s

// Regression test (fixed; gptc-copy-to-linalg, passes/Lowering/CopyToLinalg.cpp): a
// memref.copy between unranked memrefs is deleted. The pattern turns every
// memref.copy into a linalg.copy; linalg reports no memory effects for
// unranked operands, so the greedy driver then erases the new linalg.copy as
// dead and the copy is lost. A copy that cannot become a linalg.copy should
// be left as it is. (Bufferization with identity-layout function boundaries
// does not produce unranked copies, so gptc's pipeline does not hit this.)

// CHECK-LABEL: func.func @unranked
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<*xf32>, %[[B:[a-z0-9_]+]]: memref<*xf32>)
// CHECK-NEXT: memref.copy %[[A]], %[[B]] : memref<*xf32> to memref<*xf32>
// CHECK-NEXT: return
func.func @unranked(%a: memref<*xf32>, %b: memref<*xf32>) {
  memref.copy %a, %b : memref<*xf32> to memref<*xf32>
  return
}
