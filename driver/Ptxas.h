//===- Ptxas.h - ptxas -v of one kernel's PTX -------------------*- C++ -*-===//
//
// Finds the CUDA toolkit's programs and runs `ptxas -v` on one kernel's
// PTX for one chip: its cubin, registers, spill bytes and static shared
// memory.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_PTXAS_H
#define GPTC_DRIVER_PTXAS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace gptc {

/// A program of the CUDA toolkit (ptxas, fatbinary): under $CUDA_ROOT,
/// $CUDA_HOME, $CUDA_PATH, the configured GPTC_CUDA_TOOLKIT_DIR or
/// /usr/local/cuda (bin/NAME), else on PATH. Empty when there is none.
std::string findCudaTool(llvm::StringRef name);

/// findCudaTool("ptxas").
inline std::string findPTXAS() { return findCudaTool("ptxas"); }

/// Runs `program args` with its output in the file `log`: nothing when it
/// succeeds, else the log's last line (or why it did not run).
std::optional<std::string> runCudaTool(llvm::StringRef program,
                                       llvm::ArrayRef<llvm::StringRef> args,
                                       llvm::StringRef log);

/// ptxas -v of one kernel on one chip.
struct PTXASInfo {
  int64_t registers = -1, spillBytes = -1; ///< -1: not assembled
  int64_t sharedBytes = 0;                 ///< static shared memory
  int64_t stackBytes = 0; ///< stack frame per thread (local memory)
  std::string error;      ///< why ptxas failed
};

/// Runs `ptxas -v` on `ptx` for `chip`, through the files STEM.ptx and
/// STEM.log in `dir`; the cubin goes to `cubin` (none when empty).
PTXASInfo runPTXAS(llvm::StringRef ptxas, llvm::StringRef chip,
                   llvm::StringRef ptx, llvm::StringRef dir,
                   llvm::StringRef stem, llvm::StringRef cubin = "");

} // namespace gptc

#endif // GPTC_DRIVER_PTXAS_H
