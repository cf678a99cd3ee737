// RUN: gptc-opt %s --gptc-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// gpt.matmul_add (alpha op(A) op(B) + beta C) lowers to a GEMM accumulating
// into beta C: C itself when beta = 1, a zero fill when beta = 0, else a
// scaled copy (in f32 for bf16); with alpha = 1 the GEMM is a named
// linalg.matmul / batch_matmul, else a linalg.generic over the same maps
// whose body is out + (a * b) * alpha (alpha in f32 for bf16).
// gptc-gemm-to-blas folds both into the runtime call's epilogue
// (gptc-gemm-to-blas-epilogue.mlir).

// alpha 1, beta 1: the GEMM accumulates into C.
// CHECK-LABEL: func.func @unit_scales
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>, %[[C:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[C]] : tensor<2x4xf32>)
// CHECK-NEXT: return %[[R]]
func.func @unit_scales(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = gpt.matmul_add %a, %b, %c alpha = 1.0 beta = 1.0 : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// beta 0: C is not read; the GEMM starts from a zero fill.
// CHECK-LABEL: func.func @beta_zero
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK-NEXT: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<4x3xf32>) outs(%[[Z]] : tensor<2x4xf32>)
func.func @beta_zero(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = gpt.matmul_add %a, %b, %c transpose_rhs alpha = 1.0 beta = 0.0 : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Newton-Schulz's B = b A + c A A in bf16, batched: a scaled copy of A
// (beta in f32) and a contraction generic with alpha in f32.
// CHECK-LABEL: func.func @bf16_batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x8xbf16>)
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]] : tensor<2x8x8xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 2.031500e+00 : f32
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[W]], %[[BETA]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[A]] : tensor<2x8x8xbf16>, tensor<2x8x8xbf16>) outs(%[[INIT]] : tensor<2x8x8xbf16>)
// CHECK-NEXT: ^bb0(%[[P:.*]]: bf16, %[[Q:.*]]: bf16, %[[O:.*]]: bf16):
// CHECK-NEXT: %[[PW:.*]] = arith.extf %[[P]] : bf16 to f32
// CHECK-NEXT: %[[QW:.*]] = arith.extf %[[Q]] : bf16 to f32
// CHECK-NEXT: %[[PQ:.*]] = arith.mulf %[[PW]], %[[QW]] : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant -4.775000e+00 : f32
// CHECK-NEXT: %[[SC:.*]] = arith.mulf %[[PQ]], %[[ALPHA]] : f32
// CHECK-NEXT: %[[OW:.*]] = arith.extf %[[O]] : bf16 to f32
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OW]], %[[SC]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
// CHECK-NOT: gpt.
func.func @bf16_batched(%a: tensor<2x8x8xbf16>) -> tensor<2x8x8xbf16> {
  %0 = gpt.matmul_add %a, %a, %a alpha = -4.775 beta = 2.0315 : tensor<2x8x8xbf16>, tensor<2x8x8xbf16> -> tensor<2x8x8xbf16>
  return %0 : tensor<2x8x8xbf16>
}
