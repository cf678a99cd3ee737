//===- FusionPasses.td - gptc passes -----------------------*- tablegen -*-===//
//
// Stage 1: the forward graph's fused ops. Included by passes/Passes.td (one
// pass-declaration file for the library).
//
//===----------------------------------------------------------------------===//

def FuseRotaryPass : Pass<"gptc-fuse-rotary", "mlir::func::FuncOp"> {
  let summary = "Recognise the rotary embedding in a forward graph and fuse it";
  let description = [{
    The halves of the last dimension rotated by broadcast cos/sin tables
    and concatenated become one `gpt.rotary` (one pass; its VJP is the
    inverse rotary, one pass too). Fires only when no intermediate (the
    halves, the broadcast tables, the four products, the sum and the
    difference) has a user outside the pattern. Runs before autodiff.

    ```mlir
    %x1 = gpt.slice %x offsets = [0, 0, 0, 0] : tensor<4x256x2x32xf32> to tensor<4x256x2x16xf32>
    %x2 = gpt.slice %x offsets = [0, 0, 0, 16] : tensor<4x256x2x32xf32> to tensor<4x256x2x16xf32>
    %c = gpt.broadcast %cos : tensor<1x256x1x16xf32> to tensor<4x256x2x16xf32>
    %s = gpt.broadcast %sin : tensor<1x256x1x16xf32> to tensor<4x256x2x16xf32>
    ... %y1 = x1 c + x2 s, %y2 = x2 c - x1 s ...
    %y = gpt.concat %y1, %y2 dim = 3 : (...) -> tensor<4x256x2x32xf32>
    // =>
    %y = gpt.rotary %x, %cos, %sin : tensor<4x256x2x32xf32>, tensor<1x256x1x16xf32>
    ```
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

def FuseRMSNormPass : Pass<"gptc-fuse-rmsnorm", "mlir::func::FuncOp"> {
  let summary = "Recognise RMSNorm in a forward graph and fuse it";
  let description = [{
    `x * broadcast(rsqrt(mean(x^2, -1) + eps))` becomes `gpt.rms_norm`; a
    following multiplication by a weight vector (broadcast from the last
    dimension) becomes its `weight`, and a preceding `x = a + r` whose sum
    has no other user becomes its `residual`. Fires only when no
    intermediate (square, mean, rsqrt, broadcast) has a user outside the
    pattern. Runs before autodiff, so the backward graph is built from the
    fused op's VJP.

    ```mlir
    %1 = gpt.square %x : tensor<2x8x64xf32>
    %2 = gpt.reduce mean %1 dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
    %3 = gpt.add_scalar %2, 1.000000e-06 : tensor<2x8x1xf32>
    %4 = gpt.rsqrt %3 : tensor<2x8x1xf32>
    %5 = gpt.broadcast %4 : tensor<2x8x1xf32> to tensor<2x8x64xf32>
    %y = gpt.mul %x, %5 : tensor<2x8x64xf32>
    // =>
    %y = gpt.rms_norm %x eps = 1.000000e-06 : tensor<2x8x64xf32>
    ```
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

def FuseCrossEntropyPass : Pass<"gptc-fuse-cross-entropy",
                                 "mlir::func::FuncOp"> {
  let summary = "Recognise softmax cross-entropy over logits and fuse it";
  let description = [{
    `logsumexp(l) - gather_last(l[targets])` over the last dimension, with
    the log-sum-exp as the frontend writes it (`log(sum(exp(l - m))) + m`,
    `m = max(l)`), becomes `gpt.cross_entropy l[targets]`. Its VJP,
    `gpt.cross_entropy_grad`, writes `g (softmax(l) - onehot(targets))` in
    one pass per row: no one-hot tensor, no gradient through the max.
    Fires only when no intermediate has a user outside the pattern.

    ```mlir
    %m = gpt.reduce max %l dims = [2] : tensor<2x8x512xf32> -> tensor<2x8x1xf32>
    %b = gpt.broadcast %m : tensor<2x8x1xf32> to tensor<2x8x512xf32>
    %s = gpt.sub %l, %b : tensor<2x8x512xf32>
    %e = gpt.exp %s : tensor<2x8x512xf32>
    %z = gpt.reduce sum %e dims = [2] : tensor<2x8x512xf32> -> tensor<2x8x1xf32>
    %g = gpt.log %z : tensor<2x8x1xf32>
    %lse = gpt.add %g, %m : tensor<2x8x1xf32>
    %r = gpt.reshape %lse : tensor<2x8x1xf32> to tensor<2x8xf32>
    %t = gpt.gather_last %l[%targets] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
    %nll = gpt.sub %r, %t : tensor<2x8xf32>
    // =>
    %nll = gpt.cross_entropy %l[%targets] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
    ```

    Then the logits' producers fold into the op when it is their only
    user: a softcap `c * f(x * s)` (`f` = `gpt.tanh` or `gpt.sigmoid`, both
    scalings `gpt.mul_scalar`) becomes its `softcap` attribute, and a
    widening `gpt.cast` (bf16 logits to f32) is dropped: the op reads the
    bf16 logits and computes in f32. The softcapped f32 logits, the
    largest tensors of a step, are then never stored, and the gradient
    writes the bf16 logits' gradient in one pass.
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}

def FuseAttentionPass : Pass<"gptc-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Recognise masked scaled-dot-product attention and fuse it";
  let description = [{
    `softmax(select(mask, scale * q k^T, -inf)) v` as the frontend emits it
    (GEMM operands possibly cast to bf16 and back) becomes
    `gpt.attention q, k, v` on the uncast operands. The mask, an i1
    tensor of allowed (query, key) pairs, is read back as `#gpt.mask`: any
    conjunction of the causal mask, a sliding window in tokens or in
    128-token blocks (its size a run-time operand) and the document mask
    (document ids = running count of a BOS token in the input tokens). Any
    other mask, or a T x T intermediate with a user outside the pattern,
    leaves the primitive ops in place. The fused op's kernels never
    materialise the T x T scores.
  }];
  let dependentDialects = ["mlir::gpt::GPTDialect"];
}
