//===- Summary.h - Human-readable summary of a spec -------------*- C++ -*-===//

#ifndef GPTC_DRIVER_SUMMARY_H
#define GPTC_DRIVER_SUMMARY_H

#include "frontend/ModelSpec.h"

#include "llvm/Support/raw_ostream.h"

namespace gptc {

/// Prints the model, its parameters by optimizer group, the masks and the
/// batch arithmetic of `spec`.
void printSummary(const ModelSpec &spec, llvm::raw_ostream &os);

} // namespace gptc

#endif // GPTC_DRIVER_SUMMARY_H
