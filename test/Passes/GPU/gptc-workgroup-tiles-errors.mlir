// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-workgroup-tiles))' --split-input-file --verify-diagnostics

// Tiles over 48 KiB go to the launch's dynamic shared memory, which must be
// theirs alone: a launch that already asks for dynamic bytes is an error,
// not overwritten.
func.func @taken(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %bytes = arith.constant 1024 : i32
  %f = arith.constant 1.0 : f32
  // expected-error@+1 {{gptc-workgroup-tiles: the launch's tiles take 65536 bytes, more than static shared memory's 49152, but the launch already has dynamic shared memory of its own}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %a = memref.alloca() {gptc.workgroup_tile} : memref<128x64xf32>
    %b = memref.alloca() {gptc.workgroup_tile} : memref<128x64xf32>
    memref.store %f, %a[%c0, %c0] : memref<128x64xf32>
    %v = memref.load %a[%c0, %c0] : memref<128x64xf32>
    memref.store %v, %b[%c0, %c0] : memref<128x64xf32>
    %w = memref.load %b[%c0, %c0] : memref<128x64xf32>
    memref.store %w, %out[%c0] : memref<4xf32>
    gpu.terminator
  }
  return
}
