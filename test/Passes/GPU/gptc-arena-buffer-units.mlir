// RUN: gptc-opt %s -split-input-file --gptc-arena-buffer-units --verify-diagnostics | FileCheck %s

// gptc-arena-buffer-units: every view of the arena takes its byte shift
// from the runtime; the units are the union of overlapping views: the
// 64-float buffer at 0 and the slice written into it (bytes 128..255) are
// one unit [0, 256), the buffer at 256 another [256, 272).

// CHECK: func.func private @gptc_cuda_buffer_shift(index) -> index
// CHECK: memref.global "public" constant @gptc_buffer_units : memref<5xi64> = dense<[2, 0, 256, 256, 272]>
// CHECK-LABEL: func.func @gptc_grad_step
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[S0:.*]] = call @gptc_cuda_buffer_shift(%[[C0]]) : (index) -> index
// CHECK: memref.view %arg0[%[[S0]]][] : memref<512xi8> to memref<64xf32>
// CHECK: %[[S1:.*]] = call @gptc_cuda_buffer_shift(%{{.*}}) : (index) -> index
// CHECK: memref.view %arg0[%[[S1]]][] : memref<512xi8> to memref<32xf32>
// CHECK: %[[S2:.*]] = call @gptc_cuda_buffer_shift(%{{.*}}) : (index) -> index
// CHECK: memref.view %arg0[%[[S2]]][] : memref<512xi8> to memref<4xf32>
func.func @gptc_grad_step(%arena: memref<512xi8>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %whole = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
  %slice = memref.view %arena[%c128][] : memref<512xi8> to memref<32xf32>
  %next = memref.view %arena[%c256][] : memref<512xi8> to memref<4xf32>
  return
}

// -----

// Must not fire: a function whose argument is not an arena (not i8), and
// one without views.
// CHECK-LABEL: func.func @not_an_arena
// CHECK-NOT: gptc_cuda_buffer_shift
// CHECK-NOT: gptc_buffer_units
func.func @not_an_arena(%x: memref<512xf32>) {
  return
}
func.func @no_views(%arena: memref<512xi8>) {
  return
}

// -----

// An arena view at an offset known only at run time cannot be placed.
func.func @gptc_eval_step(%arena: memref<512xi8>) {
  %c0 = arith.constant 0 : index
  %i = memref.load %arena[%c0] : memref<512xi8>
  %offset = arith.index_cast %i : i8 to index
  // expected-error @+1 {{an arena view needs a constant offset and a static shape}}
  %v = memref.view %arena[%offset][] : memref<512xi8> to memref<4xf32>
  return
}
