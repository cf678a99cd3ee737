//===- Manifest.h - manifest.json of a step bundle --------------*- C++ -*-===//

#ifndef GPTC_TOOLS_GPTC_MANIFEST_H
#define GPTC_TOOLS_GPTC_MANIFEST_H

#include "frontend/ModelSpec.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace gptc {

/// Writes manifest.json (docs/artifact.md) from the arena layout recorded on
/// `module` by gptc-build-step and the parameter list of `spec`.
bool writeManifest(mlir::ModuleOp module, const ModelSpec &spec,
                   const std::string &path, std::string &error);

} // namespace gptc

#endif // GPTC_TOOLS_GPTC_MANIFEST_H
