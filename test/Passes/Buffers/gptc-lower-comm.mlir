// RUN: gptc-opt %s --gptc-lower-comm --split-input-file | FileCheck %s

// An all-reduce starts right after its operand's producer (the gradient is
// final there), with both buffers' addresses and the element count, and is
// waited for just before its result's first user; in between the step goes
// on (the exp). avg = 1, f32 = 0 (runtime/gptrt.h).
// CHECK-DAG: func.func private @gptc_comm_all_reduce_start(i64, i64, i64, i64, i64) -> i64
// CHECK-DAG: func.func private @gptc_comm_wait(i64, i64, i64)
// CHECK-LABEL: func.func @overlap
// CHECK:      %[[G:.*]] = gpt.mul_scalar %arg0
// CHECK-NEXT: %[[IN:.*]] = bufferization.to_buffer %[[G]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-DAG:  %[[AVG:.*]] = arith.constant 1 : i64
// CHECK-DAG:  %[[F32:.*]] = arith.constant 0 : i64
// CHECK-DAG:  %[[N:.*]] = arith.constant 32 : i64
// CHECK:      %[[H:.*]] = call @gptc_comm_all_reduce_start(%[[AVG]], %[[F32]], %{{.*}}, %{{.*}}, %[[N]])
// CHECK-NEXT: %[[E:.*]] = gpt.exp %arg1
// CHECK:      memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK:      memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:      call @gptc_comm_wait(%[[H]], %{{.*}}, %{{.*}})
// CHECK-NEXT: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT: gpt.add %[[R]], %[[E]]
// CHECK-NOT:  comm.
func.func @overlap(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = gpt.mul_scalar %a, 2.0 : tensor<4x8xf32>
  %e = gpt.exp %b : tensor<4x8xf32>
  %r = comm.all_reduce avg %g : tensor<4x8xf32>
  %s = gpt.add %r, %e : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A gather and a shard are blocking calls at the op. The gather passes the
// elements each rank contributes (2 x 8 x 8 = 128, bf16 = 1); the shard
// the bytes of this rank's slice (2 x 8 x 8 x 4 = 512).
// CHECK-LABEL: func.func @gather_and_shard
// CHECK:      %[[IN:.*]] = bufferization.to_buffer %arg0 read_only : tensor<4x8x8xf32> to memref<4x8x8xf32>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<2x8x8xf32>
// CHECK:      %[[BYTES:.*]] = arith.constant 512 : i64
// CHECK-NEXT: call @gptc_comm_shard(%{{.*}}, %{{.*}}, %[[BYTES]])
// CHECK-NEXT: bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:      memref.alloc() : memref<4x8x8xbf16>
// CHECK-DAG:  %[[BF16:.*]] = arith.constant 1 : i64
// CHECK-DAG:  %[[COUNT:.*]] = arith.constant 128 : i64
// CHECK:      call @gptc_comm_all_gather(%[[BF16]], %{{.*}}, %{{.*}}, %[[COUNT]])
func.func @gather_and_shard(%x: tensor<4x8x8xf32>, %y: tensor<2x8x8xbf16>) -> (tensor<2x8x8xf32>, tensor<4x8x8xbf16>) {
  %mine = comm.shard %x world_size = 2 : tensor<4x8x8xf32> -> tensor<2x8x8xf32>
  %all = comm.all_gather %y world_size = 2 : tensor<2x8x8xbf16> -> tensor<4x8x8xbf16>
  return %mine, %all : tensor<2x8x8xf32>, tensor<4x8x8xbf16>
}

// -----

// Must not fire: a module without collectives declares no runtime call.
// CHECK-LABEL: func.func @no_collectives
// CHECK-NOT: gptc_comm
func.func @no_collectives(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
