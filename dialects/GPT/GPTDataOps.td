//===- GPTDataOps.td - gpt data-movement ops ---------------*- tablegen -*-===//
//
// Gathers, shape changes, slicing and joining. Included from GPTOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_DATAOPS_TD
#define GPTC_DIALECT_GPT_DATAOPS_TD

def GPT_EmbeddingOp : GPT_Op<"embedding", [Pure, Differentiable]> {
  let summary = "embedding lookup (row gather)";
  let description = [{
    `result[b, t, :] = table[ids[b, t], :]`. Ids outside the table are
    undefined behaviour; the runtime validates tokens before the step.

    Example:
    ```mlir
    %x = gpt.embedding %wte[%ids] : tensor<512x64xf32>, tensor<2x8xi32> -> tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$table, GPT_IndexTensor:$ids);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $table `[` $ids `]` attr-dict `:` type($table) `,` type($ids) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_GatherLastOp : GPT_Op<"gather_last", [Pure, Differentiable]> {
  let summary = "pick one element of the last dimension per position";
  let description = [{
    `result[i...] = input[i..., index[i...]]`: the target logit of a
    cross-entropy. `index` has the shape of `input` without its last
    dimension.

    Example:
    ```mlir
    %t = gpt.gather_last %logits[%targets] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input, GPT_IndexTensor:$index);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $input `[` $index `]` attr-dict `:` type($input) `,` type($index) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_BroadcastOp : GPT_Op<"broadcast", [Pure, Differentiable]> {
  let summary = "expand size-1 dimensions";
  let description = [{
    Repeats `input` along its size-1 dimensions to the result shape (same
    rank, same element type).

    Example:
    ```mlir
    %b = gpt.broadcast %x : tensor<2x8x1xf32> to tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins GPT_AnyTensor:$input);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

def GPT_ReshapeOp : GPT_Op<"reshape", [Pure, Differentiable]> {
  let summary = "reinterpret the shape (row-major)";
  let description = [{
    Same elements in row-major order, another static shape.

    Example:
    ```mlir
    %r = gpt.reshape %x : tensor<2x8x64xf32> to tensor<2x8x4x16xf32>
    ```
  }];
  let arguments = (ins GPT_AnyTensor:$input);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  // A reshape to the same shape is its input; a reshape of a reshape
  // reshapes the inner input.
  let hasFolder = 1;
}

def GPT_TransposeOp : GPT_Op<"transpose", [Pure, Differentiable]> {
  let summary = "permute dimensions";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`.

    Example:
    ```mlir
    %t = gpt.transpose %x permutation = [0, 2, 1, 3]
        : tensor<2x8x4x16xf32> to tensor<2x4x8x16xf32>
    ```
  }];
  let arguments = (ins GPT_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = [{
    $input `permutation` `=` $permutation attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  // The identity permutation is the input; a transpose of a transpose is
  // one transpose by the composed permutation (or the input).
  let hasFolder = 1;
}

def GPT_SliceOp : GPT_Op<"slice", [Pure, Differentiable]> {
  let summary = "contiguous sub-tensor";
  let description = [{
    The sub-tensor starting at `offsets` with the result's shape (unit
    strides).

    Example:
    ```mlir
    %h = gpt.slice %x offsets = [0, 0, 32] : tensor<2x8x64xf32> to tensor<2x8x32xf32>
    ```
  }];
  let arguments = (ins GPT_AnyTensor:$input, DenseI64ArrayAttr:$offsets);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = [{
    $input `offsets` `=` $offsets attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_ConcatOp : GPT_Op<"concat", [Pure, Differentiable]> {
  let summary = "join tensors along one dimension";
  let description = [{
    Concatenates the inputs along `dim`; other dimensions and the element
    type agree.

    Example:
    ```mlir
    %c = gpt.concat %a, %b dim = 2 : (tensor<2x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins Variadic<GPT_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_SplitOp : GPT_Op<"split", [Pure, Differentiable]> {
  let summary = "cut a tensor into equal parts along one dimension";
  let description = [{
    The inverse of `gpt.concat` for equal parts: result i is the i-th
    `size(dim) / n` slice. Used for the fused QKV projection.

    Example:
    ```mlir
    %q, %k, %v = gpt.split %qkv dim = 2 : tensor<2x8x192xf32> -> tensor<2x8x64xf32>, tensor<2x8x64xf32>, tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins GPT_AnyTensor:$input, I64Attr:$dim);
  let results = (outs Variadic<GPT_AnyTensor>:$results);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:` type($input) `->` type($results)
  }];
  let hasVerifier = 1;
}

#endif // GPTC_DIALECT_GPT_DATAOPS_TD
