//===- CompileCost.cpp - What compiling a spec is expected to cost --------===//

#include "frontend/CompileCost.h"

namespace gptc {

namespace {

/// bench/compile-time.sh's growth table (tiny-r08, whole bundle): 209,
/// 263, 372 and 596 MiB peak at 4, 12, 24 and 48 layers (2434 at 256).
/// Rounded up, so that the estimate errs on the high side.
constexpr int64_t kFixedMiB = 170;
constexpr int64_t kPerLayerMiB = 10;

} // namespace

int64_t expectedCompileMemoryMiB(const ModelSpec &spec) {
  return kFixedMiB + kPerLayerMiB * spec.model.nLayer;
}

} // namespace gptc
