//===- GPTGPUDialect.h - The gptgpu dialect ---------------------*- C++ -*-===//

#ifndef GPTC_DIALECT_GPTGPU_GPTGPUDIALECT_H
#define GPTC_DIALECT_GPTGPU_GPTGPUDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/GPTGPU/GPTGPUDialect.h.inc"

#define GET_OP_CLASSES
#include "dialects/GPTGPU/GPTGPUOps.h.inc"

#endif // GPTC_DIALECT_GPTGPU_GPTGPUDIALECT_H
