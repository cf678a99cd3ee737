// RUN: gptc-opt %s -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(gptc-lower-optim))' \
// RUN:   | FileCheck %s

// Run on a function (nested under the module), gptc-lower-optim may not
// add the SVD callee to the module: the declaration must be there already,
// and its absence is reported at the op that needs it.

func.func @undeclared(%p: tensor<12x4xf32>, %g: tensor<12x4xf32>, %buf: tensor<12x4xf32>,
                      %lr: tensor<f64>, %m: tensor<f64>) -> (tensor<12x4xf32>, tensor<12x4xf32>) {
  // expected-error@+1 {{'optim.muon' op lowers to a call of @gptc_svd_orthogonalize_f32, which is not declared: run gptc-lower-optim on the module}}
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum
      update_scale = none backend = svd steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side normalize = after_cast
      compute_dtype = bf16 weight_decay = 0.0 : tensor<12x4xf32>
  return %p1, %b1 : tensor<12x4xf32>, tensor<12x4xf32>
}

// -----

// With the declaration in place, the nested pass lowers as on the module.
// CHECK-LABEL: func.func @declared
// CHECK: call @gptc_svd_orthogonalize_f64(
// CHECK-NOT: optim.
func.func private @gptc_svd_orthogonalize_f64(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}

func.func @declared(%g: tensor<16x8xf64>) -> tensor<16x8xf64> {
  %o = optim.svd_orthogonalize %g : tensor<16x8xf64>
  return %o : tensor<16x8xf64>
}
