// RUN: gptc-opt %s -split-input-file --gptc-build-step -verify-diagnostics | FileCheck %s

// A parameter the update function stores as bf16 (a `storage: bf16` group)
// while the model functions compute in f32: its slot is bf16, every entry
// point that calls a model function reads it through a gpt.cast to f32, its
// gradient slot keeps the gradient's f32, and the update reads and writes
// the bf16 slot as it is.

// CHECK: #gpt.arena_slot<"param.w", {{[0-9]+}}, tensor<3x5xbf16>>
// CHECK-SAME: #gpt.arena_slot<"grad.w", {{[0-9]+}}, tensor<3x5xf32>>
// CHECK-SAME: #gpt.arena_slot<"state.w.m", {{[0-9]+}}, tensor<3x5xbf16>>
// CHECK-LABEL: func.func @gptc_grad_step
// CHECK: %[[W:.*]] = bufferization.to_tensor {{.*}} : memref<3x5xbf16> to tensor<3x5xbf16>
// CHECK-NEXT: %[[WIDE:.*]] = gpt.cast %[[W]] : tensor<3x5xbf16> to tensor<3x5xf32>
// CHECK-NEXT: call @forward_grad(%[[WIDE]]) : (tensor<3x5xf32>) -> (tensor<f32>, tensor<3x5xf32>)
// CHECK-LABEL: func.func @gptc_update_step
// CHECK-NOT: gpt.cast
// CHECK: call @update({{.*}}) : (tensor<3x5xbf16>, tensor<3x5xf32>, tensor<3x5xbf16>) -> (tensor<3x5xbf16>, tensor<3x5xbf16>)
// CHECK-LABEL: func.func @gptc_eval_step
// CHECK: %[[E:.*]] = gpt.cast {{.*}} : tensor<3x5xbf16> to tensor<3x5xf32>
// CHECK-NEXT: call @forward(%[[E]])

func.func @forward(%w: tensor<3x5xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %s = gpt.reduce sum %w dims = [0, 1] : tensor<3x5xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3x5xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3x5xf32>) {
  %s = gpt.reduce sum %w dims = [0, 1] : tensor<3x5xf32> -> tensor<1x1xf32>
  %l = gpt.reshape %s : tensor<1x1xf32> to tensor<f32>
  %g = gpt.constant dense<1.0> : tensor<3x5xf32>
  return %l, %g : tensor<f32>, tensor<3x5xf32>
}
func.func @update(%p: tensor<3x5xbf16> {gpt.name = "param.w"},
                  %g: tensor<3x5xf32> {gpt.name = "grad.w"},
                  %m: tensor<3x5xbf16> {gpt.name = "state.w.m"})
    -> (tensor<3x5xbf16> {gpt.name = "param.w"},
        tensor<3x5xbf16> {gpt.name = "state.w.m"}) {
  %p32 = gpt.cast %p : tensor<3x5xbf16> to tensor<3x5xf32>
  %m32 = gpt.cast %m : tensor<3x5xbf16> to tensor<3x5xf32>
  %m1 = gpt.add %m32, %g : tensor<3x5xf32>
  %p1 = gpt.sub %p32, %m1 : tensor<3x5xf32>
  %p2 = gpt.cast %p1 : tensor<3x5xf32> to tensor<3x5xbf16>
  %m2 = gpt.cast %m1 : tensor<3x5xf32> to tensor<3x5xbf16>
  return %p2, %m2 : tensor<3x5xbf16>, tensor<3x5xbf16>
}

// -----

// Must not fire: only the update function's use sets a parameter's storage.
// A model function that takes the parameter as bf16 while the update keeps
// it f32 is two types for one slot.
func.func @forward(%w: tensor<3xbf16> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xbf16> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3xbf16>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xbf16>
}
// expected-error@+1 {{slot 'param.w' used with types 'tensor<3xbf16>' and 'tensor<3xf32>'}}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"}) -> (tensor<3xf32> {gpt.name = "param.w"}) {
  return %p : tensor<3xf32>
}

// -----

// Must not fire: a bf16 storage of another shape.
func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param}) -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
// expected-error@+1 {{slot 'param.w' used with types 'tensor<3xf32>' and 'tensor<4xbf16>'}}
func.func @update(%p: tensor<4xbf16> {gpt.name = "param.w"}) -> (tensor<4xbf16> {gpt.name = "param.w"}) {
  return %p : tensor<4xbf16>
}

// -----

// Must not fire: only parameters have a storage type; any other slot used
// with two types is an error.
func.func @forward(%w: tensor<3xf32> {gpt.name = "w", gpt.param},
                   %s: tensor<2xf32> {gpt.name = "scale"}) -> tensor<f32> {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l : tensor<f32>
}
func.func @forward_grad(%w: tensor<3xf32> {gpt.name = "w", gpt.param},
                        %s: tensor<2xf32> {gpt.name = "scale"}) -> (tensor<f32>, tensor<3xf32>) {
  %l = gpt.constant dense<1.0> : tensor<f32>
  return %l, %w : tensor<f32>, tensor<3xf32>
}
// expected-error@+1 {{slot 'scale' used with types 'tensor<2xf32>' and 'tensor<2xbf16>'}}
func.func @update(%p: tensor<3xf32> {gpt.name = "param.w"},
                  %s: tensor<2xbf16> {gpt.name = "scale"}) -> (tensor<3xf32> {gpt.name = "param.w"}) {
  return %p : tensor<3xf32>
}
