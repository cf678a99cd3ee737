// RUN: gptc-opt %s -split-input-file --gptc-lower-to-linalg -verify-diagnostics

// gptc-lower-to-linalg fails on any gpt op it cannot lower: the fused ops
// (their kernels are not written yet) and GEMM shapes it does not support.

func.func @attention(%q: tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32> {
  // expected-error@+1 {{failed to legalize operation 'gpt.attention' that was explicitly marked illegal}}
  %o = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0.5 : tensor<1x1x4x8xf32>
  return %o : tensor<1x1x4x8xf32>
}

// -----

func.func @rms_norm(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{failed to legalize operation 'gpt.rms_norm' that was explicitly marked illegal}}
  %y = gpt.rms_norm %x eps = 1.0e-6 : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// A transposed batched lhs cannot fold its batch into M.
func.func @transposed_batched_lhs_shared_rhs(%x: tensor<5x3x2xf32>, %w: tensor<3x4xf32>) -> tensor<5x2x4xf32> {
  // expected-error@+1 {{failed to legalize operation 'gpt.matmul' that was explicitly marked illegal}}
  %c = gpt.matmul %x, %w transpose_lhs : tensor<5x3x2xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  return %c : tensor<5x2x4xf32>
}
