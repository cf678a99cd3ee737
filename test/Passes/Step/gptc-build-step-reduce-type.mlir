// RUN: gptc-opt %s -split-input-file --gptc-build-step=ranks=2 -verify-diagnostics | FileCheck %s
// RUN: gptc-opt %s -split-input-file '--gptc-build-step=ranks=2 grad-accum=2' -verify-diagnostics | FileCheck %s --check-prefix=ACCUM
// RUN: gptc-opt %s -split-input-file --gptc-build-step=ranks=1 -verify-diagnostics | FileCheck %s --check-prefix=ONE

// A gradient whose @update argument carries gpt.reduce_type = bf16 (an
// optimizer group's `grad_reduce: bf16`) crosses the ranks in bf16: rounded
// and averaged. Each step writes its slot once (no accumulation), so the
// slot is bf16 and takes the mean as it is; the update reads it extended.
// The loss and the other gradient are averaged in f32 as they stand.
// CHECK: #gpt.arena_slot<"grad.w", {{[0-9]+}}, tensor<3x5xbf16>>
// CHECK-SAME: #gpt.arena_slot<"grad.u", {{[0-9]+}}, tensor<4xf32>>
// CHECK-LABEL: func.func @gptc_grad_step
// CHECK: %[[R:.*]]:3 = call @forward_grad
// CHECK-NEXT: %[[L:.*]] = comm.all_reduce avg %[[R]]#0 : tensor<f32>
// CHECK: %[[N:.*]] = gpt.cast %[[R]]#1 : tensor<3x5xf32> to tensor<3x5xbf16>
// CHECK-NEXT: %[[A:.*]] = comm.all_reduce avg %[[N]] : tensor<3x5xbf16>
// CHECK-NOT: gpt.cast
// CHECK: bufferization.materialize_in_destination %[[A]] in {{.*}} : (tensor<3x5xbf16>, memref<3x5xbf16>)
// Must not fire: the gradient without the attribute.
// CHECK: %[[U:.*]] = comm.all_reduce avg %[[R]]#2 : tensor<4xf32>
// CHECK: bufferization.materialize_in_destination %[[U]] in
// CHECK-LABEL: func.func @gptc_update_step
// CHECK: %[[G:.*]] = bufferization.to_tensor {{.*}} : memref<3x5xbf16> to tensor<3x5xbf16>
// CHECK-NEXT: %[[WIDE:.*]] = gpt.cast %[[G]] : tensor<3x5xbf16> to tensor<3x5xf32>
// CHECK: call @update({{.*}}, %[[WIDE]], {{.*}})

// With accumulation the slot sums the micro-steps' means: it stays f32 and
// each mean is read back extended before it is scaled and added.
// ACCUM: #gpt.arena_slot<"grad.w", {{[0-9]+}}, tensor<3x5xf32>>
// ACCUM-LABEL: func.func @gptc_grad_step
// ACCUM: %[[N:.*]] = gpt.cast %{{.*}} : tensor<3x5xf32> to tensor<3x5xbf16>
// ACCUM-NEXT: %[[A:.*]] = comm.all_reduce avg %[[N]] : tensor<3x5xbf16>
// ACCUM-NEXT: %[[W:.*]] = gpt.cast %[[A]] : tensor<3x5xbf16> to tensor<3x5xf32>
// ACCUM-NEXT: gpt.mul_scalar %[[W]], 5.000000e-01

// Must not fire: one rank exchanges nothing and rounds nothing; the slot
// keeps the gradient's type.
// ONE: #gpt.arena_slot<"grad.w", {{[0-9]+}}, tensor<3x5xf32>>
// ONE-LABEL: func.func @gptc_grad_step
// ONE-NOT: gpt.cast
// ONE-NOT: comm.
// ONE-LABEL: func.func @gptc_update_step

func.func @forward(%w: tensor<3x5xf32> {gpt.name = "w", gpt.param},
                   %u: tensor<4xf32> {gpt.name = "u", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3x5xf32> {gpt.name = "w", gpt.param},
                        %u: tensor<4xf32> {gpt.name = "u", gpt.param})
    -> (tensor<f32>, tensor<3x5xf32>, tensor<4xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w, %u : tensor<f32>, tensor<3x5xf32>, tensor<4xf32>
}
func.func @update(%p: tensor<3x5xf32> {gpt.name = "param.w"},
                  %q: tensor<4xf32> {gpt.name = "param.u"},
                  %g: tensor<3x5xf32> {gpt.name = "grad.w", gpt.reduce_type = bf16},
                  %h: tensor<4xf32> {gpt.name = "grad.u"})
    -> (tensor<3x5xf32> {gpt.name = "param.w"},
        tensor<4xf32> {gpt.name = "param.u"}) {
  %p1 = gpt.sub %p, %g : tensor<3x5xf32>
  %q1 = gpt.sub %q, %h : tensor<4xf32>
  return %p1, %q1 : tensor<3x5xf32>, tensor<4xf32>
}

// -----

// Must not fire, but an error: gradients are averaged in a float type.
func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param})
    -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
// expected-error @below {{'gpt.reduce_type' of grad.w is 'i16': gradients are averaged in a float type}}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"},
                  %g: tensor<3xf32> {gpt.name = "grad.w", gpt.reduce_type = i16})
    -> (tensor<3xf32> {gpt.name = "param.w"}) {
  %p1 = gpt.sub %p, %g : tensor<3xf32>
  return %p1 : tensor<3xf32>
}
