// RUN: gptc-opt %s --gptc-hoist-scalar-operands | FileCheck %s

// gptc-hoist-scalar-operands: an input of a linalg.generic on tensors that
// every iteration reads at the same constant indices is read once, by a
// tensor.extract before the op; the body uses the extracted value.

#id = affine_map<(i, j) -> (i, j)>
#c00 = affine_map<(i, j) -> (0, 0)>
#row = affine_map<(i, j) -> (i, 0)>
#none = affine_map<(i, j) -> ()>

// x / (sqrt(norm) + eps): the 1x1 norm becomes one extract.
// CHECK-LABEL: func.func @divide_by_norm
// CHECK-SAME: (%[[NORM:.*]]: tensor<1x1xf32>, %[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[N:.*]] = tensor.extract %[[NORM]][%[[C0]], %[[C0]]] : tensor<1x1xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = math.sqrt %[[N]] : f32
// CHECK-NEXT: arith.divf %[[V]], %[[S]] : f32
func.func @divide_by_norm(%norm: tensor<1x1xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#c00, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%norm, %x : tensor<1x1xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%n: f32, %v: f32, %o: f32):
    %s = math.sqrt %n : f32
    %d = arith.divf %v, %s : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// A 0-d scalar (a learning rate) and a second scalar: both extracted, in
// order; the non-scalar input stays.
// CHECK-LABEL: func.func @two_scalars
// CHECK-SAME: (%[[LR:.*]]: tensor<f32>, %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<2x2xf32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[L:.*]] = tensor.extract %[[LR]][] : tensor<f32>
// CHECK-DAG: %[[WV:.*]] = tensor.extract %[[W]][%[[C1]], %[[C1]]] : tensor<2x2xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]] : tensor<4x8xf32>)
// CHECK: arith.mulf %{{.*}}, %[[L]] : f32
// CHECK: arith.addf %{{.*}}, %[[WV]] : f32
#c11 = affine_map<(i, j) -> (1, 1)>
func.func @two_scalars(%lr: tensor<f32>, %x: tensor<4x8xf32>, %w: tensor<2x2xf32>) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#none, #id, #c11, #id], iterator_types = ["parallel", "parallel"]}
      ins(%lr, %x, %w : tensor<f32>, tensor<4x8xf32>, tensor<2x2xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%l: f32, %v: f32, %wv: f32, %o: f32):
    %m = arith.mulf %v, %l : f32
    %a = arith.addf %m, %wv : f32
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Must not fire: a per-row input (i, 0) varies with the iteration.
// CHECK-LABEL: func.func @per_row_input
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<4x8xf32>)
func.func @per_row_input(%r: tensor<4x1xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %x : tensor<4x1xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// Must not fire: an op on buffers (after bufferization the read would not
// be an SSA value).
// CHECK-LABEL: func.func @on_buffers
// CHECK-NOT: memref.load
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : memref<1x1xf32>, memref<4x8xf32>)
func.func @on_buffers(%n: memref<1x1xf32>, %x: memref<4x8xf32>, %out: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#c00, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%n, %x : memref<1x1xf32>, memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%a: f32, %v: f32, %o: f32):
    %m = arith.mulf %a, %v : f32
    linalg.yield %m : f32
  }
  return
}
