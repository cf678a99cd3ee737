//===- ReferenceInterfaces.td - reference evaluation interface -*- tablegen -*-===//
//
// The op interface through which the reference interpreter (Interpreter.h)
// runs an op. It is attached to the gpt ops as external models
// (registerReferenceExternalModels), so the dialect itself does not depend
// on the interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_REFERENCE_REFERENCEINTERFACES_TD
#define GPTC_REFERENCE_REFERENCEINTERFACES_TD

include "mlir/IR/OpBase.td"

def ReferenceEvalOpInterface : OpInterface<"ReferenceEvalOpInterface"> {
  let cppNamespace = "::gptc::ref";
  let description = [{
    An op with reference semantics: given the values of its operands as f64
    host tensors, computes the values of its results. Every element is a
    `double` whatever the IR's element type: floating-point casts are
    identities, integer results are exact (integer division truncates
    toward zero), i1 is 0 or 1. The result shapes are those of the op's
    result types.
  }];
  let methods = [
    InterfaceMethod<[{
        Computes the results from `operands` (one per operand, in operand
        order) and appends one tensor per result to `results`. Emits an
        error at the op and fails on values the op does not define (an
        embedding id outside the table, an integer division by zero).
      }],
      "::llvm::LogicalResult", "evaluate",
      (ins "::llvm::ArrayRef<::gptc::ref::HostTensor>":$operands,
           "::llvm::SmallVectorImpl<::gptc::ref::HostTensor> &":$results)>,
  ];
}

#endif // GPTC_REFERENCE_REFERENCEINTERFACES_TD
