//===- OptimDialect.h - The optim dialect -----------------------*- C++ -*-===//

#ifndef GPTC_DIALECT_OPTIM_OPTIMDIALECT_H
#define GPTC_DIALECT_OPTIM_OPTIMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Optim/OptimDialect.h.inc"
#include "dialects/Optim/OptimEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Optim/OptimAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Optim/OptimOps.h.inc"

#endif // GPTC_DIALECT_OPTIM_OPTIMDIALECT_H
