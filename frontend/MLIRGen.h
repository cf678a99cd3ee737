//===- MLIRGen.h - ModelSpec -> gpt forward graph ---------------*- C++ -*-===//
//
// Builds `func.func @forward` in the gpt dialect from a validated ModelSpec:
// attention and norms written out as the math (so the fusion passes have
// something to find), every op located at the YAML node that configured it.
//
// Signature:
//   func.func @forward(%tokens: tensor<BxTxi32>, %targets: tensor<BxTxi32>,
//                      [%step: tensor<i64>,]    // windowed masks only
//                      %params...)               // Parameters.h order
//       -> tensor<f32>                           // mean cross-entropy
// Each argument carries `gpt.name`; parameters also `gpt.param`. A
// windowed model computes its attention window from the optimizer step
// with `optim.window_schedule` (the schedule is compiled, not the
// runtime's).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_MLIRGEN_H
#define GPTC_FRONTEND_MLIRGEN_H

#include "frontend/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace gptc {

/// Returns the module, or null after emitting an error at the spec's
/// location through the context's diagnostic engine.
mlir::OwningOpRef<mlir::ModuleOp> buildForwardModule(mlir::MLIRContext &ctx,
                                                     const ModelSpec &spec);

/// Adds `func.func @update` to `module`: the optimizer step of the spec's
/// groups (optim.muon / optim.adam per parameter, schedules on the step
/// counter). Emits an error at the spec location on failure.
mlir::LogicalResult buildUpdateFunction(mlir::ModuleOp module,
                                        const ModelSpec &spec);

} // namespace gptc

#endif // GPTC_FRONTEND_MLIRGEN_H
