// RUN: gptc-opt %s -split-input-file --gptc-lower-optim -verify-diagnostics

// What gptc-lower-optim does not lower (yet) is reported, not left behind:
// the sliding-window schedule. (The SVD backend's errors:
// gptc-lower-optim-svd-errors.mlir.)

func.func @window_schedule(%step: tensor<i64>) -> tensor<i64> {
  // expected-error@+1 {{failed to legalize operation 'optim.window_schedule' that was explicitly marked illegal}}
  %w = optim.window_schedule %step total_steps = 3200 start = 64 end = 1792
      granularity = 64 rounding = floor
  return %w : tensor<i64>
}
