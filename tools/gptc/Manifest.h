//===- Manifest.h - manifest.json of a step bundle --------------*- C++ -*-===//

#ifndef GPTC_TOOLS_GPTC_MANIFEST_H
#define GPTC_TOOLS_GPTC_MANIFEST_H

#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"
#include "runtime/Manifest.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace gptc {

/// The step library a manifest describes (the runtime reads the same
/// struct back).
using runtime::StepLibraryFile;

/// Writes manifest.json (docs/artifact.md) from the `#gpt.arena` layout
/// and the layout descriptor on `module` (gptc-build-step,
/// gptc-plan-buffers, gptc-export-layout), the parameter list and run
/// defaults of `spec`, and the step library's identity, atomically.
bool writeManifest(mlir::ModuleOp module, const ModelSpec &spec, Target target,
                   const StepLibraryFile &library, const std::string &path,
                   std::string &error);

} // namespace gptc

#endif // GPTC_TOOLS_GPTC_MANIFEST_H
