// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-fuse-newton-schulz))' --split-input-file | FileCheck %s

// Two wide and two tall matrices with the same settings: one batched
// iteration per shape, each result sliced back out for its user.
// CHECK-LABEL: func.func @wide_and_tall
// CHECK:         %[[W:.*]] = gpt.concat %{{.*}}, %{{.*}} dim = 0 : (tensor<1x32x128xf32>, tensor<1x32x128xf32>) -> tensor<2x32x128xf32>
// CHECK-NEXT:    optim.newton_schulz %[[W]] {{.*}} : tensor<2x32x128xf32>
// CHECK-COUNT-2: gpt.slice
// CHECK:         %[[T:.*]] = gpt.concat %{{.*}}, %{{.*}} dim = 0 : (tensor<1x96x48xf32>, tensor<1x96x48xf32>) -> tensor<2x96x48xf32>
// CHECK-NEXT:    optim.newton_schulz %[[T]] {{.*}} : tensor<2x96x48xf32>
// CHECK-COUNT-2: gpt.slice
// CHECK-NOT:     optim.newton_schulz
// CHECK:         gpt.mul_scalar
// CHECK:         return
func.func @wide_and_tall(%a: tensor<32x128xf32>, %b: tensor<32x128xf32>, %c: tensor<96x48xf32>, %d: tensor<96x48xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>, tensor<96x48xf32>, tensor<96x48xf32>) {
  %0 = optim.newton_schulz %a steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  %1 = gpt.mul_scalar %0, 2.0 : tensor<32x128xf32>
  %2 = optim.newton_schulz %c steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<96x48xf32>
  %3 = optim.newton_schulz %b steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  %4 = optim.newton_schulz %d steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<96x48xf32>
  return %1, %3, %2, %4 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<96x48xf32>, tensor<96x48xf32>
}

// -----

// Must not fire: same shape, different settings (steps); a matrix alone in
// its shape; an input that is already a batch.
// CHECK-LABEL: func.func @different_settings
// CHECK-NOT:     gpt.concat
// CHECK-COUNT-4: optim.newton_schulz %arg
func.func @different_settings(%a: tensor<32x128xf32>, %b: tensor<32x128xf32>, %c: tensor<64x64xf32>, %d: tensor<2x16x16xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>, tensor<64x64xf32>, tensor<2x16x16xf32>) {
  %0 = optim.newton_schulz %a steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  %1 = optim.newton_schulz %b steps = 4 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  %2 = optim.newton_schulz %c steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<64x64xf32>
  %3 = optim.newton_schulz %d steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<2x16x16xf32>
  return %0, %1, %2, %3 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<64x64xf32>, tensor<2x16x16xf32>
}

// -----

// max-batch: three same-shape matrices with max-batch=2 make a batch of the
// first two (program order); the third is alone and stays as it is.
// RUN: gptc-opt %s --pass-pipeline='builtin.module(func.func(gptc-fuse-newton-schulz{max-batch=2}))' --split-input-file | FileCheck %s --check-prefix=MAX2
// MAX2-LABEL: func.func @three_of_a_shape
// MAX2:         optim.newton_schulz %arg2 {{.*}} : tensor<32x128xf32>
// MAX2-NEXT:    %[[A:.*]] = gpt.reshape %arg0
// MAX2-NEXT:    %[[B:.*]] = gpt.reshape %arg1
// MAX2-NEXT:    %[[S:.*]] = gpt.concat %[[A]], %[[B]] dim = 0
// MAX2-NEXT:    optim.newton_schulz %[[S]] {{.*}} : tensor<2x32x128xf32>
// MAX2-NOT:     gpt.concat
func.func @three_of_a_shape(%a: tensor<32x128xf32>, %b: tensor<32x128xf32>, %c: tensor<32x128xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>) {
  %0 = optim.newton_schulz %a steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  %1 = optim.newton_schulz %b steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  %2 = optim.newton_schulz %c steps = 5 coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<32x128xf32>
  return %0, %1, %2 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<32x128xf32>
}
