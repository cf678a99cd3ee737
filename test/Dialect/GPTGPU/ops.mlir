// RUN: gptc-opt %s | gptc-opt | FileCheck %s

// The gptgpu ops print as they parse, and survive a second round trip.
// CHECK-LABEL: func.func @ops
// CHECK:         gptgpu.block_barrier
// CHECK:         gptgpu.async_copy_commit
// CHECK:         gptgpu.async_copy_wait 2
// CHECK:         %{{.*}} = gptgpu.warp_mma A[%arg0, %arg1, %arg2, %arg3] B[%arg4, %arg5] C[%arg6, %arg7, %arg8, %arg9]
func.func @ops(%a0: i32, %a1: i32, %a2: i32, %a3: i32, %b0: i32, %b1: i32,
               %c0: f32, %c1: f32, %c2: f32, %c3: f32) -> f32 {
  gptgpu.block_barrier
  gptgpu.async_copy_commit
  gptgpu.async_copy_wait 2
  %d:4 = gptgpu.warp_mma A[%a0, %a1, %a2, %a3] B[%b0, %b1]
      C[%c0, %c1, %c2, %c3]
  return %d#0 : f32
}
