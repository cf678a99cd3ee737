// RUN: gptc-opt %s --gptc-gemm-to-blas | FileCheck %s

// After bufferization, one zero-filled tensor that initialises several GEMMs
// is one zero-filled buffer copied into each GEMM's C. Every copy of such a
// buffer (one written only by a zero fill, otherwise only read) becomes a
// zero fill of its target, which folds into beta = 0 when the GEMM follows;
// the buffer goes once nothing reads it.

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
// it may not hold zeros; beta = 1, and the copy right before the GEMM
// becomes its C (gptc-gemm-to-blas-epilogue.mlir).
// CHECK-LABEL: func.func @buffer_written_twice
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT: memref.copy
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

// Must not fire: the buffer is filled with a nonzero constant (beta = 1,
// the copy becomes the GEMM's C).
// CHECK-LABEL: func.func @nonzero_fill
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT: memref.copy
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

// The copy does not come right before the GEMM (C is read in between): it
// becomes a zero fill, but the GEMM accumulates (beta = 1) into what C
// holds then.
// CHECK-LABEL: func.func @copy_not_adjacent
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT: memref.copy
// CHECK: linalg.fill
// CHECK-NEXT: memref.load
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

// The zero buffer is also an input of a GEMM (a read): the copy still folds
// into beta = 0 and the buffer stays for the GEMM that reads it.
// CHECK-LABEL: func.func @zero_buffer_also_read
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[Z:.*]] = memref.alloc
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[Z]]
// CHECK-NOT: memref.copy
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ZERO]], {{.*}})
// CHECK: memref.extract_aligned_pointer_as_index %[[Z]]
// CHECK: call @gptc_gemm_f32
// CHECK: memref.dealloc %[[Z]]
func.func @zero_buffer_also_read(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                                 %c: memref<2x4xf32>, %w: memref<4x4xf32>,
                                 %d: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%z, %w : memref<2x4xf32>, memref<4x4xf32>) outs(%d : memref<2x4xf32>)
  memref.dealloc %z : memref<2x4xf32>
  return
}

// Bufferization lets the last GEMM write into the zero buffer itself: the
// copies before that write read zeros and fold; the last GEMM is the first
// writer of the buffer since its zero fill, so it gets beta = 0 too, and the
// fill goes (nothing reads the buffer in between).
// CHECK-LABEL: func.func @last_gemm_writes_zero_buffer
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.fill
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ZERO]], {{.*}})
// CHECK-NOT: linalg.fill
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ZERO]], {{.*}})
func.func @last_gemm_writes_zero_buffer(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                                        %c: memref<2x4xf32>) -> memref<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c : memref<2x4xf32> to memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%z : memref<2x4xf32>)
  return %z : memref<2x4xf32>
}

// The zero-filled C is read between its fill and the GEMM: beta = 0 still,
// but the fill stays for that read.
// CHECK-LABEL: func.func @read_between_fill_and_gemm
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[Z:.*]] = memref.alloc
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[Z]]
// CHECK-NEXT: memref.load %[[Z]]
// CHECK: call @gptc_gemm_f32({{.*}}, %[[ZERO]], {{.*}})
func.func @read_between_fill_and_gemm(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                                      %i: index) -> (memref<2x4xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  %x = memref.load %z[%i, %i] : memref<2x4xf32>
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%z : memref<2x4xf32>)
  return %z, %x : memref<2x4xf32>, f32
}

// Must not fire: a copy made after the buffer was written again.
// CHECK-LABEL: func.func @copy_after_write
// CHECK: call @gptc_gemm_f32
// CHECK-NEXT: memref.copy
func.func @copy_after_write(%a: memref<2x3xf32>, %b: memref<3x4xf32>,
                            %c: memref<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %z = memref.alloc() : memref<2x4xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<2x4xf32>)
  linalg.matmul indexing_maps = [#mk, #kn, #mn]
    ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%z : memref<2x4xf32>)
  memref.copy %z, %c : memref<2x4xf32> to memref<2x4xf32>
  memref.dealloc %z : memref<2x4xf32>
  return
}
