//===- PipelineText.h - Upstream passes by their textual names --*- C++ -*-===//

#ifndef GPTC_PASSES_PIPELINETEXT_H
#define GPTC_PASSES_PIPELINETEXT_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <string>

namespace gptc {

/// Appends a textual pipeline (nested under `pm`'s anchor): upstream passes
/// are named in their textual form so that the pipeline reads like the
/// docs. Aborts on a typo, which is a bug in gptc, not a user error.
inline void addPipelineText(mlir::OpPassManager &pm, const std::string &text) {
  if (mlir::failed(mlir::parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("gptc: bad pipeline text: " + text));
}

} // namespace gptc

#endif // GPTC_PASSES_PIPELINETEXT_H
