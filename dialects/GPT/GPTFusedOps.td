//===- GPTFusedOps.td - gpt fused ops ----------------------*- tablegen -*-===//
//
// Ops produced by the fusion passes (gptc-fuse-rmsnorm,
// gptc-fuse-attention). Included from GPTOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_FUSEDOPS_TD
#define GPTC_DIALECT_GPT_FUSEDOPS_TD

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

def GPT_AttentionOp : GPT_Op<"attention", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["query", "key", "value", "result"]>]> {
  let summary = "fused masked scaled-dot-product attention";
  let description = [{
    `softmax(scale * q k^T + mask) v` per batch and head, with q, k, v of
    shape [B, H, T, D] and the mask of `#gpt.mask`. A document mask reads
    the batch's input tokens (`tokens`, [B, T]); a sliding window reads its
    size in tokens from `window` (a 0-d i64 tensor, so the schedule can grow
    it without recompiling).

    Example:
    ```mlir
    %o = gpt.attention %q, %k, %v tokens %ids : tensor<1x256xi32>
        window %w : tensor<i64>
        mask = #gpt.mask<causal = true, window = blocks, bos = 50256>
        scale = 1.250000e-01 : tensor<1x2x256x32xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$query, GPT_FloatTensor:$key,
                       GPT_FloatTensor:$value,
                       Optional<GPT_IndexTensor>:$tokens,
                       Optional<RankedTensorOf<[I64]>>:$window,
                       GPT_MaskAttr:$mask, F64Attr:$scale);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`tokens` $tokens^ `:` type($tokens))?
    (`window` $window^ `:` type($window))? `mask` `=` $mask
    `scale` `=` $scale attr-dict `:` type($query)
  }];
  let hasVerifier = 1;
}

#endif // GPTC_DIALECT_GPT_FUSEDOPS_TD
