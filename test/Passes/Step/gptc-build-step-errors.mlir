// RUN: gptc-opt %s -split-input-file --gptc-build-step -verify-diagnostics

// gptc-build-step rejects modules whose functions do not describe an arena.

// No @update.
// expected-error@+1 {{gptc-build-step needs @forward, @forward_grad and @update}}
module {
  func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
    %l = gpt.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3xf32>) {
    %l = gpt.constant dense<1.0> : tensor<f32>
    return %l, %w : tensor<f32>, tensor<3xf32>
  }
}

// -----

// An argument without a slot name.
// expected-error@+1 {{argument 1 has no gpt.name}}
func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}, %x: tensor<3xf32>) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param}, %x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"}) -> (tensor<3xf32> {gpt.name = "param.w"}) {
  return %p : tensor<3xf32>
}

// -----

// One slot, two types.
func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
// expected-error@+1 {{slot 'param.w' used with types 'tensor<3xf32>' and 'tensor<4xf32>'}}
func.func @update(%p: tensor<4xf32> {gpt.name = "param.w"}) -> (tensor<4xf32> {gpt.name = "param.w"}) {
  return %p : tensor<4xf32>
}

// -----

// A slot needs a static size.
// expected-error@+1 {{slot 'param.w' needs a statically shaped tensor}}
func.func @forward(%w: tensor<?xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<?xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<?xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<?xf32>
}
func.func @update(%p: tensor<?xf32> {gpt.name = "param.w"}) -> (tensor<?xf32> {gpt.name = "param.w"}) {
  return %p : tensor<?xf32>
}
