// RUN: gptc-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the optim ops, then the ODS constraints the
// assembly format cannot express (0-d scalars, matching types).

//===----------------------------------------------------------------------===//
// optim.newton_schulz
//===----------------------------------------------------------------------===//

func.func @ns_rank(%g: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'optim.newton_schulz' op expects a matrix or a batch of matrices (rank >= 2), got rank 1}}
  %o = optim.newton_schulz %g steps = 5 coefficients = [3.4445, -4.775, 2.0315]
      eps = 1.0e-7 form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 : tensor<16xf32>
  return %o : tensor<16xf32>
}

// -----

func.func @ns_steps(%g: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'optim.newton_schulz' op steps must be at least 1, got 0}}
  %o = optim.newton_schulz %g steps = 0 coefficients = [3.4445, -4.775, 2.0315]
      eps = 1.0e-7 form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 : tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}

// -----

func.func @ns_coefficients(%g: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'optim.newton_schulz' op coefficients must be exactly 3 values (a, b, c), got 2}}
  %o = optim.newton_schulz %g steps = 5 coefficients = [3.4445, -4.775]
      eps = 1.0e-7 form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 : tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}

// -----

func.func @ns_eps(%g: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'optim.newton_schulz' op eps must be positive, got 0}}
  %o = optim.newton_schulz %g steps = 5 coefficients = [3.4445, -4.775, 2.0315]
      eps = 0.0 form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 : tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}

// -----

func.func @ns_compute_dtype(%g: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'optim.newton_schulz' op compute_dtype must be bf16, f32 or f64, got 'f16'}}
  %o = optim.newton_schulz %g steps = 5 coefficients = [3.4445, -4.775, 2.0315]
      eps = 1.0e-7 form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = f16 : tensor<16x16xf32>
  return %o : tensor<16x16xf32>
}

//===----------------------------------------------------------------------===//
// optim.svd_orthogonalize
//===----------------------------------------------------------------------===//

// -----

func.func @svd_rank(%g: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'optim.svd_orthogonalize' op expects a matrix or a batch of matrices (rank >= 2), got rank 0}}
  %o = optim.svd_orthogonalize %g : tensor<f32>
  return %o : tensor<f32>
}

//===----------------------------------------------------------------------===//
// optim.muon
//===----------------------------------------------------------------------===//

// -----

func.func @muon_rank(%p: tensor<64xf32>, %lr: tensor<f64>, %m: tensor<f64>) {
  // expected-error @+1 {{'optim.muon' op expects a matrix or a batch of matrices (rank >= 2), got rank 1}}
  %p1, %b1 = optim.muon %p, %p, %p, %lr, %m momentum_form = lerp nesterov
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = 0.0
      : tensor<64xf32>
  return
}

// -----

func.func @muon_qkv_split(%p: tensor<128x64xf32>, %lr: tensor<f64>,
                          %m: tensor<f64>) {
  // expected-error @+1 {{'optim.muon' op qkv_split needs rows = 3 * cols, got 128x64}}
  %p1, %b1 = optim.muon %p, %p, %p, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim qkv_split backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7
      form = apply_then_combine transpose = short_side
      normalize = before_cast compute_dtype = bf16 weight_decay = 0.0
      : tensor<128x64xf32>
  return
}

// -----

// The Newton-Schulz attributes of optim.muon go through the checks of
// optim.newton_schulz.
func.func @muon_ns_attrs(%p: tensor<64x64xf32>, %lr: tensor<f64>,
                         %m: tensor<f64>) {
  // expected-error @+1 {{'optim.muon' op coefficients must be exactly 3 values (a, b, c), got 4}}
  %p1, %b1 = optim.muon %p, %p, %p, %lr, %m momentum_form = lerp nesterov
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.775, 2.0315, 1.0] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = 0.0
      : tensor<64x64xf32>
  return
}

// -----

func.func @muon_weight_decay(%p: tensor<64x64xf32>, %lr: tensor<f64>,
                             %m: tensor<f64>) {
  // expected-error @+1 {{'optim.muon' op weight_decay must be non-negative, got -0.1}}
  %p1, %b1 = optim.muon %p, %p, %p, %lr, %m momentum_form = lerp nesterov
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.775, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = -0.1
      : tensor<64x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// optim.adam
//===----------------------------------------------------------------------===//

// -----

func.func @adam_beta1(%p: tensor<8xf32>, %lr: tensor<f64>, %s: tensor<i64>) {
  // expected-error @+1 {{'optim.adam' op beta1 must be in [0, 1), got 1}}
  %p1, %m1, %v1 = optim.adam %p, %p, %p, %p, %lr, %s beta1 = 1.0 beta2 = 0.95
      eps = 1.0e-8 weight_decay = 0.0 : tensor<8xf32>
  return
}

// -----

func.func @adam_beta2(%p: tensor<8xf32>, %lr: tensor<f64>, %s: tensor<i64>) {
  // expected-error @+1 {{'optim.adam' op beta2 must be in [0, 1), got -0.5}}
  %p1, %m1, %v1 = optim.adam %p, %p, %p, %p, %lr, %s beta1 = 0.9 beta2 = -0.5
      eps = 1.0e-8 weight_decay = 0.0 : tensor<8xf32>
  return
}

// -----

func.func @adam_eps(%p: tensor<8xf32>, %lr: tensor<f64>, %s: tensor<i64>) {
  // expected-error @+1 {{'optim.adam' op eps must be positive, got -1e-08}}
  %p1, %m1, %v1 = optim.adam %p, %p, %p, %p, %lr, %s beta1 = 0.9 beta2 = 0.95
      eps = -1.0e-8 weight_decay = 0.0 : tensor<8xf32>
  return
}

// -----

func.func @adam_weight_decay(%p: tensor<8xf32>, %lr: tensor<f64>,
                             %s: tensor<i64>) {
  // expected-error @+1 {{'optim.adam' op weight_decay must be non-negative, got -1}}
  %p1, %m1, %v1 = optim.adam %p, %p, %p, %p, %lr, %s beta1 = 0.9 beta2 = 0.95
      eps = 1.0e-8 weight_decay = -1.0 decoupled : tensor<8xf32>
  return
}

//===----------------------------------------------------------------------===//
// optim.lr_schedule
//===----------------------------------------------------------------------===//

// -----

func.func @lr_compiled_steps(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op compiled_steps must be at least 1, got 0}}
  %r = optim.lr_schedule %step over %total compiled_steps = 0 warmup_steps = 0 floor = 0.0
  return
}

// -----

func.func @lr_warmup_steps(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op warmup_steps must be non-negative, got -1}}
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = -1 floor = 0.0
  return
}

// -----

func.func @lr_decay_exclusive(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op decay_steps and decay_fraction are mutually exclusive}}
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 0
      decay_steps = 10 decay_fraction = 0.1 floor = 0.0
  return
}

// -----

func.func @lr_decay_steps(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op decay_steps must be at least 1, got 0}}
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 0
      decay_steps = 0 floor = 0.0
  return
}

// -----

func.func @lr_decay_fraction(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op decay_fraction must be in (0, 1], got 1.5}}
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 0
      decay_fraction = 1.5 floor = 0.0
  return
}

// -----

func.func @lr_too_long(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op warmup_steps + decay steps (30 + 80) must not exceed compiled_steps (100)}}
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 30
      decay_fraction = 0.8 floor = 0.0
  return
}

// -----

func.func @lr_floor(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.lr_schedule' op floor must be in [0, 1], got 1.5}}
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 0
      decay_steps = 10 floor = 1.5
  return
}

//===----------------------------------------------------------------------===//
// optim.momentum_warmup
//===----------------------------------------------------------------------===//

// -----

func.func @momentum_steps(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.momentum_warmup' op steps must be at least 1, got 0}}
  %m = optim.momentum_warmup %step over %total compiled_steps = 1000 start = 0.85 end = 0.95 steps = 0
  return
}

// -----

func.func @momentum_start(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.momentum_warmup' op start must be in [0, 1], got 1.5}}
  %m = optim.momentum_warmup %step over %total compiled_steps = 1000 start = 1.5 end = 0.95 steps = 300
  return
}

// -----

func.func @momentum_end(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.momentum_warmup' op end must be in [0, 1], got -0.5}}
  %m = optim.momentum_warmup %step over %total compiled_steps = 1000 start = 0.85 end = -0.5 steps = 300
  return
}

//===----------------------------------------------------------------------===//
// optim.window_schedule
//===----------------------------------------------------------------------===//

// -----

func.func @window_granularity(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.window_schedule' op granularity must be at least 1, got 0}}
  %w = optim.window_schedule %step over %total start = 0 end = 1728
      granularity = 0 rounding = ceil
  return
}

// -----

func.func @window_start(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.window_schedule' op start must be non-negative, got -64}}
  %w = optim.window_schedule %step over %total start = -64 end = 1728
      granularity = 128 rounding = ceil
  return
}

// -----

func.func @window_end(%step: tensor<i64>, %total: tensor<i64>) {
  // expected-error @+1 {{'optim.window_schedule' op end must be non-negative, got -1}}
  %w = optim.window_schedule %step over %total start = 0 end = -1
      granularity = 128 rounding = floor
  return
}

//===----------------------------------------------------------------------===//
// ODS constraints (generic form: the custom form cannot spell these)
//===----------------------------------------------------------------------===//

// -----

func.func @muon_lr_not_scalar(%p: tensor<64x64xf32>, %lr: tensor<1xf32>,
                              %m: tensor<f64>) {
  // expected-error @+1 {{'optim.muon' op operand #3 must be 0D tensor of 64-bit float values}}
  %r:2 = "optim.muon"(%p, %p, %p, %lr, %m) <{
      backend = #optim<ortho_backend newton_schulz>,
      coefficients = array<f64: 3.4445, -4.775, 2.0315>, compute_dtype = bf16,
      eps = 1.0e-7 : f64, form = #optim<ns_form polynomial_then_apply>,
      momentum_form = #optim<momentum_form lerp>, nesterov,
      normalize = #optim<normalize_order after_cast>, steps = 5 : i64,
      transpose = #optim<transpose_rule short_side>,
      update_scale = #optim<update_scale sqrt_max_1_ratio>,
      weight_decay = 0.0 : f64}>
      : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>,
         tensor<1xf32>, tensor<f64>) -> (tensor<64x64xf32>, tensor<64x64xf32>)
  return
}

// -----

func.func @adam_types_differ(%p: tensor<8xf32>, %m: tensor<8xbf16>,
                             %lr: tensor<f64>, %s: tensor<i64>) {
  // expected-error @+1 {{'optim.adam' op failed to verify that all of {param, grad, m, v, new_param, new_m, new_v} have same type}}
  %r:3 = "optim.adam"(%p, %p, %m, %p, %lr, %s) <{beta1 = 0.9 : f64,
      beta2 = 0.95 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64}>
      : (tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>,
         tensor<f64>, tensor<i64>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}
