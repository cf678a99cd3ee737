// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-lower-block-barriers))' --split-input-file | FileCheck %s

// A barrier in a kernel nest still on scf.parallel (the cross-entropy
// kernels' shared reductions) becomes gpu.barrier at the same place, which
// convert-parallel-loops-to-gpu then moves into the launch.
// CHECK-LABEL: func.func @in_nest
// CHECK: scf.parallel
// CHECK: scf.parallel (%[[T:.*]]) =
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: gptgpu.block_barrier
func.func @in_nest(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%r) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
      %s = memref.alloca() {gptc.workgroup_tile} : memref<32xf32>
      memref.store %zero, %s[%t] : memref<32xf32>
      gptgpu.block_barrier
      %v = memref.load %s[%c0] : memref<32xf32>
      memref.store %v, %a[%r] : memref<4xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A barrier inside a launch, between a tile's writes and its reads.
// CHECK-LABEL: func.func @in_launch
// CHECK:         gpu.launch
// CHECK:         memref.store %{{.*}}, %[[T:.*]][%{{.*}}]
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.load %[[T]]
// CHECK-NOT:     gptgpu.block_barrier
func.func @in_launch(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = memref.alloca() {gptc.workgroup_tile} : memref<64xf32>
    memref.store %f, %t[%tx] : memref<64xf32>
    gptgpu.block_barrier
    %v = memref.load %t[%tx] : memref<64xf32>
    memref.store %v, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// Must not fire: a barrier outside every kernel (host code) is left alone.
// CHECK-LABEL: func.func @on_host
// CHECK:         gptgpu.block_barrier
// CHECK-NOT:     gpu.barrier
func.func @on_host() {
  gptgpu.block_barrier
  return
}
