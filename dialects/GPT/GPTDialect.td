//===- GPTDialect.td - The gpt dialect ----------------------*- tablegen -*-===//
//
// The `gpt` dialect: what a GPT model means, at the tensor level.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_GPT_DIALECT_TD
#define GPTC_DIALECT_GPT_DIALECT_TD

include "mlir/IR/OpBase.td"

def GPT_Dialect : Dialect {
  let name = "gpt";
  let cppNamespace = "::mlir::gpt";
  let summary = "Tensor-level primitives and fused ops of GPT models.";
  let description = [{
    The `gpt` dialect holds the forward (and, after autodiff, backward) graph
    of a GPT model as value-semantic ranked tensors. It has primitive ops
    (elementwise math, reductions, matmul, data movement) in which the
    frontend writes attention and normalisation out as the math, and fused
    ops (`gpt.rms_norm`, `gpt.attention`) that the fusion passes produce.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class GPT_Op<string mnemonic, list<Trait> traits = []>
    : Op<GPT_Dialect, mnemonic, traits>;

def GPT_FloatTensor : RankedTensorOf<[F32, BF16, F64]>;
def GPT_IndexTensor : RankedTensorOf<[I32, I64]>;
def GPT_NumericTensor : RankedTensorOf<[F32, BF16, F64, I32, I64]>;
def GPT_BoolTensor : RankedTensorOf<[I1]>;
def GPT_AnyTensor : RankedTensorOf<[F32, BF16, F64, I32, I64, I1]>;

#endif // GPTC_DIALECT_GPT_DIALECT_TD
