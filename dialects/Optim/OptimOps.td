//===- OptimOps.td - optim dialect ops ---------------------*- tablegen -*-===//
//
// Orthogonalisation first (Newton-Schulz, SVD), then the update rules (Muon,
// Adam), then the schedules that read the step counter.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_OPTIM_OPS_TD
#define GPTC_DIALECT_OPTIM_OPS_TD

include "dialects/Optim/OptimAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Orthogonalisation
//===----------------------------------------------------------------------===//

def Optim_NewtonSchulzOp : Optim_Op<"newton_schulz",
    [Pure, SameOperandsAndResultType]> {
  let summary = "approximate orthogonalisation by a Newton-Schulz iteration";
  let description = [{
    Maps each matrix G (the last two dimensions; leading dimensions are a
    batch, each matrix normalised on its own) to an approximation of U Vᵀ,
    where G = U S Vᵀ, by the quintic iteration with coefficients
    `(a, b, c)`:

    ```
    before_cast: X = cast(G / (‖G‖_F + eps), compute_dtype)
    after_cast:  X = cast(G, compute_dtype); X = X / (‖X‖_F + eps)
    if transpose = short_side and rows > cols: X = Xᵀ
    repeat steps:
      A = X Xᵀ
      apply_then_combine:    B = A X;         X = a·X + b·B + c·A B
      polynomial_then_apply: B = b·A + c·A A; X = a·X + B X
    if transposed: X = Xᵀ
    result = cast(X, element type of G)
    ```

    `apply_then_combine` is the form of records R3–R10,
    `polynomial_then_apply` that of R11 on; R5 on normalise after the cast.
    The speedrun uses 5 steps, `(3.4445, -4.7750, 2.0315)`, eps 1e-7 and a
    bf16 compute type.

    Example:
    ```mlir
    %o = optim.newton_schulz %g steps = 5
        coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00]
        eps = 1.000000e-07 form = polynomial_then_apply transpose = short_side
        normalize = after_cast compute_dtype = bf16 : tensor<768x3072xf32>
    ```
  }];
  let arguments = (ins Optim_FloatTensor:$input, I64Attr:$steps,
                       DenseF64ArrayAttr:$coefficients, F64Attr:$eps,
                       Optim_NSFormAttr:$form,
                       Optim_TransposeRuleAttr:$transpose,
                       Optim_NormalizeOrderAttr:$normalize,
                       TypeAttr:$compute_dtype);
  let results = (outs Optim_FloatTensor:$result);
  let assemblyFormat = [{
    $input `steps` `=` $steps `coefficients` `=` $coefficients `eps` `=` $eps
    `form` `=` $form `transpose` `=` $transpose `normalize` `=` $normalize
    `compute_dtype` `=` $compute_dtype attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Optim_SVDOrthogonalizeOp : Optim_Op<"svd_orthogonalize",
    [Pure, SameOperandsAndResultType]> {
  let summary = "exact orthogonalisation U Vᵀ by an SVD";
  let description = [{
    For each matrix G = U S Vᵀ (thin SVD of the last two dimensions; leading
    dimensions are a batch), the result is U Vᵀ: the nearest semi-orthogonal
    matrix, which Newton-Schulz approximates. The exact reference backend of
    Muon (record R4); computed in f32 whatever the element type.

    Example:
    ```mlir
    %o = optim.svd_orthogonalize %g : tensor<768x3072xf32>
    ```
  }];
  let arguments = (ins Optim_FloatTensor:$input);
  let results = (outs Optim_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Update rules
//===----------------------------------------------------------------------===//

def Optim_MuonOp : Optim_Op<"muon", [Pure,
    AllTypesMatch<["param", "grad", "buf", "new_param", "new_buf"]>]> {
  let summary = "one Muon update of a hidden weight matrix";
  let description = [{
    Momentum, then orthogonalisation, then a shape-scaled step. With
    `m = momentum`, per matrix (the last two dimensions, rows x cols;
    leading dimensions are a batch):

    ```
    sum:  buf' = m·buf + g
          u = nesterov ? g + m·buf' : buf'
    lerp: buf' = buf + (1 - m)·(g - buf)          # lerp(buf, g, 1 - m)
          u = nesterov ? g + m·(buf' - g) : buf'  # lerp(g, buf', m)
    O = orthogonalise(u)     # newton_schulz (the NS attributes) or svd
    none:             s = 1
    sqrt_max_dim:     s = sqrt(max(rows, cols))
    sqrt_max_1_ratio: s = sqrt(max(1, rows / cols))
    param' = param·(1 - lr·weight_decay) - lr·s·O
    ```

    With `qkv_split` (a fused QKV matrix, rows = 3·cols), `u` is cut into
    its three cols x cols row blocks, each orthogonalised and scaled on its
    own (rows, cols are then the block's). `lr` and `momentum` are 0-d f64
    tensors, rounded once to the parameter's type, usually from `optim.lr_schedule` and `optim.momentum_warmup`.
    The Newton-Schulz attributes mean what they mean on
    `optim.newton_schulz` and are ignored by the `svd` backend.

    Example:
    ```mlir
    %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = lerp nesterov
        update_scale = sqrt_max_1_ratio backend = newton_schulz steps = 5
        coefficients = [3.444500e+00, -4.775000e+00, 2.031500e+00]
        eps = 1.000000e-07 form = polynomial_then_apply transpose = short_side
        normalize = after_cast compute_dtype = bf16
        weight_decay = 0.000000e+00 : tensor<768x3072xf32>
    ```
  }];
  let arguments = (ins Optim_FloatTensor:$param, Optim_FloatTensor:$grad,
                       Optim_FloatTensor:$buf, Optim_F64Scalar:$lr,
                       Optim_F64Scalar:$momentum,
                       Optim_MomentumFormAttr:$momentum_form,
                       UnitAttr:$nesterov,
                       Optim_UpdateScaleAttr:$update_scale,
                       UnitAttr:$qkv_split,
                       Optim_OrthoBackendAttr:$backend,
                       I64Attr:$steps, DenseF64ArrayAttr:$coefficients,
                       F64Attr:$eps, Optim_NSFormAttr:$form,
                       Optim_TransposeRuleAttr:$transpose,
                       Optim_NormalizeOrderAttr:$normalize,
                       TypeAttr:$compute_dtype, F64Attr:$weight_decay);
  let results = (outs Optim_FloatTensor:$new_param,
                      Optim_FloatTensor:$new_buf);
  let assemblyFormat = [{
    $param `,` $grad `,` $buf `,` $lr `,` $momentum
    `momentum_form` `=` $momentum_form (`nesterov` $nesterov^)?
    `update_scale` `=` $update_scale (`qkv_split` $qkv_split^)?
    `backend` `=` $backend `steps` `=` $steps
    `coefficients` `=` $coefficients `eps` `=` $eps `form` `=` $form
    `transpose` `=` $transpose `normalize` `=` $normalize
    `compute_dtype` `=` $compute_dtype `weight_decay` `=` $weight_decay
    attr-dict `:` type($param)
  }];
  let hasVerifier = 1;
}

def Optim_AdamOp : Optim_Op<"adam", [Pure,
    AllTypesMatch<["param", "grad", "m", "v", "new_param", "new_m",
                   "new_v"]>]> {
  let summary = "one Adam (or AdamW) update";
  let description = [{
    Elementwise, with `t = step + 1` (the step counter counts steps already
    taken):

    ```
    g' = decoupled ? g : g + weight_decay·param
    m' = m + (1 - beta1)·(g' - m)
    v' = beta2·v + (1 - beta2)·g'²
    s  = bias_correction ? lr / (1 - beta1^t) : lr
    c  = bias_correction ? sqrt(1 - beta2^t) : 1
    p  = decoupled ? param·(1 - lr·weight_decay) : param
    param' = p - s·(m' / (sqrt(v')/c + eps))
    ```

    in torch.optim.Adam's order of operations (its `lerp_`, `addcmul_`,
    `addcdiv_`): `s` and `c` are scalars computed in the type of `lr` (f64
    from the frontend, as PyTorch computes them in Python floats) and rounded
    once to the parameter's type. `decoupled` is AdamW; `bias_correction` is
    what torch.optim.Adam does.
    Embeddings, the head and scalar parameters use it; any rank is allowed.

    Example:
    ```mlir
    %p1, %m1, %v1 = optim.adam %p, %g, %m, %v, %lr, %step
        beta1 = 8.000000e-01 beta2 = 9.500000e-01 eps = 1.000000e-10
        weight_decay = 0.000000e+00 decoupled bias_correction
        : tensor<50304x768xf32>
    ```
  }];
  let arguments = (ins Optim_FloatTensor:$param, Optim_FloatTensor:$grad,
                       Optim_FloatTensor:$m, Optim_FloatTensor:$v,
                       Optim_F64Scalar:$lr, Optim_I64Scalar:$step,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$eps,
                       F64Attr:$weight_decay, UnitAttr:$decoupled,
                       UnitAttr:$bias_correction);
  let results = (outs Optim_FloatTensor:$new_param, Optim_FloatTensor:$new_m,
                      Optim_FloatTensor:$new_v);
  let assemblyFormat = [{
    $param `,` $grad `,` $m `,` $v `,` $lr `,` $step
    `beta1` `=` $beta1 `beta2` `=` $beta2 `eps` `=` $eps
    `weight_decay` `=` $weight_decay (`decoupled` $decoupled^)?
    (`bias_correction` $bias_correction^)? attr-dict `:` type($param)
  }];
  let hasVerifier = 1;
}

// The schedules (lr, momentum warm-up, attention window), in their own
// file.
include "dialects/Optim/OptimScheduleOps.td"

#endif // GPTC_DIALECT_OPTIM_OPS_TD
