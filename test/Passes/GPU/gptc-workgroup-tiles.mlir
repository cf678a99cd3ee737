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

// -----

// Over 48 KiB of tiles (two of 32 KiB): views of the launch's dynamic
// shared memory at 16-byte-aligned offsets (the odd 3 x bf16 tile ends at
// byte 32,774, so the next starts at 32,784), and the launch asks for the
// bytes of all three.
// CHECK-LABEL: func.func @large
// CHECK-DAG:     %[[BYTES:.*]] = arith.constant 65552 : i32
// CHECK:         gpu.launch
// CHECK-SAME:      dynamic_shared_memory_size %[[BYTES]]
// CHECK-NOT:       workgroup(
// CHECK:         %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C32768:.*]] = arith.constant 32768 : index
// CHECK-DAG:     %[[C32784:.*]] = arith.constant 32784 : index
// CHECK-DAG:     memref.view %[[BASE]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf32, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.view %[[BASE]][%[[C32768]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG:     memref.view %[[BASE]][%[[C32784]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:     memref.alloca
func.func @large(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %h = arith.constant 1.0 : bf16
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.alloca() {gptc.workgroup_tile} : memref<128x64xf32>
    %odd = memref.alloca() {gptc.workgroup_tile} : memref<3xbf16>
    %b = memref.alloca() {gptc.workgroup_tile} : memref<128x64xf32>
    memref.store %f, %a[%c0, %c0] : memref<128x64xf32>
    memref.store %h, %odd[%c0] : memref<3xbf16>
    %v = memref.load %a[%c0, %c0] : memref<128x64xf32>
    memref.store %v, %b[%c0, %c0] : memref<128x64xf32>
    %w = memref.load %b[%c0, %c0] : memref<128x64xf32>
    memref.store %w, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Must not fire: tiles of exactly 48 KiB stay static (attributions).
// CHECK-LABEL: func.func @at_limit
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%{{.*}} : memref<96x128xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:     dynamic_shared_memory
func.func @at_limit(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() {gptc.workgroup_tile} : memref<96x128xf32>
    %v = memref.load %t[%c0, %c0] : memref<96x128xf32>
    memref.store %v, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}
