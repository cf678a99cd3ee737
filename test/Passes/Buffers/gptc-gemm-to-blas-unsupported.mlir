// RUN: gptc-opt %s -split-input-file --gptc-gemm-to-blas -verify-diagnostics

// Regression test (fixed; gptc-gemm-to-blas, passes/Lowering/GemmToBlas.cpp): GEMMs the
// runtime has no entry point for are turned into calls anyway, with wrong
// data. The callee is chosen from C's element type alone (anything but f32
// and f64 becomes gptc_gemm_bf16, and bf16 operands accumulating into an f32
// C call gptc_gemm_f32), and m/n/k are read with getDimSize, so a dynamic
// dimension is passed as INT64_MIN. These GEMMs should be left alone and
// reported like any other GEMM the pass cannot handle. (Unreachable from the
// gptc pipeline today: gpt has no f16, integer or dynamically shaped GEMMs.)

func.func @f16(%a: memref<2x3xf16>, %b: memref<3x4xf16>, %c: memref<2x4xf16>) {
  // expected-error@+1 {{'linalg.matmul' op could not be turned into a GEMM library call}}
  linalg.matmul ins(%a, %b : memref<2x3xf16>, memref<3x4xf16>) outs(%c : memref<2x4xf16>)
  return
}

// -----

func.func @i32(%a: memref<2x3xi32>, %b: memref<3x4xi32>, %c: memref<2x4xi32>) {
  // expected-error@+1 {{'linalg.matmul' op could not be turned into a GEMM library call}}
  linalg.matmul ins(%a, %b : memref<2x3xi32>, memref<3x4xi32>) outs(%c : memref<2x4xi32>)
  return
}

// -----

// f32 operands into a bf16 C (bf16 operands into an f32 C are
// gptc_gemm_bf16_f32's: gptc-gemm-to-blas.mlir).
func.func @f32_into_bf16(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xbf16>) {
  // expected-error@+1 {{'linalg.matmul' op could not be turned into a GEMM library call}}
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xbf16>)
  return
}

// -----

func.func @bf16_and_f32_into_f32(%a: memref<2x3xbf16>, %b: memref<3x4xf32>, %c: memref<2x4xf32>) {
  // expected-error@+1 {{'linalg.matmul' op could not be turned into a GEMM library call}}
  linalg.matmul ins(%a, %b : memref<2x3xbf16>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  return
}

// -----

func.func @dynamic_m(%a: memref<?x3xf32>, %b: memref<3x4xf32>, %c: memref<?x4xf32>) {
  // expected-error@+1 {{'linalg.matmul' op could not be turned into a GEMM library call}}
  linalg.matmul ins(%a, %b : memref<?x3xf32>, memref<3x4xf32>) outs(%c : memref<?x4xf32>)
  return
}
