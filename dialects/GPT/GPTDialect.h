//===- GPTDialect.h - The gpt dialect ---------------------------*- C++ -*-===//

#ifndef GPTC_DIALECT_GPT_GPTDIALECT_H
#define GPTC_DIALECT_GPT_GPTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/GPT/GPTDialect.h.inc"
#include "dialects/GPT/GPTEnums.h.inc"
#include "dialects/GPT/GPTInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/GPT/GPTAttrs.h.inc"

namespace mlir::gpt {
/// The type of an attention's per-row statistics (its log-sum-exp): the
/// query's type without the head dimension, [B, H, T].
Type attentionRowType(Type query);
} // namespace mlir::gpt

#define GET_OP_CLASSES
#include "dialects/GPT/GPTOps.h.inc"

#endif // GPTC_DIALECT_GPT_GPTDIALECT_H
