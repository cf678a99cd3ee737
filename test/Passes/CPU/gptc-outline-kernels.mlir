// RUN: gptc-opt %s --gptc-outline-kernels --split-input-file | FileCheck %s

// gptc-outline-kernels: each outermost scf.parallel becomes a call of a
// kernel function; identical nests share one. Constants are cloned into the
// kernel (its loop bounds stay constant), other captured values are its
// arguments, a view at a static offset is passed at a dynamic one, and a
// view of an arena as the arena and a byte shift.

// The same nest on two layers' rows of one stacked buffer, and another nest:
// two kernels, three calls.
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[A:.*]]: memref<2x4x8xf32>, %[[B:.*]]: memref<4x8xf32>, %[[N:.*]]: f32)
// CHECK: %[[S0:.*]] = memref.subview %[[A]][0, 0, 0]
// CHECK: %[[C0:.*]] = memref.cast %[[S0]] : memref<4x8xf32, strided<[8, 1]>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK: call @gptc_kernel_0(%[[C0]], %[[N]], %[[B]])
// CHECK: %[[S1:.*]] = memref.subview %[[A]][1, 0, 0]
// CHECK: %[[C1:.*]] = memref.cast %[[S1]] : memref<4x8xf32, strided<[8, 1], offset: 32>> to memref<4x8xf32, strided<[8, 1], offset: ?>>
// CHECK: call @gptc_kernel_0(%[[C1]], %[[N]], %[[B]])
// CHECK: call @gptc_kernel_1(%[[B]])
// CHECK-NOT: scf.parallel
// CHECK: return

// CHECK: func.func private @gptc_kernel_0
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32, strided<[8, 1], offset: ?>>, %[[S:.*]]: f32, %[[Y:.*]]: memref<4x8xf32>)
// CHECK-SAME: attributes {passthrough = ["noinline"]}
// CHECK-DAG: %[[K0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[K4:.*]] = arith.constant 4 : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[K0]], %[[K0]]) to (%[[K4]], %{{.*}})
// CHECK: memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: arith.mulf %{{.*}}, %[[S]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]], %[[J]]]
// CHECK: return

// CHECK: func.func private @gptc_kernel_1
// CHECK-SAME: (%{{.*}}: memref<4x8xf32>)
// CHECK-NOT: func.func private @gptc_kernel_2
func.func @step(%a: memref<2x4x8xf32>, %b: memref<4x8xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %a0 = memref.subview %a[0, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a0[%i, %j] : memref<4x8xf32, strided<[8, 1]>>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  %a1 = memref.subview %a[1, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %a1[%i, %j] : memref<4x8xf32, strided<[8, 1], offset: 32>>
    %w = arith.mulf %v, %s : f32
    memref.store %w, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    memref.store %zero, %b[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// The same nest with a different constant is a different kernel.
// CHECK-LABEL: func.func @constants_differ
// CHECK: call @gptc_kernel_0(%{{.*}})
// CHECK: call @gptc_kernel_1(%{{.*}})
// CHECK: func.func private @gptc_kernel_0
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: func.func private @gptc_kernel_1
// CHECK: arith.constant 2.000000e+00 : f32
func.func @constants_differ(%b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %b[%i] : memref<8xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %two, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A view the kernel takes a subview of keeps its static type: the subview's
// result type follows it. A nest inside a host loop is outlined with the
// loop's induction variable as an argument.
// CHECK-LABEL: func.func @keeps_static_view
// CHECK: scf.for %[[K:.*]] =
// CHECK: call @gptc_kernel_0(%{{.*}}, %[[K]]) : (memref<4x8xf32, strided<[8, 1], offset: 32>>, index) -> ()
// CHECK: func.func private @gptc_kernel_0(%{{.*}}: memref<4x8xf32, strided<[8, 1], offset: 32>>, %{{.*}}: index)
// CHECK: memref.subview
func.func @keeps_static_view(%a: memref<2x4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a1 = memref.subview %a[1, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  scf.for %k = %c0 to %c4 step %c1 {
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      %row = memref.subview %a1[%i, 0] [1, 8] [1, 1]
          : memref<4x8xf32, strided<[8, 1], offset: 32>>
            to memref<8xf32, strided<[1], offset: ?>>
      %f = arith.index_cast %k : index to i32
      %v = arith.sitofp %f : i32 to f32
      memref.store %v, %row[%c0] : memref<8xf32, strided<[1], offset: ?>>
      scf.reduce
    }
  }
  return
}

// -----

// Must not fire: no parallel loop, nothing outlined.
// CHECK-LABEL: func.func @no_kernels
// CHECK-NOT: call
// CHECK-NOT: gptc_kernel
func.func @no_kernels(%b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %b[%c0] : memref<8xf32>
  return
}

// -----

// Views of a byte buffer (the step's arena: memref.view of its bytes, then
// subviews) go to the kernel as the buffer and byte shifts: the two layers'
// calls share one kernel, which takes bare pointers (llvm.bareptr) and
// rebuilds each view at offset 0, a strided one through
// memref.reinterpret_cast of the bytes it spans. The host's views die.
// CHECK-LABEL: func.func @arena
// CHECK-SAME: (%[[ARENA:.*]]: memref<4096xi8>)
// CHECK-DAG: %[[L0:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[Y:.*]] = arith.constant 2048 : index
// CHECK-DAG: %[[L1:.*]] = arith.constant 1152 : index
// CHECK-DAG: %[[COL:.*]] = arith.constant 1032 : index
// CHECK-NOT: memref.view
// CHECK-NOT: memref.subview
// CHECK: call @gptc_kernel_0(%[[ARENA]], %[[L0]], %[[Y]]) : (memref<4096xi8>, index, index) -> ()
// CHECK-NEXT: call @gptc_kernel_0(%[[ARENA]], %[[L1]], %[[Y]])
// CHECK-NEXT: call @gptc_kernel_1(%[[ARENA]], %[[COL]], %[[Y]])
// CHECK-NEXT: return

// CHECK: func.func private @gptc_kernel_0(%[[A:.*]]: memref<4096xi8>, %[[SX:.*]]: index, %[[SY:.*]]: index)
// CHECK-SAME: llvm.bareptr
// CHECK: %[[X:.*]] = memref.view %[[A]][%[[SX]]][] : memref<4096xi8> to memref<4x8xf32>
// CHECK: %[[OUT:.*]] = memref.view %[[A]][%[[SY]]][] : memref<4096xi8> to memref<4x8xf32>
// CHECK: scf.parallel
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[OUT]]

// CHECK: func.func private @gptc_kernel_1(%[[A:.*]]: memref<4096xi8>, %[[SX:.*]]: index, %{{.*}}: index)
// CHECK-SAME: llvm.bareptr
// CHECK: %[[SPAN:.*]] = memref.view %[[A]][%[[SX]]][] : memref<4096xi8> to memref<28xf32>
// CHECK: memref.reinterpret_cast %[[SPAN]] to offset: [0], sizes: [4, 4], strides: [8, 1] : memref<28xf32> to memref<4x4xf32, strided<[8, 1]>>
// CHECK-NOT: func.func private @gptc_kernel_2
func.func @arena(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %stackAt = arith.constant 1024 : index
  %outAt = arith.constant 2048 : index
  %stack = memref.view %arena[%stackAt][] : memref<4096xi8> to memref<2x4x8xf32>
  %y = memref.view %arena[%outAt][] : memref<4096xi8> to memref<4x8xf32>
  %l0 = memref.subview %stack[0, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %l0[%i, %j] : memref<4x8xf32, strided<[8, 1]>>
    memref.store %v, %y[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  %l1 = memref.subview %stack[1, 0, 0] [1, 4, 8] [1, 1, 1]
      : memref<2x4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 32>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %l1[%i, %j] : memref<4x8xf32, strided<[8, 1], offset: 32>>
    memref.store %v, %y[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  %col = memref.subview %stack[0, 0, 2] [1, 4, 4] [1, 1, 1]
      : memref<2x4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %col[%i, %j] : memref<4x4xf32, strided<[8, 1], offset: 2>>
    memref.store %v, %y[%i, %j] : memref<4x8xf32>
    scf.reduce
  }
  return
}

// -----

// Must not take a view apart when the kernel does more than load and store
// through it (here a subview inside the nest): the view is passed as it is
// (a bare pointer still: its layout is static), and the host keeps it.
// CHECK-LABEL: func.func @arena_view_used_otherwise
// CHECK: %[[V:.*]] = memref.view
// CHECK: call @gptc_kernel_0(%[[V]]) : (memref<4x8xf32>) -> ()
// CHECK: func.func private @gptc_kernel_0(%{{.*}}: memref<4x8xf32>)
// CHECK-NOT: memref.view
// CHECK: memref.subview
func.func @arena_view_used_otherwise(%arena: memref<4096xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %at = arith.constant 64 : index
  %x = memref.view %arena[%at][] : memref<4096xi8> to memref<4x8xf32>
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %row = memref.subview %x[%i, 0] [1, 8] [1, 1]
        : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    %v = memref.load %row[%c0] : memref<8xf32, strided<[1], offset: ?>>
    memref.store %v, %row[%c1] : memref<8xf32, strided<[1], offset: ?>>
    scf.reduce
  }
  return
}
