//===- MemoryEstimate.h - Training memory of one rank -----------*- C++ -*-===//
//
// What `gptc check` says a training run of a spec needs per rank: the
// arena the pipeline plans for it (exact: the parameters, gradients,
// optimizer state, batch and the step's workspace of activations and
// temporaries, read from the arena layout at Stage::Buffers) and the
// runtime's own memory, against what this machine has.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_MEMORYESTIMATE_H
#define GPTC_DRIVER_MEMORYESTIMATE_H

#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace gptc {

/// The runtime's memory beside the arena on the CPU: libraries, the data
/// loader, the GEMMs' buffers. Measured: `gptc train` of tiny-r08 peaks
/// at 113.7 MiB of RSS with a 12.8 MiB arena.
constexpr int64_t kRuntimeOverheadBytes = int64_t(100) << 20;

/// Bytes of memory this machine has available now (/proc/meminfo's
/// MemAvailable); 0 when unknown.
int64_t availableMemoryBytes();

/// Prints "  memory:    ..." for `spec` (compiling it to Stage::Buffers);
/// false after errors were emitted on `ctx`.
bool printMemoryEstimate(mlir::MLIRContext &ctx, const ModelSpec &spec,
                         Target target, bool fuse, llvm::raw_ostream &os);

} // namespace gptc

#endif // GPTC_DRIVER_MEMORYESTIMATE_H
