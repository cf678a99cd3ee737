//===- StepLibrary.h - The entry points of a compiled step ------*- C++ -*-===//
//
// Loads a bundle's step.so (dlopen, RTLD_NOW | RTLD_LOCAL) and resolves
// its entry points, exported through MLIR's C interface as
// _mlir_ciface_gptc_grad_step, _mlir_ciface_gptc_update_step and
// _mlir_ciface_gptc_eval_step; each takes the arena as a gptc_arena_ref
// (runtime/gptrt.h, Arena::ref()).
// step.so leaves gptc_gemm_* undefined; the process must export them (the
// GPTCRuntime library arranges that for the executables linking it).
//
// Tests build a StepLibrary from in-process functions instead.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_STEPLIBRARY_H
#define GPTC_RUNTIME_STEPLIBRARY_H

#include "runtime/gptrt.h"

#include <string>

namespace gptc {
namespace runtime {

class StepLibrary {
public:
  StepLibrary() = default;
  /// In-process entry points (tests); no library is loaded.
  StepLibrary(gptc_step_fn grad, gptc_step_fn update, gptc_step_fn eval)
      : gradFn(grad), updateFn(update), evalFn(eval) {}
  StepLibrary(const StepLibrary &) = delete;
  StepLibrary &operator=(const StepLibrary &) = delete;

  /// Loads `path` and resolves the three entry points. Returns false and
  /// sets `error` (naming the file, with the dlerror() text). A loaded
  /// library stays loaded until the process exits: step.so links libomp,
  /// whose worker threads must not outlive its code.
  bool load(const std::string &path, std::string &error);

  bool isLoaded() const { return gradFn && updateFn && evalFn; }

  /// The layout descriptor and its hash the library exports
  /// (runtime/StepLayout.h); null when it exports none (or in-process).
  const char *layoutText() const { return layout; }
  const char *layoutHash() const { return layoutSha256; }
  /// The hash of the manifest the library was compiled with
  /// (layout::kManifestHashSymbol); null for libraries compiled before it.
  const char *manifestHash() const { return manifestSha256; }
  /// The arena's buffer units of a CUDA step (gptc-arena-buffer-units'
  /// gptc_buffer_units: n, then n [begin, end) byte ranges); null when the
  /// library has none.
  const int64_t *bufferUnits() const { return units; }

  void gradStep(gptc_arena_ref *arena) const { gradFn(arena); }
  void updateStep(gptc_arena_ref *arena) const { updateFn(arena); }
  void evalStep(gptc_arena_ref *arena) const { evalFn(arena); }
  /// gptc_logits_step: the logits at sample_pos of every row of tokens
  /// (`gptc sample`); absent from bundles compiled before it existed.
  bool hasLogitsStep() const { return logitsFn != nullptr; }
  void logitsStep(gptc_arena_ref *arena) const { logitsFn(arena); }

private:
  const int64_t *units = nullptr;
  gptc_step_fn gradFn = nullptr, updateFn = nullptr, evalFn = nullptr,
               logitsFn = nullptr;
  const char *layout = nullptr, *layoutSha256 = nullptr,
             *manifestSha256 = nullptr;
};

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_STEPLIBRARY_H
