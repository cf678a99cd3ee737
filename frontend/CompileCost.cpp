//===- CompileCost.cpp - What compiling a spec is expected to cost --------===//

#include "frontend/CompileCost.h"

namespace gptc {

namespace {

/// bench/compile-memory.sh models/tiny-r08.yaml bundle "8 16": 321 and
/// 485 MiB peak. Rounded up, so that the estimate errs on the high side.
constexpr int64_t kFixedMiB = 170;
constexpr int64_t kPerLayerMiB = 21;

} // namespace

int64_t expectedCompileMemoryMiB(const ModelSpec &spec) {
  return kFixedMiB + kPerLayerMiB * spec.model.nLayer;
}

} // namespace gptc
