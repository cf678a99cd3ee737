// RUN: gptc-opt %s -split-input-file --gptc-autodiff -verify-diagnostics

// gptc-autodiff rejects what it cannot differentiate. (The `function`
// option naming a missing function is in gptc-autodiff-function.mlir.)

// No @forward (the default `function`).
// expected-error@+1 {{gptc-autodiff: no function named 'forward'}}
module {
  func.func @loss(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
    return %x : tensor<f32>
  }
}

// -----

// The loss must be a 0-d tensor...
// expected-error@+1 {{the function must return a 0-d float loss tensor}}
func.func @forward(%x: tensor<4xf32> {gpt.name = "x", gpt.param}) -> tensor<4xf32> {
  %y = gpt.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// ... of floats...
// expected-error@+1 {{the function must return a 0-d float loss tensor}}
func.func @forward(%x: tensor<i32> {gpt.name = "x", gpt.param}) -> tensor<i32> {
  return %x : tensor<i32>
}

// -----

// ... and the only result.
// expected-error@+1 {{gptc-autodiff: expected one block and one result (the loss)}}
func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}

// -----

// The backward-only ops are not differentiable (no second derivatives).
func.func @forward(%g: tensor<2x4xf32> {gpt.name = "g", gpt.param},
                   %ids: tensor<2xi32> {gpt.name = "ids"}) -> tensor<f32> {
  // expected-error@+1 {{'gpt.embedding_grad' op is not differentiable, but the loss depends on it through a parameter}}
  %w = gpt.embedding_grad %g[%ids] : tensor<2x4xf32>, tensor<2xi32> -> tensor<8x4xf32>
  %s = gpt.reduce sum %w dims = [0, 1] : tensor<8x4xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// Nor is the adjoint of fused attention.
func.func @forward(%q: tensor<1x1x4x8xf32> {gpt.name = "q", gpt.param},
                   %o: tensor<1x1x4x8xf32> {gpt.name = "o"},
                   %lse: tensor<1x1x4xf32> {gpt.name = "lse"}) -> tensor<f32> {
  // expected-error@+1 {{'gpt.attention_grad' op is not differentiable, but the loss depends on it through a parameter}}
  %g:3 = gpt.attention_grad %q, %q, %q, %o, %lse, %o mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0.5 : tensor<1x1x4x8xf32>
  %s = gpt.reduce sum %g#0 dims = [0, 1, 2, 3] : tensor<1x1x4x8xf32> -> tensor<1x1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// gpt.attention's lse result is statistics for its backward, not a
// differentiable output: a loss that reads it is refused.
func.func @forward(%q: tensor<1x1x4x8xf32> {gpt.name = "q", gpt.param}) -> tensor<f32> {
  // expected-error@+1 {{'gpt.attention' op the loss depends on the lse result, which has no gradient}}
  %o:2 = gpt.attention %q, %q, %q mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 0.5 : tensor<1x1x4x8xf32>
  %s = gpt.reduce sum %o#1 dims = [0, 1, 2] : tensor<1x1x4xf32> -> tensor<1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

// -----

// A differentiable op with a transposed batched lhs and a shared rhs: its
// VJP refuses it.
func.func @forward(%x: tensor<5x3x2xf32> {gpt.name = "x", gpt.param},
                   %w: tensor<3x4xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  // expected-error@+1 {{'gpt.matmul' op cannot differentiate a transposed batched lhs with a shared rhs}}
  %c = gpt.matmul %x, %w transpose_lhs : tensor<5x3x2xf32>, tensor<3x4xf32> -> tensor<5x2x4xf32>
  %s = gpt.reduce sum %c dims = [0, 1, 2] : tensor<5x2x4xf32> -> tensor<1x1x1xf32>
  %l = gpt.reshape %s : tensor<1x1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}
