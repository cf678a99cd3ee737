//===- Ptxas.h - ptxas -v of one kernel's PTX -------------------*- C++ -*-===//
//
// Finds the CUDA toolkit's ptxas and runs `ptxas -v` on one kernel's PTX
// for one chip: registers, spill bytes and static shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_PTXAS_H
#define GPTC_DRIVER_PTXAS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace gptc {

/// ptxas of the CUDA toolkit: under $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, the
/// configured GPTC_CUDA_TOOLKIT_DIR or /usr/local/cuda (bin/ptxas), else on
/// PATH. Empty when there is none.
std::string findPTXAS();

/// ptxas -v of one kernel on one chip.
struct PTXASInfo {
  int64_t registers = -1, spillBytes = -1; ///< -1: not assembled
  int64_t sharedBytes = 0;                 ///< static shared memory
  std::string error;                       ///< why ptxas failed
};

/// Runs `ptxas -v` on `ptx` for `chip`, through the files STEM.ptx and
/// STEM.log in `dir`.
PTXASInfo runPTXAS(llvm::StringRef ptxas, llvm::StringRef chip,
                   llvm::StringRef ptx, llvm::StringRef dir,
                   llvm::StringRef stem);

} // namespace gptc

#endif // GPTC_DRIVER_PTXAS_H
