// RUN: gptc-opt %s --gptc-build-step -verify-diagnostics

// Regression test (fixed; gptc-build-step, passes/Step/BuildStep.cpp): a result of @update
// without gpt.name makes the pass fail without any diagnostic (exit code 1,
// no message): `if (!name || failed(layout.add(...))) return
// signalPassFailure();` emits nothing when `name` is null. It should report
// the unnamed result, as it does for an unnamed argument ("argument N has no
// gpt.name").

func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
// expected-error@+1 {{gpt.name}}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"}) -> tensor<3xf32> {
  return %p : tensor<3xf32>
}
