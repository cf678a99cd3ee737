// RUN: gptc-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(gptc-name-kernels))' | FileCheck %s
// RUN: gptc-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(gptc-name-kernels),gpu-kernel-outlining)' | FileCheck %s --check-prefix=OUTLINED

// gptc-name-kernels: each gpu.launch is named after its entry point
// (gptc_grad_step -> grad) and the spec key of its location, the layer's
// index dropped; outlining then names the kernel function so.

// CHECK-LABEL: func.func @gptc_grad_step
// CHECK: gpu.launch {{.*}} function(@grad_blocks_attn_sdpa) {
// CHECK: gpu.launch {{.*}} function(@grad_blocks_attn_sdpa) {
// CHECK: gpu.launch {{.*}} function(@grad_lm_head) {
// OUTLINED-DAG: gpu.func @grad_blocks_attn_sdpa(
// OUTLINED-DAG: gpu.func @grad_lm_head(
// OUTLINED-NOT: gptc_grad_step_kernel
module {
  func.func @gptc_grad_step(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
      %e = memref.load %a[%tx] : memref<4xf32>
      gpu.terminator
    } loc(callsite("blocks.0.attn.sdpa"("spec.yaml":13:3) at "module"("spec.yaml":1:1)))
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
      %e = memref.load %a[%tx] : memref<4xf32>
      gpu.terminator
    } loc(callsite("blocks.11.attn.sdpa"("spec.yaml":13:3) at "module"("spec.yaml":1:1)))
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%u = %c4, %v = %c1, %w = %c1) {
      %e = memref.load %a[%tx] : memref<4xf32>
      gpu.terminator
    } loc("lm_head"("spec.yaml":7:3))
    return
  }
}

// -----

// A location without a spec key gives `kernel`; a function without the
// gptc_ prefix keeps its name.
// CHECK-LABEL: func.func @helper
// CHECK: gpu.launch {{.*}} function(@helper_kernel) {
func.func @helper(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    gpu.terminator
  } loc("spec.yaml":3:1)
  return
}

// -----

// Must not fire: a launch that already names its function keeps it.
// CHECK-LABEL: func.func @gptc_eval_step
// CHECK: gpu.launch {{.*}} function(@mine) {
func.func @gptc_eval_step(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1)
             function(@mine) {
    gpu.terminator
  } loc("lm_head"("spec.yaml":7:3))
  return
}
