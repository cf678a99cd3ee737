//===- GPTGPUDialect.cpp - gptgpu dialect registration and ops ------------===//

#include "dialects/GPTGPU/GPTGPUDialect.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::gptgpu;

#include "dialects/GPTGPU/GPTGPUDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialects/GPTGPU/GPTGPUOps.cpp.inc"

void GPTGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/GPTGPU/GPTGPUOps.cpp.inc"
      >();
}
