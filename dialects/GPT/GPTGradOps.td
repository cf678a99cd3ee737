//===- GPTGradOps.td - gpt ops that appear in backward graphs -*- tablegen -*-===//
//
// The adjoints of the gathers and of slicing. Autodiff produces them; they
// are not differentiable themselves (gptc does not take second derivatives).
// Included from GPTOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_GRADOPS_TD
#define GPTC_DIALECT_GPT_GRADOPS_TD

def GPT_EmbeddingGradOp : GPT_Op<"embedding_grad", [Pure]> {
  let summary = "scatter-add rows: the adjoint of gpt.embedding";
  let description = [{
    `result = zeros; result[ids[b, t], :] += grad[b, t, :]` for every
    position. The result type is the embedding table's.

    Example:
    ```mlir
    %dw = gpt.embedding_grad %g[%ids] : tensor<2x8x64xf32>, tensor<2x8xi32> -> tensor<512x64xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$grad, GPT_IndexTensor:$ids);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `[` $ids `]` attr-dict `:` type($grad) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_ScatterLastOp : GPT_Op<"scatter_last", [Pure]> {
  let summary = "place one value per position in the last dimension";
  let description = [{
    `result = zeros; result[i..., index[i...]] = grad[i...]`: the adjoint of
    `gpt.gather_last`. The result has one more dimension than `grad`.

    Example:
    ```mlir
    %d = gpt.scatter_last %g[%targets] : tensor<2x8xf32>, tensor<2x8xi32> -> tensor<2x8x512xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$grad, GPT_IndexTensor:$index);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `[` $index `]` attr-dict `:` type($grad) `,` type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_PadOp : GPT_Op<"pad", [Pure]> {
  let summary = "embed a tensor in zeros: the adjoint of gpt.slice";
  let description = [{
    A zero tensor of the result's shape with `input` written at `offsets`.

    Example:
    ```mlir
    %p = gpt.pad %x offsets = [0, 0, 32] : tensor<2x8x32xf32> to tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input, DenseI64ArrayAttr:$offsets);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
}

#endif // GPTC_DIALECT_GPT_GRADOPS_TD
