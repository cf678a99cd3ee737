// gptc-split-reductions: a reduction with few results becomes partial sums
// over interleaved parts of its longest reduction dimension (one thread
// each; trailing reduction loops every input reads contiguously collapsed
// into one first) and an
// in-order combination of the partials; the combination is split again
// while it is long. Reductions with enough results, unknown combiners,
// dynamic shapes or too few terms are left alone.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-split-reductions))' --split-input-file | FileCheck %s
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-split-reductions{threads=64}))' --split-input-file | FileCheck %s --check-prefix=T64

// A scalar parameter's gradient: 65536 terms, one result. The reduction
// loops, contiguous in both inputs, are collapsed into one of 65536, split
// into 2048 interleaved parts of 32 terms (part s takes s, s + 2048, ...:
// a warp's parts read consecutive elements); those 2048 partials into 64
// parts of 32; the last 64 are combined into the original output.
// With threads=64: 64 parts of 1024, then 2 parts of 32 are too few.
// CHECK-LABEL: func.func @scalar_grad
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x1x1xf32>)
// CHECK: %[[CX:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : tensor<4x256x2x32xf32> into tensor<65536xf32>
// CHECK: %[[CY:.*]] = tensor.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : tensor<4x256x2x32xf32> into tensor<65536xf32>
// CHECK: %[[X:.*]] = tensor.expand_shape %[[CX]] {{\[}}[0, 1]] output_shape [32, 2048]
// CHECK: %[[Y:.*]] = tensor.expand_shape %[[CY]] {{\[}}[0, 1]] output_shape [32, 2048]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x1x1x1x2048xf32>)
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[P0]] : tensor<1x1x1x1x2048xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1], [2], [3], [4, 5]] output_shape [1, 1, 1, 1, 32, 64]
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[E]] : tensor<1x1x1x1x32x64xf32>) outs(%{{.*}} : tensor<1x1x1x1x64xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[Q]] : tensor<1x1x1x1x64xf32>) outs(%[[INIT]] : tensor<1x1x1x1xf32>)
// CHECK: return %[[R]]
// T64-LABEL: func.func @scalar_grad
// T64: tensor.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]]
// T64: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1024, 64]
// T64: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x1x1x64xf32>)
// T64: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x1x1x1x64xf32>) outs(%{{.*}} : tensor<1x1x1x1xf32>)
// T64-NOT: linalg.generic
// T64: return
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#z4 = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, 0)>
func.func @scalar_grad(%x: tensor<4x256x2x32xf32>, %y: tensor<4x256x2x32xf32>) -> tensor<1x1x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #z4], iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%x, %y : tensor<4x256x2x32xf32>, tensor<4x256x2x32xf32>) outs(%init : tensor<1x1x1x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  } -> tensor<1x1x1x1xf32>
  return %r : tensor<1x1x1x1xf32>
}

// -----

// Newton-Schulz norms: 16 results of 4096 terms: each matrix's two
// reduction loops collapsed into one of 4096, 128 interleaved parts per
// result (a new parallel loop after the batch), combined per matrix.
// CHECK-LABEL: func.func @norms
// CHECK: %[[C:.*]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<16x64x64xf32> into tensor<16x4096xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1, 2]] output_shape [16, 32, 128]
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<16x1x1x128xf32>)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[P]] : tensor<16x1x1x128xf32>) outs(%{{.*}} : tensor<16x1x1xf32>)
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#n3 = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
func.func @norms(%x: tensor<16x64x64xf32>) -> tensor<16x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x1x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x1x1xf32>) -> tensor<16x1x1xf32>
  %r = linalg.generic {indexing_maps = [#m3, #n3], iterator_types = ["parallel", "reduction", "reduction"]} ins(%x : tensor<16x64x64xf32>) outs(%init : tensor<16x1x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  } -> tensor<16x1x1xf32>
  return %r : tensor<16x1x1xf32>
}

// -----

// A max whose terms use the loop index: the index becomes
// position in the part * 128 + part (the parts interleave); partials start
// at maxnumf's neutral element (NaN) and combine into the given output in
// order.
// CHECK-LABEL: func.func @indexed_max
// CHECK: tensor.expand_shape %arg0 {{\[}}[0, 1]] output_shape [32, 128]
// CHECK: %[[NAN:.*]] = arith.constant 0xFFC00000 : f32
// CHECK: linalg.fill ins(%[[NAN]] : f32)
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: %[[U:.*]] = linalg.index 1 : index
// CHECK: %[[S:.*]] = linalg.index 0 : index
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[BASE:.*]] = arith.muli %[[U]], %[[C128]] : index
// CHECK: arith.addi %[[BASE]], %[[S]] : index
// CHECK: arith.maxnumf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]] : tensor<128xf32>) outs(%arg1 : tensor<f32>)
// CHECK: arith.maxnumf
#m1 = affine_map<(d0) -> (d0)>
#s1 = affine_map<(d0) -> ()>
func.func @indexed_max(%x: tensor<4096xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#m1, #s1], iterator_types = ["reduction"]} ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %t = arith.mulf %a, %f : f32
    %s = arith.maxnumf %o, %t : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Must not fire: 4096 rows are enough threads (an RMSNorm row sum).
// CHECK-LABEL: func.func @rows
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
#r2 = affine_map<(d0, d1) -> (d0, d1)>
#o2 = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<4096x768xf32>, %init: tensor<4096xf32>) -> tensor<4096xf32> {
  %r = linalg.generic {indexing_maps = [#r2, #o2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4096x768xf32>) outs(%init : tensor<4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  return %r : tensor<4096xf32>
}

// -----

// Must not fire: the output is not `combiner(out, term)` (it is used
// twice), so no partial can start from a neutral element.
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
#v1 = affine_map<(d0) -> (d0)>
#w1 = affine_map<(d0) -> ()>
func.func @not_a_combiner(%x: tensor<65536xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#v1, #w1], iterator_types = ["reduction"]} ins(%x : tensor<65536xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %o, %o : f32
    %s = arith.addf %m, %a : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Must not fire: 200 terms make fewer than 8 parts of 32; a dynamic
// extent is not known to divide.
// CHECK-LABEL: func.func @too_short
// CHECK-NOT: tensor.expand_shape
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: tensor.expand_shape
#a1 = affine_map<(d0) -> (d0)>
#b1 = affine_map<(d0) -> ()>
func.func @too_short(%x: tensor<200xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#a1, #b1], iterator_types = ["reduction"]} ins(%x : tensor<200xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
func.func @dynamic(%x: tensor<?xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#a1, #b1], iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
