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
#include "runtime/HostMemory.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace gptc {

using runtime::availableMemoryBytes;
using runtime::kRuntimeOverheadBytes;

/// An H100 SXM5's device memory as nvidia-smi reports it (81,559 MiB).
constexpr int64_t kH100MemoryBytes = 81559ll << 20;

/// "N GiB of an H100's 79.65 GiB (nvidia-smi, SXM5 80 GB): fits, M to
/// spare" or "... does not fit: ..." for a rank's device memory.
std::string h100Fit(int64_t bytes);

/// Prints "  memory:    ..." for `spec` (compiling it to Stage::Buffers);
/// false after errors were emitted on `ctx`.
bool printMemoryEstimate(mlir::MLIRContext &ctx, const ModelSpec &spec,
                         Target target, bool fuse, llvm::raw_ostream &os);

} // namespace gptc

#endif // GPTC_DRIVER_MEMORYESTIMATE_H
