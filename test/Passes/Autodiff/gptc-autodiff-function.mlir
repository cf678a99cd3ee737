// RUN: gptc-opt %s --gptc-autodiff=function=loss | FileCheck %s
// RUN: gptc-opt %s --gptc-autodiff=function=nope -verify-diagnostics

// The `function` option names the function to differentiate; its gradient
// is `<function>_grad`, and @forward is then an ordinary function.

// CHECK-LABEL: func.func @forward(
// CHECK-LABEL: func.func @loss(
// CHECK-LABEL: func.func @loss_grad(
// CHECK-SAME: -> (tensor<f32>, tensor<f32>)
// CHECK: gpt.cos
// CHECK-NOT: @forward_grad

// expected-error@+1 {{gptc-autodiff: no function named 'nope'}}
module {
  func.func @forward(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
    %y = gpt.exp %x : tensor<f32>
    return %y : tensor<f32>
  }
  func.func @loss(%x: tensor<f32> {gpt.name = "x", gpt.param}) -> tensor<f32> {
    %y = gpt.sin %x : tensor<f32>
    return %y : tensor<f32>
  }
}
