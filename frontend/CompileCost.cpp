//===- CompileCost.cpp - What compiling a spec is expected to cost --------===//

#include "frontend/CompileCost.h"

namespace gptc {

namespace {

/// Whole bundles of tiny-r08 (gptc compile --time): 186-209 MiB peak at 4
/// layers (two compile threads), 325 at 128 (the MLIR pipeline; code
/// generation, split into parts, stays below it) and about 1.6 GiB at
/// 1000: 1.5 MiB per layer. Rounded up, so that the estimate errs on the
/// high side.
constexpr int64_t kFixedMiB = 190;
constexpr int64_t kPerLayerMiB = 2;

} // namespace

int64_t expectedCompileMemoryMiB(const ModelSpec &spec) {
  return kFixedMiB + kPerLayerMiB * spec.model.nLayer;
}

} // namespace gptc
