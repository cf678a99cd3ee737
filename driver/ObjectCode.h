//===- ObjectCode.h - The step's LLVM dialect module to step.so -*- C++ -*-===//
//
// The last phases of a bundle: translation to LLVM IR, -O3 and code
// generation in parallel over parts of the module, and the link.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_OBJECTCODE_H
#define GPTC_DRIVER_OBJECTCODE_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace gptc {

class PhaseTimes;

/// Object files for the host CPU, written as `stem.N.o` (their paths in
/// `objects`). The module is translated once, split into parts (balanced
/// by size; internal symbols become hidden ones), and each part is
/// optimised at -O3 and compiled on its own thread: at most `jobs` at once
/// (0: one per core the process may use). `times`, if given, records the
/// phases. The module's body is erased once translated: a deep model's
/// MLIR and LLVM IR are never both alive.
/// The CPU name that means "the machine compiling" (its CPU and features).
inline constexpr const char *kNativeCPU = "native";

/// Whether LLVM knows `cpu` (kNativeCPU or a CPU name, e.g. x86-64-v3).
bool isKnownCPU(const std::string &cpu);

/// The CPU code is compiled for, as manifest.json records it (host_cpu):
/// LLVM's name for it and the subtarget features the code may use.
struct CPUDescription {
  std::string name;
  std::vector<std::string> features;
};

/// What `cpu` (kNativeCPU or a CPU name) means on this machine's target.
bool describeCPU(const std::string &cpu, CPUDescription &out,
                 std::string &error);

/// The step's object files, compiled for `cpu` (kNativeCPU or a CPU name);
/// the host part's IR passes at `hostOptLevel` (-O3 for a CPU step, whose
/// host does scalar arithmetic; 0 for a CUDA host, launch glue only).
bool emitObjects(mlir::ModuleOp module, const std::string &stem,
                 const std::string &cpu, unsigned jobs,
                 std::vector<std::string> &objects, std::string &error,
                 PhaseTimes *times = nullptr, unsigned hostOptLevel = 3);

/// cc -shared -o OUTPUT OBJECTS... -lomp (LLVM's OpenMP runtime) -lm
bool linkSharedObject(const std::vector<std::string> &objects,
                      const std::string &output, std::string &error);

} // namespace gptc

#endif // GPTC_DRIVER_OBJECTCODE_H
