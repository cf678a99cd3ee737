//===- ReferenceInterfaces.h - ReferenceEvalOpInterface ---------*- C++ -*-===//
//
// The op interface of the reference interpreter and the registration of
// its external models on the gpt ops.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_REFERENCE_REFERENCEINTERFACES_H
#define GPTC_REFERENCE_REFERENCEINTERFACES_H

#include "reference/HostTensor.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OpDefinition.h"

#include "reference/ReferenceInterfaces.h.inc"

namespace gptc::ref {

/// Attaches ReferenceEvalOpInterface to every gpt op (as external models,
/// when the gpt dialect is loaded). Call before creating the context or
/// append the registry to it (`ctx.appendDialectRegistry(registry)`).
void registerReferenceExternalModels(mlir::DialectRegistry &registry);

} // namespace gptc::ref

#endif // GPTC_REFERENCE_REFERENCEINTERFACES_H
