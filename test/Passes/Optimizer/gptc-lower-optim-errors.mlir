// RUN: gptc-opt %s -split-input-file --gptc-lower-optim -verify-diagnostics

// What gptc-lower-optim does not lower (yet) is reported, not left behind:
// the SVD backend of Muon and the sliding-window schedule.

func.func @muon_svd(%p: tensor<12x4xf32>, %g: tensor<12x4xf32>, %buf: tensor<12x4xf32>,
                    %lr: tensor<f32>, %m: tensor<f32>) -> (tensor<12x4xf32>, tensor<12x4xf32>) {
  // expected-error@+1 {{failed to legalize operation 'optim.muon' that was explicitly marked illegal}}
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim qkv_split backend = svd steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = apply_then_combine transpose = short_side normalize = before_cast
      compute_dtype = bf16 weight_decay = 0.0 : tensor<12x4xf32>
  return %p1, %b1 : tensor<12x4xf32>, tensor<12x4xf32>
}

// -----

func.func @svd_orthogonalize(%g: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error@+1 {{failed to legalize operation 'optim.svd_orthogonalize' that was explicitly marked illegal}}
  %o = optim.svd_orthogonalize %g : tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// -----

func.func @window_schedule(%step: tensor<i64>) -> tensor<i64> {
  // expected-error@+1 {{failed to legalize operation 'optim.window_schedule' that was explicitly marked illegal}}
  %w = optim.window_schedule %step total_steps = 3200 start = 64 end = 1792
      granularity = 64 rounding = floor
  return %w : tensor<i64>
}
