// RUN: gptc-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(gptc-sink-globals))' | FileCheck %s

// gptc-sink-globals: a memref.get_global made on the host and used in a
// gpu.launch gets a copy at the start of the launch body; the kernel's uses
// take the copy, the host's use after the launch keeps the original.

// CHECK-LABEL: func.func @used_in_kernel
// CHECK: %[[HOST:.*]] = memref.get_global @table
// CHECK: gpu.launch
// CHECK-NEXT: %[[DEV:.*]] = memref.get_global @table
// CHECK: memref.load %[[DEV]]
// CHECK: gpu.terminator
// CHECK: memref.load %[[HOST]]
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @used_in_kernel(%out: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    %e = memref.load %g[%tx] : memref<4xf32>
    memref.store %e, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  %h = memref.load %g[%c0] : memref<4xf32>
  return %h : f32
}

// -----

// Must not fire: a get_global already inside the launch, and one that no
// kernel uses, stay where they are (one of each, no copies).

// CHECK-LABEL: func.func @nothing_to_sink
// CHECK-COUNT-1: memref.get_global @table
// CHECK: gpu.launch
// CHECK-NEXT: memref.get_global @table
// CHECK-NOT: memref.get_global
// CHECK: return
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @nothing_to_sink(%out: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @table : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
    %in = memref.get_global @table : memref<4xf32>
    %e = memref.load %in[%tx] : memref<4xf32>
    memref.store %e, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  %h = memref.load %g[%c0] : memref<4xf32>
  return %h : f32
}
