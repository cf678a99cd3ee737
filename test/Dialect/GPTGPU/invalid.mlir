// RUN: gptc-opt %s -split-input-file -verify-diagnostics

// A fragment register of A or B holds two bf16 in 32 bits: an f32 there is
// not a fragment.
func.func @warp_mma_a_not_i32(%a: f32, %i: i32, %c: f32) {
  // expected-error @+1 {{'gptgpu.warp_mma' op operand #0 must be 32-bit signless integer, but got 'f32'}}
  %d:4 = "gptgpu.warp_mma"(%a, %i, %i, %i, %i, %i, %c, %c, %c, %c)
      : (f32, i32, i32, i32, i32, i32, f32, f32, f32, f32)
      -> (f32, f32, f32, f32)
  return
}

// -----

// The accumulators are f32 (the .f32.bf16.bf16.f32 shape), not bf16.
func.func @warp_mma_c_not_f32(%i: i32, %c: bf16) {
  // expected-error @+1 {{'gptgpu.warp_mma' op operand #6 must be 32-bit float, but got 'bf16'}}
  %d:4 = "gptgpu.warp_mma"(%i, %i, %i, %i, %i, %i, %c, %c, %c, %c)
      : (i32, i32, i32, i32, i32, i32, bf16, bf16, bf16, bf16)
      -> (f32, f32, f32, f32)
  return
}

// -----

// A wait leaves a count of groups in flight: never a negative one.
func.func @async_copy_wait_negative() {
  // expected-error @+1 {{'gptgpu.async_copy_wait' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  gptgpu.async_copy_wait -1
  return
}
