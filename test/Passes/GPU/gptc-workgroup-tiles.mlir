// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-workgroup-tiles))' --split-input-file | FileCheck %s

// A marked tile inside a launch becomes a workgroup attribution.
// CHECK-LABEL: func.func @marked
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[T:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:     memref.alloca
// CHECK:         memref.store %{{.*}}, %[[T]]
// CHECK:         memref.load %[[T]]
func.func @marked(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() {gptc.workgroup_tile} : memref<16x64xf32>
    memref.store %f, %t[%c0, %c0] : memref<16x64xf32>
    %v = memref.load %t[%c0, %c0] : memref<16x64xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Must not fire: an unmarked alloca stays private.
// CHECK-LABEL: func.func @unmarked
// CHECK:         gpu.launch
// CHECK-NOT:       workgroup(
// CHECK:         memref.alloca() : memref<32xf32>
func.func @unmarked(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() : memref<32xf32>
    %v = memref.load %t[%c0] : memref<32xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Must not fire: a marked tile outside any launch (the CPU's kernels).
// CHECK-LABEL: func.func @host
// CHECK:         memref.alloca() {gptc.workgroup_tile} : memref<8xf32>
func.func @host(%out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %t = memref.alloca() {gptc.workgroup_tile} : memref<8xf32>
  %v = memref.load %t[%c0] : memref<8xf32>
  memref.store %v, %out[%c0] : memref<4xf32>
  return
}
