//===- OptimAttrs.td - optim enums -------------------------*- tablegen -*-===//
//
// The enums that select between the variants of the speedrun's optimizers.
// In op assembly they print as bare keywords (`form = polynomial_then_apply`).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DIALECT_OPTIM_ATTRS_TD
#define GPTC_DIALECT_OPTIM_ATTRS_TD

include "dialects/Optim/OptimDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Optim_NSApplyThenCombine : I32EnumAttrCase<"apply_then_combine", 0>;
def Optim_NSPolynomialThenApply : I32EnumAttrCase<"polynomial_then_apply", 1>;
def Optim_NSForm : I32EnumAttr<"NSForm",
    "how a Newton-Schulz iteration evaluates its quintic",
    [Optim_NSApplyThenCombine, Optim_NSPolynomialThenApply]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_NSFormAttr : EnumAttr<Optim_Dialect, Optim_NSForm, "ns_form">;

def Optim_TransposeShortSide : I32EnumAttrCase<"short_side", 0>;
def Optim_TransposeNone : I32EnumAttrCase<"none", 1>;
def Optim_TransposeRule : I32EnumAttr<"TransposeRule",
    "whether Newton-Schulz transposes tall matrices",
    [Optim_TransposeShortSide, Optim_TransposeNone]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_TransposeRuleAttr
    : EnumAttr<Optim_Dialect, Optim_TransposeRule, "transpose_rule">;

def Optim_NormalizeBeforeCast : I32EnumAttrCase<"before_cast", 0>;
def Optim_NormalizeAfterCast : I32EnumAttrCase<"after_cast", 1>;
def Optim_NormalizeOrder : I32EnumAttr<"NormalizeOrder",
    "whether the Frobenius normalisation comes before or after the cast",
    [Optim_NormalizeBeforeCast, Optim_NormalizeAfterCast]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_NormalizeOrderAttr
    : EnumAttr<Optim_Dialect, Optim_NormalizeOrder, "normalize_order">;

def Optim_MomentumSum : I32EnumAttrCase<"sum", 0>;
def Optim_MomentumLerp : I32EnumAttrCase<"lerp", 1>;
def Optim_MomentumForm : I32EnumAttr<"MomentumForm",
    "how Muon accumulates its momentum buffer",
    [Optim_MomentumSum, Optim_MomentumLerp]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_MomentumFormAttr
    : EnumAttr<Optim_Dialect, Optim_MomentumForm, "momentum_form">;

def Optim_ScaleNone : I32EnumAttrCase<"none", 0>;
def Optim_ScaleSqrtMaxDim : I32EnumAttrCase<"sqrt_max_dim", 1>;
def Optim_ScaleSqrtMax1Ratio : I32EnumAttrCase<"sqrt_max_1_ratio", 2>;
def Optim_UpdateScale : I32EnumAttr<"UpdateScale",
    "shape-dependent scale of Muon's orthogonalised update",
    [Optim_ScaleNone, Optim_ScaleSqrtMaxDim, Optim_ScaleSqrtMax1Ratio]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_UpdateScaleAttr
    : EnumAttr<Optim_Dialect, Optim_UpdateScale, "update_scale">;

def Optim_BackendNewtonSchulz : I32EnumAttrCase<"newton_schulz", 0>;
def Optim_BackendSVD : I32EnumAttrCase<"svd", 1>;
def Optim_OrthoBackend : I32EnumAttr<"OrthoBackend",
    "how Muon orthogonalises its update",
    [Optim_BackendNewtonSchulz, Optim_BackendSVD]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_OrthoBackendAttr
    : EnumAttr<Optim_Dialect, Optim_OrthoBackend, "ortho_backend">;

def Optim_RoundFloor : I32EnumAttrCase<"floor", 0>;
def Optim_RoundCeil : I32EnumAttrCase<"ceil", 1>;
def Optim_Rounding : I32EnumAttr<"Rounding",
    "rounding of a window to its granularity",
    [Optim_RoundFloor, Optim_RoundCeil]> {
  let cppNamespace = "::mlir::optim";
  let genSpecializedAttr = 0;
}
def Optim_RoundingAttr
    : EnumAttr<Optim_Dialect, Optim_Rounding, "rounding">;

#endif // GPTC_DIALECT_OPTIM_ATTRS_TD
