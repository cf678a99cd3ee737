//===- CommDialect.h - The comm dialect -------------------------*- C++ -*-===//

#ifndef GPTC_DIALECT_COMM_COMMDIALECT_H
#define GPTC_DIALECT_COMM_COMMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Comm/CommDialect.h.inc"
#include "dialects/Comm/CommEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Comm/CommAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Comm/CommOps.h.inc"

#endif // GPTC_DIALECT_COMM_COMMDIALECT_H
