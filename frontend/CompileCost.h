//===- CompileCost.h - What compiling a spec is expected to cost -*- C++
//-*-===//
//
// The peak resident memory `gptc compile -o DIR` (a whole bundle) is
// expected to need for a spec, calibrated from bench/compile-memory.sh on
// the tiny specs: a fixed part (the compiler, MLIR, LLVM) and a part per
// transformer block (the ops of one block, forward and backward, through
// every stage down to machine code). Compile memory is linear in n_layer;
// it does not depend on the tensor sizes, which are only types in the IR.
//
// `gptc check` prints the estimate, and the spec checks refuse a spec whose
// estimate exceeds compile.memory_limit_mb.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_COMPILECOST_H
#define GPTC_FRONTEND_COMPILECOST_H

#include "frontend/ModelSpec.h"

#include <cstdint>

namespace gptc {

/// Expected peak RSS of compiling `spec` into a bundle, in MiB.
int64_t expectedCompileMemoryMiB(const ModelSpec &spec);

} // namespace gptc

#endif // GPTC_FRONTEND_COMPILECOST_H
