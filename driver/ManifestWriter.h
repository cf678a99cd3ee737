//===- ManifestWriter.h - manifest.json of a step bundle --------*- C++ -*-===//

#ifndef GPTC_DRIVER_MANIFESTWRITER_H
#define GPTC_DRIVER_MANIFESTWRITER_H

#include "driver/ObjectCode.h"
#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"
#include "runtime/Manifest.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace gptc {

/// The step library a manifest describes (the runtime reads the same
/// struct back).
using runtime::StepLibraryFile;

/// What the pipeline recorded on the module for the manifest: the
/// `#gpt.arena` layout (gptc-build-step, gptc-plan-buffers) and the hash
/// of the layout descriptor step.so exports (gptc-export-layout).
struct ExportedLayout {
  mlir::Attribute arena; // a gpt::ArenaLayoutAttr, uniqued in the context
  std::string hash;
  /// gptc-count-step-flops' count (0: the pipeline did not count).
  int64_t stepFlops = 0;
};

/// Reads the exported layout of a pipeline's module, before its body is
/// translated and erased (emitObjects); an error if the pipeline did not
/// record one.
bool readExportedLayout(mlir::ModuleOp module, ExportedLayout &layout,
                        std::string &error);

/// The manifest (docs/artifact.md) of the exported layout, the parameter
/// list and run defaults of `spec` and the CPU its code is compiled for;
/// its step_library is blank until the library is linked (the library
/// embeds runtime::manifestBodySha256 of this).
bool buildManifest(const ExportedLayout &exported, const ModelSpec &spec,
                   Target target, const CPUDescription &hostCpu,
                   runtime::Manifest &manifest, std::string &error);

/// Writes `manifest` to `path` (manifest.json), atomically.
bool writeManifest(const runtime::Manifest &manifest, const std::string &path,
                   std::string &error);

} // namespace gptc

#endif // GPTC_DRIVER_MANIFESTWRITER_H
