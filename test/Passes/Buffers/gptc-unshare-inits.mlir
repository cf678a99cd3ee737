// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-unshare-inits))' --split-input-file | FileCheck %s

// gptc-unshare-inits: one zero-filled empty tensor, the init of two GEMMs
// (as CSE leaves it), becomes one per GEMM; the first keeps the original.
// CHECK-LABEL: func.func @shared_zero_init
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[A:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[Z]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK-NEXT: %[[B:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[Z1]] : tensor<4x4xf32>)
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @shared_zero_init(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = linalg.matmul ins(%x, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.matmul ins(%y, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// An empty tensor that is the init of two ops: one each.
// CHECK-LABEL: func.func @shared_empty
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
// CHECK:      %[[E1:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E1]] : tensor<8xf32>)
#id = affine_map<(i) -> (i)>
func.func @shared_empty(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}

// -----

// Must not fire: a zero tensor read as an input by several ops stays one
// (only inits are written); an init with one use; an init that holds data
// (a GEMM's output accumulated into by another) is not the pass's to copy.
// CHECK-LABEL: func.func @inputs_and_data
// CHECK-COUNT-1: tensor.empty
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: tensor.empty
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @inputs_and_data(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = linalg.matmul ins(%z, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.matmul ins(%x, %z : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = linalg.matmul ins(%x, %x : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %b, %c : tensor<4x4xf32>, tensor<4x4xf32>
}
