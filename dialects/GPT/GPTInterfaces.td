//===- GPTInterfaces.td - gpt op interfaces ----------------*- tablegen -*-===//

#ifndef GPTC_DIALECT_GPT_INTERFACES_TD
#define GPTC_DIALECT_GPT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def GPT_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::gpt";
  let description = [{
    An op that knows its vector-Jacobian product. Reverse-mode autodiff
    (`gptc-autodiff`) walks the forward graph backwards and asks each op for
    the gradients of its operands given the gradients of its results. The
    VJP is written in gpt ops at the builder's insertion point, so the
    backward graph is itself gpt IR that later passes fuse and lower.

    Ops whose results are not floating point (masks, positions, ids) are
    constants to autodiff and need not implement this interface.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the gradients of the operands. `resultGrads` has one entry
        per result; an entry is null when that result does not reach the
        loss. Appends one value per operand to `operandGrads`, null for
        operands that have no gradient (integer and boolean operands).
      }],
      "::llvm::LogicalResult", "buildVJP",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

def GPT_ProductFlopsOpInterface : OpInterface<"ProductFlopsOpInterface"> {
  let cppNamespace = "::mlir::gpt";
  let description = [{
    An op made of matrix products: it counts their FLOPs, 2·M·N·K a
    product, as the model does them (the step's MFU: gptc-count-step-flops).
    Attention counts the query-key pairs its mask allows at most (causal:
    T(T+1)/2 a head; a window or documents allow fewer), and its backward
    the four products of the gradients, not a recomputed score.
  }];
  let methods = [
    InterfaceMethod<[{
        The FLOPs of this op's matrix products, from its operand types.
      }],
      "double", "productFlops", (ins)>,
  ];
}

#endif // GPTC_DIALECT_GPT_INTERFACES_TD
