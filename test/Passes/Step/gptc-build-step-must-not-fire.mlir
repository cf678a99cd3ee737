// RUN: gptc-opt %s --gptc-build-step | FileCheck %s

// Must not fire on what is not a step function: a helper function the
// model functions call stays public and unchanged, is not a slot source,
// and gets no entry point of its own; only @forward, @forward_grad and
// @update are wrapped. The arena has exactly the slots of their arguments
// and results.

// CHECK: gptc.arena = #gpt.arena<bytes = 320, workspace = [320, 0], slots = [
// CHECK-SAME: #gpt.arena_slot<"param.w", 0, tensor<4xf32>>,
// CHECK-SAME: #gpt.arena_slot<"step", 64, tensor<i64>>,
// CHECK-SAME: #gpt.arena_slot<"grad.w", 128, tensor<4xf32>>,
// CHECK-SAME: #gpt.arena_slot<"loss", 192, tensor<f32>>,
// CHECK-SAME: #gpt.arena_slot<"eval_loss", 256, tensor<f32>>]>}
// CHECK-NOT: "helper"
// CHECK: func.func @helper(%{{.*}}: tensor<4xf32>) -> tensor<f32>
// CHECK-NEXT: gpt.reduce sum
// CHECK-NEXT: gpt.reshape
// CHECK-NEXT: return
// CHECK-NOT: func.func @gptc_helper
// CHECK-COUNT-3: func.func @gptc_{{grad|update|eval}}_step(

func.func @helper(%w: tensor<4xf32>) -> tensor<f32> {
  %s = gpt.reduce sum %w dims = [0] : tensor<4xf32> -> tensor<1xf32>
  %l = gpt.reshape %s : tensor<1xf32> to tensor<f32>
  return %l : tensor<f32>
}

func.func @forward(%w: tensor<4xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = call @helper(%w) : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

func.func @forward_grad(%w: tensor<4xf32> {gpt.name = "w", gpt.param})
    -> (tensor<f32>, tensor<4xf32>) {
  %l = call @helper(%w) : (tensor<4xf32>) -> tensor<f32>
  %g = gpt.constant dense<1.0> : tensor<4xf32>
  return %l, %g : tensor<f32>, tensor<4xf32>
}

func.func @update(%step: tensor<i64> {gpt.name = "step"},
                  %p: tensor<4xf32> {gpt.name = "param.w"},
                  %g: tensor<4xf32> {gpt.name = "grad.w"})
    -> (tensor<4xf32> {gpt.name = "param.w"}) {
  %p1 = gpt.sub %p, %g : tensor<4xf32>
  return %p1 : tensor<4xf32>
}
