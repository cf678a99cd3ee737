// gptc-split-k: a GEMM Aᵀ·B (A: k x m, B: k x n) whose output tiles do not
// fill the device becomes one batched GEMM of f32 partial products over
// chunks of k and an in-order sum of the partials into the output's init,
// rounded once to the output's type. GEMMs that fill it, other layouts and
// sums too short to split are left alone.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-split-k))' --split-input-file | FileCheck %s
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-split-k{multiprocessors=4 waves=1}))' --split-input-file | FileCheck %s --check-prefix=SMALL

#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// A bf16 weight gradient: 768 x 768 over 65,536 tokens is 18 tiles of
// 256 x 128; 32 parts (576 tiles, 4 waves of 132) of 2048 tokens each.
// With 4 multiprocessors and one wave: 1 part would do, left alone.
// CHECK-LABEL: func.func @weight_grad_bf16
// CHECK-DAG: %[[A3:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [32, 2048, 768] : tensor<65536x768xbf16> into tensor<32x2048x768xbf16>
// CHECK-DAG: %[[B3:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [32, 2048, 768]
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32x768x768xf32>)
// CHECK: %[[P:.*]] = linalg.batch_matmul indexing_maps = [#[[BKM:.*]], #[[BKN:.*]], #[[BMN:.*]]] ins(%[[A3]], %[[B3]] : tensor<32x2048x768xbf16>, tensor<32x2048x768xbf16>) outs(%[[Z]] : tensor<32x768x768xf32>)
// CHECK: %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<768x768xf32>)
// CHECK: %[[S:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[P]] : tensor<32x768x768xf32>) outs(%[[Z2]] : tensor<768x768xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[ADD:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[S]] : tensor<768x768xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %[[R]] : tensor<768x768xbf16>
// SMALL-LABEL: func.func @weight_grad_bf16
// SMALL-NOT: batch_matmul
// SMALL: linalg.matmul
func.func @weight_grad_bf16(%x: tensor<65536x768xbf16>, %dy: tensor<65536x768xbf16>) -> tensor<768x768xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<768x768xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<768x768xbf16>) -> tensor<768x768xbf16>
  %g = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%x, %dy : tensor<65536x768xbf16>, tensor<65536x768xbf16>)
      outs(%init : tensor<768x768xbf16>) -> tensor<768x768xbf16>
  return %g : tensor<768x768xbf16>
}

// -----

#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// An f32 GEMM accumulating into a gradient: the partials are f32 and sum
// into the init itself, no rounding after. k = 1024 allows at most 4 parts
// of 256 (min-chunk). With 4 multiprocessors, one wave: 4 parts fill it.
// CHECK-LABEL: func.func @accumulate_f32
// CHECK: tensor.expand_shape %arg0 {{\[}}[0, 1], [2]] output_shape [4, 256, 64]
// CHECK: %[[P:.*]] = linalg.batch_matmul {{.*}} outs(%{{.*}} : tensor<4x64x64xf32>)
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<4x64x64xf32>) outs(%arg2 : tensor<64x64xf32>)
// CHECK-NOT: arith.truncf
// CHECK: return %[[S]]
// SMALL-LABEL: func.func @accumulate_f32
// SMALL: linalg.batch_matmul {{.*}} outs(%{{.*}} : tensor<4x64x64xf32>)
func.func @accumulate_f32(%x: tensor<1024x64xf32>, %dy: tensor<1024x64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %g = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%x, %dy : tensor<1024x64xf32>, tensor<1024x64xf32>)
      outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}

// -----

#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// A bf16 GEMM accumulating into a bf16 init: the init is widened and the
// sum rounded once.
// CHECK-LABEL: func.func @accumulate_bf16
// CHECK: linalg.batch_matmul {{.*}} outs(%{{.*}} : tensor<4x64x64xf32>)
// CHECK: %[[W:.*]] = linalg.generic {{.*}} ins(%arg2 : tensor<64x64xbf16>)
// CHECK: arith.extf
// CHECK: %[[S:.*]] = linalg.generic {{.*}} outs(%[[W]] : tensor<64x64xf32>)
// CHECK: arith.truncf
func.func @accumulate_bf16(%x: tensor<1024x64xbf16>, %dy: tensor<1024x64xbf16>, %acc: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %g = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%x, %dy : tensor<1024x64xbf16>, tensor<1024x64xbf16>)
      outs(%acc : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %g : tensor<64x64xbf16>
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#km = affine_map<(m, n, k) -> (k, m)>
#mn = affine_map<(m, n, k) -> (m, n)>

// Must not fire: A not transposed (a forward product), enough tiles
// (50304 x 768 is 1182 tiles), a sum shorter than two chunks.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: linalg.batch_matmul
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: linalg.batch_matmul
func.func @left_alone(%x: tensor<64x65536xbf16>, %w: tensor<65536x64xbf16>, %big: tensor<65536x50304xbf16>, %dy: tensor<65536x768xbf16>, %s: tensor<256x64xbf16>, %t: tensor<256x64xbf16>) -> (tensor<64x64xbf16>, tensor<50304x768xbf16>, tensor<64x64xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x64xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %forward = linalg.matmul indexing_maps = [#mk, #kn, #mn]
      ins(%x, %w : tensor<64x65536xbf16>, tensor<65536x64xbf16>)
      outs(%init : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %e2 = tensor.empty() : tensor<50304x768xbf16>
  %init2 = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<50304x768xbf16>) -> tensor<50304x768xbf16>
  %head = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%big, %dy : tensor<65536x50304xbf16>, tensor<65536x768xbf16>)
      outs(%init2 : tensor<50304x768xbf16>) -> tensor<50304x768xbf16>
  %short = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%s, %t : tensor<256x64xbf16>, tensor<256x64xbf16>)
      outs(%init : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %forward, %head, %short : tensor<64x64xbf16>, tensor<50304x768xbf16>, tensor<64x64xbf16>
}

// -----

// Options that cannot describe a device are refused.
// RUN: not gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-split-k{tile-m=0}))' --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: gptc-split-k: multiprocessors, waves, tile-m, tile-n and min-chunk must be >= 1
func.func @nothing() {
  return
}
