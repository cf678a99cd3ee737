// RUN: gptc-opt %s --gptc-split-host=max-ops=4 --split-input-file | FileCheck %s

// gptc-split-host: a function longer than max-ops (nested ops counted)
// becomes a chain of calls of its parts. Constants and views of its
// arguments are computed again in each part that uses them; values a later
// part uses are returned; allocations and frees stay in the function.

// Six calls and a scalar carried from the first part to the second: parts
// of at least 4 ops; the free between them stays between their calls.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[ARENA:.*]]: memref<4096xi8>)
// CHECK-NEXT: %[[BUF:.*]] = memref.alloc() : memref<4xindex>
// CHECK-NEXT: %[[S:.*]] = call @step_part_0(%[[ARENA]], %[[BUF]]) : (memref<4096xi8>, memref<4xindex>) -> f32
// CHECK-NEXT: memref.dealloc %[[BUF]]
// CHECK-NEXT: call @step_part_1(%[[ARENA]], %[[S]])
// CHECK-NEXT: return

// CHECK: func.func private @step_part_0(%[[A:.*]]: memref<4096xi8>, %[[B:.*]]: memref<4xindex>) -> f32
// CHECK-SAME: llvm.bareptr
// CHECK-SAME: passthrough = ["noinline"]
// CHECK-DAG: %[[AT:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[X:.*]] = memref.view %[[A]][%[[AT]]][] : memref<4096xi8> to memref<8xf32>
// CHECK: call @kernel(%[[X]], %[[B]])
// CHECK: %[[R:.*]] = call @reduce(%[[X]])
// CHECK: call @kernel(%[[X]], %[[B]])
// CHECK: call @kernel(%[[X]], %[[B]])
// CHECK-NEXT: return %[[R]] : f32

// CHECK: func.func private @step_part_1(%[[A:.*]]: memref<4096xi8>, %[[R:.*]]: f32)
// CHECK-SAME: llvm.bareptr
// CHECK: %[[X:.*]] = memref.view %[[A]]
// CHECK: call @scale(%[[X]], %[[R]])
// CHECK: call @scale(%[[X]], %[[R]])
func.func private @kernel(memref<8xf32>, memref<4xindex>)
func.func private @reduce(memref<8xf32>) -> f32
func.func private @scale(memref<8xf32>, f32)
func.func @step(%arena: memref<4096xi8>) {
  %at = arith.constant 64 : index
  %x = memref.view %arena[%at][] : memref<4096xi8> to memref<8xf32>
  %buf = memref.alloc() : memref<4xindex>
  call @kernel(%x, %buf) : (memref<8xf32>, memref<4xindex>) -> ()
  %r = call @reduce(%x) : (memref<8xf32>) -> f32
  call @kernel(%x, %buf) : (memref<8xf32>, memref<4xindex>) -> ()
  call @kernel(%x, %buf) : (memref<8xf32>, memref<4xindex>) -> ()
  memref.dealloc %buf : memref<4xindex>
  call @scale(%x, %r) : (memref<8xf32>, f32) -> ()
  call @scale(%x, %r) : (memref<8xf32>, f32) -> ()
  return
}

// -----

// A part that returns a buffer (or frees one) keeps memref descriptors:
// a bare pointer is the aligned one, not the one malloc returned.
// CHECK-LABEL: func.func @returns_a_view
// CHECK: %[[V:.*]] = call @returns_a_view_part_0
// CHECK: call @returns_a_view_part_1(%[[V]])
// CHECK: func.func private @returns_a_view_part_0
// CHECK-SAME: -> memref<8xf32>
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: passthrough
func.func private @make() -> memref<8xf32>
func.func private @use(memref<8xf32>)
func.func @returns_a_view() {
  %v = call @make() : () -> memref<8xf32>
  call @use(%v) : (memref<8xf32>) -> ()
  call @use(%v) : (memref<8xf32>) -> ()
  call @use(%v) : (memref<8xf32>) -> ()
  call @use(%v) : (memref<8xf32>) -> ()
  return
}

// -----

// Must not split a function of at most max-ops ops (constants and views,
// computed again anyway, do not count).
// CHECK-LABEL: func.func @short
// CHECK-NOT: call @short_part
// CHECK-NOT: func.func private @short_part
func.func private @k(memref<8xf32>)
func.func @short(%arena: memref<4096xi8>) {
  %at = arith.constant 0 : index
  %x = memref.view %arena[%at][] : memref<4096xi8> to memref<8xf32>
  call @k(%x) : (memref<8xf32>) -> ()
  call @k(%x) : (memref<8xf32>) -> ()
  call @k(%x) : (memref<8xf32>) -> ()
  call @k(%x) : (memref<8xf32>) -> ()
  return
}

// -----

// Must not split a function with a stack allocation of dynamic size (it
// could not stay at the function's start).
// CHECK-LABEL: func.func @dynamic_alloca
// CHECK-NOT: call @dynamic_alloca_part
func.func private @kd(memref<?xf32>)
func.func @dynamic_alloca(%n: index) {
  %a = memref.alloca(%n) : memref<?xf32>
  call @kd(%a) : (memref<?xf32>) -> ()
  call @kd(%a) : (memref<?xf32>) -> ()
  call @kd(%a) : (memref<?xf32>) -> ()
  call @kd(%a) : (memref<?xf32>) -> ()
  call @kd(%a) : (memref<?xf32>) -> ()
  return
}
