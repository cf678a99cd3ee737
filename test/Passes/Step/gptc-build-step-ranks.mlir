// RUN: gptc-opt %s --gptc-build-step=ranks=2 | FileCheck %s
// RUN: gptc-opt %s '--gptc-build-step=ranks=2 grad-accum=2' | FileCheck %s --check-prefix=ACCUM
// RUN: gptc-opt %s --gptc-build-step | FileCheck %s --check-prefix=ONE
// RUN: not gptc-opt %s --gptc-build-step=ranks=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// Unset, ranks is the module's gpt.ranks (the frontend records the
// spec's); set, it must agree with it.
// RUN: sed -e '1i module attributes {gpt.ranks = 2 : i64} {' -e '$a }' %s | gptc-opt --gptc-build-step | FileCheck %s
// RUN: sed -e '1i module attributes {gpt.ranks = 2 : i64} {' -e '$a }' %s | not gptc-opt --gptc-build-step=ranks=3 2>&1 | FileCheck %s --check-prefix=DIFFER

// With ranks = 2 every micro-step's loss and gradient is averaged over the
// ranks before it is written (or, with accumulation, scaled and added), and
// so is the eval loss; the update step has no collective of its own here.
// CHECK-LABEL: func.func @gptc_grad_step
// CHECK: %[[R:.*]]:2 = call @forward_grad
// CHECK-NEXT: %[[L:.*]] = comm.all_reduce avg %[[R]]#0 : tensor<f32>
// CHECK: bufferization.materialize_in_destination %[[L]] in
// CHECK-NEXT: %[[G:.*]] = comm.all_reduce avg %[[R]]#1 : tensor<3x5xf32>
// CHECK: bufferization.materialize_in_destination %[[G]] in
// CHECK-LABEL: func.func @gptc_update_step
// CHECK-NOT: comm.
// CHECK-LABEL: func.func @gptc_eval_step
// CHECK: %[[E:.*]] = call @forward
// CHECK-NEXT: %[[A:.*]] = comm.all_reduce avg %[[E]] : tensor<f32>
// CHECK: bufferization.materialize_in_destination %[[A]] in

// The average comes before the 1/grad-accum scale and the add into the
// slot, which holds the average of the earlier micro-steps already.
// ACCUM-LABEL: func.func @gptc_grad_step
// ACCUM: %[[R:.*]]:2 = call @forward_grad
// ACCUM-NEXT: %[[L:.*]] = comm.all_reduce avg %[[R]]#0 : tensor<f32>
// ACCUM-NEXT: gpt.mul_scalar %[[L]], 5.000000e-01

// Must not fire: one rank has no collectives.
// ONE-NOT: comm.

// NEGATIVE: gptc-build-step: ranks must be at least 1, got -1
// DIFFER: error: gptc-build-step: ranks=3, but the module was made for 2 (its gpt.ranks attribute, from the spec); run with ranks=2 or leave it unset

func.func @forward(%tokens: tensor<4x8xi32> {gpt.name = "tokens"},
                   %w: tensor<3x5xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %s = gpt.reduce sum %w dims = [0, 1] : tensor<3x5xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}

func.func @forward_grad(%tokens: tensor<4x8xi32> {gpt.name = "tokens"},
                        %w: tensor<3x5xf32> {gpt.name = "w", gpt.param})
    -> (tensor<f32>, tensor<3x5xf32>) {
  %s = gpt.reduce sum %w dims = [0, 1] : tensor<3x5xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  %g = gpt.constant dense<1.0> : tensor<3x5xf32>
  return %l, %g : tensor<f32>, tensor<3x5xf32>
}

func.func @update(%step: tensor<i64> {gpt.name = "step"},
                  %p: tensor<3x5xf32> {gpt.name = "param.w"},
                  %g: tensor<3x5xf32> {gpt.name = "grad.w"})
    -> (tensor<3x5xf32> {gpt.name = "param.w"}) {
  %p1 = gpt.sub %p, %g : tensor<3x5xf32>
  return %p1 : tensor<3x5xf32>
}
