// RUN: gptc-opt %s -split-input-file --gptc-lower-optim -verify-diagnostics

// The SVD backend's errors. The runtime call needs a static shape, and a
// declaration of its name must have its type. (Run on a function instead
// of the module: gptc-lower-optim-svd-nested.mlir.)

func.func @dynamic(%g: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // expected-error@+1 {{'optim.svd_orthogonalize' op the SVD backend needs a static shape, got 'tensor<?x16xf32>'}}
  %o = optim.svd_orthogonalize %g : tensor<?x16xf32>
  return %o : tensor<?x16xf32>
}

// -----

// expected-error@+1 {{'func.func' op is the SVD runtime call and must have type}}
func.func private @gptc_svd_orthogonalize_f32(memref<?x?xf32>, memref<?x?xf32>)

func.func @bad_declaration(%g: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %o = optim.svd_orthogonalize %g : tensor<8x16xf32>
  return %o : tensor<8x16xf32>
}
