//===- GPTOps.td - gpt dialect ops -------------------------*- tablegen -*-===//
//
// Primitive ops come first (elementwise, reductions, contraction, data
// movement, masks), then the fused ops the fusion passes produce.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_OPS_TD
#define GPTC_DIALECT_GPT_OPS_TD

include "dialects/GPT/GPTAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "dialects/GPT/GPTInterfaces.td"

/// Traits of an op that reverse-mode autodiff can differentiate.
defvar Differentiable = DeclareOpInterfaceMethods<GPT_DifferentiableOpInterface>;
defvar ProductFlops = DeclareOpInterfaceMethods<GPT_ProductFlopsOpInterface>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class GPT_BinaryOp<string mnemonic, string math>
    : GPT_Op<mnemonic, [Pure, SameOperandsAndResultType, Differentiable]> {
  let summary = "elementwise " # math;
  let description = [{
    Elementwise `}] # math # [{` of two tensors of the same type. Broadcasting
    is explicit (`gpt.broadcast`).

    Example:
    ```mlir
    %r = gpt.}] # mnemonic # [{ %a, %b : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins GPT_NumericTensor:$lhs, GPT_NumericTensor:$rhs);
  let results = (outs GPT_NumericTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def GPT_AddOp : GPT_BinaryOp<"add", "lhs + rhs">;
def GPT_SubOp : GPT_BinaryOp<"sub", "lhs - rhs">;
def GPT_MulOp : GPT_BinaryOp<"mul", "lhs * rhs">;
def GPT_DivOp : GPT_BinaryOp<"div", "lhs / rhs">;
def GPT_MaxOp : GPT_BinaryOp<"max", "max(lhs, rhs)">;

class GPT_UnaryOp<string mnemonic, string math>
    : GPT_Op<mnemonic, [Pure, SameOperandsAndResultType, Differentiable]> {
  let summary = "elementwise " # math;
  let description = [{
    Elementwise `}] # math # [{` of a floating-point tensor.

    Example:
    ```mlir
    %r = gpt.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def GPT_NegOp : GPT_UnaryOp<"neg", "-x">;
def GPT_ExpOp : GPT_UnaryOp<"exp", "exp(x)">;
def GPT_LogOp : GPT_UnaryOp<"log", "log(x)">;
def GPT_SqrtOp : GPT_UnaryOp<"sqrt", "sqrt(x)">;
def GPT_RsqrtOp : GPT_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def GPT_TanhOp : GPT_UnaryOp<"tanh", "tanh(x)">;
def GPT_SigmoidOp : GPT_UnaryOp<"sigmoid", "1 / (1 + exp(-x))">;
def GPT_SquareOp : GPT_UnaryOp<"square", "x * x">;
def GPT_ReluOp : GPT_UnaryOp<"relu", "max(x, 0)">;
def GPT_GeluOp : GPT_UnaryOp<"gelu", "x * Phi(x) (exact, erf form)">;
def GPT_ErfOp : GPT_UnaryOp<"erf", "erf(x)">;
def GPT_CosOp : GPT_UnaryOp<"cos", "cos(x)">;
def GPT_SinOp : GPT_UnaryOp<"sin", "sin(x)">;

class GPT_ScalarOp<string mnemonic, string math>
    : GPT_Op<mnemonic, [Pure, SameOperandsAndResultType, Differentiable]> {
  let summary = "elementwise " # math # " with a constant scalar";
  let description = [{
    Elementwise `}] # math # [{` where `c` is a compile-time constant.

    Example:
    ```mlir
    %r = gpt.}] # mnemonic # [{ %x, 5.000000e-01 : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$input, F64Attr:$scalar);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` type($result)";
}

def GPT_MulScalarOp : GPT_ScalarOp<"mul_scalar", "x * c"> {
  // x * 1 is x (exactly, in IEEE arithmetic).
  let hasFolder = 1;
}
def GPT_AddScalarOp : GPT_ScalarOp<"add_scalar", "x + c">;

def GPT_CompareOp : GPT_Op<"compare", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise comparison";
  let description = [{
    Compares two tensors of the same type elementwise; the result has the
    same shape with `i1` elements.

    Example:
    ```mlir
    %m = gpt.compare le, %k, %q : tensor<8x8xi32> -> tensor<8x8xi1>
    ```
  }];
  let arguments = (ins GPT_CompareKindAttr:$predicate, GPT_NumericTensor:$lhs,
                       GPT_NumericTensor:$rhs);
  let results = (outs GPT_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_SelectOp : GPT_Op<"select",
    [Pure, AllTypesMatch<["true_value", "false_value", "result"]>,
     Differentiable]> {
  let summary = "elementwise choice";
  let description = [{
    `result[i] = condition[i] ? true_value[i] : false_value[i]`; the
    condition has the shape of the values.

    Example:
    ```mlir
    %r = gpt.select %m, %s, %ninf : tensor<8x8xi1>, tensor<8x8xf32>
    ```
  }];
  let arguments = (ins GPT_BoolTensor:$condition,
                       GPT_AnyTensor:$true_value, GPT_AnyTensor:$false_value);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_CastOp : GPT_Op<"cast", [Pure, Differentiable]> {
  let summary = "element type conversion";
  let description = [{
    Converts each element to the result's element type (f32, bf16, f64, i32,
    i64; from those or i1, true = 1); shapes must match. Float to float rounds to nearest even.

    Example:
    ```mlir
    %r = gpt.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins GPT_AnyTensor:$input);
  let results = (outs GPT_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Constants and index generators
//===----------------------------------------------------------------------===//

def GPT_ConstantOp : GPT_Op<"constant",
    [Pure, ConstantLike, AllTypesMatch<["value", "result"]>]> {
  let summary = "constant tensor";
  let description = [{
    A tensor given by a dense elements attribute (usually a splat).

    Example:
    ```mlir
    %c = gpt.constant dense<1.000000e+00> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs GPT_AnyTensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

def GPT_IotaOp : GPT_Op<"iota", [Pure]> {
  let summary = "positions along one dimension";
  let description = [{
    `result[i0, ..., in] = i_dim`, converted to the element type.

    Example:
    ```mlir
    %pos = gpt.iota dim = 1 : tensor<8x8xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs GPT_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def GPT_CumsumOp : GPT_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sum along one dimension";
  let description = [{
    `result[..., i, ...] = sum_{j <= i} input[..., j, ...]` along `dim`.
    Document ids are `cumsum(tokens == bos)`.

    Example:
    ```mlir
    %doc = gpt.cumsum %isbos dim = 1 : tensor<2x64xi32>
    ```
  }];
  let arguments = (ins GPT_NumericTensor:$input, I64Attr:$dim);
  let results = (outs GPT_NumericTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and contraction
//===----------------------------------------------------------------------===//

def GPT_ReduceOp : GPT_Op<"reduce", [Pure, Differentiable]> {
  let summary = "sum, mean or max over dimensions, keeping them as size 1";
  let description = [{
    Reduces `input` over `dims`; the result has the same rank with those
    dimensions of size 1.

    Example:
    ```mlir
    %ms = gpt.reduce mean %sq dims = [2] : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
    ```
  }];
  let arguments = (ins GPT_ReduceKindAttr:$kind, GPT_FloatTensor:$input,
                       DenseI64ArrayAttr:$dims);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input `dims` `=` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def GPT_MatmulOp : GPT_Op<"matmul", [Pure, Differentiable, ProductFlops]> {
  let summary = "batched matrix product with transpose flags";
  let description = [{
    `result = op(lhs) x op(rhs)` over the last two dimensions, where `op`
    transposes when the flag is set. Leading (batch) dimensions of `lhs`
    and `rhs` are equal, or `rhs` is a rank-2 matrix shared by every batch
    (a linear layer: `x W^T` is `matmul %x, %w transpose_rhs`).

    Example:
    ```mlir
    %y = gpt.matmul %x, %w transpose_rhs
        : tensor<2x8x64xf32>, tensor<256x64xf32> -> tensor<2x8x256xf32>
    ```
  }];
  let arguments = (ins GPT_FloatTensor:$lhs, GPT_FloatTensor:$rhs,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs GPT_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`transpose_lhs` $transpose_lhs^)?
    (`transpose_rhs` $transpose_rhs^)? attr-dict `:`
    type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

include "dialects/GPT/GPTDataOps.td"
include "dialects/GPT/GPTFusedOps.td"
include "dialects/GPT/GPTGradOps.td"

#endif // GPTC_DIALECT_GPT_OPS_TD
