// RUN: gptc-opt %s -split-input-file --gptc-build-step -verify-diagnostics

// Regression test (fixed; gptc-build-step, passes/Step/BuildStep.cpp): the pass trusts
// @forward_grad to have exactly the signature gptc-autodiff gives it, and
// crashes on a valid module where it does not:
//  - a gpt.param argument of @forward_grad without gpt.name: the grad slot
//    name is built from a null StringAttr (segfault in
//    StringAttr::getValue);
//  - more results than 1 + the number of parameters: gradSlots[i - 1] is
//    read out of bounds (LLVM ERROR: out of memory / crash).
// Both should be diagnosed (like a missing @update) instead. (gptc's own
// pipeline always runs gptc-autodiff first, so it does not hit this.)

func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
// expected-error@+1 {{gpt.name}}
func.func @forward_grad(%w: tensor<3xf32> {gpt.param}) -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"}) -> (tensor<3xf32> {gpt.name = "param.w"}) {
  return %p : tensor<3xf32>
}

// -----

func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
// expected-error@+1 {{result}}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3xf32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w, %w : tensor<f32>, tensor<3xf32>, tensor<3xf32>
}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"}) -> (tensor<3xf32> {gpt.name = "param.w"}) {
  return %p : tensor<3xf32>
}
