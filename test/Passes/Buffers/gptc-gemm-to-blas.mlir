// RUN: gptc-opt %s --gptc-gemm-to-blas | FileCheck %s

// gptc-gemm-to-blas: every linalg.matmul / linalg.batch_matmul on buffers
// becomes a call of the runtime GEMM (runtime/gptrt.h)
//
//   gptc_gemm_<type>(trans_a, trans_b, m, n, k,
//                    a, a_row_stride, a_col_stride, a_batch_stride,
//                    b, b_row_stride, b_col_stride, b_batch_stride,
//                    beta,
//                    c, c_row_stride, c_col_stride, c_batch_stride, batch)
//
// with the transposes read from the indexing maps, addresses and strides
// from the memrefs (all static here, so they fold to constants), and
// beta = 0 when a zero linalg.fill of C comes right before (the fill is
// then erased), beta = 1 otherwise. (Failures: gptc-gemm-to-blas-errors.mlir.)

// The callees are declared once per element type; bf16 takes an f32 beta.
// CHECK-DAG: func.func private @gptc_gemm_f32(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @gptc_gemm_f64(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f64, f64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @gptc_gemm_bf16(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32, i64, i64, i64, i64, i64, i64, i64, i64, i64)

#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bkm = affine_map<(b, m, n, k) -> (b, k, m)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>

//===----------------------------------------------------------------------===//
// linalg.matmul: C[2x4] = op(A) op(B), k = 3
//===----------------------------------------------------------------------===//

// A B after a zero fill: beta = 0, the fill is gone.
// CHECK-LABEL: func.func @matmul_nn
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<2x3xf32>, %[[B:[a-z0-9_]+]]: memref<3x4xf32>, %[[C:[a-z0-9_]+]]: memref<2x4xf32>)
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-NEXT: %[[AA:.*]] = arith.index_cast %[[PA]] : index to i64
// CHECK-NEXT: %[[PB:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-NEXT: %[[AB:.*]] = arith.index_cast %[[PB]] : index to i64
// CHECK-NEXT: %[[PC:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-NEXT: %[[AC:.*]] = arith.index_cast %[[PC]] : index to i64
// ta = tb = 0, m = 2, n = 4, k = 3, A (rs 3, cs 1), B (4, 1), beta, C (4, 1),
// batch strides 0, batch 1.
// CHECK-NEXT: call @gptc_gemm_f32(%[[I0]], %[[I0]], %[[I2]], %[[I4]], %[[I3]], %[[AA]], %[[I3]], %[[I1]], %[[I0]], %[[AB]], %[[I4]], %[[I1]], %[[I0]], %{{[^,]+}}, %[[BETA]], %[[AC]], %[[I4]], %[[I1]], %[[I0]], %[[AC]], %[[I4]], %[[I1]], %[[I0]], %[[I1]])
// CHECK-NOT: linalg.
// CHECK: return
func.func @matmul_nn(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// A^T B, no fill: accumulate into C (beta = 1). A is [k, m]: row stride 2.
// CHECK-LABEL: func.func @matmul_tn
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @gptc_gemm_f32(%[[I1]], %[[I0]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I2]], %[[I1]], %[[I0]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %[[I1]])
func.func @matmul_tn(%a: memref<3x2xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%a, %b : memref<3x2xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// A B^T (a linear layer): B is [n, k], row stride 3.
// CHECK-LABEL: func.func @matmul_nt
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @gptc_gemm_f32(%[[I0]], %[[I1]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I3]], %[[I1]], %[[I0]], %{{.*}}, %[[I3]], %[[I1]], %[[I0]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %[[I1]])
func.func @matmul_nt(%a: memref<2x3xf32>, %b: memref<4x3xf32>, %c: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%a, %b : memref<2x3xf32>, memref<4x3xf32>) outs(%c : memref<2x4xf32>)
  return
}

// A^T B^T
// CHECK-LABEL: func.func @matmul_tt
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @gptc_gemm_f32(%[[I1]], %[[I1]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I2]], %[[I1]], %[[I0]], %{{.*}}, %[[I3]], %[[I1]], %[[I0]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %{{.*}}, %[[I4]], %[[I1]], %[[I0]], %[[I1]])
func.func @matmul_tt(%a: memref<3x2xf32>, %b: memref<4x3xf32>, %c: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul indexing_maps = [#km, #nk, #mn]
      ins(%a, %b : memref<3x2xf32>, memref<4x3xf32>) outs(%c : memref<2x4xf32>)
  return
}

//===----------------------------------------------------------------------===//
// linalg.batch_matmul: 5 batches of C[2x4], k = 3; batch strides are the
// matrix sizes (A 6, B 12, C 8)
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @batch_matmul_nn
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[I5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[I6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I12:.*]] = arith.constant 12 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: call @gptc_gemm_f32(%[[I0]], %[[I0]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I3]], %[[I1]], %[[I6]], %{{.*}}, %[[I4]], %[[I1]], %[[I12]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %[[I5]])
func.func @batch_matmul_nn(%a: memref<5x2x3xf32>, %b: memref<5x3x4xf32>, %c: memref<5x2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<5x2x4xf32>)
  linalg.batch_matmul ins(%a, %b : memref<5x2x3xf32>, memref<5x3x4xf32>) outs(%c : memref<5x2x4xf32>)
  return
}

// CHECK-LABEL: func.func @batch_matmul_tn
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[I5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[I6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I12:.*]] = arith.constant 12 : i64
// CHECK: call @gptc_gemm_f32(%[[I1]], %[[I0]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I2]], %[[I1]], %[[I6]], %{{.*}}, %[[I4]], %[[I1]], %[[I12]], %{{[^,]+}}, %{{.*}}, %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %[[I5]])
func.func @batch_matmul_tn(%a: memref<5x3x2xf32>, %b: memref<5x3x4xf32>, %c: memref<5x2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<5x2x4xf32>)
  linalg.batch_matmul indexing_maps = [#bkm, #bkn, #bmn]
      ins(%a, %b : memref<5x3x2xf32>, memref<5x3x4xf32>) outs(%c : memref<5x2x4xf32>)
  return
}

// CHECK-LABEL: func.func @batch_matmul_nt
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[I5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[I6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I12:.*]] = arith.constant 12 : i64
// CHECK: call @gptc_gemm_f32(%[[I0]], %[[I1]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I3]], %[[I1]], %[[I6]], %{{.*}}, %[[I3]], %[[I1]], %[[I12]], %{{[^,]+}}, %{{.*}}, %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %[[I5]])
func.func @batch_matmul_nt(%a: memref<5x2x3xf32>, %b: memref<5x4x3xf32>, %c: memref<5x2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<5x2x4xf32>)
  linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%a, %b : memref<5x2x3xf32>, memref<5x4x3xf32>) outs(%c : memref<5x2x4xf32>)
  return
}

// CHECK-LABEL: func.func @batch_matmul_tt
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[I3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[I5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[I6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I12:.*]] = arith.constant 12 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @gptc_gemm_f32(%[[I1]], %[[I1]], %[[I2]], %[[I4]], %[[I3]], %{{.*}}, %[[I2]], %[[I1]], %[[I6]], %{{.*}}, %[[I3]], %[[I1]], %[[I12]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %{{.*}}, %[[I4]], %[[I1]], %[[I8]], %[[I5]])
func.func @batch_matmul_tt(%a: memref<5x3x2xf32>, %b: memref<5x4x3xf32>, %c: memref<5x2x4xf32>) {
  linalg.batch_matmul indexing_maps = [#bkm, #bnk, #bmn]
      ins(%a, %b : memref<5x3x2xf32>, memref<5x4x3xf32>) outs(%c : memref<5x2x4xf32>)
  return
}

//===----------------------------------------------------------------------===//
// Element types and layouts
//===----------------------------------------------------------------------===//

// f64 calls gptc_gemm_f64 with an f64 beta. A is a strided view at offset 4:
// its address is advanced by 4 * 8 bytes and its row stride is 8.
// CHECK-LABEL: func.func @matmul_f64_strided
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: memref<2x3xf64, strided<[8, 1], offset: 4>>
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[OFF:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[PA:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-NEXT: %[[PA4:.*]] = arith.addi %[[PA]], %[[OFF]] : index
// CHECK-NEXT: %[[AA:.*]] = arith.index_cast %[[PA4]] : index to i64
// CHECK: call @gptc_gemm_f64(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AA]], %[[I8]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BETA]], %{{.*}}) : (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f64,
func.func @matmul_f64_strided(%a: memref<2x3xf64, strided<[8, 1], offset: 4>>,
                              %b: memref<3x4xf64>, %c: memref<2x4xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<2x4xf64>)
  linalg.matmul ins(%a, %b : memref<2x3xf64, strided<[8, 1], offset: 4>>, memref<3x4xf64>)
      outs(%c : memref<2x4xf64>)
  return
}

// bf16 (attention scores, q k^T) calls gptc_gemm_bf16 with an f32 beta.
// CHECK-LABEL: func.func @batch_matmul_bf16
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[I64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[I128:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: call @gptc_gemm_bf16(%[[I0]], %[[I1]], %[[I8]], %[[I8]], %[[I16]], %{{.*}}, %[[I16]], %[[I1]], %[[I128]], %{{.*}}, %[[I16]], %[[I1]], %[[I128]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I8]], %[[I1]], %[[I64]], %{{.*}}, %[[I8]], %[[I1]], %[[I64]], %[[I8]])
func.func @batch_matmul_bf16(%q: memref<8x8x16xbf16>, %k: memref<8x8x16xbf16>, %s: memref<8x8x8xbf16>) {
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%s : memref<8x8x8xbf16>)
  linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%q, %k : memref<8x8x16xbf16>, memref<8x8x16xbf16>) outs(%s : memref<8x8x8xbf16>)
  return
}

// bf16 operands into f32 results (gptc-split-k's partial products) call
// gptc_gemm_bf16_f32: A's strides in bf16 elements, D's in f32 ones.
// CHECK-LABEL: func.func @batch_matmul_bf16_f32
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[I4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[I8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[I32:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[I64:.*]] = arith.constant 64 : i64
// CHECK-DAG: %[[BETA:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: call @gptc_gemm_bf16_f32(%[[I1]], %[[I0]], %[[I4]], %[[I8]], %[[I8]], %{{.*}}, %[[I4]], %[[I1]], %[[I32]], %{{.*}}, %[[I8]], %[[I1]], %[[I64]], %{{[^,]+}}, %[[BETA]], %{{.*}}, %[[I8]], %[[I1]], %[[I32]], %{{.*}}, %[[I8]], %[[I1]], %[[I32]], %[[I4]])
// CHECK-SAME: (i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, f32,
func.func @batch_matmul_bf16_f32(%a: memref<4x8x4xbf16>, %b: memref<4x8x8xbf16>, %p: memref<4x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%p : memref<4x4x8xf32>)
  linalg.batch_matmul indexing_maps = [#bkm, #bkn, #bmn]
      ins(%a, %b : memref<4x8x4xbf16>, memref<4x8x8xbf16>) outs(%p : memref<4x4x8xf32>)
  return
}

//===----------------------------------------------------------------------===//
// Fills that are not folded into beta (must not fire)
//===----------------------------------------------------------------------===//

// A non-zero fill, a zero fill of another buffer, and a zero fill of C with
// an op in between all stay, and their GEMMs accumulate (beta = 1).
// CHECK-LABEL: func.func @fills_kept
// CHECK-SAME: (%{{.*}}: memref<2x3xf32>, %{{.*}}: memref<3x4xf32>, %[[C:[a-z0-9_]+]]: memref<2x4xf32>, %[[D:[a-z0-9_]+]]: memref<2x4xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32) outs(%[[C]] : memref<2x4xf32>)
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ONE]], {{.*}})
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[D]] : memref<2x4xf32>)
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ONE]], {{.*}})
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%[[C]] : memref<2x4xf32>)
// CHECK-NEXT: memref.copy
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ONE]], {{.*}})
// CHECK-NOT: linalg.matmul
func.func @fills_kept(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>,
                      %d: memref<2x4xf32>) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<2x4xf32>)
  memref.copy %d, %d : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}
