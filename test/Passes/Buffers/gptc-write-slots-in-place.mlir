// RUN: gptc-opt %s --gptc-write-slots-in-place --split-input-file | FileCheck %s

// A parameter update: the kernel's init becomes the slot's own writable
// tensor, so bufferization can write the slot in place.
// CHECK-LABEL: func.func @update_in_place
// CHECK: %[[V:.*]] = memref.view
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[V]] restrict writable
// CHECK: linalg.generic {{.*}} ins(%[[T]], %{{.*}} : tensor<8xf32>, tensor<8xf32>) outs(%[[T]] : tensor<8xf32>)
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[V]]
#id = affine_map<(d0) -> (d0)>
func.func @update_in_place(%arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<64xi8> to memref<8xf32>
  %p = bufferization.to_tensor %v restrict writable : memref<8xf32> to tensor<8xf32>
  %c32 = arith.constant 32 : index
  %gv = memref.view %arena[%c32][] : memref<64xi8> to memref<8xf32>
  %g = bufferization.to_tensor %gv restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %v : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// A slot that is only written (no old value read): a writable tensor of
// the slot is made for the init.
// CHECK-LABEL: func.func @only_written
// CHECK: %[[V:.*]] = memref.view
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[V]] restrict writable
// CHECK: linalg.generic {{.*}} outs(%[[T]] : tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @only_written(%arena: memref<64xi8>, %x: tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<64xi8> to memref<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %v : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Must not fire: the slot is read-only (its tensor is not writable).
// CHECK-LABEL: func.func @read_only_slot
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @read_only_slot(%arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<64xi8> to memref<8xf32>
  %p = bufferization.to_tensor %v restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %v : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// Must not fire: the payload reads its init (an accumulation), whose
// initial value must stay the empty tensor's, not the slot's.
// CHECK-LABEL: func.func @payload_reads_init
// CHECK: %[[E:.*]] = tensor.empty
// CHECK: linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @payload_reads_init(%arena: memref<64xi8>, %x: tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<64xi8> to memref<8xf32>
  %p = bufferization.to_tensor %v restrict writable : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.addf %a, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %v : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}

// -----

// A GEMM's zero-filled accumulator (the fill shared with another GEMM, as
// CSE leaves it) is cloned and placed in the slot, whose view moves to the
// top of the function; the other GEMM keeps the shared fill.
// CHECK-LABEL: func.func @gemm_into_slot
// CHECK: %[[V:.*]] = memref.view
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[V]] restrict writable
// CHECK: %[[F:.*]] = linalg.fill {{.*}} outs(%[[E:.*]] : tensor<4x4xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[F]] : tensor<4x4xf32>)
// CHECK: %[[OWN:.*]] = linalg.fill {{.*}} outs(%[[T]] : tensor<4x4xf32>)
// CHECK: %[[R:.*]] = linalg.matmul {{.*}} outs(%[[OWN]] : tensor<4x4xf32>)
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[V]]
func.func @gemm_into_slot(%arena: memref<128xi8>, %a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %other = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<128xi8> to memref<4x4xf32>
  bufferization.materialize_in_destination %r in restrict writable %v : (tensor<4x4xf32>, memref<4x4xf32>) -> ()
  return %other : tensor<4x4xf32>
}

// -----

// A destination that is a function argument, not a view of an arena: a
// writable tensor of it at the top of the function becomes the init.
// CHECK-LABEL: func.func @argument_destination
// CHECK-SAME: (%[[OUT:.*]]: memref<8xf32>
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: linalg.generic {{.*}} outs(%[[T]] : tensor<8xf32>)
#id = affine_map<(d0) -> (d0)>
func.func @argument_destination(%out: memref<8xf32>, %x: tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}
