// RUN: gptc-opt %s -split-input-file --gptc-lower-to-linalg -verify-diagnostics

// gptc-lower-to-linalg fails on any gpt op it cannot lower: fused attention
// of a dynamic length (its kernels are sized at compile time) and GEMM
// shapes it does not support.

func.func @attention_dynamic_length(%q: tensor<1x1x?x8xf32>) -> tensor<1x1x?x8xf32> {
  // expected-error@+1 {{failed to legalize operation 'gpt.attention' that was explicitly marked illegal}}
  %o, %lse = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0.5 : tensor<1x1x?x8xf32>
  return %o : tensor<1x1x?x8xf32>
}

// -----

// A transposed batched lhs cannot fold its batch into M.
func.func @transposed_batched_lhs_shared_rhs(%x: tensor<5x3x2xf32>, %w: tensor<3x4xf32>) -> tensor<5x2x4xf32> {
  // expected-error@+1 {{failed to legalize operation 'gpt.matmul' that was explicitly marked illegal}}
  %c = gpt.matmul %x, %w transpose_lhs : tensor<5x3x2xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  return %c : tensor<5x2x4xf32>
}
