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
def GPT_WindowRecordBlocks : I32EnumAttrCase<"record_blocks", 3>;
def GPT_WindowUnit : I32EnumAttr<"WindowUnit", "unit of a sliding window",
    [GPT_WindowNone, GPT_WindowTokens, GPT_WindowBlocks,
     GPT_WindowRecordBlocks]> {
  let cppNamespace = "::mlir::gpt";
  let genSpecializedAttr = 0;
}
def GPT_WindowUnitAttr : EnumAttr<GPT_Dialect, GPT_WindowUnit, "window_unit">;

def GPT_SoftcapTanh : I32EnumAttrCase<"tanh", 0>;
def GPT_SoftcapSigmoid : I32EnumAttrCase<"sigmoid", 1>;
def GPT_SoftcapKind : I32EnumAttr<"SoftcapKind", "squashing function of a logit softcap",
    [GPT_SoftcapTanh, GPT_SoftcapSigmoid]> {
  let cppNamespace = "::mlir::gpt";
  let genSpecializedAttr = 0;
}
def GPT_SoftcapKindAttr : EnumAttr<GPT_Dialect, GPT_SoftcapKind, "softcap_kind">;

def GPT_MaskAttr : AttrDef<GPT_Dialect, "Mask"> {
  let mnemonic = "mask";
  let summary = "The attention mask of a gpt.attention op.";
  let description = [{
    Which (query, key) pairs attend, as REFERENCE semantics:
    - `causal`: key position <= query position.
    - `window`: `q - k < W` with W given at run time by the attention op's
      `window` operand; `tokens` applies it per element, `blocks` means W is
      a multiple of 128 and tiles of 128x128 are the unit of sparsity:
      `q / 128 - k / 128 < W / 128`; `record_blocks` is both rules at once,
      the element rule `q - k < W` inside the 128-key blocks the block rule
      `q / 128 - k / 128 < ceil(W / 128)` lists (a FlexAttention BlockMask
      with its mask_mod: a query sees at most
      `min(W, q mod 128 + 1 + 128 (ceil(W / 128) - 1))` keys).
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

def GPT_SoftcapAttr : AttrDef<GPT_Dialect, "Softcap"> {
  let mnemonic = "softcap";
  let summary = "The logit softcap a fused cross-entropy applies first.";
  let description = [{
    `softcap(z) = cap * f(z * scale)` elementwise, with `f` = `tanh`
    (R9-R17: cap 30, scale 1/30) or `sigmoid` (R21: cap 30, scale 1/7.5):
    the ops `gpt.mul_scalar`, `gpt.tanh` / `gpt.sigmoid`, `gpt.mul_scalar`
    that the frontend emits, with the same constants, so that a fused
    kernel rounds every element as the separate ops do.

    Example:
    `#gpt.softcap<kind = tanh, cap = 3.0e+01 : f64, scale = 0.0333 : f64>`
  }];
  let parameters = (ins "::mlir::gpt::SoftcapKind":$kind,
                        "::mlir::FloatAttr":$cap, "::mlir::FloatAttr":$scale);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    double capValue() const { return getCap().getValueAsDouble(); }
    double scaleValue() const { return getScale().getValueAsDouble(); }
  }];
}

def GPT_ArenaSlotAttr : AttrDef<GPT_Dialect, "ArenaSlot"> {
  let mnemonic = "arena_slot";
  let summary = "One named region of a training step's arena.";
  let description = [{
    A slot of the byte arena that holds all of a compiled step's state
    (runtime/gptrt.h): its name (`tokens`, `param.wte`, `grad.wte`,
    `state.wte.m`, ...), its byte offset (a multiple of 64) and the tensor
    type it stores.

    Example: `#gpt.arena_slot<"param.wte", 4096, tensor<264x64xf32>>`
  }];
  let parameters = (ins "::mlir::StringAttr":$name, "int64_t":$offset,
                        "::mlir::RankedTensorType":$type);
  let assemblyFormat = "`<` $name `,` $offset `,` $type `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes the slot's tensor occupies.
    int64_t getByteSize() const;
  }];
}

def GPT_ArenaLayoutAttr : AttrDef<GPT_Dialect, "ArenaLayout"> {
  let mnemonic = "arena";
  let summary = "The arena layout of a compiled training step.";
  let description = [{
    Set on the module by gptc-build-step (the slots) and completed by
    gptc-plan-buffers (the workspace of the step's temporaries, after the
    slots): the total size in bytes, the workspace [offset, offset + bytes)
    and every slot. The manifest writer and the layout descriptor that the
    step library exports are both read from it. Slots are 64-byte aligned,
    named once, inside the arena, before the workspace and disjoint.

    Example:
    ```mlir
    module attributes {gptc.arena = #gpt.arena<bytes = 8192,
        workspace = [4096, 4096],
        slots = [#gpt.arena_slot<"tokens", 0, tensor<4x128xi32>>, ...]>}
    ```
  }];
  let parameters = (ins "int64_t":$bytes, "int64_t":$workspaceOffset,
                        "int64_t":$workspaceBytes,
                        ArrayRefParameter<"ArenaSlotAttr">:$slots);
  // Slots print in full (#gpt.arena_slot<...>), an empty list as [].
  let assemblyFormat = [{
    `<` `bytes` `=` $bytes `,` `workspace` `=` `[` $workspaceOffset `,`
    $workspaceBytes `]` `,` `slots` `=` custom<ArenaSlots>($slots) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The module attribute that holds the layout.
    static constexpr ::llvm::StringLiteral kAttrName = "gptc.arena";
    /// The slot called `name`, or null.
    ArenaSlotAttr lookup(::llvm::StringRef name) const;
    /// The same layout with another size and workspace.
    ArenaLayoutAttr withWorkspace(int64_t bytes, int64_t offset,
                                  int64_t size) const;
  }];
}

#endif // GPTC_DIALECT_GPT_ATTRS_TD
