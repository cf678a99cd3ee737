// RUN: gptc-opt %s --gptc-lower-optim | FileCheck %s
// RUN: gptc-opt %s --gptc-lower-optim | FileCheck %s --check-prefix=NOOPTIM
// RUN: gptc-opt %s --gptc-lower-optim=gemm-epilogues=false | FileCheck %s --check-prefix=SUMS

// gptc-lower-optim writes each optim op as gpt math (REFERENCE semantics in
// dialects/Optim/OptimOps.td). Scalars (lr, momentum, bias corrections) are
// 0-d tensors, spread over a parameter as reshape to [1, 1] + broadcast.
// (The window schedule against its reference semantics:
// window-schedule-numerics.mlir.)

// NOOPTIM-NOT: optim.

//===----------------------------------------------------------------------===//
// Adam
//===----------------------------------------------------------------------===//

// AdamW (decoupled weight decay) with bias correction, t = step + 1, in
// torch.optim.Adam's order; the scalars s = lr / (1 - b1^t) and c =
// sqrt(1 - b2^t) in f64, b^t = exp(t log b) (log 0.8 = -0.2231..., log 0.95
// = -0.0512...), each rounded once to f32 where it is spread.
// CHECK-LABEL: func.func @adamw
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4x8xf32>, %[[G:[a-z0-9_]+]]: tensor<4x8xf32>, %[[M:[a-z0-9_]+]]: tensor<4x8xf32>, %[[V:[a-z0-9_]+]]: tensor<4x8xf32>, %[[LR:[a-z0-9_]+]]: tensor<f64>, %[[STEP:[a-z0-9_]+]]: tensor<i64>)
// m' = m.lerp(g, 0.2) = m + 0.2 (g - m)
// CHECK: %[[GM:.*]] = gpt.sub %[[G]], %[[M]]
// CHECK-NEXT: %[[GMS:.*]] = gpt.mul_scalar %[[GM]], 0.19999999999999996
// CHECK-NEXT: %[[NM:.*]] = gpt.add %[[M]], %[[GMS]]
// v' = 0.95 v + 0.05 g^2
// CHECK-NEXT: %[[G2:.*]] = gpt.square %[[G]]
// CHECK-NEXT: %[[G2S:.*]] = gpt.mul_scalar %[[G2]], 0.050000000000000044
// CHECK-NEXT: %[[V0:.*]] = gpt.mul_scalar %[[V]], 0.94999999999999996
// CHECK-NEXT: %[[NV:.*]] = gpt.add %[[V0]], %[[G2S]]
// CHECK-NEXT: %[[SQ:.*]] = gpt.sqrt %[[NV]] : tensor<4x8xf32>
// s = lr / (1 - 0.8^t)
// CHECK-NEXT: %[[S:.*]] = gpt.cast %[[STEP]] : tensor<i64> to tensor<f64>
// CHECK-NEXT: %[[T:.*]] = gpt.add_scalar %[[S]], 1.000000e+00 : tensor<f64>
// CHECK-NEXT: %[[TL1:.*]] = gpt.mul_scalar %[[T]], -0.22314355131420971
// CHECK-NEXT: %[[B1T:.*]] = gpt.exp %[[TL1]] : tensor<f64>
// CHECK-NEXT: %[[NB1T:.*]] = gpt.mul_scalar %[[B1T]], -1.000000e+00
// CHECK-NEXT: %[[C1:.*]] = gpt.add_scalar %[[NB1T]], 1.000000e+00
// CHECK-NEXT: %[[STEPSIZE:.*]] = gpt.div %[[LR]], %[[C1]] : tensor<f64>
// c = sqrt(1 - 0.95^t)
// CHECK-NEXT: %[[TL2:.*]] = gpt.mul_scalar %[[T]], -0.051293294387550578
// CHECK-NEXT: %[[B2T:.*]] = gpt.exp %[[TL2]] : tensor<f64>
// CHECK: %[[C:.*]] = gpt.sqrt %{{.*}} : tensor<f64>
// CHECK-NEXT: %[[CF:.*]] = gpt.cast %[[C]] : tensor<f64> to tensor<f32>
// CHECK-NEXT: %[[CR:.*]] = gpt.reshape %[[CF]] : tensor<f32> to tensor<1x1xf32>
// CHECK-NEXT: %[[CB:.*]] = gpt.broadcast %[[CR]] : tensor<1x1xf32> to tensor<4x8xf32>
// denom = sqrt(v') / c + eps; update = s (m' / denom)
// CHECK-NEXT: %[[ROOT:.*]] = gpt.div %[[SQ]], %[[CB]]
// CHECK-NEXT: %[[DEN:.*]] = gpt.add_scalar %[[ROOT]], 1.000000e-10
// CHECK-NEXT: %[[SF:.*]] = gpt.cast %[[STEPSIZE]] : tensor<f64> to tensor<f32>
// CHECK-NEXT: %[[SR:.*]] = gpt.reshape %[[SF]] : tensor<f32> to tensor<1x1xf32>
// CHECK-NEXT: %[[SB:.*]] = gpt.broadcast %[[SR]] : tensor<1x1xf32> to tensor<4x8xf32>
// CHECK-NEXT: %[[Q:.*]] = gpt.div %[[NM]], %[[DEN]]
// CHECK-NEXT: %[[UPD:.*]] = gpt.mul %[[Q]], %[[SB]]
// p (1 - lr wd) - update
// CHECK-NEXT: %[[LRWD:.*]] = gpt.mul_scalar %[[LR]], 1.000000e-01 : tensor<f64>
// CHECK-NEXT: %[[LRWDF:.*]] = gpt.cast %[[LRWD]] : tensor<f64> to tensor<f32>
// CHECK-NEXT: %[[LRWDR:.*]] = gpt.reshape %[[LRWDF]]
// CHECK-NEXT: %[[LRWDB:.*]] = gpt.broadcast %[[LRWDR]]
// CHECK-NEXT: %[[DECAY:.*]] = gpt.mul %[[P]], %[[LRWDB]]
// CHECK-NEXT: %[[PD:.*]] = gpt.sub %[[P]], %[[DECAY]]
// CHECK-NEXT: %[[NP:.*]] = gpt.sub %[[PD]], %[[UPD]]
// CHECK-NEXT: return %[[NP]], %[[NM]], %[[NV]]
func.func @adamw(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>,
                 %v: tensor<4x8xf32>, %lr: tensor<f64>, %step: tensor<i64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1, %v1 = optim.adam %p, %g, %m, %v, %lr, %step beta1 = 0.8
      beta2 = 0.95 eps = 1.0e-10 weight_decay = 0.1 decoupled bias_correction
      : tensor<4x8xf32>
  return %p1, %m1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Adam with L2 weight decay folded into the gradient (g' = g + 0.01 p), no
// bias correction: m' and v' are used as they are and the step counter is
// not read.
// CHECK-LABEL: func.func @adam_l2
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4x8xf32>, %[[G:[a-z0-9_]+]]: tensor<4x8xf32>, %[[M:[a-z0-9_]+]]: tensor<4x8xf32>, %[[V:[a-z0-9_]+]]: tensor<4x8xf32>, %[[LR:[a-z0-9_]+]]: tensor<f64>, %[[STEP:[a-z0-9_]+]]: tensor<i64>)
// CHECK-NEXT: %[[WD:.*]] = gpt.mul_scalar %[[P]], 1.000000e-02
// CHECK-NEXT: %[[G1:.*]] = gpt.add %[[G]], %[[WD]]
// CHECK-NEXT: %[[GM:.*]] = gpt.sub %[[G1]], %[[M]]
// CHECK-NEXT: %[[GMS:.*]] = gpt.mul_scalar %[[GM]], 0.099999999999999978
// CHECK-NEXT: %[[NM:.*]] = gpt.add %[[M]], %[[GMS]]
// CHECK-NEXT: %[[G2:.*]] = gpt.square %[[G1]]
// CHECK-NOT: %[[STEP]]
// CHECK-NOT: gpt.exp
// CHECK: %[[SQ:.*]] = gpt.sqrt %[[NV:.*]] :
// CHECK-NEXT: %[[DEN:.*]] = gpt.add_scalar %[[SQ]], 1.000000e-08
// CHECK: %[[Q:.*]] = gpt.div %[[NM]], %[[DEN]]
// CHECK-NEXT: %[[UPD:.*]] = gpt.mul %[[Q]], %{{.*}}
// CHECK-NEXT: %[[NP:.*]] = gpt.sub %[[P]], %[[UPD]]
// CHECK-NEXT: return %[[NP]], %[[NM]], %[[NV]]
func.func @adam_l2(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>,
                   %v: tensor<4x8xf32>, %lr: tensor<f64>, %step: tensor<i64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1, %v1 = optim.adam %p, %g, %m, %v, %lr, %step beta1 = 0.9
      beta2 = 0.95 eps = 1.0e-8 weight_decay = 0.01 : tensor<4x8xf32>
  return %p1, %m1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Decoupled without weight decay and without bias correction: no decay
// term, no step counter, no exp.
// CHECK-LABEL: func.func @adam_no_decay
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4x8xf32>, %[[G:[a-z0-9_]+]]: tensor<4x8xf32>
// CHECK-NEXT: %[[GM:.*]] = gpt.sub %[[G]], %{{.*}}
// CHECK-NEXT: %[[G1S:.*]] = gpt.mul_scalar %[[GM]], 0.099999999999999978
// CHECK-NOT: gpt.exp
// CHECK-NOT: gpt.mul %[[P]]
// CHECK: %[[UPD:.*]] = gpt.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK-NEXT: %[[NP:.*]] = gpt.sub %[[P]], %[[UPD]]
// CHECK-NEXT: return %[[NP]]
func.func @adam_no_decay(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>,
                         %v: tensor<4x8xf32>, %lr: tensor<f64>, %step: tensor<i64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %p1, %m1, %v1 = optim.adam %p, %g, %m, %v, %lr, %step beta1 = 0.9
      beta2 = 0.95 eps = 1.0e-8 weight_decay = 0.0 decoupled : tensor<4x8xf32>
  return %p1, %m1, %v1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Muon (one Newton-Schulz step each, to keep the IR short)
//===----------------------------------------------------------------------===//

// Sum-form Nesterov momentum, buf' = m buf + g, u = g + m buf'; a tall 8x4
// matrix (transposed for the iteration), NS in bf16, scale sqrt(max(8, 4)),
// weight decay.
// CHECK-LABEL: func.func @muon_sum_nesterov
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<8x4xf32>, %[[G:[a-z0-9_]+]]: tensor<8x4xf32>, %[[BUF:[a-z0-9_]+]]: tensor<8x4xf32>, %[[LR:[a-z0-9_]+]]: tensor<f64>, %[[MOM:[a-z0-9_]+]]: tensor<f64>)
// The momentum, rounded once to f32.
// CHECK-NEXT: %[[MF:.*]] = gpt.cast %[[MOM]] : tensor<f64> to tensor<f32>
// CHECK-NEXT: %[[MR:.*]] = gpt.reshape %[[MF]] : tensor<f32> to tensor<1x1xf32>
// CHECK-NEXT: %[[MB:.*]] = gpt.broadcast %[[MR]] : tensor<1x1xf32> to tensor<8x4xf32>
// CHECK-NEXT: %[[MBUF:.*]] = gpt.mul %[[MB]], %[[BUF]]
// CHECK-NEXT: %[[NB:.*]] = gpt.add %[[MBUF]], %[[G]]
// CHECK-NEXT: %[[MNB:.*]] = gpt.mul %[[MB]], %[[NB]]
// CHECK-NEXT: %[[U:.*]] = gpt.add %[[G]], %[[MNB]]
// CHECK-NEXT: gpt.cast %[[U]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK: gpt.transpose %{{.*}} permutation = [1, 0] : tensor<8x4xbf16> to tensor<4x8xbf16>
// CHECK: gpt.matmul {{.*}} : tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<4x4xbf16>
// CHECK: gpt.transpose %{{.*}} permutation = [1, 0] : tensor<4x8xbf16> to tensor<8x4xbf16>
// CHECK-NEXT: %[[O:.*]] = gpt.cast %{{.*}} : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[OS:.*]] = gpt.mul_scalar %[[O]], 2.8284271247461903
// p - wd (p lr) - lr s O
// CHECK-NEXT: %[[LRF:.*]] = gpt.cast %[[LR]] : tensor<f64> to tensor<f32>
// CHECK-NEXT: %[[LRR:.*]] = gpt.reshape %[[LRF]]
// CHECK-NEXT: %[[LRB:.*]] = gpt.broadcast %[[LRR]]
// CHECK-NEXT: %[[PLR:.*]] = gpt.mul %[[P]], %[[LRB]]
// CHECK-NEXT: %[[DECAY:.*]] = gpt.mul_scalar %[[PLR]], 1.000000e-01
// CHECK-NEXT: %[[PD:.*]] = gpt.sub %[[P]], %[[DECAY]]
// CHECK-NEXT: %[[STEP:.*]] = gpt.mul %[[LRB]], %[[OS]]
// CHECK-NEXT: %[[NP:.*]] = gpt.sub %[[PD]], %[[STEP]]
// CHECK-NEXT: return %[[NP]], %[[NB]]
func.func @muon_sum_nesterov(%p: tensor<8x4xf32>, %g: tensor<8x4xf32>, %buf: tensor<8x4xf32>,
                             %lr: tensor<f64>, %m: tensor<f64>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim backend = newton_schulz steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = 0.1
      : tensor<8x4xf32>
  return %p1, %b1 : tensor<8x4xf32>, tensor<8x4xf32>
}

// Plain sum momentum: u = buf' itself. update_scale = none is a scale of 1;
// no weight decay term.
// CHECK-LABEL: func.func @muon_sum_plain
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4x16xf32>, %[[G:[a-z0-9_]+]]: tensor<4x16xf32>, %[[BUF:[a-z0-9_]+]]: tensor<4x16xf32>
// CHECK: %[[MBUF:.*]] = gpt.mul %{{.*}}, %[[BUF]]
// CHECK-NEXT: %[[NB:.*]] = gpt.add %[[MBUF]], %[[G]]
// CHECK-NEXT: gpt.square %[[NB]]
// CHECK: %[[OS:.*]] = gpt.mul_scalar %{{.*}}, 1.000000e+00 : tensor<4x16xf32>
// CHECK-NEXT: gpt.cast
// CHECK-NEXT: gpt.reshape
// CHECK-NEXT: %[[LRB:.*]] = gpt.broadcast
// CHECK-NEXT: %[[STEP:.*]] = gpt.mul %[[LRB]], %[[OS]]
// CHECK-NEXT: %[[NP:.*]] = gpt.sub %[[P]], %[[STEP]]
// CHECK-NEXT: return %[[NP]], %[[NB]]
func.func @muon_sum_plain(%p: tensor<4x16xf32>, %g: tensor<4x16xf32>, %buf: tensor<4x16xf32>,
                          %lr: tensor<f64>, %m: tensor<f64>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum
      update_scale = none backend = newton_schulz steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = f32 weight_decay = 0.0
      : tensor<4x16xf32>
  return %p1, %b1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// Lerp-form Nesterov momentum: buf' = buf + (1 - m)(g - buf),
// u = g + m (buf' - g); scale sqrt(max(1, 16 / 4)) = 2.
// CHECK-LABEL: func.func @muon_lerp_nesterov
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<16x4xf32>, %[[G:[a-z0-9_]+]]: tensor<16x4xf32>, %[[BUF:[a-z0-9_]+]]: tensor<16x4xf32>
// CHECK: %[[MB:.*]] = gpt.broadcast
// CHECK-NEXT: %[[ONE:.*]] = gpt.constant dense<1.000000e+00> : tensor<16x4xf32>
// CHECK-NEXT: %[[OMM:.*]] = gpt.sub %[[ONE]], %[[MB]]
// CHECK-NEXT: %[[D:.*]] = gpt.sub %[[G]], %[[BUF]]
// CHECK-NEXT: %[[OMMD:.*]] = gpt.mul %[[OMM]], %[[D]]
// CHECK-NEXT: %[[NB:.*]] = gpt.add %[[BUF]], %[[OMMD]]
// CHECK-NEXT: %[[D2:.*]] = gpt.sub %[[NB]], %[[G]]
// CHECK-NEXT: %[[MD2:.*]] = gpt.mul %[[MB]], %[[D2]]
// CHECK-NEXT: %[[U:.*]] = gpt.add %[[G]], %[[MD2]]
// CHECK-NEXT: gpt.square %[[U]]
// CHECK: gpt.mul_scalar %{{.*}}, 2.000000e+00 : tensor<16x4xf32>
// CHECK: return %{{.*}}, %[[NB]]
func.func @muon_lerp_nesterov(%p: tensor<16x4xf32>, %g: tensor<16x4xf32>, %buf: tensor<16x4xf32>,
                              %lr: tensor<f64>, %m: tensor<f64>)
    -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = lerp nesterov
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = f32 weight_decay = 0.0
      : tensor<16x4xf32>
  return %p1, %b1 : tensor<16x4xf32>, tensor<16x4xf32>
}

// Plain lerp: u = buf'. A wide matrix: sqrt(max(1, 4 / 16)) = 1.
// CHECK-LABEL: func.func @muon_lerp
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4x16xf32>, %[[G:[a-z0-9_]+]]: tensor<4x16xf32>, %[[BUF:[a-z0-9_]+]]: tensor<4x16xf32>
// CHECK: %[[OMMD:.*]] = gpt.mul %
// CHECK-NEXT: %[[NB:.*]] = gpt.add %[[BUF]], %[[OMMD]]
// CHECK-NEXT: gpt.square %[[NB]]
// CHECK: gpt.mul_scalar %{{.*}}, 1.000000e+00 : tensor<4x16xf32>
// CHECK: return %{{.*}}, %[[NB]]
func.func @muon_lerp(%p: tensor<4x16xf32>, %g: tensor<4x16xf32>, %buf: tensor<4x16xf32>,
                     %lr: tensor<f64>, %m: tensor<f64>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = lerp
      update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = f32 weight_decay = 0.0
      : tensor<4x16xf32>
  return %p1, %b1 : tensor<4x16xf32>, tensor<4x16xf32>
}

// A fused QKV matrix (12x4): u is split into three 4x4 row blocks, each
// orthogonalised and scaled on its own (sqrt(max(4, 4)) = 2, not
// sqrt(12)), then concatenated back.
// CHECK-LABEL: func.func @muon_qkv_split
// CHECK: %[[B:.*]]:3 = gpt.split %{{.*}} dim = 0 : tensor<12x4xf32> -> tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT: gpt.square %[[B]]#0
// CHECK: %[[O0:.*]] = gpt.mul_scalar %{{.*}}, 2.000000e+00 : tensor<4x4xf32>
// CHECK-NEXT: gpt.square %[[B]]#1
// CHECK: %[[O1:.*]] = gpt.mul_scalar %{{.*}}, 2.000000e+00 : tensor<4x4xf32>
// CHECK-NEXT: gpt.square %[[B]]#2
// CHECK: %[[O2:.*]] = gpt.mul_scalar %{{.*}}, 2.000000e+00 : tensor<4x4xf32>
// CHECK-NEXT: %[[O:.*]] = gpt.concat %[[O0]], %[[O1]], %[[O2]] dim = 0 : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<12x4xf32>
// CHECK: gpt.mul %{{.*}}, %[[O]]
func.func @muon_qkv_split(%p: tensor<12x4xf32>, %g: tensor<12x4xf32>, %buf: tensor<12x4xf32>,
                          %lr: tensor<f64>, %m: tensor<f64>)
    -> (tensor<12x4xf32>, tensor<12x4xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim qkv_split backend = newton_schulz steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = f32 weight_decay = 0.0
      : tensor<12x4xf32>
  return %p1, %b1 : tensor<12x4xf32>, tensor<12x4xf32>
}

//===----------------------------------------------------------------------===//
// Newton-Schulz
//===----------------------------------------------------------------------===//

// polynomial_then_apply, after_cast, bf16, a tall 16x4 matrix: normalise
// the bf16 matrix by its Frobenius norm (in f32), transpose to the short
// side, A = X X^T, B = b A + c A A^T (A is symmetric: A A is a Gram
// product too), X = a X + B X with bf16 GEMMs, transpose back, cast back.
// The scale-adds are the GEMMs' epilogues (gpt.matmul_add, coefficients
// applied in f32: in bf16, 3.4445 would be 3.4375): three GEMMs and
// nothing else per iteration.
// CHECK-LABEL: func.func @ns_polynomial_tall
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: tensor<16x4xf32>)
// CHECK-NEXT: %[[XB:.*]] = gpt.cast %[[IN]] : tensor<16x4xf32> to tensor<16x4xbf16>
// CHECK-NEXT: %[[XF:.*]] = gpt.cast %[[XB]] : tensor<16x4xbf16> to tensor<16x4xf32>
// CHECK-NEXT: %[[SQ:.*]] = gpt.square %[[XF]]
// CHECK-NEXT: %[[SS:.*]] = gpt.reduce sum %[[SQ]] dims = [0, 1] : tensor<16x4xf32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[NRM:.*]] = gpt.sqrt %[[SS]]
// CHECK-NEXT: %[[DEN:.*]] = gpt.add_scalar %[[NRM]], 9.9999999999999995E-8
// CHECK-NEXT: %[[DENB:.*]] = gpt.broadcast %[[DEN]] : tensor<1x1xf32> to tensor<16x4xf32>
// CHECK-NEXT: %[[XN:.*]] = gpt.div %[[XF]], %[[DENB]]
// CHECK-NEXT: %[[X0:.*]] = gpt.cast %[[XN]] : tensor<16x4xf32> to tensor<16x4xbf16>
// CHECK-NEXT: %[[XT:.*]] = gpt.transpose %[[X0]] permutation = [1, 0] : tensor<16x4xbf16> to tensor<4x16xbf16>
// CHECK-NEXT: %[[A:.*]] = gpt.matmul %[[XT]], %[[XT]] transpose_rhs : tensor<4x16xbf16>, tensor<4x16xbf16> -> tensor<4x4xbf16>
// CHECK-NEXT: %[[POLY:.*]] = gpt.matmul_add %[[A]], %[[A]], %[[A]] transpose_rhs alpha = 2.031500e+00 beta = -4.775000e+00 : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
// CHECK-NEXT: %[[X1:.*]] = gpt.matmul_add %[[POLY]], %[[XT]], %[[XT]] alpha = 1.000000e+00 beta = 3.444500e+00 : tensor<4x4xbf16>, tensor<4x16xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT: %[[X1T:.*]] = gpt.transpose %[[X1]] permutation = [1, 0] : tensor<4x16xbf16> to tensor<16x4xbf16>
// CHECK-NEXT: %[[OUT:.*]] = gpt.cast %[[X1T]] : tensor<16x4xbf16> to tensor<16x4xf32>
// CHECK-NEXT: return %[[OUT]]
// Without epilogues (--no-fuse), each scale-add is a sum in f32 of the
// GEMM's bf16 result, rounded to bf16 once.
// SUMS-LABEL: func.func @ns_polynomial_tall
// SUMS: %[[A:.*]] = gpt.matmul %[[XT:.*]], %[[XT]] transpose_rhs : tensor<4x16xbf16>, tensor<4x16xbf16> -> tensor<4x4xbf16>
// SUMS-NEXT: %[[AA:.*]] = gpt.matmul %[[A]], %[[A]] transpose_rhs : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
// SUMS-NEXT: %[[AF:.*]] = gpt.cast %[[A]] : tensor<4x4xbf16> to tensor<4x4xf32>
// SUMS-NEXT: %[[BA:.*]] = gpt.mul_scalar %[[AF]], -4.775000e+00 : tensor<4x4xf32>
// SUMS-NEXT: %[[AAF:.*]] = gpt.cast %[[AA]] : tensor<4x4xbf16> to tensor<4x4xf32>
// SUMS-NEXT: %[[CAA:.*]] = gpt.mul_scalar %[[AAF]], 2.031500e+00 : tensor<4x4xf32>
// SUMS-NEXT: %[[POLYF:.*]] = gpt.add %[[BA]], %[[CAA]] : tensor<4x4xf32>
// SUMS-NEXT: %[[POLY:.*]] = gpt.cast %[[POLYF]] : tensor<4x4xf32> to tensor<4x4xbf16>
// SUMS-NEXT: %[[BX:.*]] = gpt.matmul %[[POLY]], %[[XT]] : tensor<4x4xbf16>, tensor<4x16xbf16> -> tensor<4x16xbf16>
// SUMS-NEXT: %[[XF:.*]] = gpt.cast %[[XT]] : tensor<4x16xbf16> to tensor<4x16xf32>
// SUMS-NEXT: %[[AX:.*]] = gpt.mul_scalar %[[XF]], 3.444500e+00 : tensor<4x16xf32>
// SUMS-NEXT: %[[BXF:.*]] = gpt.cast %[[BX]] : tensor<4x16xbf16> to tensor<4x16xf32>
// SUMS-NEXT: %[[X1F:.*]] = gpt.add %[[AX]], %[[BXF]] : tensor<4x16xf32>
// SUMS-NEXT: gpt.cast %[[X1F]] : tensor<4x16xf32> to tensor<4x16xbf16>
// SUMS-NOT: gpt.matmul_add
// SUMS: return
func.func @ns_polynomial_tall(%g: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %o = optim.newton_schulz %g steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side normalize = after_cast
      compute_dtype = bf16 : tensor<16x4xf32>
  return %o : tensor<16x4xf32>
}

// apply_then_combine, before_cast, two steps, a wide 4x16 matrix: rows <=
// cols, so no transpose (must not fire). B = A X; X = a X + b B + c A B,
// unrolled twice: a X + b B is a sum in f32, the GEMM A B adds c A B to it
// in its epilogue.
// CHECK-LABEL: func.func @ns_apply_wide
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[SQ:.*]] = gpt.square %[[IN]]
// CHECK: %[[XN:.*]] = gpt.div %[[IN]], %{{.*}}
// CHECK-NEXT: %[[X0:.*]] = gpt.cast %[[XN]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK-NEXT: %[[A:.*]] = gpt.matmul %[[X0]], %[[X0]] transpose_rhs : tensor<4x16xbf16>, tensor<4x16xbf16> -> tensor<4x4xbf16>
// CHECK-NEXT: %[[B:.*]] = gpt.matmul %[[A]], %[[X0]] : tensor<4x4xbf16>, tensor<4x16xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT: %[[X0F:.*]] = gpt.cast %[[X0]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK-NEXT: %[[AX:.*]] = gpt.mul_scalar %[[X0F]], 3.444500e+00 : tensor<4x16xf32>
// CHECK-NEXT: %[[BF:.*]] = gpt.cast %[[B]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK-NEXT: %[[BB:.*]] = gpt.mul_scalar %[[BF]], -4.775000e+00 : tensor<4x16xf32>
// CHECK-NEXT: %[[SF:.*]] = gpt.add %[[AX]], %[[BB]] : tensor<4x16xf32>
// CHECK-NEXT: %[[S:.*]] = gpt.cast %[[SF]] : tensor<4x16xf32> to tensor<4x16xbf16>
// CHECK-NEXT: %[[X1:.*]] = gpt.matmul_add %[[A]], %[[B]], %[[S]] alpha = 2.031500e+00 beta = 1.000000e+00 : tensor<4x4xbf16>, tensor<4x16xbf16> -> tensor<4x16xbf16>
// CHECK-NEXT: %[[A2:.*]] = gpt.matmul %[[X1]], %[[X1]] transpose_rhs
// CHECK-NEXT: gpt.matmul %[[A2]],
// CHECK: %[[X2:.*]] = gpt.matmul_add %[[A2]],
// CHECK-NEXT: %[[OUT:.*]] = gpt.cast %[[X2]] : tensor<4x16xbf16> to tensor<4x16xf32>
// CHECK-NEXT: return %[[OUT]]
// NOOPTIM-LABEL: func.func @ns_apply_wide
// NOOPTIM-NOT: gpt.transpose
// NOOPTIM: return
func.func @ns_apply_wide(%g: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %o = optim.newton_schulz %g steps = 2
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = apply_then_combine transpose = short_side normalize = before_cast
      compute_dtype = bf16 : tensor<4x16xf32>
  return %o : tensor<4x16xf32>
}

// A batch of bf16 matrices computed in f32, transpose = none: each matrix is
// normalised on its own (the norm reduces the last two dimensions), batched
// f32 GEMMs with their epilogues, no transpose even though rows > cols
// (must not fire).
// CHECK-LABEL: func.func @ns_batched_f32
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: tensor<2x16x4xbf16>)
// CHECK-NEXT: %[[XF:.*]] = gpt.cast %[[IN]] : tensor<2x16x4xbf16> to tensor<2x16x4xf32>
// CHECK-NEXT: %[[SQ:.*]] = gpt.square %[[XF]]
// CHECK-NEXT: gpt.reduce sum %[[SQ]] dims = [1, 2] : tensor<2x16x4xf32> -> tensor<2x1x1xf32>
// CHECK: %[[X0:.*]] = gpt.div %[[XF]], %{{.*}} : tensor<2x16x4xf32>
// CHECK-NEXT: %[[A:.*]] = gpt.matmul %[[X0]], %[[X0]] transpose_rhs : tensor<2x16x4xf32>, tensor<2x16x4xf32> -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[POLY:.*]] = gpt.matmul_add %[[A]], %[[A]], %[[A]] transpose_rhs alpha = 2.031500e+00 beta = -4.775000e+00 : tensor<2x16x16xf32>, tensor<2x16x16xf32> -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[X1:.*]] = gpt.matmul_add %[[POLY]], %[[X0]], %[[X0]] alpha = 1.000000e+00 beta = 3.444500e+00 : tensor<2x16x16xf32>, tensor<2x16x4xf32> -> tensor<2x16x4xf32>
// CHECK-NEXT: %[[OUT:.*]] = gpt.cast %[[X1]] : tensor<2x16x4xf32> to tensor<2x16x4xbf16>
// CHECK-NEXT: return %[[OUT]]
// NOOPTIM-LABEL: func.func @ns_batched_f32
// NOOPTIM-NOT: gpt.transpose
// NOOPTIM: return
func.func @ns_batched_f32(%g: tensor<2x16x4xbf16>) -> tensor<2x16x4xbf16> {
  %o = optim.newton_schulz %g steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = none normalize = before_cast
      compute_dtype = f32 : tensor<2x16x4xbf16>
  return %o : tensor<2x16x4xbf16>
}

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

// Warm-up 250, decay over the last 2000 of 7000 steps to 0, as shares of
// the run: with N the run's length and r = N / 7000, W = 250 r, D = 2000 r;
// w = min((N - s) / D, 1), mult = w (1 - 0) + 0, and while s < W the
// warm-up min((s + 1) / W, 1) is selected (at most 1 when a short run scales
// W below a step). A run of 7000 steps has r = 1 exactly.
// CHECK-LABEL: func.func @lr_warmup_decay
// CHECK-SAME: (%[[STEP:[a-z0-9_]+]]: tensor<i64>, %[[TOTAL:[a-z0-9_]+]]: tensor<i64>)
// CHECK-NEXT: %[[N:.*]] = gpt.cast %[[TOTAL]] : tensor<i64> to tensor<f64>
// CHECK-NEXT: %[[C:.*]] = gpt.constant dense<7.000000e+03> : tensor<f64>
// CHECK-NEXT: %[[R:.*]] = gpt.div %[[N]], %[[C]]
// CHECK-NEXT: %[[S0:.*]] = gpt.cast %[[STEP]] : tensor<i64> to tensor<f64>
// CHECK: %[[D:.*]] = gpt.mul_scalar %[[R]], 2.000000e+03
// Past the end the step is held at N (the multiplier stays at its floor,
// never negative).
// CHECK-NEXT: %[[BEFORE:.*]] = gpt.compare lt, %[[S0]], %[[N]]
// CHECK-NEXT: %[[S:.*]] = gpt.select %[[BEFORE]], %[[S0]], %[[N]]
// CHECK-NEXT: %[[LEFT:.*]] = gpt.sub %[[N]], %[[S]]
// CHECK-NEXT: %[[W:.*]] = gpt.div %[[LEFT]], %[[D]]
// CHECK-NEXT: %[[ONE:.*]] = gpt.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[LT:.*]] = gpt.compare lt, %[[W]], %[[ONE]]
// CHECK-NEXT: %[[WMIN:.*]] = gpt.select %[[LT]], %[[W]], %[[ONE]]
// CHECK-NEXT: %[[WS:.*]] = gpt.mul_scalar %[[WMIN]], 1.000000e+00
// CHECK-NEXT: %[[MULT:.*]] = gpt.add_scalar %[[WS]], 0.000000e+00
// CHECK-NEXT: %[[WARMUP:.*]] = gpt.mul_scalar %[[R]], 2.500000e+02
// CHECK-NEXT: %[[S1:.*]] = gpt.add_scalar %[[S0]], 1.000000e+00
// CHECK-NEXT: %[[RAMP:.*]] = gpt.div %[[S1]], %[[WARMUP]]
// CHECK-NEXT: %[[ONE1:.*]] = gpt.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[BELOW:.*]] = gpt.compare lt, %[[RAMP]], %[[ONE1]]
// CHECK-NEXT: %[[WARM:.*]] = gpt.select %[[BELOW]], %[[RAMP]], %[[ONE1]]
// CHECK-NEXT: %[[IN:.*]] = gpt.compare lt, %[[S0]], %[[WARMUP]] : tensor<f64> -> tensor<i1>
// CHECK-NEXT: %[[RES:.*]] = gpt.select %[[IN]], %[[WARM]], %[[MULT]] : tensor<i1>, tensor<f64>
// CHECK-NEXT: return %[[RES]]
func.func @lr_warmup_decay(%step: tensor<i64>, %total: tensor<i64>) -> tensor<f64> {
  %r = optim.lr_schedule %step over %total compiled_steps = 7000 warmup_steps = 250
      decay_steps = 2000 floor = 0.0
  return %r : tensor<f64>
}

// No warm-up (must not fire: no warm-up select), the last 40% of the run
// decays to 0.1: D = 0.4 x 1000 r, w = min((N - s) / D, 1),
// mult = 0.9 w + 0.1.
// CHECK-LABEL: func.func @lr_decay_fraction
// CHECK: %[[R:.*]] = gpt.div
// CHECK: gpt.mul_scalar %[[R]], 4.000000e+02
// CHECK: gpt.sub
// CHECK-NEXT: gpt.div
// CHECK-NEXT: gpt.constant dense<1.000000e+00>
// CHECK-NEXT: gpt.compare lt
// CHECK-NEXT: %[[WMIN:.*]] = gpt.select
// CHECK-NEXT: %[[WS:.*]] = gpt.mul_scalar %[[WMIN]], 9.000000e-01
// CHECK-NEXT: %[[MULT:.*]] = gpt.add_scalar %[[WS]], 1.000000e-01
// CHECK-NEXT: return %[[MULT]]
func.func @lr_decay_fraction(%step: tensor<i64>, %total: tensor<i64>) -> tensor<f64> {
  %r = optim.lr_schedule %step over %total compiled_steps = 1000 warmup_steps = 0
      decay_fraction = 0.4 floor = 0.1
  return %r : tensor<f64>
}

// Neither warm-up nor decay: the multiplier is the constant 1.
// CHECK-LABEL: func.func @lr_constant
// CHECK: %[[ONE:.*]] = gpt.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: return %[[ONE]]
// NOOPTIM-LABEL: func.func @lr_constant
// NOOPTIM-NOT: gpt.select
// NOOPTIM: return
func.func @lr_constant(%step: tensor<i64>, %total: tensor<i64>) -> tensor<f64> {
  %r = optim.lr_schedule %step over %total compiled_steps = 100 warmup_steps = 0 floor = 0.0
  return %r : tensor<f64>
}

// Momentum 0.85 -> 0.95 over 300 of 1000 steps, a share of the run:
// f = min(s / (300 r), 1), r = N / 1000, m = 0.85 + 0.1 f.
// CHECK-LABEL: func.func @momentum_warmup
// CHECK-SAME: (%[[STEP:[a-z0-9_]+]]: tensor<i64>, %[[TOTAL:[a-z0-9_]+]]: tensor<i64>)
// CHECK-NEXT: %[[N:.*]] = gpt.cast %[[TOTAL]] : tensor<i64> to tensor<f64>
// CHECK-NEXT: %[[C:.*]] = gpt.constant dense<1.000000e+03> : tensor<f64>
// CHECK-NEXT: %[[R:.*]] = gpt.div %[[N]], %[[C]]
// CHECK-NEXT: %[[SPAN:.*]] = gpt.mul_scalar %[[R]], 3.000000e+02
// CHECK-NEXT: %[[S:.*]] = gpt.cast %[[STEP]] : tensor<i64> to tensor<f64>
// CHECK-NEXT: %[[F:.*]] = gpt.div %[[S]], %[[SPAN]]
// CHECK-NEXT: %[[ONE:.*]] = gpt.constant dense<1.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[LT:.*]] = gpt.compare lt, %[[F]], %[[ONE]]
// CHECK-NEXT: %[[FMIN:.*]] = gpt.select %[[LT]], %[[F]], %[[ONE]]
// CHECK-NEXT: %[[D:.*]] = gpt.mul_scalar %[[FMIN]], 0.099999999999999978
// CHECK-NEXT: %[[M:.*]] = gpt.add_scalar %[[D]], 8.500000e-01
// CHECK-NEXT: return %[[M]]
func.func @momentum_warmup(%step: tensor<i64>, %total: tensor<i64>) -> tensor<f64> {
  %m = optim.momentum_warmup %step over %total compiled_steps = 1000 start = 0.85 end = 0.95 steps = 300
  return %m : tensor<f64>
}

// Must not fire: gpt and func ops around the optimizer are left alone.
// CHECK-LABEL: func.func @not_optim
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<f32>)
// CHECK-NEXT: %[[Y:.*]] = gpt.mul_scalar %[[X]], 1.800000e-03 : tensor<f32>
// CHECK-NEXT: return %[[Y]]
func.func @not_optim(%x: tensor<f32>) -> tensor<f32> {
  %y = gpt.mul_scalar %x, 1.8e-3 : tensor<f32>
  return %y : tensor<f32>
}
