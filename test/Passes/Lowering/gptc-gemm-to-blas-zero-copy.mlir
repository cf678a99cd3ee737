// RUN: gptc-opt %s --gptc-gemm-to-blas | FileCheck %s

// After bufferization, one zero-filled tensor that initialises several GEMMs
// is one zero-filled buffer copied into each GEMM's C. A copy of such a
// buffer right before the GEMM folds into beta = 0 like a zero fill, and the
// buffer goes once no copy reads it.

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// Two GEMMs initialised from one zero buffer: both beta = 0, no copies,
// and the buffer, its fill and its dealloc are gone.
// CHECK-LABEL: func.func @shared_zero_init
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ZERO]], {{.*}})
// CHECK-NOT: memref.copy
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ZERO]], {{.*}})
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @shared_zero_init(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                            %c1: memref<2x4xf32>, %c2: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c1 : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c1 : memref<2x4xf32>)
  memref.copy %z, %c2 : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c2 : memref<2x4xf32>)
  memref.dealloc %z : memref<2x4xf32>
  return
}

// Must not fire: the copied buffer has another writer (a second fill), so
// it may not hold zeros; the copy stays and beta = 1.
// CHECK-LABEL: func.func @buffer_written_twice
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: memref.copy
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ONE]], {{.*}})
func.func @buffer_written_twice(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                                %c: memref<2x4xf32>, %v: f32) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  linalg.fill ins(%v : f32) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  memref.dealloc %z : memref<2x4xf32>
  return
}

// Must not fire: the buffer is filled with a nonzero constant.
// CHECK-LABEL: func.func @nonzero_fill
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: memref.copy
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ONE]], {{.*}})
func.func @nonzero_fill(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                        %c: memref<2x4xf32>) {
  %two = arith.constant 2.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%two : f32) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  memref.dealloc %z : memref<2x4xf32>
  return
}

// Must not fire: the copy does not come right before the GEMM (C is read
// in between), so the GEMM accumulates into what C holds then.
// CHECK-LABEL: func.func @copy_not_adjacent
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: memref.copy
// CHECK: memref.load
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ONE]], {{.*}})
func.func @copy_not_adjacent(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                             %c: memref<2x4xf32>, %i: index) -> f32 {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c : memref<2x4xf32> to memref<2x4xf32>
  %x = memref.load %c[%i, %i] : memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  memref.dealloc %z : memref<2x4xf32>
  return %x : f32
}
