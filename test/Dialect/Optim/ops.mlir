// RUN: gptc-opt %s | gptc-opt | FileCheck %s
// RUN: gptc-opt %s --mlir-print-op-generic | gptc-opt | FileCheck %s

// Round trips of every optim op, in the configurations of the speedrun
// records (R3, R4, R11+, R15+, R19+).

//===----------------------------------------------------------------------===//
// Orthogonalisation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @newton_schulz_r11
// CHECK: optim.newton_schulz %{{.*}} steps = 5 coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00] eps = 9.9999999999999995E-8 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 : tensor<768x3072xf32>
func.func @newton_schulz_r11(%g: tensor<768x3072xf32>) -> tensor<768x3072xf32> {
  %o = optim.newton_schulz %g steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 : tensor<768x3072xf32>
  return %o : tensor<768x3072xf32>
}

// The R3 form, normalised before the cast, in f32, without transposing, on a
// batch of 4 matrices.
// CHECK-LABEL: func.func @newton_schulz_r3_batched
// CHECK: optim.newton_schulz %{{.*}} steps = 10 coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00] eps = 9.9999999999999995E-8 form = apply_then_combine transpose = none normalize = before_cast compute_dtype = f32 : tensor<4x64x16xbf16>
func.func @newton_schulz_r3_batched(%g: tensor<4x64x16xbf16>) -> tensor<4x64x16xbf16> {
  %o = optim.newton_schulz %g steps = 10
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = apply_then_combine transpose = none normalize = before_cast
      compute_dtype = f32 : tensor<4x64x16xbf16>
  return %o : tensor<4x64x16xbf16>
}

// CHECK-LABEL: func.func @svd_orthogonalize
// CHECK: optim.svd_orthogonalize %{{.*}} : tensor<64x16xf32>
// CHECK: optim.svd_orthogonalize %{{.*}} : tensor<2x16x16xf64>
func.func @svd_orthogonalize(%g: tensor<64x16xf32>, %b: tensor<2x16x16xf64>)
    -> (tensor<64x16xf32>, tensor<2x16x16xf64>) {
  %o = optim.svd_orthogonalize %g : tensor<64x16xf32>
  %ob = optim.svd_orthogonalize %b : tensor<2x16x16xf64>
  return %o, %ob : tensor<64x16xf32>, tensor<2x16x16xf64>
}

//===----------------------------------------------------------------------===//
// Update rules
//===----------------------------------------------------------------------===//

// R15+: lerp momentum, nesterov, sqrt(max(1, rows/cols)).
// CHECK-LABEL: func.func @muon_r15
// CHECK: optim.muon %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} momentum_form = lerp nesterov update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5 coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00] eps = 9.9999999999999995E-8 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = bf16 weight_decay = 0.000000e+00 : tensor<3072x768xf32>
func.func @muon_r15(%p: tensor<3072x768xf32>, %g: tensor<3072x768xf32>,
                    %buf: tensor<3072x768xf32>, %lr: tensor<f64>,
                    %m: tensor<f64>)
    -> (tensor<3072x768xf32>, tensor<3072x768xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = lerp nesterov
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = 0.0
      : tensor<3072x768xf32>
  return %p1, %b1 : tensor<3072x768xf32>, tensor<3072x768xf32>
}

// R4: a fused QKV matrix (rows = 3 * cols), the exact SVD backend.
// CHECK-LABEL: func.func @muon_r4_qkv_svd
// CHECK: optim.muon %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} momentum_form = sum nesterov update_scale = sqrt_max_dim qkv_split backend = svd steps = 5 coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00] eps = 9.9999999999999995E-8 form = apply_then_combine transpose = short_side normalize = before_cast compute_dtype = bf16 weight_decay = 0.000000e+00 : tensor<192x64xf32>
func.func @muon_r4_qkv_svd(%p: tensor<192x64xf32>, %g: tensor<192x64xf32>,
                           %buf: tensor<192x64xf32>, %lr: tensor<f64>,
                           %m: tensor<f64>)
    -> (tensor<192x64xf32>, tensor<192x64xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim qkv_split backend = svd steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = apply_then_combine transpose = short_side normalize = before_cast
      compute_dtype = bf16 weight_decay = 0.0 : tensor<192x64xf32>
  return %p1, %b1 : tensor<192x64xf32>, tensor<192x64xf32>
}

// Plain momentum (no nesterov), no shape scale, weight decay, a batch of
// matrices (R20+ batches parameters of one shape).
// CHECK-LABEL: func.func @muon_plain_batched
// CHECK: optim.muon %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} momentum_form = sum update_scale = none backend = newton_schulz steps = 5 coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00] eps = 9.9999999999999995E-8 form = polynomial_then_apply transpose = short_side normalize = after_cast compute_dtype = f32 weight_decay = 1.000000e-01 : tensor<4x64x256xbf16>
func.func @muon_plain_batched(%p: tensor<4x64x256xbf16>,
                              %g: tensor<4x64x256xbf16>,
                              %buf: tensor<4x64x256xbf16>, %lr: tensor<f64>,
                              %m: tensor<f64>)
    -> (tensor<4x64x256xbf16>, tensor<4x64x256xbf16>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum
      update_scale = none backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = f32 weight_decay = 0.1
      : tensor<4x64x256xbf16>
  return %p1, %b1 : tensor<4x64x256xbf16>, tensor<4x64x256xbf16>
}

// CHECK-LABEL: func.func @adamw
// CHECK: optim.adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} beta1 = 8.000000e-01 beta2 = 0.94999999999999996 eps = 1.000000e-10 weight_decay = 0.000000e+00 decoupled bias_correction : tensor<512x64xf32>
func.func @adamw(%p: tensor<512x64xf32>, %g: tensor<512x64xf32>,
                 %m: tensor<512x64xf32>, %v: tensor<512x64xf32>,
                 %lr: tensor<f64>, %step: tensor<i64>)
    -> (tensor<512x64xf32>, tensor<512x64xf32>, tensor<512x64xf32>) {
  %p1, %m1, %v1 = optim.adam %p, %g, %m, %v, %lr, %step beta1 = 0.8
      beta2 = 0.95 eps = 1.0e-10 weight_decay = 0.0 decoupled bias_correction
      : tensor<512x64xf32>
  return %p1, %m1, %v1
      : tensor<512x64xf32>, tensor<512x64xf32>, tensor<512x64xf32>
}

// Adam without decoupling (weight decay folded into the gradient) and
// without bias correction, on scalar parameters of rank 1 and 0.
// CHECK-LABEL: func.func @adam_scalars
// CHECK: optim.adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} beta1 = 9.000000e-01 beta2 = 0.94999999999999996 eps = 1.000000e-08 weight_decay = 1.000000e-02 : tensor<2xf32>
// CHECK: optim.adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} beta1 = 0.000000e+00 beta2 = 0.000000e+00 eps = 1.000000e-08 weight_decay = 0.000000e+00 bias_correction : tensor<f32>
func.func @adam_scalars(%p: tensor<2xf32>, %s: tensor<f32>, %lr: tensor<f64>,
                        %step: tensor<i64>) {
  %p1, %m1, %v1 = optim.adam %p, %p, %p, %p, %lr, %step beta1 = 0.9
      beta2 = 0.95 eps = 1.0e-8 weight_decay = 0.01 : tensor<2xf32>
  %s1, %sm, %sv = optim.adam %s, %s, %s, %s, %lr, %step beta1 = 0.0
      beta2 = 0.0 eps = 1.0e-8 weight_decay = 0.0 bias_correction
      : tensor<f32>
  return
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

// R3: warm-up 250, warm-down over the last 2000 of 7000 steps to 0; R19+:
// the last 40% decays to 0.1; a schedule without decay.
// CHECK-LABEL: func.func @lr_schedule
// CHECK: optim.lr_schedule %{{.*}} over %{{.*}} compiled_steps = 7000 warmup_steps = 250 decay_steps = 2000 floor = 0.000000e+00
// CHECK-NOT: decay_fraction
// CHECK: optim.lr_schedule %{{.*}} over %{{.*}} compiled_steps = 1770 warmup_steps = 0 decay_fraction = 4.000000e-01 floor = 1.000000e-01
// CHECK: optim.lr_schedule %{{.*}} over %{{.*}} compiled_steps = 100 warmup_steps = 10 floor = 0.000000e+00
func.func @lr_schedule(%step: tensor<i64>, %total: tensor<i64>)
    -> (tensor<f64>, tensor<f64>, tensor<f64>) {
  %r3 = optim.lr_schedule %step over %total compiled_steps = 7000 warmup_steps = 250
      decay_steps = 2000 floor = 0.0
  %r19 = optim.lr_schedule %step over %total compiled_steps = 1770 warmup_steps = 0
      decay_fraction = 0.4 floor = 0.1
  %flat = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 10
      floor = 0.0
  return %r3, %r19, %flat : tensor<f64>, tensor<f64>, tensor<f64>
}

// CHECK-LABEL: func.func @momentum_warmup
// CHECK: optim.momentum_warmup %{{.*}} over %{{.*}} compiled_steps = 1000 start = 8.500000e-01 end = 0.94999999999999996 steps = 300
func.func @momentum_warmup(%step: tensor<i64>, %total: tensor<i64>) -> tensor<f64> {
  %m = optim.momentum_warmup %step over %total compiled_steps = 1000 start = 0.85 end = 0.95 steps = 300
  return %m : tensor<f64>
}

// R13 (floor to 64 tokens) and R19+ (next multiple of 128).
// CHECK-LABEL: func.func @window_schedule
// CHECK: optim.window_schedule %{{.*}} over %{{.*}} start = 64 end = 1792 granularity = 64 rounding = floor
// CHECK: optim.window_schedule %{{.*}} over %{{.*}} start = 0 end = 1728 granularity = 128 rounding = ceil
func.func @window_schedule(%step: tensor<i64>, %total: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %r13 = optim.window_schedule %step over %total start = 64
      end = 1792 granularity = 64 rounding = floor
  %r19 = optim.window_schedule %step over %total start = 0 end = 1728
      granularity = 128 rounding = ceil
  return %r13, %r19 : tensor<i64>, tensor<i64>
}

// The scalars compose: the schedules feed an update.
// CHECK-LABEL: func.func @schedules_feed_muon
// CHECK: %[[LR:.*]] = optim.lr_schedule
// CHECK: %[[M:.*]] = optim.momentum_warmup
// CHECK: optim.muon %{{.*}}, %{{.*}}, %{{.*}}, %[[LR]], %[[M]]
func.func @schedules_feed_muon(%p: tensor<64x64xf32>, %g: tensor<64x64xf32>,
                               %buf: tensor<64x64xf32>, %step: tensor<i64>, %total: tensor<i64>)
    -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %lr = optim.lr_schedule %step over %total compiled_steps = 1000 warmup_steps = 0
      decay_fraction = 0.4 floor = 0.1
  %m = optim.momentum_warmup %step over %total compiled_steps = 1000 start = 0.85 end = 0.95 steps = 300
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = lerp nesterov
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = 0.0
      : tensor<64x64xf32>
  return %p1, %b1 : tensor<64x64xf32>, tensor<64x64xf32>
}
