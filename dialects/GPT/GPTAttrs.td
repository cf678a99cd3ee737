//===- GPTAttrs.td - gpt enums and attributes --------------*- tablegen -*-===//

#ifndef GPTC_DIALECT_GPT_ATTRS_TD
#define GPTC_DIALECT_GPT_ATTRS_TD

include "dialects/GPT/GPTDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def GPT_ReduceSum : I32EnumAttrCase<"sum", 0>;
def GPT_ReduceMean : I32EnumAttrCase<"mean", 1>;
def GPT_ReduceMax : I32EnumAttrCase<"max", 2>;
def GPT_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind",
    [GPT_ReduceSum, GPT_ReduceMean, GPT_ReduceMax]> {
  let cppNamespace = "::mlir::gpt";
  let genSpecializedAttr = 0;
}
def GPT_ReduceKindAttr : EnumAttr<GPT_Dialect, GPT_ReduceKind, "reduce_kind">;

def GPT_CmpEq : I32EnumAttrCase<"eq", 0>;
def GPT_CmpNe : I32EnumAttrCase<"ne", 1>;
def GPT_CmpLt : I32EnumAttrCase<"lt", 2>;
def GPT_CmpLe : I32EnumAttrCase<"le", 3>;
def GPT_CmpGt : I32EnumAttrCase<"gt", 4>;
def GPT_CmpGe : I32EnumAttrCase<"ge", 5>;
def GPT_CompareKind : I32EnumAttr<"CompareKind", "comparison predicate",
    [GPT_CmpEq, GPT_CmpNe, GPT_CmpLt, GPT_CmpLe, GPT_CmpGt, GPT_CmpGe]> {
  let cppNamespace = "::mlir::gpt";
  let genSpecializedAttr = 0;
}
def GPT_CompareKindAttr : EnumAttr<GPT_Dialect, GPT_CompareKind, "compare_kind">;

def GPT_WindowNone : I32EnumAttrCase<"none", 0>;
def GPT_WindowTokens : I32EnumAttrCase<"tokens", 1>;
def GPT_WindowBlocks : I32EnumAttrCase<"blocks", 2>;
def GPT_WindowUnit : I32EnumAttr<"WindowUnit", "unit of a sliding window",
    [GPT_WindowNone, GPT_WindowTokens, GPT_WindowBlocks]> {
  let cppNamespace = "::mlir::gpt";
  let genSpecializedAttr = 0;
}
def GPT_WindowUnitAttr : EnumAttr<GPT_Dialect, GPT_WindowUnit, "window_unit">;

def GPT_MaskAttr : AttrDef<GPT_Dialect, "Mask"> {
  let mnemonic = "mask";
  let summary = "The attention mask of a gpt.attention op.";
  let description = [{
    Which (query, key) pairs attend, as REFERENCE semantics:
    - `causal`: key position <= query position.
    - `window`: `q - k < W` with W given at run time by the attention op's
      `window` operand; `tokens` applies it per element, `blocks` means W is
      a multiple of 128 and tiles of 128x128 are the unit of sparsity.
    - `document`: attend only within a document; a document starts at each
      token equal to `bos` in the batch's input tokens (the op's `tokens`
      operand). `bos = -1` means no document masking.

    Example: `#gpt.mask<causal = true, window = blocks, bos = 50256>`
  }];
  let parameters = (ins "bool":$causal,
                        "::mlir::gpt::WindowUnit":$window,
                        "int64_t":$bos);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool hasWindow() const { return getWindow() != WindowUnit::none; }
    bool hasDocument() const { return getBos() >= 0; }
  }];
}

#endif // GPTC_DIALECT_GPT_ATTRS_TD
