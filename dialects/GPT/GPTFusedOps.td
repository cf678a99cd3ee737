//===- GPTFusedOps.td - gpt fused ops ----------------------*- tablegen -*-===//
//
// Ops produced by the fusion passes (gptc-fuse-rmsnorm, gptc-fuse-rotary,
// gptc-fuse-attention, gptc-fuse-cross-entropy) and by the optimizer
// lowering (gpt.matmul_add: a GEMM with its scale-add epilogue). Included
// from GPTOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_FUSEDOPS_TD
#define GPTC_DIALECT_GPT_FUSEDOPS_TD

def GPT_MatmulAddOp : GPT_Op<"matmul_add",
    [Pure, AllTypesMatch<["addend", "result"]>, ProductFlops]> {
  let summary = "matrix product with a scale-add epilogue";
  let description = [{
    `result = alpha * op(lhs) x op(rhs) + beta * addend` over the last two
    dimensions, with `op` and the batch rules of `gpt.matmul`: the epilogue
    of a GEMM (BLAS's and cuBLASLt's alpha and beta, C read and D written
    separately). The products accumulate in f32 for bf16 operands, alpha
    and beta apply in f32, and the result is rounded once. Newton-Schulz's
    `B = b A + c A A` and `X = a X + B X` are each one such op, so the
    scale-adds cost no kernel of their own. Produced by the optimizer
    lowering (after autodiff: not differentiable).

    Example:
    ```mlir
    %b = gpt.matmul_add %a, %a, %a alpha = -4.775 beta = 2.0315
        : tensor<4x64x64xbf16>, tensor<4x64x64xbf16> -> tensor<4x64x64xbf16>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$lhs, GPT_FloatTensor:$rhs,
                       GPT_FloatTensor:$addend, UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs, F64Attr:$alpha,
                       F64Attr:$beta);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $addend (`transpose_lhs` $transpose_lhs^)?
    (`transpose_rhs` $transpose_rhs^)? `alpha` `=` $alpha `beta` `=` $beta
    attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_RMSNormOp : GPT_Op<"rms_norm",
    [Pure, AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>,
     Differentiable]> {
  let summary = "fused RMSNorm over the last dimension";
  let description = [{
    `y = x * rsqrt(mean(x^2, -1) + eps)`, times `weight` (shape: the last
    dimension of x) when present. With `residual`, the op first computes
    `x = x + residual` (the pre-norm residual add) and normalises that.

    Example:
    ```mlir
    %y = gpt.rms_norm %x eps = 1.000000e-06 : tensor<2x8x64xf32>
    %z = gpt.rms_norm %x weight %w : tensor<64xf32> eps = 1.000000e-06
        : tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input,
                       Optional<GPT_FloatTensor>:$residual,
                       Optional<GPT_FloatTensor>:$weight, F64Attr:$eps);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`residual` $residual^ `:` type($residual))?
    (`weight` $weight^ `:` type($weight))? `eps` `=` $eps attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def GPT_RotaryOp : GPT_Op<"rotary",
    [Pure, AllTypesMatch<["input", "result"]>,
     AllTypesMatch<["cos", "sin"]>, Differentiable]> {
  let summary = "rotary position embedding of each head, in one pass";
  let description = [{
    With `x1` and `x2` the first and second halves of the last dimension of
    `input` and `cos`, `sin` tables of the half's width broadcast to them
    (a dimension of the tables is 1 or the input's):
    `y1 = x1 cos + x2 sin`, `y2 = x2 cos - x1 sin` (REFERENCE §1 "Rotary").
    With `inverse`, the transposed rotation: `y1 = x1 cos - x2 sin`,
    `y2 = x2 cos + x1 sin` -- the op's VJP, so the backward is one pass
    too. Produced by gptc-fuse-rotary from the halves, products and
    concatenation the frontend writes.

    Example:
    ```mlir
    %y = gpt.rotary %x, %cos, %sin
        : tensor<4x256x2x32xf32>, tensor<1x256x1x16xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input, GPT_FloatTensor:$cos,
                       GPT_FloatTensor:$sin, UnitAttr:$inverse);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $cos `,` $sin (`inverse` $inverse^)? attr-dict `:`
    type($input) `,` type($cos)
  }];
  let hasVerifier = 1;
}

def GPT_RMSNormGradOp : GPT_Op<"rms_norm_grad", [Pure,
    AttrSizedOperandSegments, AllTypesMatch<["input", "grad", "input_grad"]>]> {
  let summary = "the input gradient of gpt.rms_norm, in one pass per row";
  let description = [{
    With x the normalised tensor (input, plus residual when present),
    r = rsqrt(mean(x^2) + eps) per row and gw = grad * weight (or grad):
    `input_grad = r * gw - x * r^3 * mean(gw * x)`. Both row sums (x^2 and
    gw * x) come from one reduction over the row; the weight's gradient
    (a sum over rows) is not part of this op.

    Example:
    ```mlir
    %dx = gpt.rms_norm_grad %x, %g eps = 1.000000e-06 : tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input, GPT_FloatTensor:$grad,
                       Optional<GPT_FloatTensor>:$residual,
                       Optional<GPT_FloatTensor>:$weight, F64Attr:$eps);
  let results = (outs GPT_FloatTensor:$input_grad);
  let assemblyFormat = [{
    $input `,` $grad (`residual` $residual^ `:` type($residual))?
    (`weight` $weight^ `:` type($weight))? `eps` `=` $eps attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def GPT_AttentionOp : GPT_Op<"attention", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["query", "key", "value", "result"]>,
    TypesMatchWith<"lse is [batch, heads, seq] of the query's element type",
                   "query", "lse", "::mlir::gpt::attentionRowType($_self)">,
    Differentiable, ProductFlops]> {
  let summary = "fused masked scaled-dot-product attention";
  let description = [{
    `softmax(scale * q k^T + mask) v` per batch and head, with q, k, v of
    shape [B, H, T, D] and the mask of `#gpt.mask`. A document mask reads
    the batch's input tokens (`tokens`, [B, T]); a sliding window reads its
    size in tokens from `window` (a 0-d i64 tensor, so the schedule can grow
    it without recompiling).

    `products = bf16` (set by gptc-fuse-attention when the unfused graph
    rounded q, k, v and the probabilities to bf16 for its GEMMs) states the
    precision of the two products as the records compute them: q, k, v
    rounded to bf16, the probabilities rounded to bf16 before they weigh v,
    every product accumulated in the result's type (the softmax statistics,
    max and sum, from the unrounded scores and probabilities). Without it
    the products are exact in the element type. The backward pass
    (gpt.attention_grad, which carries the same attribute) treats the
    rounding as the identity and computes its own products from bf16
    operands likewise.

    The second result, `lse` ([B, H, T]), is each query row's log-sum-exp
    of its allowed scaled scores (-inf for a row without keys): the
    softmax statistics gpt.attention_grad needs, kept from the forward
    pass instead of recomputed (FlashAttention-2 keeps them the same way).

    Example:
    ```mlir
    %o, %lse = gpt.attention %q, %k, %v tokens %ids : tensor<1x256xi32>
        window %w : tensor<i64>
        mask = #gpt.mask<causal = true, window = blocks, bos = 50256>
        scale = 1.250000e-01 : tensor<1x2x256x32xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$query, GPT_FloatTensor:$key,
                       GPT_FloatTensor:$value,
                       Optional<GPT_IndexTensor>:$tokens,
                       Optional<RankedTensorOf<[I64]>>:$window,
                       GPT_MaskAttr:$mask, F64Attr:$scale,
                       OptionalAttr<TypeAttr>:$products);
  let results = (outs GPT_FloatTensor:$result, GPT_FloatTensor:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`tokens` $tokens^ `:` type($tokens))?
    (`window` $window^ `:` type($window))? `mask` `=` $mask
    `scale` `=` $scale (`products` `=` $products^)? attr-dict `:` type($query)
  }];
  let hasVerifier = 1;
}

def GPT_AttentionGradOp : GPT_Op<"attention_grad", [Pure,
    AttrSizedOperandSegments, ProductFlops,
    AllTypesMatch<["query", "key", "value", "out", "out_grad", "query_grad",
                   "key_grad", "value_grad"]>,
    TypesMatchWith<"lse is [batch, heads, seq] of the query's element type",
                   "query", "lse", "::mlir::gpt::attentionRowType($_self)">]> {
  let summary = "the adjoint of gpt.attention (FlashAttention-2 backward)";
  let description = [{
    Given the attention's inputs, its output `out` and row log-sum-exp
    `lse` (gpt.attention's two results) and the gradient of the loss with
    respect to `out`, the gradients of query, key and value. The
    probabilities are recomputed from `lse` (nothing of size T x T is kept
    from the forward pass): with `p = exp(scale q k^T + mask - lse)`,
    `dv = p^T dout`, `ds = p * (dout v^T - rowsum(dout * out))`,
    `dq = scale ds k`, `dk = scale ds^T q`. With `products = bf16` (from
    the forward gpt.attention) every product takes bf16 operands: q, k, v
    and dout rounded to bf16, p rounded before it weighs dout, ds before it
    weighs k and q (rowsum(dout * out) from the rounded dout), with
    accumulation in the element type.

    Example:
    ```mlir
    %dq, %dk, %dv = gpt.attention_grad %q, %k, %v, %o, %lse, %do
        mask = #gpt.mask<causal = true, window = none, bos = -1>
        scale = 1.250000e-01 : tensor<1x2x256x32xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$query, GPT_FloatTensor:$key,
                       GPT_FloatTensor:$value, GPT_FloatTensor:$out,
                       GPT_FloatTensor:$lse, GPT_FloatTensor:$out_grad,
                       Optional<GPT_IndexTensor>:$tokens,
                       Optional<RankedTensorOf<[I64]>>:$window,
                       GPT_MaskAttr:$mask, F64Attr:$scale,
                       OptionalAttr<TypeAttr>:$products);
  let results = (outs GPT_FloatTensor:$query_grad, GPT_FloatTensor:$key_grad,
                      GPT_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $out `,` $lse `,` $out_grad
    (`tokens` $tokens^ `:` type($tokens))?
    (`window` $window^ `:` type($window))? `mask` `=` $mask
    `scale` `=` $scale (`products` `=` $products^)? attr-dict `:` type($query)
  }];
  let hasVerifier = 1;
}

def GPT_CrossEntropyOp : GPT_Op<"cross_entropy", [Pure, Differentiable]> {
  let summary = "fused softmax cross-entropy per position";
  let description = [{
    `result[i...] = logsumexp(z[i..., :]) - z[i..., targets[i...]]` over
    the last (vocabulary) dimension, with the log-sum-exp taken relative to
    the row's max; `z = logits`, or `softcap(logits)` with the optional
    `softcap` (the softcapped logits are never stored). The logits may be
    narrower than the result (bf16 logits, f32 loss): everything is
    computed in the result's element type. The probabilities are never
    stored. The mean over positions stays a `gpt.reduce`.

    Example:
    ```mlir
    %nll = gpt.cross_entropy %logits[%targets]
        softcap #gpt.softcap<kind = tanh, cap = 3.0e+01 : f64,
                             scale = 0.0333 : f64>
        : tensor<2x8x512xbf16>, tensor<2x8xi32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$logits, GPT_IndexTensor:$targets,
                       OptionalAttr<GPT_SoftcapAttr>:$softcap);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `[` $targets `]` (`softcap` $softcap^)? attr-dict `:`
    type($logits) `,` type($targets) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_CrossEntropyGradOp : GPT_Op<"cross_entropy_grad",
    [Pure, AllTypesMatch<["logits", "logits_grad"]>]> {
  let summary = "the logits gradient of gpt.cross_entropy";
  let description = [{
    `logits_grad[i..., j] = grad[i...] * (softmax(z[i..., :])[j] -
    (j == targets[i...])) * dz/dlogits[i..., j]` with `z` as in
    `gpt.cross_entropy` (with a `softcap`, the chain rule through it is
    applied in the same kernel): the softmax is recomputed row by row from
    the logits (max, sum of exponentials, then one write of the row).
    Nothing flows to the max: it is a shift, not a function of the row's
    values. Computed in the element type of `grad`, stored in the logits'.

    Example:
    ```mlir
    %dl = gpt.cross_entropy_grad %logits[%targets], %g
        : tensor<2x8x512xf32>, tensor<2x8xi32>, tensor<2x8xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$logits, GPT_IndexTensor:$targets,
                       GPT_FloatTensor:$grad,
                       OptionalAttr<GPT_SoftcapAttr>:$softcap);
  let results = (outs GPT_FloatTensor:$logits_grad);
  let assemblyFormat = [{
    $logits `[` $targets `]` `,` $grad (`softcap` $softcap^)? attr-dict `:`
    type($logits) `,` type($targets) `,` type($grad)
  }];
  let hasVerifier = 1;
}

#endif // GPTC_DIALECT_GPT_FUSEDOPS_TD
