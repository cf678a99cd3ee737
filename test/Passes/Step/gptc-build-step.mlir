// RUN: gptc-opt %s --gptc-build-step | FileCheck %s --check-prefixes=CHECK,ONE
// RUN: gptc-opt %s --gptc-build-step=grad-accum=4 | FileCheck %s --check-prefixes=CHECK,ACCUM

// gptc-build-step: @forward, @forward_grad and @update become the arena
// entry points @gptc_grad_step, @gptc_update_step and @gptc_eval_step
// (runtime/gptrt.h). Every named argument and result is a slot of the arena,
// in first-use order: @forward's arguments (parameters as "param.<name>"),
// @update's arguments, "loss", "eval_loss", @update's results, one
// "grad.<name>" per parameter. Offsets are 64-byte aligned:
//
//   tokens     4x8xi32  128 bytes  offset   0
//   param.w    3x5xf32   60 bytes  offset 128
//   step       i64        8 bytes  offset 192
//   grad.w     3x5xf32   60 bytes  offset 256
//   state.w.m  3x5xf32   60 bytes  offset 320
//   loss       f32        4 bytes  offset 384
//   eval_loss  f32        4 bytes  offset 448   => 512 bytes
//
// (Failures: gptc-build-step-errors.mlir.)

// The layout is a typed #gpt.arena; its workspace is empty until
// gptc-plan-buffers places temporaries after the slots.
// CHECK: module attributes {gptc.arena = #gpt.arena<bytes = 512, workspace = [512, 0], slots = [
// CHECK-SAME: #gpt.arena_slot<"tokens", 0, tensor<4x8xi32>>,
// CHECK-SAME: #gpt.arena_slot<"param.w", 128, tensor<3x5xf32>>,
// CHECK-SAME: #gpt.arena_slot<"step", 192, tensor<i64>>,
// CHECK-SAME: #gpt.arena_slot<"grad.w", 256, tensor<3x5xf32>>,
// CHECK-SAME: #gpt.arena_slot<"state.w.m", 320, tensor<3x5xf32>>,
// CHECK-SAME: #gpt.arena_slot<"loss", 384, tensor<f32>>,
// CHECK-SAME: #gpt.arena_slot<"eval_loss", 448, tensor<f32>>]>}

// The tensor functions stay, private (to be inlined).
// CHECK: func.func private @forward(
// CHECK: func.func private @forward_grad(
// CHECK: func.func private @update(

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
                  %g: tensor<3x5xf32> {gpt.name = "grad.w"},
                  %m: tensor<3x5xf32> {gpt.name = "state.w.m"})
    -> (tensor<3x5xf32> {gpt.name = "param.w"},
        tensor<3x5xf32> {gpt.name = "state.w.m"}) {
  %m1 = gpt.add %m, %g : tensor<3x5xf32>
  %p1 = gpt.sub %p, %m1 : tensor<3x5xf32>
  return %p1, %m1 : tensor<3x5xf32>, tensor<3x5xf32>
}

// The grad step reads the inputs of @forward_grad, calls it, and with
// grad-accum=4 adds the loss and the gradient, scaled by 1/4, into their
// slots (read as writable tensors: the adds may update them in place).
// Without accumulation it writes the call's results to the slots as they
// are: no read of the old values, so the runtime need not zero them.
// CHECK-LABEL: func.func @gptc_grad_step
// CHECK-SAME: (%[[ARENA:[a-z0-9_]+]]: memref<512xi8>) attributes {llvm.emit_c_interface}
// CHECK: %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[V0:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<512xi8> to memref<4x8xi32>
// CHECK-NEXT: %[[TOK:.*]] = bufferization.to_tensor %[[V0]] restrict : memref<4x8xi32> to tensor<4x8xi32>
// CHECK-NEXT: %[[O128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[V128:.*]] = memref.view %[[ARENA]][%[[O128]]][] : memref<512xi8> to memref<3x5xf32>
// CHECK-NEXT: %[[W:.*]] = bufferization.to_tensor %[[V128]] restrict : memref<3x5xf32> to tensor<3x5xf32>
// CHECK-NEXT: %[[R:.*]]:2 = call @forward_grad(%[[TOK]], %[[W]]) : (tensor<4x8xi32>, tensor<3x5xf32>) -> (tensor<f32>, tensor<3x5xf32>)
// loss slot = loss, or += loss / 4
// ONE-NEXT: arith.constant 384 : index
// ONE-NEXT: %[[LV:.*]] = memref.view %[[ARENA]]{{.*}} to memref<f32>
// ONE-NEXT: bufferization.materialize_in_destination %[[R]]#0 in restrict writable %[[LV]] : (tensor<f32>, memref<f32>) -> ()
// ACCUM-NEXT: %[[L:.*]] = gpt.mul_scalar %[[R]]#0, 2.500000e-01 : tensor<f32>
// ACCUM-NEXT: arith.constant 384 : index
// ACCUM-NEXT: memref.view %[[ARENA]]{{.*}} to memref<f32>
// ACCUM-NEXT: %[[OLDL:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<f32> to tensor<f32>
// ACCUM-NEXT: %[[NEWL:.*]] = gpt.add %[[OLDL]], %[[L]] : tensor<f32>
// ACCUM-NEXT: arith.constant 384 : index
// ACCUM-NEXT: %[[LV:.*]] = memref.view %[[ARENA]]{{.*}} to memref<f32>
// ACCUM-NEXT: bufferization.materialize_in_destination %[[NEWL]] in restrict writable %[[LV]] : (tensor<f32>, memref<f32>) -> ()
// grad.w slot = dw, or += dw / 4
// ONE-NEXT: arith.constant 256 : index
// ONE-NEXT: %[[GV:.*]] = memref.view %[[ARENA]]{{.*}} to memref<3x5xf32>
// ONE-NEXT: bufferization.materialize_in_destination %[[R]]#1 in restrict writable %[[GV]]
// ACCUM-NEXT: %[[G:.*]] = gpt.mul_scalar %[[R]]#1, 2.500000e-01 : tensor<3x5xf32>
// ACCUM-NEXT: arith.constant 256 : index
// ACCUM-NEXT: memref.view %[[ARENA]]{{.*}} to memref<3x5xf32>
// ACCUM-NEXT: %[[OLDG:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<3x5xf32> to tensor<3x5xf32>
// ACCUM-NEXT: %[[NEWG:.*]] = gpt.add %[[OLDG]], %[[G]] : tensor<3x5xf32>
// ACCUM-NEXT: arith.constant 256 : index
// ACCUM-NEXT: %[[GV:.*]] = memref.view %[[ARENA]]{{.*}} to memref<3x5xf32>
// ACCUM-NEXT: bufferization.materialize_in_destination %[[NEWG]] in restrict writable %[[GV]]
// CHECK-NEXT: return

// The update step reads every argument of @update from its slot and writes
// its results back to theirs (in place for param.w and state.w.m). The
// slots an entry point writes are read as writable tensors (kernels may
// update them in place); the others (tokens, the gradient here) are not.
// CHECK-LABEL: func.func @gptc_update_step
// CHECK-SAME: (%[[ARENA:[a-z0-9_]+]]: memref<512xi8>) attributes {llvm.emit_c_interface}
// CHECK-NEXT: %[[O192:.*]] = arith.constant 192 : index
// CHECK-NEXT: %[[V192:.*]] = memref.view %[[ARENA]][%[[O192]]][] : memref<512xi8> to memref<i64>
// CHECK-NEXT: %[[STEP:.*]] = bufferization.to_tensor %[[V192]] restrict : memref<i64> to tensor<i64>
// CHECK-NEXT: arith.constant 128 : index
// CHECK-NEXT: memref.view
// CHECK-NEXT: %[[P:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<3x5xf32>
// CHECK-NEXT: arith.constant 256 : index
// CHECK-NEXT: memref.view
// CHECK-NEXT: %[[G:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<3x5xf32>
// CHECK-NEXT: arith.constant 320 : index
// CHECK-NEXT: memref.view
// CHECK-NEXT: %[[M:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<3x5xf32>
// CHECK-NEXT: %[[R:.*]]:2 = call @update(%[[STEP]], %[[P]], %[[G]], %[[M]])
// CHECK-NEXT: %[[O128:.*]] = arith.constant 128 : index
// CHECK-NEXT: %[[PV:.*]] = memref.view %[[ARENA]][%[[O128]]][] : memref<512xi8> to memref<3x5xf32>
// CHECK-NEXT: bufferization.materialize_in_destination %[[R]]#0 in restrict writable %[[PV]]
// CHECK-NEXT: %[[O320:.*]] = arith.constant 320 : index
// CHECK-NEXT: %[[MV:.*]] = memref.view %[[ARENA]][%[[O320]]][] : memref<512xi8> to memref<3x5xf32>
// CHECK-NEXT: bufferization.materialize_in_destination %[[R]]#1 in restrict writable %[[MV]]
// CHECK-NEXT: return

// The eval step writes the loss of @forward to eval_loss.
// CHECK-LABEL: func.func @gptc_eval_step
// CHECK-SAME: (%[[ARENA:[a-z0-9_]+]]: memref<512xi8>) attributes {llvm.emit_c_interface}
// CHECK: %[[L:.*]] = call @forward(%{{.*}}, %{{.*}}) : (tensor<4x8xi32>, tensor<3x5xf32>) -> tensor<f32>
// CHECK-NEXT: %[[O448:.*]] = arith.constant 448 : index
// CHECK-NEXT: %[[EV:.*]] = memref.view %[[ARENA]][%[[O448]]][] : memref<512xi8> to memref<f32>
// CHECK-NEXT: bufferization.materialize_in_destination %[[L]] in restrict writable %[[EV]]
// CHECK-NEXT: return
