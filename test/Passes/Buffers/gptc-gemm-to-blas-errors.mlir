// RUN: gptc-opt %s -split-input-file --gptc-gemm-to-blas -verify-diagnostics

// gptc-gemm-to-blas only rewrites GEMMs on buffers (after bufferization); a
// GEMM on tensors is left alone and the pass reports it.

func.func @matmul_on_tensors(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{'linalg.matmul' op could not be turned into a GEMM library call}}
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @batch_matmul_on_tensors(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>, %c: tensor<5x2x4xf32>) -> tensor<5x2x4xf32> {
  // expected-error@+1 {{'linalg.batch_matmul' op could not be turned into a GEMM library call}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<5x2x3xf32>, tensor<5x3x4xf32>) outs(%c : tensor<5x2x4xf32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}
