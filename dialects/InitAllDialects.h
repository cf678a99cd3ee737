//===- InitAllDialects.h - Register gptc's dialects -------------*- C++ -*-===//

#ifndef GPTC_DIALECTS_INITALLDIALECTS_H
#define GPTC_DIALECTS_INITALLDIALECTS_H

#include "dialects/Comm/CommDialect.h"
#include "dialects/GPT/GPTDialect.h"
#include "dialects/GPTGPU/GPTGPUDialect.h"
#include "dialects/Optim/OptimDialect.h"

#include "mlir/IR/DialectRegistry.h"

namespace gptc {

/// Adds the gpt, gptgpu, optim and comm dialects to `registry`.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::gpt::GPTDialect, mlir::gptgpu::GPTGPUDialect,
                  mlir::optim::OptimDialect, mlir::comm::CommDialect>();
}

} // namespace gptc

#endif // GPTC_DIALECTS_INITALLDIALECTS_H
