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

#endif // GPTC_DIALECT_GPT_INTERFACES_TD
