// RUN: gptc-opt %s --gptc-gemm-to-blas | FileCheck %s

// The epilogue of the runtime GEMM, D = alpha op(A) op(B) + beta C: alpha
// from a scaled contraction (a linalg.generic whose body is
// out + (a * b) * alpha, in f32 between extf / truncf for bf16), beta and C
// from what initialised D right before the GEMM: a scaled copy
// (out = in * beta) or a memref.copy (C = its source, beta = 1). This is
// how gpt.matmul_add (Newton-Schulz's B = b A + c A A, X = a X + B X)
// reaches the runtime without a kernel of its own.

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#id2 = affine_map<(i, j) -> (i, j)>

// A scaled contraction accumulating into D itself: alpha = -0.5, beta = 1,
// C = D.
// CHECK-LABEL: func.func @scaled_contraction
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<2x3xf32>, %[[B:[a-z0-9_]+]]: memref<3x4xf32>, %[[D:[a-z0-9_]+]]: memref<2x4xf32>)
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant -5.000000e-01 : f32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-NOT: linalg.generic
// CHECK: %[[PD:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK-NEXT: %[[AD:.*]] = arith.index_cast %[[PD]] : index to i64
// CHECK-NEXT: call @gptc_gemm_f32(%[[I0]], %[[I0]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I3]], %[[I1]], %[[I0]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %[[ALPHA]], %[[BETA]], %[[AD]], %[[I4]], %[[I1]], %[[I0]], %[[AD]], %[[I4]], %[[I1]], %[[I0]], %[[I1]])
// CHECK-NOT: linalg.
func.func @scaled_contraction(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %d: memref<2x4xf32>) {
  %alpha = arith.constant -0.5 : f32
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.mulf %p, %alpha : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  }
  return
}

// Newton-Schulz's B = b A + c A A in bf16 (batched): the scaled copy of A
// into D (beta = b) and the scaled contraction (alpha = c) become one call
// with C = A and D separate; both generics are gone.
// CHECK-LABEL: func.func @bf16_scale_add
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<2x8x8xbf16>, %[[D:[a-z0-9_]+]]: memref<2x8x8xbf16>)
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant -4.775000e+00 : f32
// CHECK-DAG: %[[BETA:.*]] = arith.constant 2.031500e+00 : f32
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I64:.*]] = arith.constant 64 : i64
// CHECK-NOT: linalg.generic
// A's address is taken for A, for B, then for C.
// CHECK-COUNT-2: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-NEXT: %[[AA:.*]] = arith.index_cast %[[PA]] : index to i64
// CHECK-NEXT: %[[PD:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK-NEXT: %[[AD:.*]] = arith.index_cast %[[PD]] : index to i64
// CHECK-NEXT: call @gptc_gemm_bf16(%[[I0]], %[[I0]], %[[I8]], %[[I8]], %[[I8]], %{{.*}}, %[[I8]], %[[I1]], %[[I64]], %{{.*}}, %[[I8]], %[[I1]], %[[I64]], %[[ALPHA]], %[[BETA]], %[[AA]], %[[I8]], %[[I1]], %[[I64]], %[[AD]], %[[I8]], %[[I1]], %[[I64]], %[[I2]])
// CHECK-NOT: linalg.
func.func @bf16_scale_add(%a: memref<2x8x8xbf16>, %d: memref<2x8x8xbf16>) {
  %beta = arith.constant 2.0315 : f32
  %alpha = arith.constant -4.775 : f32
  linalg.generic {indexing_maps = [#id3, #id3],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<2x8x8xbf16>) outs(%d : memref<2x8x8xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %w = arith.extf %x : bf16 to f32
    %s = arith.mulf %w, %beta : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  linalg.generic {indexing_maps = [#bmk, #bkn, #bmn],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %a : memref<2x8x8xbf16>, memref<2x8x8xbf16>) outs(%d : memref<2x8x8xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %acc: bf16):
    %xw = arith.extf %x : bf16 to f32
    %yw = arith.extf %y : bf16 to f32
    %p = arith.mulf %xw, %yw : f32
    %s = arith.mulf %p, %alpha : f32
    %accw = arith.extf %acc : bf16 to f32
    %r = arith.addf %accw, %s : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// A copy into D right before the GEMM: C = the copy's source, beta = 1,
// the copy is gone.
// CHECK-LABEL: func.func @copy_becomes_c
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<2x3xf32>, %[[B:[a-z0-9_]+]]: memref<3x4xf32>, %[[S:[a-z0-9_]+]]: memref<2x4xf32>, %[[D:[a-z0-9_]+]]: memref<2x4xf32>)
// CHECK-NOT: memref.copy
// CHECK: %[[PS:.*]] = memref.extract_aligned_pointer_as_index %[[S]]
// CHECK-NEXT: %[[AS:.*]] = arith.index_cast %[[PS]] : index to i64
// CHECK: %[[PD:.*]] = memref.extract_aligned_pointer_as_index %[[D]]
// CHECK-NEXT: %[[AD:.*]] = arith.index_cast %[[PD]] : index to i64
// CHECK-NEXT: call @gptc_gemm_f32({{.*}}, %[[AS]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[AD]], {{.*}})
// CHECK-NOT: memref.copy
func.func @copy_becomes_c(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %s: memref<2x4xf32>, %d: memref<2x4xf32>) {
  memref.copy %s, %d : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>)
  return
}

// Must not fire: alpha that is not a constant (the generic stays a
// kernel); a scaled copy with a read of D between it and the GEMM (it
// stays, C = D); a generic that adds rather than scales (it stays); a
// scaled copy into another buffer (it stays).
// CHECK-LABEL: func.func @not_epilogues
// CHECK: linalg.generic
// CHECK-SAME: "reduction"
// CHECK: linalg.generic
// CHECK: memref.load
// CHECK: call @gptc_gemm_f32
// CHECK: linalg.generic
// CHECK: call @gptc_gemm_f32
// CHECK: linalg.generic
// CHECK: call @gptc_gemm_f32
// CHECK: return
func.func @not_epilogues(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>,
                         %d: memref<2x4xf32>, %e: memref<2x4xf32>, %s: f32) -> f32 {
  linalg.generic {indexing_maps = [#mk, #kn, #mn],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %s : f32
    %r = arith.addf %acc, %q : f32
    linalg.yield %r : f32
  }
  %two = arith.constant 2.0 : f32
  %i = arith.constant 0 : index
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<2x4xf32>) outs(%d : memref<2x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %x, %two : f32
    linalg.yield %t : f32
  }
  %v = memref.load %d[%i, %i] : memref<2x4xf32>
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<2x4xf32>) outs(%d : memref<2x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.addf %x, %two : f32
    linalg.yield %t : f32
  }
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<2x4xf32>) outs(%e : memref<2x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %x, %two : f32
    linalg.yield %t : f32
  }
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%d : memref<2x4xf32>)
  return %v : f32
}
